import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import pg from 'pg';
import { newUuid } from '../../core/ids.js';
import {
  VersionConflictError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from '../port.js';
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
  recorded_at: Date;
  hash: string;
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
    recordedAt: row.recorded_at,
    hash: row.hash,
  };
}

// The text copy of the xid has its own name: ORDER BY transaction_id must sort the xid8, not text.
const COLUMNS = 'global_position, transaction_id::text AS tx_text, stream_id, version, event_id, type, data, metadata, recorded_at, hash';

/** Streams whose last hash this process remembers (hash-chain.ts): enough for the hot streams of any load. */
const REMEMBERED_STREAMS = 10_000;

/** Runs inside the append's transaction: the Postgres store's inline projections (read-your-writes). */
export type InlineHandler = (trx: Knex.Transaction, events: RecordedEvent[]) => Promise<void>;

export interface PostgresEventStoreOptions {
  /** Applied in the same transaction as the append; a failure aborts the append. */
  inline?: InlineHandler;
  /** Poll interval of subscriptions when no wake-up arrives (other processes' writes, xmin moves). */
  pollIntervalMs?: number;
  /** Connection string for the LISTEN connection that wakes subscribers on other processes' writes. */
  listenUrl?: string;
}

export class PostgresEventStore implements EventStore {
  private readonly committed = new EventEmitter();
  private listener: pg.Client | null = null;
  private listenerStarting: Promise<void> | null = null;
  private notifyPending = false;
  private closed = false;
  private readonly subscriptions = new OpenSubscriptions();
  /** The newest hash seen per stream (version and hash never change once committed): most appends read none. */
  private readonly lastHashes = new Map<string, { version: number; hash: string }>();

  constructor(
    private readonly knex: Knex,
    private readonly options: PostgresEventStoreOptions = {},
  ) {
    this.committed.setMaxListeners(0);
  }

  async append(streamId: string, events: NewEvent[], { expectedVersion }: { expectedVersion: ExpectedVersion }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    for (let attempt = 0; ; attempt++) {
      let expected: number | 'no_stream';
      if (expectedVersion === 'any' || expectedVersion === 'stream_exists') {
        const current = await this.streamVersion(streamId);
        if (current === 'no_stream' && expectedVersion === 'stream_exists') {
          throw new VersionConflictError(streamId, expectedVersion, current);
        }
        expected = current;
      } else {
        expected = expectedVersion;
      }
      try {
        const result = await this.appendExpecting(streamId, events, expected);
        this.afterCommit();
        return result;
      } catch (err) {
        // 'any' and 'stream_exists' only lost a race with another writer: read again and retry.
        const symbolic = expectedVersion === 'any' || expectedVersion === 'stream_exists';
        if (err instanceof VersionConflictError && symbolic && attempt < 20) continue;
        if (err instanceof VersionConflictError && symbolic) throw new VersionConflictError(streamId, expectedVersion, err.actual);
        throw err;
      }
    }
  }

  private async appendExpecting(streamId: string, events: NewEvent[], expected: number | 'no_stream'): Promise<AppendResult> {
    const [result] = await this.commit([{ streamId, events, expectedVersion: expected }]);
    return result!;
  }

  async appendAtomically(appends: StreamAppend[]): Promise<AppendResult[]> {
    if (appends.some((a) => a.events.length === 0)) throw new Error('append needs at least one event per stream');
    const results = await this.commit(appends);
    this.afterCommit();
    return results;
  }

  /**
   * Writes each stream's events with its expected version, and the inline projections over all of
   * them, in one transaction (one statement when there is one stream and no inline projection).
   */
  private async commit(appends: StreamAppend[]): Promise<AppendResult[]> {
    const inline = this.options.inline;
    const write = async (db: Knex | Knex.Transaction): Promise<RecordedEvent[][]> => {
      const written: RecordedEvent[][] = [];
      for (const a of appends) written.push(await this.writeStream(db, a));
      if (inline) await inline(db as Knex.Transaction, written.flat());
      return written;
    };
    let written: RecordedEvent[][];
    try {
      written = appends.length === 1 && !inline ? await write(this.knex) : await this.knex.transaction(write);
    } catch (err) {
      // A racing creator of the same new stream can still trip the unique keys.
      if ((err as { code?: string }).code === '23505') {
        const a = appends.length === 1 ? appends[0]! : await this.firstConflict(appends);
        throw new VersionConflictError(a.streamId, a.expectedVersion, await this.streamVersion(a.streamId));
      }
      throw err;
    }
    return written.map((recorded) => {
      const last = recorded[recorded.length - 1]!;
      this.remember(last);
      return { nextVersion: last.version, position: last.position, events: recorded };
    });
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
  private async previousHash(db: Knex | Knex.Transaction, streamId: string, expected: number | 'no_stream'): Promise<string> {
    if (expected === 'no_stream') return GENESIS_HASH;
    const known = this.lastHashes.get(streamId);
    if (known?.version === expected) return known.hash;
    const res = await db.raw<{ rows: { hash: string }[] }>('SELECT hash FROM events WHERE stream_id = ? AND version = ?', [streamId, expected]);
    return res.rows[0]?.hash ?? GENESIS_HASH;
  }

  /** Claims the stream at its expected version and inserts the events with their chain hashes: one statement. */
  private async writeStream(db: Knex | Knex.Transaction, { streamId, events, expectedVersion: expected }: StreamAppend): Promise<RecordedEvent[]> {
    const ids = events.map((e) => e.eventId ?? newUuid());
    const types = events.map((e) => e.type);
    const datas = events.map((e) => JSON.stringify(e.data));
    const metas = events.map((e) => JSON.stringify(e.metadata ?? {}));
    const base = expected === 'no_stream' ? -1 : expected;
    const hashes = chainHashes(
      await this.previousHash(db, streamId, expected),
      events.map((e, i) => ({ streamId, version: base + 1 + i, eventId: ids[i]!, type: e.type, data: e.data, metadata: e.metadata ?? {} })),
    );
    const newVersion = base + events.length;
    const claim =
      expected === 'no_stream'
        ? `INSERT INTO streams (stream_id, version) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING stream_id`
        : `UPDATE streams SET version = ? WHERE stream_id = ? AND version = ? RETURNING stream_id`;
    const claimBindings = expected === 'no_stream' ? [streamId, newVersion] : [newVersion, streamId, expected];
    const sql = `
      WITH claimed AS (${claim})
      INSERT INTO events (stream_id, version, event_id, type, data, metadata, hash)
      SELECT c.stream_id, ?::bigint + e.ord, e.event_id, e.type, e.data, e.metadata, e.hash
      FROM claimed c,
           unnest(?::uuid[], ?::text[], ?::jsonb[], ?::jsonb[], ?::text[]) WITH ORDINALITY AS e(event_id, type, data, metadata, hash, ord)
      ORDER BY e.ord
      RETURNING ${COLUMNS}`;
    const res = await db.raw<{ rows: EventRow[] }>(sql, [...claimBindings, base, ids, types, datas, metas, hashes]);
    if (res.rows.length === 0) {
      throw new VersionConflictError(streamId, expected, await this.streamVersionWith(db, streamId));
    }
    return res.rows.map(toRecorded).sort((a, b) => a.version - b.version);
  }

  async readStream(streamId: string, options: { fromVersion?: number } = {}): Promise<RecordedEvent[]> {
    const res = await this.knex.raw<{ rows: EventRow[] }>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND version >= ? ORDER BY version`,
      [streamId, options.fromVersion ?? 0],
    );
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

  async readAll(after: string | null, limit: number): Promise<RecordedEvent[]> {
    const fence = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())';
    if (after === null) {
      const res = await this.knex.raw<{ rows: EventRow[] }>(
        `SELECT ${COLUMNS} FROM events WHERE ${fence} ORDER BY transaction_id, global_position LIMIT ?`,
        [limit],
      );
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
   * fence: for rebuilds that hold the projection tables locked (see projections/runner.ts).
   */
  async readCommitted(trx: Knex.Transaction, after: string | null, limit: number): Promise<RecordedEvent[]> {
    const where = after === null ? 'TRUE' : '(transaction_id, global_position) > (?::xid8, ?::bigint)';
    const position = after === null ? [] : Object.values(decodePosition(after));
    const res = await trx.raw<{ rows: EventRow[] }>(
      `SELECT ${COLUMNS} FROM events WHERE ${where} ORDER BY transaction_id, global_position LIMIT ?`,
      [...position, limit],
    );
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
      wakeups: this.committed,
      pollIntervalMs: this.options.pollIntervalMs ?? 250,
    });
    return this.subscriptions.track(sub);
  }

  /** Wakes this process's subscribers at once and, coalesced, other processes through NOTIFY. */
  private afterCommit(): void {
    this.committed.emit('wake');
    if (this.notifyPending || this.closed) return;
    this.notifyPending = true;
    setTimeout(() => {
      this.notifyPending = false;
      if (this.closed) return;
      this.knex.raw('SELECT pg_notify(?, ?)', [NOTIFY_CHANNEL, '']).catch(() => undefined);
    }, 5);
  }

  /** One LISTEN connection per store, opened with the first subscription. */
  private ensureListener(): Promise<void> {
    if (this.listenerStarting) return this.listenerStarting;
    const listenUrl = this.options.listenUrl;
    if (!listenUrl) return (this.listenerStarting = Promise.resolve());
    const client = new pg.Client({ connectionString: listenUrl });
    this.listenerStarting = (async () => {
      try {
        await client.connect();
        client.on('notification', () => this.committed.emit('wake'));
        client.on('error', () => undefined);
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
        if (this.closed) await client.end();
        else this.listener = client;
      } catch {
        // Polling still delivers everything; LISTEN only shortens the wait.
        await client.end().catch(() => undefined);
      }
    })();
    return this.listenerStarting;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.subscriptions.stopAll();
    if (this.listenerStarting) await this.listenerStarting;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }
}
