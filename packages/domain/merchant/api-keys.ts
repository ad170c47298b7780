import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import type { EventStore } from '../../eventstore/port.js';
import { handleSteps, step, type AnyStep } from '../../eventstore/command-handler.js';
import { auditMetadata, type Actor, type Owner } from '../audit.js';
import { MANAGING_ROLES, ROLE_SCOPES, type Role } from '../organization/events.js';
import { scopeWithin } from '../organization/scopes.js';
import { hasSecondFactor, type UserState } from '../user/decider.js';
import type { Verifications } from '../verification/commands.js';
import type { MfaPurpose } from '../verification/events.js';
import { generateApiKey, newKeySecret } from './commands.js';
import { merchantDecider, type MerchantCommand } from './decider.js';
import { merchantStream } from './events.js';

/** A rolled key keeps working at most this long (the caller picks up to it; 0 ends it at once). */
export const MAX_ROLL_GRACE_MS = 7 * 86_400_000;

/** The signed-in user managing keys: their role decides whether they may, their factors whether a challenge is needed. */
export interface KeyManager {
  userId: string;
  role: Role;
  /** A verified challenge of the operation's purpose (`api-keys/create`, `…/roll`, `…/revoke`), or null. */
  challengeId: string | null;
}

export interface ApiKeyManagementDeps {
  store: EventStore;
  clock: Clock;
  accounts: { stateOf(userId: string): Promise<UserState> };
  verifications: Pick<Verifications, 'consumption'>;
}


/**
 * API keys managed by signed-in owners and admins (docs/auth.md, "API keys"). Creating, rolling and
 * revoking are events of the merchant's stream with the user, address and user agent in their
 * metadata; a user with a second factor proves it again for each (a verified challenge of the
 * operation's purpose, used up in the same commit as the change).
 */
export class ApiKeyManagement {
  constructor(private readonly deps: ApiKeyManagementDeps) {}

  async create(owner: Owner, by: KeyManager, input: { name: string; scopes: string[] }, actor: Actor): Promise<{ id: string; secret: string }> {
    this.assertManager(by);
    const outside = input.scopes.find((s) => !scopeWithin(ROLE_SCOPES[by.role], s));
    if (outside !== undefined) throw new ApiError('IKW-VAL-001', `The scope ${outside} is wider than your role's`, 'scopes');
    const key = generateApiKey(owner.environment, input.scopes, input.name);
    await this.change(owner, by, 'api-keys/create', { type: 'create_api_key', merchantId: owner.merchantId, key: key.record, at: this.deps.clock.now() }, actor);
    return { id: key.record.keyId, secret: key.secret };
  }

  /** A new secret with the key's name and scopes; the old one works for `graceMs` more. */
  async roll(owner: Owner, by: KeyManager, keyId: string, graceMs: number, actor: Actor): Promise<{ id: string; secret: string }> {
    const at = this.deps.clock.now();
    const { secret, stored: successor } = newKeySecret(owner.environment);
    const command: MerchantCommand = { type: 'roll_api_key', merchantId: owner.merchantId, keyId, environment: owner.environment, successor, expiresAt: new Date(at.getTime() + graceMs), at };
    await this.change(owner, by, 'api-keys/roll', command, actor);
    return { id: successor.keyId, secret };
  }

  async revoke(owner: Owner, by: KeyManager, keyId: string, actor: Actor): Promise<void> {
    await this.change(owner, by, 'api-keys/revoke', { type: 'revoke_api_key', merchantId: owner.merchantId, keyId, environment: owner.environment, at: this.deps.clock.now() }, actor);
  }

  /** Owners and admins see and manage keys; other roles get 403 IKW-ACC-002. */
  assertManager(by: Pick<KeyManager, 'role'>): void {
    if (!MANAGING_ROLES.includes(by.role)) throw new ApiError('IKW-ACC-002', 'Only owners and admins manage API keys');
  }

  private async change(owner: Owner, by: KeyManager, purpose: MfaPurpose, command: MerchantCommand, actor: Actor): Promise<void> {
    this.assertManager(by);
    if (by.challengeId === null && hasSecondFactor(await this.deps.accounts.stateOf(by.userId))) {
      throw new ApiError('IKW-ACC-011', `This needs challenge_id: a verified challenge of purpose ${purpose}`, 'challenge_id');
    }
    // The challenge first, so that a store without atomic appends never records a change whose challenge was not used.
    const steps: AnyStep[] = [
      ...(by.challengeId !== null ? [this.deps.verifications.consumption(by.challengeId, purpose, null, by.userId, actor)] : []),
      step({ streamId: merchantStream(owner.merchantId), decider: merchantDecider, command, metadata: auditMetadata(this.deps.clock, owner, owner.merchantId, actor) }),
    ];
    await handleSteps(this.deps.store, steps);
  }
}
