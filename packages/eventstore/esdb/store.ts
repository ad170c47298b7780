import { BACKWARDS, END, EventStoreDBClient, FORWARDS, START, type Position, type ResolvedEvent } from '@eventstore/db-client';
import { newUuid } from '#packages/core/ids.js';
import { chainHashes, GENESIS_HASH } from '../hash-chain.js';
import { VersionConflictError, type AppendResult, type EventStore, type ExpectedVersion, type NewEvent, type RecordedEvent, type SubscribeOptions, type Subscription } from '../port.js';
import { decodePosition, encodePosition, fromRecorded, isStreamNotFound, knownPosition, StreamScope, toClientConnectionString, toEventData, toExpectedRevision, toVersion, translateAppendError } from './mapping.js';
import type { EsdbClient } from './client.js';
import { OpenSubscriptions } from '../subscription.js';
import { EsdbSubscription } from './subscription.js';

export interface EsdbEventStoreOptions {
  /**
   * Scopes the store to streams named `prefix + streamId` (see StreamScope): the global log shows
   * only those. Empty (the default) = every non-system stream of the server.
   */
  streamPrefix?: string;
  /** Back-off before a failed batch is retried or a dropped subscription resubscribes (500 ms). */
  retryDelayMs?: number;
  /** Events read from $all per request when paging the global log (512). */
  readPageSize?: number;
}

/**
 * The event store port over EventStoreDB (`@eventstore/db-client` v6). Streams map to streams
 * (versions are revisions, 0-based in both); the global log is `$all` without system events;
 * positions are `commit:prepare`, zero-padded so that string order is log order. EventStoreDB
 * cannot run projections inside an append: read models follow through subscriptions
 * (packages/read-models/runner.ts), and writers that need read-your-writes wait for their checkpoints.
 */
export class EsdbEventStore implements EventStore {
  private readonly scope: StreamScope;
  private readonly subscriptions = new OpenSubscriptions();

  constructor(
    private readonly client: EsdbClient,
    private readonly options: EsdbEventStoreOptions = {},
  ) {
    this.scope = new StreamScope(options.streamPrefix ?? '');
  }

  /** `esdb://host:2113?tls=false` (or `kurrentdb://…`, `esdb+discover://…`). Connects lazily, on the first call. */
  static connect(url: string, options: EsdbEventStoreOptions = {}): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(toClientConnectionString(url)), options);
  }

  async append(streamId: string, events: NewEvent[], { expectedVersion }: { expectedVersion: ExpectedVersion }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const symbolic = expectedVersion === 'any' || expectedVersion === 'stream_exists';
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.appendChained(streamId, events, expectedVersion);
      } catch (err) {
        // A symbolic expectation was made concrete to chain from the last event: only a race was lost
        // (the service's commands always name a version; a burst of 'any' writers may need many rounds).
        if (err instanceof VersionConflictError && symbolic && attempt < 100) continue;
        if (err instanceof VersionConflictError && symbolic) throw new VersionConflictError(streamId, expectedVersion, err.actual);
        throw err;
      }
    }
  }

  /**
   * Appends after the event the new ones chain from (hash-chain.ts): the event at the expected
   * version, or for 'any' and 'stream_exists' the stream's last event, whose version then becomes
   * the expectation, so the server refuses the append if another writer came between.
   */
  private async appendChained(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion): Promise<AppendResult> {
    const name = this.scope.toStreamName(streamId);
    let expected: number | 'no_stream';
    let previous = GENESIS_HASH;
    if (expectedVersion === 'any' || expectedVersion === 'stream_exists') {
      const last = await this.lastEvent(name);
      if (!last && expectedVersion === 'stream_exists') throw new VersionConflictError(streamId, expectedVersion, 'no_stream');
      expected = last ? last.version : 'no_stream';
      previous = last?.hash ?? GENESIS_HASH;
    } else {
      expected = expectedVersion;
      if (expected !== 'no_stream') {
        toExpectedRevision(expected); // refuses a negative or fractional version before it reaches a read
        const [at] = await this.read(name, { fromRevision: BigInt(expected), maxCount: 1 });
        // No such event: the server refuses the expectation below.
        if (at?.version === expected) previous = at.hash;
      }
    }
    const ids = events.map((e) => e.eventId ?? newUuid());
    const base = expected === 'no_stream' ? 0 : expected + 1;
    const hashes = chainHashes(
      previous,
      events.map((e, i) => ({ streamId, version: base + i, eventId: ids[i]!, type: e.type, data: e.data, metadata: e.metadata ?? {} })),
    );
    const data = events.map((e, i) => toEventData(e, ids[i]!, hashes[i]!));
    let nextExpectedRevision: bigint;
    let appendedAt: Position | undefined;
    try {
      const result = await this.client.appendToStream(name, data, { expectedRevision: toExpectedRevision(expected) });
      nextExpectedRevision = result.nextExpectedRevision;
      appendedAt = result.position;
    } catch (err) {
      throw translateAppendError(err, streamId, expected);
    }
    // Read the events back: their positions in $all (one per event, which the append does not
    // give) and the server's timestamps. Revisions never change once written.
    const nextVersion = toVersion(nextExpectedRevision);
    const first = nextVersion - events.length + 1;
    const recorded = await this.read(name, { fromRevision: BigInt(first), maxCount: events.length }, appendedAt);
    const written = new Set(ids);
    if (recorded.length !== events.length || !recorded.every((e) => written.has(e.eventId))) {
      // Only an idempotent retry of an earlier append (same event ids) lands elsewhere; report what the stream holds.
      throw new Error(`Appended events of ${streamId} not found at versions ${first}..${nextVersion}`);
    }
    const last = recorded[recorded.length - 1]!;
    return { nextVersion, position: last.position, events: recorded };
  }

  async readStream(streamId: string, options: { fromVersion?: number } = {}): Promise<RecordedEvent[]> {
    const from = options.fromVersion ?? 0;
    if (!Number.isSafeInteger(from) || from < 0) throw new RangeError(`fromVersion must be a whole number >= 0, got ${from}`);
    return this.read(this.scope.toStreamName(streamId), { fromRevision: BigInt(from) });
  }

  private async read(name: string, options: { fromRevision: bigint; maxCount?: number }, lastFallback?: Position): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      const stream = this.client.readStream(name, { fromRevision: options.fromRevision, direction: FORWARDS, ...(options.maxCount ? { maxCount: options.maxCount } : {}) });
      const raw: ResolvedEvent[] = [];
      for await (const resolved of stream) raw.push(resolved);
      raw.forEach((resolved, i) => {
        if (!resolved.event) return;
        const event = fromRecorded(resolved.event, this.scope, i === raw.length - 1 ? lastFallback : undefined);
        if (event) out.push(event);
      });
    } catch (err) {
      if (isStreamNotFound(err)) return [];
      throw err;
    }
    return out;
  }

  async streamVersion(streamId: string): Promise<number | 'no_stream'> {
    const last = await this.lastEvent(this.scope.toStreamName(streamId));
    return last ? last.version : 'no_stream';
  }

  private async lastEvent(name: string): Promise<RecordedEvent | null> {
    try {
      const stream = this.client.readStream(name, { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
      for await (const resolved of stream) {
        if (resolved.event) return fromRecorded(resolved.event, this.scope, knownPosition(resolved.event.position) ?? undefined);
      }
      return null;
    } catch (err) {
      if (isStreamNotFound(err)) return null;
      throw err;
    }
  }

  async readAll(after: string | null, limit: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    if (limit <= 0) return out;
    const pageSize = Math.max(this.options.readPageSize ?? 512, limit + 1);
    // $all also holds system records and other scopes' streams: page until `limit` events of ours.
    let from = after;
    for (;;) {
      const page = await this.readAllPage(from, FORWARDS, pageSize);
      let progressed = false;
      for (const { position, event } of page) {
        // Reading from a position may include it: never hand back the checkpoint itself.
        if (from !== null && position <= from) continue;
        progressed = true;
        from = position;
        if (event) out.push(event);
        if (out.length === limit) return out;
      }
      if (page.length < pageSize || !progressed) return out;
    }
  }

  async headPosition(): Promise<string | null> {
    const pageSize = this.options.readPageSize ?? 512;
    let before: string | null = null;
    for (;;) {
      const page = await this.readAllPage(before, BACKWARDS, pageSize);
      let progressed = false;
      for (const { position, event } of page) {
        if (before !== null && position >= before) continue;
        progressed = true;
        before = position;
        if (event) return event.position;
      }
      if (page.length < pageSize || !progressed) return null;
    }
  }

  /** One page of $all from a position (or an end), with each record's position and, when it is ours, the event. */
  private async readAllPage(from: string | null, direction: typeof FORWARDS | typeof BACKWARDS, maxCount: number): Promise<{ position: string; event: RecordedEvent | null }[]> {
    const fromPosition = from !== null ? decodePosition(from) : direction === FORWARDS ? START : END;
    const stream = this.client.readAll({ fromPosition, direction, maxCount, resolveLinkTos: false });
    const page: { position: string; event: RecordedEvent | null }[] = [];
    for await (const resolved of stream) {
      const raw = resolved.event;
      if (!raw) continue;
      const event = fromRecorded(raw, this.scope);
      page.push({ position: event?.position ?? encodePosition(raw.position), event });
    }
    return page;
  }

  subscribe(options: SubscribeOptions): Subscription {
    const sub = new EsdbSubscription({
      ...options,
      client: this.client,
      scope: this.scope,
      head: () => this.headPosition(),
      retryDelayMs: this.options.retryDelayMs ?? 500,
    });
    return this.subscriptions.track(sub);
  }

  async close(): Promise<void> {
    await this.subscriptions.stopAll();
    await this.client.dispose();
  }
}
