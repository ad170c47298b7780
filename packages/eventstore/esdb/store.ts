import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { newUuid } from '../../core/ids.js';
import type { AppendResult, EventStore, ExpectedVersion, NewEvent, RecordedEvent, SubscribeOptions, Subscription } from '../port.js';
import {
  decodePosition,
  encodePosition,
  fromRecorded,
  isStreamNotFound,
  StreamScope,
  toClientConnectionString,
  toEventData,
  toExpectedRevision,
  toVersion,
  translateAppendError,
} from './mapping.js';
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
 * (projections/runner.ts), and writers that need read-your-writes wait for their checkpoints.
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
    const name = this.scope.toStreamName(streamId);
    const data = events.map((e) => toEventData(e, e.eventId ?? newUuid()));
    let nextExpectedRevision: bigint;
    let appendedAt: Position | undefined;
    try {
      const result = await this.client.appendToStream(name, data, { expectedRevision: toExpectedRevision(expectedVersion) });
      nextExpectedRevision = result.nextExpectedRevision;
      appendedAt = result.position;
    } catch (err) {
      throw translateAppendError(err, streamId, expectedVersion);
    }
    // Read the events back: their positions in $all (one per event, which the append does not
    // give) and the server's timestamps. Revisions never change once written.
    const nextVersion = toVersion(nextExpectedRevision);
    const first = nextVersion - events.length + 1;
    const recorded = await this.read(name, { fromRevision: BigInt(first), maxCount: events.length }, appendedAt);
    const ids = new Set(data.map((d) => d.id));
    if (recorded.length !== events.length || !recorded.every((e) => ids.has(e.eventId))) {
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
    try {
      const stream = this.client.readStream(this.scope.toStreamName(streamId), { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
      for await (const resolved of stream) {
        if (resolved.event) return toVersion(resolved.event.revision);
      }
      return 'no_stream';
    } catch (err) {
      if (isStreamNotFound(err)) return 'no_stream';
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
