import type { Clock } from '#packages/core/clock.js';
import { hashApiKey } from '#packages/core/hashing.js';
import { newId, randomBase62 } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { platformAdminDecider, type PlatformAdminCommand, type PlatformAdminState } from './decider.js';
import { PLATFORM_ADMIN_STREAM, type PlatformAdminEvent } from './events.js';

/** The shape of a platform operator credential: told apart from merchant keys before any lookup. */
export const ADMIN_KEY_SHAPE = /^sk_admin_[0-9A-Za-z]{43}$/;

/** The platform's one aggregate: every id names PLATFORM_ADMIN_STREAM. */
const PLATFORM = 'platform';

/**
 * Platform operator credentials (`bin/sika admin keys …`). Commands come from the operator's
 * command line, with nobody to retry a 409, so a lost race decides again.
 */
export class AdminKeys extends CommandService<PlatformAdminCommand, PlatformAdminState, PlatformAdminEvent> {
  constructor(
    store: EventStore,
    private readonly clock: Clock,
  ) {
    super(store, () => PLATFORM_ADMIN_STREAM, platformAdminDecider, { onConflict: 'internal' });
  }

  /** Makes a credential; the secret is returned once. */
  async create(name: string, actor: string): Promise<{ id: string; secret: string }> {
    const secret = `sk_admin_${randomBase62(43)}`;
    const keyId = newId('key');
    const at = this.clock.now().toISOString();
    await this.run(PLATFORM, { type: 'create_key', key: { keyId, keyHash: hashApiKey(secret), last4: secret.slice(-4), name, createdAt: at } }, { actor, occurred_at: at, correlation_id: keyId });
    return { id: keyId, secret };
  }

  async revoke(keyId: string, actor: string): Promise<void> {
    const at = this.clock.now();
    await this.run(PLATFORM, { type: 'revoke_key', keyId, at }, { actor, occurred_at: at.toISOString(), correlation_id: keyId });
  }
}

/** Makes a platform operator credential (`bin/sika admin keys create`); the secret is returned once. */
export function createAdminKey(store: EventStore, clock: Clock, name: string, actor: string): Promise<{ id: string; secret: string }> {
  return new AdminKeys(store, clock).create(name, actor);
}

export function revokeAdminKey(store: EventStore, clock: Clock, keyId: string, actor: string): Promise<void> {
  return new AdminKeys(store, clock).revoke(keyId, actor);
}
