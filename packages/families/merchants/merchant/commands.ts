import type { Clock } from '#packages/core/clock.js';
import { newId, randomBase62 } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { hashApiKey } from '#packages/core/hashing.js';
import type { DomainEvent } from '#packages/core/decider.js';
import { CommandService, step, type CommandStep } from '#packages/eventstore/command-handler.js';
import { merchantDecider, type MerchantCommand, type MerchantState, type NewSecret } from './decider.js';
import { merchantStream, type ApiKeyRecord, type LiveActivation, type MerchantEvent } from './events.js';
import type { Actor, Environment } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** A new secret (shown once) and what is stored of it: an id, its hash and its last four characters. */
export function newKeySecret(environment: Environment): { secret: string; stored: NewSecret } {
  const secret = `sk_${environment === 'live' ? 'live' : 'test'}_${randomBase62(43)}`;
  return { secret, stored: { keyId: newId('key'), keyHash: hashApiKey(secret), last4: secret.slice(-4) } };
}

/** A new key: the full secret (shown once) and the record that is stored (hash only). */
export function generateApiKey(environment: Environment, scopes: string[], name?: string): { secret: string; record: ApiKeyRecord } {
  const { secret, stored } = newKeySecret(environment);
  return { secret, record: { ...stored, environment, scopes, ...(name !== undefined ? { name } : {}) } };
}

export interface CreatedMerchant {
  id: string;
  name: string;
  api_keys: { sandbox: string; live: string };
}

/** What creating a merchant with one sandbox and one live key holding every scope writes. */
function creation(clock: Clock, name: string, actor: string, email: string | null): { created: CreatedMerchant; command: MerchantCommand; metadata: EventMetadata } {
  const merchantId = newId('acct');
  const sandbox = generateApiKey('sandbox', ['*'], 'Default key');
  const live = generateApiKey('live', ['*'], 'Default key');
  const at = clock.now();
  return {
    created: { id: merchantId, name, api_keys: { sandbox: sandbox.secret, live: live.secret } },
    command: { type: 'create_merchant', merchantId, name, email, keys: [sandbox.record, live.record], at },
    metadata: { merchant_id: merchantId, actor, occurred_at: at.toISOString() },
  };
}

/** The command that creates a merchant, as a step of a larger change (signup: with its user and organization). */
export function merchantCreation(clock: Clock, name: string, actor: string, email: string | null = null): { created: CreatedMerchant; step: CommandStep<unknown, unknown, DomainEvent> } {
  const { created, command, metadata } = creation(clock, name, actor, email);
  return { created, step: step({ streamId: merchantStream(created.id), decider: merchantDecider, command, metadata }) };
}

/** Creates a merchant with one sandbox and one live key holding every scope. `email` receives notices. */
export function createMerchant(store: EventStore, clock: Clock, name: string, actor: string, email: string | null = null): Promise<CreatedMerchant> {
  return new Merchants(store, clock).create(name, actor, email);
}

/** Merchants and their API keys; the functions around it are the same commands for callers holding only a store (the command line, tests). */
export class Merchants extends CommandService<MerchantCommand, MerchantState, MerchantEvent> {
  constructor(
    store: EventStore,
    private readonly clock: Clock,
  ) {
    super(store, merchantStream, merchantDecider);
  }

  async create(name: string, actor: string, email: string | null = null): Promise<CreatedMerchant> {
    const { created, command, metadata } = creation(this.clock, name, actor, email);
    await this.run(created.id, command, metadata);
    return created;
  }

  async createApiKey(merchantId: string, environment: Environment, scopes: string[], actor: string, name?: string): Promise<{ id: string; secret: string }> {
    const key = generateApiKey(environment, scopes, name);
    const at = this.clock.now();
    await this.run(merchantId, { type: 'create_api_key', merchantId, key: key.record, at }, { merchant_id: merchantId, environment, actor, occurred_at: at.toISOString() });
    return { id: key.record.keyId, secret: key.secret };
  }

  async revokeApiKey(merchantId: string, keyId: string, actor: string): Promise<void> {
    const at = this.clock.now();
    await this.run(merchantId, { type: 'revoke_api_key', merchantId, keyId, at }, { merchant_id: merchantId, actor, occurred_at: at.toISOString() });
  }

  /**
   * Opens (`active` true) or closes the merchant's live environment (tests' fixtures; the service
   * goes through an activation application's decision); audited on the merchant's stream. Asking for
   * the state it is in writes nothing and answers it, so a switch raced by another (or by a key
   * change) is decided again rather than refused.
   */
  async setLive(merchantId: string, active: boolean, actor: Actor): Promise<LiveActivation> {
    const result = await this.run(merchantId, { type: active ? 'activate_live' : 'deactivate_live', merchantId, at: this.clock.now() }, auditMetadata(this.clock, { merchantId, environment: 'live' }, merchantId, actor), 'internal');
    return result.state.live;
  }
}

/**
 * The merchant's live switch as a step of a larger change: an activation application's decision
 * (approval, suspension, reinstatement) commits with it, so the gates every process reads
 * (ReadPorts.liveState, evicted by `merchant.live_` events) follow the decision. Audited with
 * the deciding operator on the merchant's stream.
 */
export function liveSwitchStep(clock: Clock, merchantId: string, open: boolean, actor: Actor, suspended = false): CommandStep<unknown, unknown, DomainEvent> {
  const at = clock.now();
  const command: MerchantCommand = open ? { type: 'activate_live', merchantId, at } : { type: 'deactivate_live', merchantId, at, ...(suspended ? { suspended } : {}) };
  return step({ streamId: merchantStream(merchantId), decider: merchantDecider, command, metadata: auditMetadata(clock, { merchantId, environment: 'live' }, merchantId, actor) });
}

/** The tests' fixture for a live merchant without an application (test/support/system.ts `activateLive`): the service itself opens live only by an approval. */
export function setLiveActivation(store: EventStore, clock: Clock, merchantId: string, active: boolean, actor: Actor): Promise<LiveActivation> {
  return new Merchants(store, clock).setLive(merchantId, active, actor);
}

export function createApiKey(store: EventStore, clock: Clock, merchantId: string, environment: Environment, scopes: string[], actor: string, name?: string): Promise<{ id: string; secret: string }> {
  return new Merchants(store, clock).createApiKey(merchantId, environment, scopes, actor, name);
}

export function revokeApiKey(store: EventStore, clock: Clock, merchantId: string, keyId: string, actor: string): Promise<void> {
  return new Merchants(store, clock).revokeApiKey(merchantId, keyId, actor);
}
