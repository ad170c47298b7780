import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { handleSteps, step, type AnyStep } from '#packages/eventstore/command-handler.js';
import { MANAGING_ROLES, ROLE_SCOPES, type Role } from '#packages/families/accounts/index.js';
import { oneLine, tellOwners, type OwnerNoticeDeps } from '#packages/families/accounts/index.js';
import { scopeWithin } from '#packages/core/scopes.js';
import { hasSecondFactor, type UserState } from '#packages/families/accounts/index.js';
import type { Verifications } from '#packages/families/accounts/index.js';
import type { MfaPurpose } from '#packages/families/accounts/index.js';
import { generateApiKey, newKeySecret } from './commands.js';
import { merchantDecider, type ApiKeyState, type MerchantCommand, type MerchantState } from './decider.js';
import { merchantStream, type MerchantEvent } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** A rolled key keeps working at most this long (the caller picks up to it; 0 ends it at once). */
export const MAX_ROLL_GRACE_MS = 7 * 86_400_000;

/** The signed-in user managing keys: their role decides whether they may, their factors whether a challenge is needed. */
export interface KeyManager {
  userId: string;
  role: Role;
  /** A verified challenge of the operation's purpose (`api-keys/create`, `…/roll`, `…/revoke`), or null. */
  challengeId: string | null;
}

export interface ApiKeyManagementDeps extends OwnerNoticeDeps {
  store: EventStore;
  clock: Clock;
  accounts: { stateOf(userId: string): Promise<UserState> };
  verifications: Pick<Verifications, 'consumption'>;
}

/**
 * Who must give a challenge: for what makes a working secret (create, roll), every user, since an
 * access token alone must not mint a key that outlives it (without a second factor the challenge's
 * code goes by e-mail); for revoking, which only ends access, users with a second factor.
 */
type ChallengeRule = 'always' | 'with-second-factor';

/**
 * API keys managed by signed-in owners and admins (docs/merchants.md, "API keys"). Creating, rolling and
 * revoking are events of the merchant's stream with the user, address and user agent in their
 * metadata. Each takes a fresh proof (a verified challenge of the operation's purpose, used up in
 * the same commit as the change; `ChallengeRule` says whose), and every owner of the organization
 * is told by e-mail.
 */
export class ApiKeyManagement {
  constructor(private readonly deps: ApiKeyManagementDeps) {}

  async create(owner: Owner, by: KeyManager, input: { name: string; scopes: string[] }, actor: Actor): Promise<{ id: string; secret: string }> {
    this.assertManager(by);
    const outside = input.scopes.find((s) => !scopeWithin(ROLE_SCOPES[by.role], s));
    if (outside !== undefined) throw new Refusal('IKW-VAL-001', `The scope ${outside} is wider than your role's`, 'scopes');
    const key = generateApiKey(owner.environment, input.scopes, input.name);
    const { state } = await this.change(owner, by, 'api-keys/create', 'always', { type: 'create_api_key', merchantId: owner.merchantId, key: key.record, at: this.deps.clock.now() }, actor);
    await this.tellOwners(owner, by, 'created', key.record.keyId, state, `It works until it is revoked (…${key.record.last4} are the last characters of its secret).`);
    return { id: key.record.keyId, secret: key.secret };
  }

  /** A new secret with the key's name and scopes; the old one works for `graceMs` more. */
  async roll(owner: Owner, by: KeyManager, keyId: string, graceMs: number, actor: Actor): Promise<{ id: string; secret: string }> {
    const at = this.deps.clock.now();
    const { secret, stored: successor } = newKeySecret(owner.environment);
    const command: MerchantCommand = { type: 'roll_api_key', merchantId: owner.merchantId, keyId, environment: owner.environment, successor, expiresAt: new Date(at.getTime() + graceMs), at };
    const { state, events } = await this.change(owner, by, 'api-keys/roll', 'always', command, actor);
    const rolled = events.find((e) => e.type === 'api_key.rolled');
    const until = rolled?.type === 'api_key.rolled' ? rolled.data.expiresAt : at.toISOString();
    await this.tellOwners(owner, by, 'rolled', keyId, state, `A new secret (key ${successor.keyId}) replaces it; the old secret works until ${until}.`);
    return { id: successor.keyId, secret };
  }

  async revoke(owner: Owner, by: KeyManager, keyId: string, actor: Actor): Promise<void> {
    const { state, events } = await this.change(owner, by, 'api-keys/revoke', 'with-second-factor', { type: 'revoke_api_key', merchantId: owner.merchantId, keyId, environment: owner.environment, at: this.deps.clock.now() }, actor);
    // Revoking a revoked key changes nothing, and tells no one.
    if (events.length > 0) await this.tellOwners(owner, by, 'revoked', keyId, state, 'It no longer works.');
  }

  /** Owners and admins see and manage keys; other roles get 403 IKW-ACC-002. */
  assertManager(by: Pick<KeyManager, 'role'>): void {
    if (!MANAGING_ROLES.includes(by.role)) throw new Refusal('IKW-ACC-002', 'Only owners and admins manage API keys');
  }

  private async change(owner: Owner, by: KeyManager, purpose: MfaPurpose, rule: ChallengeRule, command: MerchantCommand, actor: Actor): Promise<{ state: MerchantState; events: MerchantEvent[] }> {
    this.assertManager(by);
    if (by.challengeId === null && (rule === 'always' || hasSecondFactor(await this.deps.accounts.stateOf(by.userId)))) {
      throw new Refusal('IKW-ACC-011', `This needs challenge_id: a challenge of purpose ${purpose} (POST /api/v1/auth/mfa/challenge), verified within its 5 minutes`, 'challengeId');
    }
    // The challenge first, so that a store without atomic appends never records a change whose challenge was not used.
    const steps: AnyStep[] = [
      ...(by.challengeId !== null ? [this.deps.verifications.consumption(by.challengeId, purpose, null, by.userId, actor)] : []),
      step({ streamId: merchantStream(owner.merchantId), decider: merchantDecider, command, metadata: auditMetadata(this.deps.clock, owner, owner.merchantId, actor) }),
    ];
    return (await handleSteps(this.deps.store, steps)).at(-1)! as { state: MerchantState; events: MerchantEvent[] };
  }

  /** Every owner learns who made, rolled or revoked which key: a key made with a stolen session does not go unseen. */
  private async tellOwners(owner: Owner, by: KeyManager, what: 'created' | 'rolled' | 'revoked', keyId: string, state: MerchantState, consequence: string): Promise<void> {
    const key: ApiKeyState | undefined = state.keys.get(keyId);
    const named = key?.name ? ` Its name, as your team wrote it: "${oneLine(key.name)}".` : '';
    const scopes = key && what !== 'revoked' ? ` Its scopes: ${key.scopes.join(', ')}.` : '';
    const advice =
      what === 'revoked'
        ? 'If you did not expect this, review who can manage keys, and make a new key wherever this one was in use.'
        : `If you did not expect this, revoke the ${what === 'rolled' ? 'new ' : ''}key in the dashboard (Developers) and review who can manage keys.`;
    await tellOwners(this.deps, owner.merchantId, by.userId, (who) => ({
      subject: `A ${owner.environment} API key was ${what} for your merchant on Sika`,
      text: `${who} ${what} the ${owner.environment} API key ${keyId} of merchant ${owner.merchantId} at ${this.deps.clock.now().toISOString()}.${named} ${consequence}${scopes} ${advice}`,
    }));
  }
}
