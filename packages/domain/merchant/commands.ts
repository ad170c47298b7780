import type { Clock } from '../../core/clock.js';
import { newId, randomBase62 } from '../../core/ids.js';
import type { EventStore } from '../../eventstore/port.js';
import { hashApiKey } from '../../core/hashing.js';
import type { DomainEvent } from '../../core/decider.js';
import { handleCommand, handleSteps, step, type CommandStep } from '../../eventstore/command-handler.js';
import { merchantDecider } from './decider.js';
import { merchantStream, type ApiKeyRecord, type Environment } from './events.js';

/** A new key: the full secret (shown once) and the record that is stored (hash only). */
export function generateApiKey(environment: Environment, scopes: string[]): { secret: string; record: ApiKeyRecord } {
  const secret = `sk_${environment === 'live' ? 'live' : 'test'}_${randomBase62(43)}`;
  return {
    secret,
    record: { keyId: newId('key'), environment, keyHash: hashApiKey(secret), last4: secret.slice(-4), scopes },
  };
}

export interface CreatedMerchant {
  id: string;
  name: string;
  api_keys: { sandbox: string; live: string };
}

/** The command that creates a merchant with one sandbox and one live key holding every scope, as a step of a larger change. */
export function merchantCreation(clock: Clock, name: string, actor: string, email: string | null = null): { created: CreatedMerchant; step: CommandStep<unknown, unknown, DomainEvent> } {
  const merchantId = newId('acct');
  const sandbox = generateApiKey('sandbox', ['*']);
  const live = generateApiKey('live', ['*']);
  const at = clock.now();
  return {
    created: { id: merchantId, name, api_keys: { sandbox: sandbox.secret, live: live.secret } },
    step: step({
      streamId: merchantStream(merchantId),
      decider: merchantDecider,
      command: { type: 'create_merchant', merchantId, name, email, keys: [sandbox.record, live.record], at },
      metadata: { merchant_id: merchantId, actor, occurred_at: at.toISOString() },
    }),
  };
}

/** Creates a merchant with one sandbox and one live key holding every scope. `email` receives notices. */
export async function createMerchant(store: EventStore, clock: Clock, name: string, actor: string, email: string | null = null): Promise<CreatedMerchant> {
  const { created, step: creation } = merchantCreation(clock, name, actor, email);
  await handleSteps(store, [creation]);
  return created;
}

export async function createApiKey(
  store: EventStore,
  clock: Clock,
  merchantId: string,
  environment: Environment,
  scopes: string[],
  actor: string,
): Promise<{ id: string; secret: string }> {
  const key = generateApiKey(environment, scopes);
  const at = clock.now();
  await handleCommand(
    store,
    merchantStream(merchantId),
    merchantDecider,
    { type: 'create_api_key', merchantId, key: key.record, at },
    { merchant_id: merchantId, environment, actor, occurred_at: at.toISOString() },
  );
  return { id: key.record.keyId, secret: key.secret };
}

export async function revokeApiKey(store: EventStore, clock: Clock, merchantId: string, keyId: string, actor: string): Promise<void> {
  const at = clock.now();
  await handleCommand(
    store,
    merchantStream(merchantId),
    merchantDecider,
    { type: 'revoke_api_key', merchantId, keyId, at },
    { merchant_id: merchantId, actor, occurred_at: at.toISOString() },
  );
}
