import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import { preparedQuery } from '#packages/core/database.js';
import type { DatabaseNotifications } from '#packages/core/notifications.js';
import { newUuid } from '#packages/core/ids.js';
import { VersionConflictError, type AppendResult, type EventMetadata, type EventStore, type ExpectedVersion, type NewEvent, type RecordedEvent, type StreamAppend, type SubscribeOptions, type Subscription } from '../port.js';
import { chainHashes, GENESIS_HASH } from '../hash-chain.js';
import { OpenSubscriptions, pollingSubscription } from '../subscription.js';

const NOTIFY_CHANNEL = 'sika_events';
const PAD = 20;

/** Checkpoint = zero-padded "transaction_id:global_position", so string order is commit order. */
export function encodePosition(transactionId: string, globalPosition: string): string {
  return `${transactionId.padStart(PAD, '0')}:${globalPosition.padStart(PAD, '0')}`;
}

export function decodePosition(position: string): { transactionId: string; globalPosition: string } {
  const [tx, pos] = position.split(':');
  if (!tx || !pos || !/^\d+$/.test(tx) || !/^\d+$/.test(pos)) throw new Error(`Not a Postgres position: ${position}`);
  return { transactionId: BigInt(tx).toString(), globalPosition: BigInt(pos).toString() };
}

interface EventRow {
  global_position: string;
  tx_text: string;
  stream_id: string;
  version: string;
  event_id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  /** recorded_at in whole milliseconds since the epoch (int8 as text), as a Date holds it. */
  recorded_ms: string;
  hash: string;
  /** Only on the batch statement's rows for streams it could not claim: their version (-1: none). */
  current?: string | null;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    eventId: row.event_id,
    streamId: row.stream_id,
    version: Number(row.version),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    position: encodePosition(row.tx_text, row.global_position),
    recordedAt: new Date(Number(row.recorded_ms)),
    hash: row.hash,
  };
}

// The text copy of the xid has its own name: ORDER BY transaction_id must sort the xid8, not text.
// recorded_at travels as epoch milliseconds, floored as a Date truncates: parsing the timestamp's
// text was 6 % of a rebuild's JavaScript (docs/performance.md).
const COLUMNS = 'global_position, transaction_id::text AS tx_text, stream_id, version, event_id, type, data, metadata, floor(extract(epoch FROM recorded_at) * 1000)::int8 AS recorded_ms, hash';

/**
 * The batch statement of writeStreams: $1 stream ids, $2 expected versions, $3 new versions, $4 the
 * events as one JSON array. It answers the events it wrote and, for each stream it could not claim,
 * a row with only `stream_id` and that stream's version as the statement saw it (`current`, -1 for
 * none), so a conflict costs no second statement to name it. It also notifies the other processes
 * (NOTIFY, delivered when the statement's transaction commits): a round trip of its own per commit
 * before (docs/performance.md step 34).
 */
const APPEND_BATCH_SQL = `
  WITH claims AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS c(stream_id, expected, version)
  ), updated AS (
    UPDATE streams s SET version = c.version FROM claims c
    WHERE c.expected >= 0 AND s.stream_id = c.stream_id AND s.version = c.expected
    RETURNING s.stream_id
  ), created AS (
    INSERT INTO streams (stream_id, version) SELECT stream_id, version FROM claims WHERE expected < 0
    ON CONFLICT DO NOTHING RETURNING stream_id
  ), claimed AS (
    SELECT stream_id FROM updated UNION ALL SELECT stream_id FROM created
  ), inserted AS (
    INSERT INTO events (stream_id, version, event_id, type, data, metadata, hash)
    SELECT e.stream_id, e.version, e.event_id, e.type, e.data, e.metadata, e.hash
    FROM ROWS FROM (json_to_recordset($4::json) AS (stream_id text, version bigint, event_id uuid, type text, data jsonb, metadata jsonb, hash text))
           WITH ORDINALITY AS e(stream_id, version, event_id, type, data, metadata, hash, ord)
    WHERE e.stream_id IN (SELECT stream_id FROM claimed)
    ORDER BY e.ord
    RETURNING ${COLUMNS}
  ), notified AS (
    SELECT pg_notify('${NOTIFY_CHANNEL}', '')
  )
  SELECT *, NULL::bigint AS current FROM inserted WHERE EXISTS (SELECT 1 FROM notified)
  UNION ALL
  SELECT NULL, NULL, c.stream_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, coalesce(s.version, -1)
  FROM claims c LEFT JOIN streams s ON s.stream_id = c.stream_id
  WHERE c.stream_id NOT IN (SELECT stream_id FROM claimed)`;

/**
 * A deadlock's victim (40P01) and a serialization failure (40001): Postgres aborted the commit's
 * transaction, nothing of it stays, and the same commit may well pass when written again (the
 * simulator met a deadlock between concurrent batches' stream rows). Written again this many times.
 */
const ROLLED_BACK_BY_POSTGRES: readonly string[] = ['40P01', '40001'];
const WRITE_AGAIN_AFTER_ROLLBACK = 3;

/** Streams whose last hash this process remembers (hash-chain.ts): enough for the hot streams of any load. */
const REMEMBERED_STREAMS = 10_000;

/** Runs inside the append's transaction: the Postgres store's inline projections (read-your-writes). */
export type InlineHandler = (trx: Knex.Transaction, events: RecordedEvent[]) => Promise<void>;

export interface PostgresEventStoreOptions {
  /** Applied in the same transaction as the append; a failure aborts the append. */
  inline?: InlineHandler;
  /** Poll interval of subscriptions when no wake-up arrives (other processes' writes, xmin moves). */
  pollIntervalMs?: number;
  /** The process's LISTEN connection, which wakes subscribers on other processes' writes. */
  notifications?: DatabaseNotifications;
  /** Group commit limits: commits per batch, and batches committing at once (each holds a connection). */
  groupCommit?: Partial<GroupCommitLimits>;
}

export interface GroupCommitLimits {
  maxCommits: number;
  batchesInFlight: number;
}

/**
 * Several batches in flight keep some writing while others wait for their WAL flush; with inline
 * projections a batch's statements run one after another, so one batch at a time would serialize
 * the projections of every concurrent command (docs/performance.md).
 */
export const GROUP_COMMIT_DEFAULTS: GroupCommitLimits = { maxCommits: 256, batchesInFlight: 4 };

/** A commit waiting for its batch. */
interface QueuedCommit {
  appends: StreamAppend[];
  resolve(written: RecordedEvent[][]): void;
  reject(err: unknown): void;
}

/** One stream's part of a batch: its claim (expected -1 for a new stream) and its events, hashed. */
interface PreparedStream {
  streamId: string;
  expected: number;
  events: NewEvent[];
  ids: string[];
  hashes: string[];
}

/** Thrown inside a batch's transaction to roll it back: these commits claimed only some of their streams. */
class PartialBatch extends Error {
  constructor(readonly commits: number[]) {
    super('partial multi-stream commit');
  }
}

/** Events kept by the log tail: a few batches of every consumer. */
const TAIL_EVENTS = 5000;

/** The last contiguous stretch of the log read: the events after `start`, in log order. */
class LogTail {
  private start: string | null | undefined = undefined;
  private events: RecordedEvent[] = [];

  /** The events after `after` (up to `limit`) when the stretch holds some, else null. */
  after(after: string | null, limit: number): RecordedEvent[] | null {
    if (this.start === undefined) return null;
    let from = 0;
    if (after !== this.start) {
      const i = this.indexOf(after);
      if (i < 0) return null;
      from = i + 1;
    }
    return from < this.events.length ? this.events.slice(from, from + limit) : null;
  }

  /** Keeps what a read after `after` returned, joined to the stretch when it continues it. */
  extend(after: string | null, read: RecordedEvent[]): void {
    if (read.length === 0) return;
    const continues = this.start !== undefined && (this.events.length === 0 ? after === this.start : after === this.events[this.events.length - 1]!.position);
    if (continues) this.events.push(...read);
    else {
      this.start = after;
      this.events = [...read];
    }
    if (this.events.length > TAIL_EVENTS) {
      const dropped = this.events.length - TAIL_EVENTS;
      this.start = this.events[dropped - 1]!.position;
      this.events = this.events.slice(dropped);
    }
  }

  /** Index of the event at `position` (positions sort as text), or -1. */
  private indexOf(position: string | null): number {
    if (position === null) return -1;
    let lo = 0;
    let hi = this.events.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.events[mid]!.position;
      if (at === position) return mid;
      if (at < position) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

export class PostgresEventStore implements EventStore {
  private readonly committed = new EventEmitter();
  /** Listening for other processes' commits, from the first subscription on; resolves to what stops it. */
  private listening: Promise<() => void> | null = null;
  private readonly subscriptions = new OpenSubscriptions();
  /** The newest hash seen per stream (version and hash never change once committed): most appends read none. */
  private readonly lastHashes = new Map<string, { version: number; hash: string }>();
  private queued: QueuedCommit[] = [];
  private batchesInFlight = 0;
  private flushRequested = false;
  private readonly turns = new Map<string, Promise<void>>();
  private readonly commitListeners: ((events: RecordedEvent[]) => void)[] = [];
  private readonly groupCommit: GroupCommitLimits;

  constructor(
    private readonly knex: Knex,
    private readonly options: PostgresEventStoreOptions = {},
  ) {
    this.committed.setMaxListeners(0);
    // First of the listeners, so a woken subscriber's read already counts this wake-up.
    this.committed.on('wake', () => this.wakes++);
    this.groupCommit = { ...GROUP_COMMIT_DEFAULTS, ...options.groupCommit };
  }

  async append(streamId: string, events: NewEvent[], { expectedVersion }: { expectedVersion: ExpectedVersion }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    if (expectedVersion !== 'any' && expectedVersion !== 'stream_exists') {
      const result = await this.appendExpecting(streamId, events, expectedVersion);
      this.afterCommit();
      return result;
    }
    // Symbolic expectations read the version first: this process's appends of that kind take
    // turns per stream, so they never lose a race to each other (only to other processes).
    return this.inTurn(streamId, async () => {
      for (let attempt = 0; ; attempt++) {
        const current = await this.streamVersion(streamId);
        if (current === 'no_stream' && expectedVersion === 'stream_exists') throw new VersionConflictError(streamId, expectedVersion, current);
        try {
          const result = await this.appendExpecting(streamId, events, current);
          this.afterCommit();
          return result;
        } catch (err) {
          // Another process wrote first: read again and retry.
          if (!(err instanceof VersionConflictError)) throw err;
          if (attempt >= 20) throw new VersionConflictError(streamId, expectedVersion, err.actual);
        }
      }
    });
  }

  /** Runs `work` after every earlier symbolic append to the same stream in this process. */
  private inTurn<T>(streamId: string, work: () => Promise<T>): Promise<T> {
    const run = (this.turns.get(streamId) ?? Promise.resolve()).then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.turns.set(streamId, settled);
    void settled.then(() => {
      if (this.turns.get(streamId) === settled) this.turns.delete(streamId);
    });
    return run;
  }

  private async appendExpecting(streamId: string, events: NewEvent[], expected: number | 'no_stream'): Promise<AppendResult> {
    const [result] = await this.commit([{ streamId, events, expectedVersion: expected }]);
    return result!;
  }

  async appendAtomically(appends: StreamAppend[]): Promise<AppendResult[]> {
    if (appends.some((a) => a.events.length === 0)) throw new Error('append needs at least one event per stream');
    if (new Set(appends.map((a) => a.streamId)).size !== appends.length) throw new Error('an atomic append names each stream once');
    const results = await this.commit(appends);
    this.afterCommit();
    return results;
  }

  /**
   * Queues the commit for the next group commit and answers with what it wrote. Concurrent
   * commands' commits share one transaction and one WAL flush (docs/performance.md); each keeps
   * its own expected versions, and a version conflict fails only its own commit.
   */
  private async commit(appends: StreamAppend[]): Promise<AppendResult[]> {
    const written = await new Promise<RecordedEvent[][]>((resolve, reject) => {
      this.queued.push({ appends, resolve, reject });
      this.requestFlush();
    });
    for (const listener of this.commitListeners) listener(written.flat());
    return written.map((recorded) => {
      const last = recorded[recorded.length - 1]!;
      this.remember(last);
      return { nextVersion: last.version, position: last.position, events: recorded };
    });
  }

  /** Calls `listener` with the events of each commit of this process, once committed (caches evict with it). */
  onCommitted(listener: (events: RecordedEvent[]) => void): void {
    this.commitListeners.push(listener);
  }

  /**
   * Asks for the queue to go out. With no batch in flight it goes at once, so no timer delays a
   * lone writer. Otherwise the batches are cut once this turn of the event loop ends: the commits
   * a batch's answer woke come back in the same turn, and cut at the first of them, the batch took
   * that one alone while the rest waited for the next free slot (at 64 writers, batches of 1 and
   * of 60 in turns; docs/performance.md, issue 70).
   */
  private requestFlush(): void {
    if (this.batchesInFlight === 0) return this.flush();
    if (this.flushRequested) return;
    this.flushRequested = true;
    setImmediate(() => {
      this.flushRequested = false;
      this.flush();
    });
  }

  /**
   * Starts batches while fewer than the limit are in flight, the queue shared evenly among the free
   * slots: batches written side by side use PostgreSQL's backends on every core and share its WAL
   * flushes, where one large batch runs on one backend.
   */
  private flush(): void {
    while (this.batchesInFlight < this.groupCommit.batchesInFlight && this.queued.length > 0) {
      const freeSlots = this.groupCommit.batchesInFlight - this.batchesInFlight;
      const batch = this.takeBatch(Math.min(this.groupCommit.maxCommits, Math.ceil(this.queued.length / freeSlots)));
      this.batchesInFlight++;
      void this.runBatch(batch).finally(() => {
        this.batchesInFlight--;
        this.requestFlush();
      });
    }
  }

  /**
   * The oldest queued commits whose streams differ from each other's, up to `size`; a commit on a
   * stream already in the batch waits for the next one (its expected version would otherwise be
   * checked against a write of the same statement).
   */
  private takeBatch(size: number): QueuedCommit[] {
    const streams = new Set<string>();
    const batch: QueuedCommit[] = [];
    const rest: QueuedCommit[] = [];
    for (const c of this.queued) {
      if (batch.length < size && c.appends.every((a) => !streams.has(a.streamId))) {
        batch.push(c);
        for (const a of c.appends) streams.add(a.streamId);
      } else {
        rest.push(c);
      }
    }
    this.queued = rest;
    return batch;
  }

  /**
   * Writes a batch and answers each commit. When the batch fails for another reason than a version
   * conflict (an inline projection, a duplicate event id), it is rolled back and each commit runs
   * alone, so the error reaches only the command that caused it.
   */
  private async runBatch(batch: QueuedCommit[], attempt = 0): Promise<void> {
    let outcomes: (RecordedEvent[][] | VersionConflictError)[];
    try {
      outcomes = await this.writeBatch(batch.map((c) => c.appends));
    } catch (err) {
      if (batch.length > 1) {
        await Promise.all(batch.map((c) => this.runBatch([c])));
        return;
      }
      // Postgres rolled the whole transaction back: the commit is written again as it was.
      if (ROLLED_BACK_BY_POSTGRES.includes((err as { code?: string }).code ?? '') && attempt < WRITE_AGAIN_AFTER_ROLLBACK) {
        await this.runBatch(batch, attempt + 1);
        return;
      }
      batch[0]!.reject(await this.asConflict(err, batch[0]!.appends));
      return;
    }
    batch.forEach((c, i) => {
      const outcome = outcomes[i]!;
      if (outcome instanceof VersionConflictError) c.reject(outcome);
      else c.resolve(outcome);
    });
  }

  /** A racing creator of the same new stream can still trip the unique keys: that is a version conflict. */
  private async asConflict(err: unknown, appends: StreamAppend[]): Promise<unknown> {
    if ((err as { code?: string }).code !== '23505') return err;
    const a = appends.length === 1 ? appends[0]! : await this.firstConflict(appends);
    return new VersionConflictError(a.streamId, a.expectedVersion, await this.streamVersion(a.streamId));
  }

  /**
   * One statement claims every stream of the batch at its expected version and inserts the events
   * of the streams it claimed, with their chain hashes; the inline projections then run over the
   * events written, in the same transaction (none is needed for one stream without them). A
   * commit that claimed only some of its streams rolls the batch back, which is written again
   * without it.
   */
  private async writeBatch(commits: StreamAppend[][]): Promise<(RecordedEvent[][] | VersionConflictError)[]> {
    const inline = this.options.inline;
    const prepared = await Promise.all(commits.map((appends) => Promise.all(appends.map((a) => this.prepareStream(a)))));
    const failed = new Set<number>();
    // The versions the statement saw of the streams it could not claim, across attempts.
    const seen = new Map<string, number | 'no_stream'>();
    let byStream = new Map<string, RecordedEvent[]>();
    for (;;) {
      const writing = commits.map((_, i) => i).filter((i) => !failed.has(i));
      if (writing.length === 0) break;
      const run = async (db: Knex | Knex.Transaction): Promise<Map<string, RecordedEvent[]>> => {
        const written = await this.writeStreams(
          db,
          writing.flatMap((i) => prepared[i]!),
        );
        for (const [streamId, version] of written.unclaimed) seen.set(streamId, version);
        const partial = writing.filter((i) => {
          const claimed = commits[i]!.filter((a) => written.byStream.has(a.streamId)).length;
          return claimed > 0 && claimed < commits[i]!.length;
        });
        if (partial.length > 0) throw new PartialBatch(partial);
        if (inline) {
          const events = writing.flatMap((i) => commits[i]!.flatMap((a) => written.byStream.get(a.streamId) ?? []));
          if (events.length > 0) await inline(db as Knex.Transaction, events);
        }
        return written.byStream;
      };
      const alone = !inline && writing.every((i) => commits[i]!.length === 1);
      try {
        byStream = alone ? await run(this.knex) : await this.knex.transaction(run);
      } catch (err) {
        if (!(err instanceof PartialBatch)) throw err;
        for (const i of err.commits) failed.add(i);
        continue;
      }
      break;
    }
    return Promise.all(
      commits.map(async (appends, i) => {
        if (!failed.has(i) && appends.every((a) => byStream.has(a.streamId))) return appends.map((a) => byStream.get(a.streamId)!);
        return this.conflictOf(appends, seen);
      }),
    );
  }

  /**
   * The conflict of a commit that was not written: its first stream whose version, as the batch
   * statement saw it, was not the expected one. When the statement saw the expected versions yet
   * could not claim (a writer committed while it ran), the versions are read.
   */
  private async conflictOf(appends: StreamAppend[], seen: Map<string, number | 'no_stream'>): Promise<VersionConflictError> {
    for (const a of appends) {
      const version = seen.get(a.streamId);
      if (version !== undefined && version !== a.expectedVersion) return new VersionConflictError(a.streamId, a.expectedVersion, version);
    }
    const a = await this.firstConflict(appends);
    return new VersionConflictError(a.streamId, a.expectedVersion, await this.streamVersion(a.streamId));
  }

  /** The stream of a failed multi-stream append whose version is not the expected one. */
  private async firstConflict(appends: StreamAppend[]): Promise<StreamAppend> {
    for (const a of appends) if ((await this.streamVersion(a.streamId)) !== a.expectedVersion) return a;
    return appends[0]!;
  }

  private remember(event: RecordedEvent): void {
    const known = this.lastHashes.get(event.streamId);
    if (known && known.version >= event.version) return;
    this.lastHashes.delete(event.streamId);
    this.lastHashes.set(event.streamId, { version: event.version, hash: event.hash });
    if (this.lastHashes.size > REMEMBERED_STREAMS) this.lastHashes.delete(this.lastHashes.keys().next().value!);
  }

  /**
   * The hash of the stream's event at the expected version, which the new events chain from. It is
   * read outside the claim: a committed event's hash never changes, and a stale expectation fails
   * the claim anyway. A missing row (only after tampering) chains from genesis; verify reports the gap.
   */
  private async previousHash(streamId: string, expected: number | 'no_stream'): Promise<string> {
    if (expected === 'no_stream') return GENESIS_HASH;
    const known = this.lastHashes.get(streamId);
    if (known?.version === expected) return known.hash;
    const res = await this.knex.raw<{ rows: { hash: string }[] }>('SELECT hash FROM events WHERE stream_id = ? AND version = ?', [streamId, expected]);
    return res.rows[0]?.hash ?? GENESIS_HASH;
  }

  /** A stream's part of the batch statement: its claim and its events with ids and chain hashes. */
  private async prepareStream({ streamId, events, expectedVersion: expected }: StreamAppend): Promise<PreparedStream> {
    const base = expected === 'no_stream' ? -1 : expected;
    const ids = events.map((e) => e.eventId ?? newUuid());
    const hashes = chainHashes(
      await this.previousHash(streamId, expected),
      events.map((e, i) => ({ streamId, version: base + 1 + i, eventId: ids[i]!, type: e.type, data: e.data, metadata: e.metadata ?? {} })),
    );
    return { streamId, expected: base, events, ids, hashes };
  }

  /**
   * Claims each stream at its expected version (-1: a new stream) and inserts the events of the
   * streams claimed: one statement for the whole batch. A stream left out lost a race.
   */
  private async writeStreams(db: Knex | Knex.Transaction, streams: PreparedStream[]): Promise<{ byStream: Map<string, RecordedEvent[]>; unclaimed: Map<string, number | 'no_stream'> }> {
    const events = streams.flatMap((s) => s.events.map((e, i) => ({ s, e, i })));
    // The events travel as one JSON document: one JSON.stringify, parsed by the server, instead
    // of seven array parameters whose jsonb elements node-postgres escapes one by one. Prepared:
    // planning it took as long as running it for one event.
    const res = await preparedQuery<EventRow>(db, 'sika_append_batch', APPEND_BATCH_SQL, [
      streams.map((s) => s.streamId),
      streams.map((s) => s.expected),
      streams.map((s) => s.expected + s.events.length),
      JSON.stringify(
        events.map(({ s, e, i }) => ({
          stream_id: s.streamId,
          version: s.expected + 1 + i,
          event_id: s.ids[i]!,
          type: e.type,
          data: e.data,
          metadata: e.metadata ?? {},
          hash: s.hashes[i]!,
        })),
      ),
    ]);
    const byStream = new Map<string, RecordedEvent[]>();
    const unclaimed = new Map<string, number | 'no_stream'>();
    for (const row of res.rows) {
      if (row.current != null) {
        unclaimed.set(row.stream_id, Number(row.current) < 0 ? 'no_stream' : Number(row.current));
        continue;
      }
      const recorded = toRecorded(row);
      const list = byStream.get(recorded.streamId);
      if (list) list.push(recorded);
      else byStream.set(recorded.streamId, [recorded]);
    }
    for (const list of byStream.values()) list.sort((a, b) => a.version - b.version);
    return { byStream, unclaimed };
  }

  async readStream(streamId: string, options: { fromVersion?: number } = {}): Promise<RecordedEvent[]> {
    const res = await this.knex.raw<{ rows: EventRow[] }>(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND version >= ? ORDER BY version`, [streamId, options.fromVersion ?? 0]);
    const events = res.rows.map(toRecorded);
    if (events.length > 0) this.remember(events[events.length - 1]!);
    return events;
  }

  streamVersion(streamId: string): Promise<number | 'no_stream'> {
    return this.streamVersionWith(this.knex, streamId);
  }

  private async streamVersionWith(db: Knex | Knex.Transaction, streamId: string): Promise<number | 'no_stream'> {
    const res = await db.raw<{ rows: { version: string }[] }>('SELECT version FROM streams WHERE stream_id = ?', [streamId]);
    const row = res.rows[0];
    return row ? Number(row.version) : 'no_stream';
  }

  /**
   * Every consumer of this process (bus consumers, the projector, the sealer, the remembered
   * reads) tails the log with its own checkpoint, mostly at the same place: the last stretch read
   * is kept, and a read that falls inside it is answered from memory, the database asked only for
   * what follows the stretch (docs/performance.md): each event is fetched and parsed once. It is
   * what the database would answer: a fenced read is a prefix of the committed log that no later
   * commit can get into (see readAll), so the same events follow the same position later too.
   */
  private readonly tail = new LogTail();

  /**
   * Reads of the database past the stretch, in flight, by where they start. Consumers woken by one
   * commit all find the stretch's end at once: the first reads, the others wait for its answer.
   * Only a read begun since the last wake-up is shared, so none misses a commit it was woken for.
   */
  private readonly reading = new Map<string | null, { limit: number; wakes: number; events: Promise<RecordedEvent[]> }>();
  private wakes = 0;

  async readAll(after: string | null, limit: number, options: { stored?: boolean } = {}): Promise<RecordedEvent[]> {
    if (options.stored) return this.readFromDatabase(after, limit);
    const known = this.tail.after(after, limit) ?? [];
    if (known.length === limit) return known;
    // The rest from the database: a consumer that got the stretch's end reads on from there.
    const from = known.length > 0 ? known[known.length - 1]!.position : after;
    const fresh = await this.readPastTail(from, limit - known.length);
    return known.length > 0 ? [...known, ...fresh] : fresh;
  }

  private async readPastTail(from: string | null, limit: number): Promise<RecordedEvent[]> {
    const shared = this.reading.get(from);
    if (shared && shared.wakes === this.wakes && shared.limit >= limit) return (await shared.events).slice(0, limit);
    const mine = { limit, wakes: this.wakes, events: this.readFromDatabase(from, limit) };
    this.reading.set(from, mine);
    try {
      const fresh = await mine.events;
      this.tail.extend(from, fresh);
      return fresh;
    } finally {
      if (this.reading.get(from) === mine) this.reading.delete(from);
    }
  }

  private async readFromDatabase(after: string | null, limit: number): Promise<RecordedEvent[]> {
    const fence = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())';
    if (after === null) {
      const res = await this.knex.raw<{ rows: EventRow[] }>(`SELECT ${COLUMNS} FROM events WHERE ${fence} ORDER BY transaction_id, global_position LIMIT ?`, [limit]);
      return res.rows.map(toRecorded);
    }
    const { transactionId, globalPosition } = decodePosition(after);
    const res = await this.knex.raw<{ rows: EventRow[] }>(
      `SELECT ${COLUMNS} FROM events
       WHERE ${fence} AND (transaction_id, global_position) > (?::xid8, ?::bigint)
       ORDER BY transaction_id, global_position LIMIT ?`,
      [transactionId, globalPosition, limit],
    );
    return res.rows.map(toRecorded);
  }

  /**
   * Every committed event after `after`, read inside the caller's transaction and without the xmin
   * fence: for rebuilds that hold the projection tables locked (see packages/read-models/runner.ts).
   */
  async readCommitted(trx: Knex.Transaction, after: string | null, limit: number): Promise<RecordedEvent[]> {
    const where = after === null ? 'TRUE' : '(transaction_id, global_position) > (?::xid8, ?::bigint)';
    const position = after === null ? [] : Object.values(decodePosition(after));
    const res = await trx.raw<{ rows: EventRow[] }>(`SELECT ${COLUMNS} FROM events WHERE ${where} ORDER BY transaction_id, global_position LIMIT ?`, [...position, limit]);
    return res.rows.map(toRecorded);
  }

  /**
   * The newest committed event, fence or not: a subscription that has caught up with it has seen
   * everything committed before the call (it only gets there once the fence lets it).
   */
  async headPosition(): Promise<string | null> {
    const res = await this.knex.raw<{ rows: { tx_text: string; global_position: string }[] }>(
      `SELECT transaction_id::text AS tx_text, global_position FROM events
       ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
    );
    const row = res.rows[0];
    return row ? encodePosition(row.tx_text, row.global_position) : null;
  }

  subscribe(options: SubscribeOptions): Subscription {
    void this.ensureListener();
    const sub = pollingSubscription({
      ...options,
      read: (after, limit) => this.readAll(after, limit),
      head: () => this.headPosition(),
      wakeups: options.pollOnlyEveryMs === undefined ? this.committed : new EventEmitter(),
      pollIntervalMs: options.pollOnlyEveryMs ?? this.options.pollIntervalMs ?? 250,
    });
    return this.subscriptions.track(sub);
  }

  /** Wakes this process's subscribers at once (other processes heard the NOTIFY of the batch statement). */
  private afterCommit(): void {
    this.committed.emit('wake');
  }

  /** Other processes' commits wake subscribers (polling still delivers everything; LISTEN only shortens the wait). */
  private ensureListener(): Promise<() => void> {
    const notifications = this.options.notifications;
    this.listening ??= notifications ? notifications.listen(NOTIFY_CHANNEL, () => this.committed.emit('wake')) : Promise.resolve(() => undefined);
    return this.listening;
  }

  async close(): Promise<void> {
    await this.subscriptions.stopAll();
    if (this.listening) (await this.listening)();
  }
}
