import type { Clock } from '../../core/clock.js';
import { hashApiKey } from '../../core/hashing.js';
import { newId, randomBase62 } from '../../core/ids.js';
import { handleCommand } from '../../eventstore/command-handler.js';
import type { EventStore } from '../../eventstore/port.js';
import { platformAdminDecider } from './decider.js';
import { PLATFORM_ADMIN_STREAM } from './events.js';

/** The shape of a platform operator credential: told apart from merchant keys before any lookup. */
export const ADMIN_KEY_SHAPE = /^sk_admin_[0-9A-Za-z]{43}$/;

/** Makes a platform operator credential (`bin/sika admin keys create`); the secret is returned once. */
export async function createAdminKey(store: EventStore, clock: Clock, name: string, actor: string): Promise<{ id: string; secret: string }> {
  const secret = `sk_admin_${randomBase62(43)}`;
  const keyId = newId('key');
  const at = clock.now().toISOString();
  await handleCommand(
    store,
    PLATFORM_ADMIN_STREAM,
    platformAdminDecider,
    { type: 'create_key', key: { keyId, keyHash: hashApiKey(secret), last4: secret.slice(-4), name, createdAt: at } },
    { actor, occurred_at: at, correlation_id: keyId },
    { onConflict: 'internal' },
  );
  return { id: keyId, secret };
}

export async function revokeAdminKey(store: EventStore, clock: Clock, keyId: string, actor: string): Promise<void> {
  const at = clock.now();
  await handleCommand(store, PLATFORM_ADMIN_STREAM, platformAdminDecider, { type: 'revoke_key', keyId, at }, { actor, occurred_at: at.toISOString(), correlation_id: keyId }, { onConflict: 'internal' });
}
