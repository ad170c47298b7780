import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import {
  ANY,
  BACKWARDS,
  END,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamRecordedEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendResult,
  type AppendToStreamOptions,
  type EventData,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ResolvedEvent,
  type StreamingRead,
  type SubscribeToAllOptions,
} from '@eventstore/db-client';
import type { EsdbClient } from '#packages/eventstore/esdb/client.js';

/**
 * An in-memory stand-in for the parts of EventStoreDB the adapter uses, written from the client's
 * documented behaviour: expected revisions and WrongExpectedVersionError, StreamNotFoundError on
 * reads of missing streams, $all with system records interleaved, events of one write sharing a
 * commit position (ordered by prepare), inclusive reads from a position, exclusive subscriptions,
 * server-side filters, backpressure, and dropped subscriptions. It exercises the adapter's own
 * logic here, where no server runs; it is NOT evidence about the real server (the contract suite
 * against ESDB_URL is).
 */
export interface EmulatorOptions {
  /** Drop every subscription after it has delivered this many events (like "reading buffer overflow"). */
  dropSubscriptionsEvery?: number;
}

interface Row {
  event: AllStreamRecordedEvent;
}

function cmp(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  return a.prepare === b.prepare ? 0 : a.prepare < b.prepare ? -1 : 1;
}

function streamingRead<E>(source: () => AsyncGenerator<E>): StreamingRead<E> {
  const readable = Readable.from(source(), { objectMode: true });
  return Object.assign(readable, { cancel: async () => void readable.destroy() });
}

export class EsdbEmulator implements EsdbClient {
  private readonly log: Row[] = [];
  private readonly revisions = new Map<string, bigint>();
  private nextPosition = 1000n;
  private readonly appended = new EventEmitter();

  constructor(private readonly options: EmulatorOptions = {}) {
    this.appended.setMaxListeners(0);
    this.system('$stats-emulator', '$statsCollected');
  }

  /** Writes a system record into $all (stats, metadata), which the adapter must never show. */
  system(streamId: string, type: string): void {
    this.write(streamId, [{ id: crypto.randomUUID(), contentType: 'application/json', type, data: {}, metadata: undefined }]);
  }

  private write(streamName: string, events: EventData[]): { last: bigint; position: Position } {
    const current = this.revisions.get(streamName);
    let revision = current === undefined ? -1n : current;
    // One write: a prepare per event, one shared commit position after them.
    const prepares = events.map(() => (this.nextPosition += 37n));
    const commit = (this.nextPosition += 11n);
    events.forEach((e, i) => {
      revision += 1n;
      const base = { streamId: streamName, id: e.id, revision, type: e.type, created: new Date(), position: { commit, prepare: prepares[i]! } };
      const metadata = e.metadata === undefined ? undefined : e.metadata instanceof Uint8Array ? e.metadata : (JSON.parse(JSON.stringify(e.metadata)) as Record<string, unknown>);
      const event: AllStreamRecordedEvent =
        e.contentType === 'application/json' ? { ...base, isJson: true, data: JSON.parse(JSON.stringify(e.data)) as Record<string, unknown>, metadata } : { ...base, isJson: false, data: e.data, metadata };
      this.log.push({ event });
    });
    this.revisions.set(streamName, revision);
    this.appended.emit('append');
    return { last: revision, position: { commit, prepare: prepares[prepares.length - 1]! } };
  }

  async appendToStream(streamName: string, events: EventData[], options: AppendToStreamOptions): Promise<AppendResult> {
    await new Promise((r) => setImmediate(r)); // a network hop: concurrent appends interleave
    const expected = options.expectedRevision ?? ANY;
    const current = this.revisions.get(streamName);
    const ok = expected === ANY || (expected === NO_STREAM && current === undefined) || (expected === STREAM_EXISTS && current !== undefined) || (typeof expected === 'bigint' && current === expected);
    if (!ok) throw new WrongExpectedVersionError(undefined, { streamName, expected, current: current ?? NO_STREAM });
    const { last, position } = this.write(streamName, events);
    if (Math.random() < 0.3) this.system(`$$${streamName}`, '$metadata');
    return { success: true, nextExpectedRevision: last, position };
  }

  readStream(streamName: string, options: ReadStreamOptions): StreamingRead<ResolvedEvent> {
    const rows = this.log.filter((r) => r.event.streamId === streamName).map((r) => r.event);
    const backwards = options.direction === BACKWARDS;
    const from = options.fromRevision ?? (backwards ? END : START);
    const max = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
    return streamingRead(async function* () {
      await new Promise((r) => setImmediate(r));
      if (rows.length === 0) throw new StreamNotFoundError(undefined, streamName);
      const ordered = backwards ? [...rows].reverse() : rows;
      let n = 0;
      for (const event of ordered) {
        if (typeof from === 'bigint' && (backwards ? event.revision > from : event.revision < from)) continue;
        if (n++ >= max) return;
        yield { event };
      }
    });
  }

  readAll(options: ReadAllOptions): StreamingRead<AllStreamResolvedEvent> {
    const log = [...this.log];
    const backwards = options.direction === BACKWARDS;
    const from = options.fromPosition ?? (backwards ? END : START);
    const max = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
    return streamingRead(async function* () {
      await new Promise((r) => setImmediate(r));
      const ordered = backwards ? log.reverse() : log;
      let n = 0;
      for (const { event } of ordered) {
        // Reads from a position include it.
        if (typeof from === 'object' && (backwards ? cmp(event.position, from) > 0 : cmp(event.position, from) < 0)) continue;
        if (n++ >= max) return;
        yield { event, commitPosition: event.position.commit };
      }
    });
  }

  subscribeToAll(options: SubscribeToAllOptions): AllStreamSubscription {
    const from = options.fromPosition ?? START;
    const filter = options.filter;
    const matches = (e: AllStreamRecordedEvent) => {
      if (!filter) return true;
      const subject = filter.filterOn === 'eventType' ? e.type : e.streamId;
      return 'regex' in filter ? new RegExp(filter.regex).test(subject) : filter.prefixes.some((p) => subject.startsWith(p));
    };
    // Subscriptions start after the position (exclusive).
    let index = from === START ? 0 : from === END ? this.log.length : this.log.findIndex((r) => cmp(r.event.position, from) > 0);
    if (index < 0) index = this.log.length;
    let delivered = 0;
    let waiting = false;
    const log = this.log;
    const appended = this.appended;
    const dropEvery = this.options.dropSubscriptionsEvery;
    const onAppend = () => {
      if (!waiting) return;
      waiting = false;
      pump();
    };
    appended.on('append', onAppend);
    const pump = () => {
      while (index < log.length) {
        const { event } = log[index++]!;
        if (!matches(event)) continue;
        if (dropEvery !== undefined && delivered > 0 && delivered % dropEvery === 0) {
          delivered++;
          readable.destroy(new Error('Subscription dropped: reading buffer overflow'));
          return;
        }
        delivered++;
        if (!readable.push({ event, commitPosition: event.position.commit })) return;
      }
      waiting = true;
    };
    const readable = new Readable({
      objectMode: true,
      highWaterMark: 16,
      read: () => setImmediate(pump),
      destroy: (err, cb) => {
        appended.off('append', onAppend);
        cb(err);
      },
    });
    const subscription: AllStreamSubscription = Object.assign(readable, { unsubscribe: async () => void readable.destroy() });
    return subscription;
  }

  /** The emulated server outlives its clients; subscriptions end with their unsubscribe. */
  async dispose(): Promise<void> {}
}
