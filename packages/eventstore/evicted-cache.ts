import { systemClock, type Clock } from '#packages/core/clock.js';
import type { EventStore, RecordedEvent, Subscription } from './port.js';

/** Entries one cache keeps (least recently used beyond that are dropped). */
const REMEMBERED = 10_000;
/** A backstop by default: an entry is read again after this long even if no event evicted it. */
const REMEMBER_MS = 60_000;
/** How soon another process's change reaches this process's cache. */
const OTHER_PROCESSES_POLL_MS = 1_000;

/**
 * Values read from read models, remembered per process and evicted by the events that change them
 * (docs/performance.md). Each entry belongs to a scope; `scopesOf` names the scopes an event
 * changes. This process's commits evict at once (`evict`, called by the store's commit listener);
 * other processes' within a second, through a subscription to the log started by the first read,
 * which reads it every second rather than at each commit (that would cost a read per command).
 */
export class EvictedByEvents<V> {
  private readonly entries = new Map<string, { value: V; scope: string; until: number }>();
  /** Bumped by every eviction: a read that overlapped one does not store what it read. */
  private generation = 0;
  private watching: Promise<Subscription> | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly scopesOf: (event: RecordedEvent) => readonly string[],
    /** How long an entry is trusted without an eviction (60 s), by this clock (the system's). */
    private readonly remember: { ms?: number; clock?: Clock } = {},
  ) {}

  /** The remembered value of `key`, else `read()`'s; remembered under the scope `scopeOf` gives it (null: not remembered). */
  async get(key: string, read: () => Promise<V>, scopeOf: (value: V) => string | null): Promise<V> {
    const now = () => (this.remember.clock ?? systemClock).now().getTime();
    const hit = this.entries.get(key);
    if (hit && hit.until > now()) return hit.value;
    await (this.watching ??= this.watch());
    const generation = this.generation;
    const value = await read();
    this.entries.delete(key);
    const scope = scopeOf(value);
    if (scope !== null && generation === this.generation) {
      this.entries.set(key, { value, scope, until: now() + (this.remember.ms ?? REMEMBER_MS) });
      if (this.entries.size > REMEMBERED) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  /** Forgets the entries of the scopes these events change. */
  evict(events: readonly RecordedEvent[]): void {
    const scopes = events.flatMap((e) => this.scopesOf(e));
    if (scopes.length > 0) this.forget(scopes);
  }

  /** Forgets the entries of these scopes (null: every entry); a read in flight does not store what it read. */
  forget(scopes: readonly string[] | null): void {
    this.generation++;
    if (scopes === null) return this.entries.clear();
    const forgotten = new Set(scopes);
    for (const [key, entry] of this.entries) if (forgotten.has(entry.scope)) this.entries.delete(key);
  }

  /** Resolves once every event committed so far, by any process, has evicted what it changes. */
  async caughtUp(): Promise<void> {
    await (await (this.watching ??= this.watch())).caughtUp();
  }

  private async watch(): Promise<Subscription> {
    const after = await this.store.headPosition();
    return this.store.subscribe({ after, handle: async (events) => this.evict(events), pollOnlyEveryMs: OTHER_PROCESSES_POLL_MS });
  }
}
