import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { DatabaseNotifications } from '#packages/core/notifications.js';
import type { MerchantEvent } from '../merchant/events.js';
import { EvictedByEvents } from '#packages/eventstore/evicted-cache.js';
import type { EventStore, RecordedEvent } from '#packages/eventstore/port.js';
import { API_KEY_ENDS_CHANNEL, findApiKeyByHash, usable, type ApiKeyRow } from './api-keys.js';

const KEY_EVENTS = new Set(['api_key.created', 'api_key.rolled', 'api_key.revoked']);

/**
 * How long a remembered key is trusted without hearing of it: the bound on a revocation's reach
 * should every notification of it be lost (docs/merchants.md, "API keys").
 */
export const API_KEY_REMEMBER_MS = 1_000;
/** Revocations and rolls seen in the log whose row has not been read saying so yet (a bound on memory, not on correctness). */
const ENDS_KEPT = 10_000;

/** What the log says of a key's end, before its row may: when it was revoked, when it stops working after a roll. */
interface KeyEnd {
  revokedAt?: Date;
  expiresAt?: Date;
}

/**
 * The API keys requests presented, by hash, so that a request does not read read.api_keys
 * (docs/performance.md): only live keys are remembered, never an unknown hash, for at most
 * API_KEY_REMEMBER_MS. A key is forgotten by every process when the transaction that writes its
 * revocation or roll to the read model commits (its notification, API_KEY_ENDS_CHANNEL), and by
 * this process at its own commits and when the log it follows shows one. A revocation or roll the
 * log showed is applied to the key's row as read, so that a row the read model has not caught up
 * with yet (EventStoreDB's projector behind) is never remembered as live again.
 */
export class ApiKeyCache extends EvictedByEvents<ApiKeyRow | undefined> {
  private readonly ends = new Map<string, KeyEnd>();
  private listening: Promise<unknown> | null = null;

  constructor(
    private readonly knex: Knex,
    store: EventStore,
    private readonly notifications: DatabaseNotifications,
    clock: Clock,
  ) {
    super(store, (e) => (KEY_EVENTS.has(e.type) ? [(e.data as { keyId: string }).keyId] : []), { ms: API_KEY_REMEMBER_MS, clock });
  }

  async find(keyHash: string): Promise<ApiKeyRow | undefined> {
    // Null: notifications may have been lost meanwhile, so every key is read again.
    await (this.listening ??= this.notifications.listen(API_KEY_ENDS_CHANNEL, (keyId) => this.forget(keyId === null ? null : [keyId])));
    return this.get(
      keyHash,
      async () => this.withEnds(await findApiKeyByHash(this.knex, keyHash)),
      (row) => (row && row.revoked_at === null ? row.id : null),
    );
  }

  override evict(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      const e = event as unknown as MerchantEvent;
      if (e.type === 'api_key.revoked') this.ended(e.data.keyId, { revokedAt: new Date(e.data.revokedAt) });
      if (e.type === 'api_key.rolled') this.ended(e.data.keyId, { expiresAt: new Date(e.data.expiresAt) });
    }
    super.evict(events);
  }

  private ended(keyId: string, end: KeyEnd): void {
    this.ends.set(keyId, { ...this.ends.get(keyId), ...end });
    if (this.ends.size > ENDS_KEPT) this.ends.delete(this.ends.keys().next().value!);
  }

  /** The row with what the log said of its end; once the row says it too, the log's word is no longer needed. */
  private withEnds(row: ApiKeyRow | undefined): ApiKeyRow | undefined {
    const end = row && this.ends.get(row.id);
    if (!row || !end) return row;
    if ((end.revokedAt === undefined || row.revoked_at !== null) && (end.expiresAt === undefined || row.expires_at !== null)) {
      this.ends.delete(row.id);
      return row;
    }
    return { ...row, revoked_at: row.revoked_at ?? end.revokedAt ?? null, expires_at: row.expires_at ?? end.expiresAt ?? null };
  }
}

/**
 * API keys as the HTTP kernel checks them (its ApiKeyLookup port): the usable key presented, by the
 * SHA-256 of its secret, its use recorded (`last_used`); undefined for one unknown, revoked or expired.
 */
export function apiKeyCredentials(keys: ApiKeyCache, usage: { used(keyId: string): Promise<void> }, clock: Clock) {
  return async (keyHash: string): Promise<ApiKeyRow | undefined> => {
    const key = await keys.find(keyHash);
    if (!key || !usable(key, clock.now())) return undefined;
    await usage.used(key.id);
    return key;
  };
}
