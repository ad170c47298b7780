import type { Knex } from 'knex';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/port.js';
import { findApiKeyByHash, type ApiKeyRow } from '../../projections/api-keys.js';

/** Keys one process remembers (least recently used beyond that are dropped). */
const REMEMBERED_KEYS = 10_000;
/** A backstop: a remembered key is read again after this long even if no event evicted it. */
const REMEMBER_MS = 60_000;
const KEY_EVENTS = new Set(['api_key.created', 'api_key.revoked']);

/**
 * The API keys requests presented, by hash, so that a request does not read read.api_keys
 * (docs/performance.md). Only live keys are remembered, never an unknown hash. A key's own events
 * evict it: this process's commits at once (`evict`, from the store's commit listener), other
 * processes' through a subscription to the event log that starts with the first lookup.
 */
export class ApiKeyCache {
  private readonly byHash = new Map<string, { row: ApiKeyRow; until: number }>();
  /** Bumped by every eviction: a lookup that overlapped one does not store what it read. */
  private generation = 0;
  private watching: Promise<Subscription> | null = null;

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
  ) {}

  async find(keyHash: string): Promise<ApiKeyRow | undefined> {
    const hit = this.byHash.get(keyHash);
    if (hit && hit.until > Date.now()) return hit.row;
    await (this.watching ??= this.watch());
    const generation = this.generation;
    const row = await findApiKeyByHash(this.knex, keyHash);
    this.byHash.delete(keyHash);
    if (row && row.revoked_at === null && generation === this.generation) {
      this.byHash.set(keyHash, { row, until: Date.now() + REMEMBER_MS });
      if (this.byHash.size > REMEMBERED_KEYS) this.byHash.delete(this.byHash.keys().next().value!);
    }
    return row;
  }

  /** Forgets the keys these events change. */
  evict(events: readonly RecordedEvent[]): void {
    const changed = new Set(events.filter((e) => KEY_EVENTS.has(e.type)).map((e) => (e.data as { keyId: string }).keyId));
    if (changed.size === 0) return;
    this.generation++;
    for (const [hash, { row }] of this.byHash) if (changed.has(row.id)) this.byHash.delete(hash);
  }

  /** Resolves once every event committed so far, by any process, has evicted what it changes. */
  async caughtUp(): Promise<void> {
    await (await (this.watching ??= this.watch())).caughtUp();
  }

  private async watch(): Promise<Subscription> {
    const after = await this.store.headPosition();
    return this.store.subscribe({
      after,
      handle: async (events) => this.evict(events),
    });
  }
}
