import type { Knex } from 'knex';
import type { Logger } from '#packages/core/logger.js';
import type { EventStore, RecordedEvent, Subscription } from '#packages/eventstore/port.js';
import type { BusConsumer } from './port.js';

/** Thrown when the stored checkpoint is not where this consumer left it (reset, or another instance). */
export class CheckpointMoved extends Error {}

/** What every checkpointed reader of the log names: its checkpoint, and which events it acts on. */
export interface CheckpointSpec {
  /** Unique per checkpoint table; the checkpoint row's key. */
  name: string;
  /** Table with columns (name text primary key, position text, updated_at timestamptz). */
  checkpointTable: string;
  batchSize?: number;
  /**
   * The event types it acts on, when it ignores all others: a batch with none of them only
   * moves the checkpoint, in one statement instead of a transaction (docs/performance.md).
   */
  handles?: readonly string[];
  /**
   * Narrower than `handles`, for a consumer that acts on some events of its types only (an entry
   * of one kind, a payout of the payout engine): whether it would act on this event, decided
   * from the event alone. A batch it acts on none of takes the path of `handles` above.
   */
  acts?(event: RecordedEvent): boolean;
}

/** A consumer whose batch and checkpoint commit in one transaction: the bus consumers, the projector's read models. */
export interface ConsumerSpec extends CheckpointSpec {
  /** Applies a batch inside the transaction that also moves the checkpoint (shared with the other consumers of a ConsumerGroup). */
  handle(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<void>;
}

/**
 * A consumer whose checkpoint row holds its whole state (the audit sealer's chain head): a batch
 * is a part of a statement (data-modifying CTEs) that applies it and moves its checkpoint from
 * `expected`, with no transaction of its own. The group runs that part inside its claim, or alone
 * (`applyBatch`).
 */
export interface SelfCheckpointedSpec extends CheckpointSpec {
  /** The part for this batch, its CTEs named with `prefix`; null, having changed nothing, when the checkpoint is not at `expected`. */
  claimPart(knex: Knex, expected: string | null, events: readonly RecordedEvent[], prefix: string): Promise<ClaimPart | null>;
}

/** A self-checkpointed consumer's batch as part of a claim statement. */
export interface ClaimPart {
  /** Data-modifying CTEs (`name AS (…)`, comma-separated), their `?` bindings in `bindings`. */
  ctes: string;
  bindings: Knex.RawBinding[];
  /** A boolean SQL expression over those CTEs: whether the checkpoint moved. */
  moved: string;
  /** Told, once the statement (and its transaction) committed or failed, whether the checkpoint moved. */
  settle(moved: boolean): void;
}

/** What a ConsumerGroup runs: either kind of checkpointed reader of the log. */
export type LogConsumerSpec = ConsumerSpec | SelfCheckpointedSpec;

const selfCheckpointed = (spec: LogConsumerSpec): spec is SelfCheckpointedSpec => 'claimPart' in spec;

/** Whether the consumer would act on any of the events: one that names neither `handles` nor `acts` acts on every batch. */
export function actsOnAny(spec: CheckpointSpec, events: readonly RecordedEvent[]): boolean {
  if (!spec.handles && !spec.acts) return true;
  return events.some((e) => (!spec.handles || spec.handles.includes(e.type)) && (!spec.acts || spec.acts(e)));
}

export async function readCheckpoint(db: Knex | Knex.Transaction, table: string, name: string): Promise<string | null> {
  const row = await db(table).where({ name }).first<{ position: string | null } | undefined>();
  return row?.position ?? null;
}

/** A checkpoint to move from where its consumer left it (`expected`) to `position`. */
export interface CheckpointMove {
  spec: CheckpointSpec;
  expected: string | null;
  position: string;
}

/**
 * Moves every checkpoint of `moves` that is still where its consumer left it (compare-and-set),
 * in one statement whatever their number and tables; a first batch's missing row is inserted
 * (a second statement, only then). In a transaction the moved rows stay locked until its commit:
 * that is the claim of a batch. Returns the moves that did not apply (their checkpoint moved:
 * reset, or another instance), which changed nothing.
 */
export async function moveCheckpoints(db: Knex | Knex.Transaction, moves: readonly CheckpointMove[]): Promise<CheckpointMove[]> {
  return (await claim(db, moves, [])).missed;
}

/**
 * `moveCheckpoints` with the parts of self-checkpointed consumers in the same statement (the
 * sealer's batch rides on the group's claim: one statement less per batch). Returns the moves that
 * did not apply, and whether each part's checkpoint moved.
 */
async function claim(db: Knex | Knex.Transaction, moves: readonly CheckpointMove[], parts: readonly ClaimPart[]): Promise<{ missed: CheckpointMove[]; partsMoved: boolean[] }> {
  if (moves.length === 0 && parts.length === 0) return { missed: [], partsMoved: [] };
  const tables = [...new Set(moves.map((m) => m.spec.checkpointTable))];
  const rowsOf = (table: string, all: readonly CheckpointMove[]) => JSON.stringify(all.filter((m) => m.spec.checkpointTable === table).map((m) => ({ name: m.spec.name, expected: m.expected, position: m.position })));
  const update = `UPDATE ?? AS c SET position = v.position, updated_at = now()
    FROM json_to_recordset(?::json) AS v(name text, expected text, position text)
    WHERE c.name = v.name AND c.position IS NOT DISTINCT FROM v.expected RETURNING c.name`;
  // One table (the common case) is a plain UPDATE; several, or parts beside, one statement of data-modifying CTEs.
  const answers = [...tables.map((_, i) => `SELECT ${i} AS t, name FROM m${i}`), ...parts.map((p, i) => `SELECT ${-1 - i} AS t, NULL::text AS name WHERE ${p.moved}`)];
  const sql =
    tables.length === 1 && parts.length === 0
      ? update.replace('RETURNING c.name', 'RETURNING 0 AS t, c.name')
      : `WITH ${[...tables.map((_, i) => `m${i} AS (${update})`), ...parts.map((p) => p.ctes)].join(', ')} ${answers.join(' UNION ALL ')}`;
  const bindings = [...tables.flatMap((table) => [table, rowsOf(table, moves)]), ...parts.flatMap((p) => p.bindings)];
  const moved = await db.raw<{ rows: { t: number; name: string | null }[] }>(sql, bindings);
  const done = new Set(moved.rows.filter((r) => r.t >= 0).map((r) => `${tables[r.t]!}\u0000${r.name!}`));
  const partsMoved = parts.map((_, i) => moved.rows.some((r) => r.t === -1 - i));
  const missed = moves.filter((m) => !done.has(`${m.spec.checkpointTable}\u0000${m.spec.name}`));
  // A first batch: no row yet. Inserted unless another instance inserted it meanwhile.
  const first = missed.filter((m) => m.expected === null);
  for (const table of new Set(first.map((m) => m.spec.checkpointTable))) {
    const inserted = await db.raw<{ rows: { name: string }[] }>(
      `INSERT INTO ?? (name, position, updated_at) SELECT v.name, v.position, now() FROM json_to_recordset(?::json) AS v(name text, position text)
       ON CONFLICT (name) DO NOTHING RETURNING name`,
      [table, rowsOf(table, first)],
    );
    for (const r of inserted.rows) done.add(`${table}\u0000${r.name}`);
  }
  return { missed: missed.filter((m) => !done.has(`${m.spec.checkpointTable}\u0000${m.spec.name}`)), partsMoved };
}

/**
 * Applies one batch of one consumer and moves its checkpoint from `expected`, atomically
 * (exactly-once for what is written to this database): in one transaction whose first statement
 * claims the checkpoint (moved and locked: if it moved, nothing is applied), or, for a consumer
 * that keeps its state in its checkpoint row, its part alone as one statement. A batch the consumer acts on
 * none of (actsOnAny) only moves the checkpoint, in one statement. Throws CheckpointMoved.
 */
export async function applyBatch(knex: Knex, spec: LogConsumerSpec, expected: string | null, events: readonly RecordedEvent[]): Promise<void> {
  const last = events[events.length - 1];
  if (!last) return;
  if (!actsOnAny(spec, events)) {
    if ((await moveCheckpoints(knex, [{ spec, expected, position: last.position }])).length > 0) throw new CheckpointMoved();
    return;
  }
  if (selfCheckpointed(spec)) {
    const part = await spec.claimPart(knex, expected, events, 'p0_');
    if (!part) throw new CheckpointMoved();
    let moved = false;
    try {
      moved = (await claim(knex, [], [part])).partsMoved[0]!;
    } finally {
      part.settle(moved);
    }
    if (!moved) throw new CheckpointMoved();
    return;
  }
  await knex.transaction(async (trx) => {
    if ((await moveCheckpoints(trx, [{ spec, expected, position: last.position }])).length > 0) throw new CheckpointMoved();
    await spec.handle(trx, events);
  });
}

/**
 * How long a consumer may leave its stored checkpoint behind batches it acts on none of. Every
 * commit wakes the consumers of a process; most act on none of it, and moving each one's
 * checkpoint past each commit cost a statement per consumer per commit. A checkpoint left behind
 * only makes a restart read those batches again and skip them again: nothing is applied twice.
 */
export const CHECKPOINT_DEFER_MS = 100;

/**
 * How often a caught-up group reads the log at most. Every commit of the process (and every other
 * process's NOTIFY) wakes it, and most of those reads found nothing the read fence lets through yet
 * (docs/performance.md step 31); commits that come within this many ms of a read share the next one.
 * `caughtUp()` (drain, the tests) reads at once.
 */
export const CAUGHT_UP_READ_EVERY_MS = 10;

/** How long a consumer that failed on its own waits before it tries its batch again (or at once, when asked whether it caught up). */
export const CONSUMER_RETRY_MS = 1000;

/** A consumer of a group, and how long it may leave its stored checkpoint behind (0: never; the projector's, which read-your-writes waits on). */
export interface GroupMember {
  spec: LogConsumerSpec;
  deferMs?: number;
}

interface Member {
  readonly spec: LogConsumerSpec;
  readonly deferMs: number;
  /** The stored checkpoint, as this process last read or wrote it. */
  stored: string | null;
  /** How far batches it acts on none of took it past `stored` (null: not past it). */
  skipped: string | null;
  /** Taking its share of the group's batches; false while it catches up on its own after a failure or a moved checkpoint. */
  attached: boolean;
  /** Its catch-up in flight, and the timer of the next one. */
  catchingUp: Promise<void> | null;
  retry: NodeJS.Timeout | null;
  /** Resolved when it is attached again. */
  rejoined: (() => void)[];
}

const positionOf = (m: Member): string | null => m.skipped ?? m.stored;
/** The events of a batch after a consumer's position (a suffix: the batch is in log order). */
const shareOf = (m: Member, events: readonly RecordedEvent[]): readonly RecordedEvent[] => {
  const at = positionOf(m);
  if (at === null) return events;
  const from = events.findIndex((e) => e.position > at);
  return from < 0 ? [] : from === 0 ? events : events.slice(from);
};
const lastOf = (events: readonly RecordedEvent[]): string => events[events.length - 1]!.position;

/** A consumer's share of a batch. */
interface Share<S extends LogConsumerSpec = LogConsumerSpec> {
  m: Member & { spec: S };
  events: readonly RecordedEvent[];
}

/** A self-checkpointed consumer's share, as a part of the group's claim. */
interface Part extends Share<SelfCheckpointedSpec> {
  part: ClaimPart;
}

/**
 * The checkpointed readers of the log in one process, reading it once (the embedded bus, the
 * projector's read models, the audit sealer; docs/performance.md step 28). One subscription from
 * the lowest of their checkpoints hands each consumer its share of a batch (the events after its
 * own checkpoint). The consumers that act on a batch apply it in ONE transaction, whose first
 * statement claims all their checkpoints (compare-and-set; the rows stay locked until the
 * commit), and which also stores the checkpoints other consumers left behind; a consumer that
 * keeps its state in its checkpoint row (the sealer) is a part of that statement (step 29). A
 * batch no such consumer acts on is one statement in autocommit: the sealer's part and the
 * checkpoints that may not wait. Each consumer's stored names and checkpoints are its own, as
 * before.
 *
 * Isolation: if the shared transaction fails, nothing of it is committed, and each of its
 * consumers applies the batch again in a transaction of its own; those that succeed move on, one
 * that fails again (or whose checkpoint moved: a reset, another instance) leaves the group and
 * catches up on its own from its stored checkpoint, retrying every CONSUMER_RETRY_MS, then
 * rejoins. So one consumer's failure never holds another back nor loses its progress; a
 * consumer's handler may run twice for a batch whose shared transaction was rolled back (as after
 * a crash: handlers are idempotent, and what they write commits only with their checkpoint).
 *
 * Batches a consumer acts on none of move its stored checkpoint at most every `deferMs` (or with
 * the next shared transaction, or when caught up or stopped), not one statement each; with
 * `deferMs` 0 at once (the projector's, which read-your-writes waits on).
 */
export class ConsumerGroup implements BusConsumer {
  private readonly members: Member[];
  private readonly batchSize: number;
  private sub: Subscription | null = null;
  private stopped = false;
  /** Where the subscription is: the end of the last batch it handed over. */
  private read: string | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  /** Batches, moves of checkpoints and rejoins, one at a time. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    members: readonly GroupMember[],
    private readonly log?: Logger,
    private readonly retryMs = CONSUMER_RETRY_MS,
    private readonly readEveryMs = CAUGHT_UP_READ_EVERY_MS,
  ) {
    const keys = members.map((m) => `${m.spec.checkpointTable} ${m.spec.name}`);
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice) throw new Error(`Two consumers of one group share the checkpoint ${twice}`);
    this.members = members.map((m) => ({
      spec: m.spec,
      deferMs: m.deferMs ?? CHECKPOINT_DEFER_MS,
      stored: null,
      skipped: null,
      attached: true,
      catchingUp: null,
      retry: null,
      rejoined: [],
    }));
    this.batchSize = Math.min(...members.map((m) => m.spec.batchSize ?? 500));
  }

  async start(): Promise<void> {
    for (const m of this.members) {
      m.stored = await readCheckpoint(this.knex, m.spec.checkpointTable, m.spec.name);
      m.skipped = null;
    }
    if (this.stopped || this.members.length === 0) return;
    const positions = this.members.map(positionOf);
    const after = positions.includes(null) ? null : positions.reduce((a, b) => (b! < a! ? b : a));
    this.read = after;
    this.sub = this.store.subscribe({
      after,
      batchSize: this.batchSize,
      caughtUpReadEveryMs: this.readEveryMs,
      handle: (events) => this.serially(() => this.apply(events)),
      onError: (err) => this.log?.error({ err, consumers: this.members.map((m) => m.spec.name) }, 'consumer group batch failed; retrying'),
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writing.then(work);
    this.writing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** One batch of the subscription: each attached consumer's share. */
  private async apply(events: readonly RecordedEvent[]): Promise<void> {
    const shares = this.members
      .filter((m) => m.attached)
      .map((m) => ({ m, events: shareOf(m, events) }))
      .filter((s) => s.events.length > 0);
    const acting = shares.filter((s) => actsOnAny(s.m.spec, s.events));
    for (const s of shares) if (!acting.includes(s)) s.m.skipped = lastOf(s.events);
    const joint = acting.filter((s): s is Share<ConsumerSpec> => !selfCheckpointed(s.m.spec));
    const parts = await this.partsOf(acting.filter((s): s is Share<SelfCheckpointedSpec> => selfCheckpointed(s.m.spec)));
    // Checkpoints left behind are stored with a statement that runs anyway; alone, only those that may not wait.
    const runs = joint.length > 0 || parts.length > 0;
    const behind = this.members.filter((m) => m.attached && m.skipped !== null && !acting.some((s) => s.m === m) && (runs || m.deferMs === 0));
    if (joint.length > 0) await this.applyJointly(joint, behind, parts);
    else await this.storeBeside(behind, parts);
    this.read = lastOf(events);
    if (this.members.some((m) => m.attached && m.skipped !== null)) this.flushSoon();
  }

  /** The claim parts of the self-checkpointed consumers acting on a batch; one whose checkpoint moved, or that fails, leaves the group. */
  private async partsOf(shares: readonly Share<SelfCheckpointedSpec>[]): Promise<Part[]> {
    const parts: Part[] = [];
    for (const s of shares) {
      try {
        const part = await s.m.spec.claimPart(this.knex, s.m.stored, s.events, `p${parts.length}_`);
        if (part) parts.push({ ...s, part });
        else this.detach(s.m, new CheckpointMoved());
      } catch (err) {
        if (this.members.length === 1) throw err;
        this.detach(s.m, err);
      }
    }
    return parts;
  }

  /** What the claim said of each part: a moved checkpoint is stored, one that was not where its consumer left it detaches it. */
  private settle(parts: readonly Part[], moved: readonly boolean[]): void {
    parts.forEach((p, i) => {
      p.part.settle(moved[i]!);
      if (moved[i]) {
        p.m.stored = lastOf(p.events);
        p.m.skipped = null;
      } else this.detach(p.m, new CheckpointMoved());
    });
  }

  /**
   * The shared transaction: one claim of every checkpoint (the parts of self-checkpointed consumers
   * in the same statement), each consumer's handler; on failure, each in a transaction of its own.
   */
  private async applyJointly(joint: readonly Share<ConsumerSpec>[], behind: readonly Member[], parts: readonly Part[]): Promise<void> {
    const claims = [...joint.map((s) => ({ spec: s.m.spec, expected: s.m.stored, position: lastOf(s.events) })), ...behind.map((m) => ({ spec: m.spec, expected: m.stored, position: m.skipped! }))];
    let claimed: Awaited<ReturnType<typeof claim>> = { missed: [], partsMoved: [] };
    try {
      await this.knex.transaction(async (trx) => {
        claimed = await claim(
          trx,
          claims,
          parts.map((p) => p.part),
        );
        for (const s of joint) if (!claimed.missed.some((c) => c.spec === s.m.spec)) await s.m.spec.handle(trx, s.events);
      });
    } catch (err) {
      for (const p of parts) p.part.settle(false);
      if (this.members.length === 1) throw err;
      this.log?.warn({ err, consumers: [...joint, ...parts].map((s) => s.m.spec.name) }, 'shared consumer transaction failed; each consumer applies the batch in its own');
      for (const s of [...joint, ...parts]) await this.applyOnItsOwn(s.m, s.events);
      return;
    }
    this.stored(claims, claimed.missed);
    this.settle(parts, claimed.partsMoved);
  }

  /** The parts and the checkpoints left behind in one statement; if it fails, each part on its own. */
  private async storeBeside(behind: readonly Member[], parts: readonly Part[]): Promise<void> {
    try {
      await this.store_(behind, parts);
    } catch (err) {
      if (parts.length === 0 || this.members.length === 1) throw err;
      this.log?.warn({ err, consumers: parts.map((p) => p.m.spec.name) }, 'consumer statement failed; each consumer applies the batch on its own');
      for (const p of parts) await this.applyOnItsOwn(p.m, p.events);
      await this.store_(behind);
    }
  }

  /** After a claim: the moves that applied are stored, those that missed (their checkpoint moved) detach their consumers. */
  private stored(moves: readonly CheckpointMove[], missed: readonly CheckpointMove[]): void {
    for (const move of moves) {
      const m = this.members.find((x) => x.spec === move.spec)!;
      if (missed.includes(move)) this.detach(m, new CheckpointMoved());
      else {
        m.stored = move.position;
        if (m.skipped !== null && m.skipped <= move.position) m.skipped = null;
      }
    }
  }

  /** One consumer's batch in a transaction (or statement) of its own; a failure detaches it (or, alone in the group, fails the batch). */
  private async applyOnItsOwn(m: Member, events: readonly RecordedEvent[]): Promise<void> {
    try {
      await applyBatch(this.knex, m.spec, m.stored, events);
      m.stored = lastOf(events);
      m.skipped = null;
    } catch (err) {
      if (this.members.length === 1 && !(err instanceof CheckpointMoved)) throw err;
      this.detach(m, err);
    }
  }

  /** Stores the checkpoints these consumers left behind, and applies the parts beside them, in one statement. */
  private async store_(members: readonly Member[], parts: readonly Part[] = []): Promise<void> {
    const moves = members.map((m) => ({ spec: m.spec, expected: m.stored, position: m.skipped! }));
    let claimed: Awaited<ReturnType<typeof claim>>;
    try {
      claimed = await claim(
        this.knex,
        moves,
        parts.map((p) => p.part),
      );
    } catch (err) {
      for (const p of parts) p.part.settle(false);
      throw err;
    }
    this.stored(moves, claimed.missed);
    this.settle(parts, claimed.partsMoved);
  }

  private flushSoon(): void {
    if (this.flushTimer || this.stopped) return;
    const deferMs = Math.min(...this.members.filter((m) => m.skipped !== null).map((m) => m.deferMs));
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush().catch((err: unknown) => {
        this.log?.error({ err }, 'consumer checkpoints not moved; retrying');
        this.flushSoon();
      });
    }, deferMs);
    this.flushTimer.unref();
  }

  /** Stores how far the batches they acted on none of took the attached consumers. */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    return this.serially(() => this.store_(this.members.filter((m) => m.attached && m.skipped !== null)));
  }

  /** Takes a consumer out of the group's batches: it catches up on its own from its stored checkpoint, then rejoins. */
  private detach(m: Member, err: unknown): void {
    m.attached = false;
    m.skipped = null;
    if (err instanceof CheckpointMoved) {
      this.log?.warn({ consumer: m.spec.name }, 'consumer checkpoint moved; reading on from the stored one');
      this.catchUpSoon(m, 0);
    } else {
      this.log?.error({ err, consumer: m.spec.name }, 'consumer batch failed; retrying on its own');
      this.catchUpSoon(m, this.retryMs);
    }
  }

  private catchUpSoon(m: Member, delayMs: number): void {
    if (this.stopped || m.retry) return;
    m.retry = setTimeout(() => {
      m.retry = null;
      void this.catchUp(m);
    }, delayMs);
    m.retry.unref();
  }

  /**
   * A detached consumer alone: from its stored checkpoint, batch by batch in its own
   * transactions, until it is where the group is; then it takes its share of the group's
   * batches again. A failure waits `retryMs` and starts over.
   */
  private catchUp(m: Member): Promise<void> {
    if (m.catchingUp) return m.catchingUp;
    if (m.retry) clearTimeout(m.retry);
    m.retry = null;
    const run = (async () => {
      try {
        m.stored = await readCheckpoint(this.knex, m.spec.checkpointTable, m.spec.name);
        m.skipped = null;
        while (!this.stopped) {
          const rejoined = await this.serially(async () => {
            const at = positionOf(m);
            if (this.read !== null && (at === null || at < this.read)) return false;
            m.attached = true;
            return true;
          });
          if (rejoined) {
            this.log?.info({ consumer: m.spec.name }, 'consumer caught up; back in its group');
            for (const resolve of m.rejoined.splice(0)) resolve();
            return;
          }
          const batch = await this.store.readAll(positionOf(m), Math.min(this.batchSize, m.spec.batchSize ?? 500));
          if (batch.length === 0) throw new Error(`the log after ${positionOf(m) ?? 'its start'} reads empty, behind the group at ${this.read ?? ''}`);
          await applyBatch(this.knex, m.spec, m.stored, batch);
          m.stored = lastOf(batch);
        }
      } catch (err) {
        const moved = err instanceof CheckpointMoved;
        if (!moved) this.log?.error({ err, consumer: m.spec.name }, 'consumer batch failed; retrying on its own');
        // Scheduled after `finally` below has run: the next attempt starts afresh.
        this.catchUpSoon(m, moved ? 0 : this.retryMs);
      } finally {
        m.catchingUp = null;
      }
    })();
    m.catchingUp = run;
    return run;
  }

  /** Resolves when every consumer of the group has handled everything committed before the call, and the stored checkpoints say so. */
  async caughtUp(): Promise<void> {
    for (;;) {
      const sub = this.sub;
      if (!sub || this.stopped) return;
      await sub.caughtUp();
      const detached = this.members.filter((m) => !m.attached);
      if (detached.length === 0) break;
      // Those on their own try at once, then on their schedule; they rejoin where the group was.
      await Promise.all(
        detached.map(async (m) => {
          const rejoined = new Promise<void>((resolve) => m.rejoined.push(resolve));
          void this.catchUp(m);
          await rejoined;
        }),
      );
    }
    await this.flush();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const sub = this.sub;
    await sub?.stop();
    for (const m of this.members) {
      if (m.retry) clearTimeout(m.retry);
      m.retry = null;
      await m.catchingUp;
      for (const resolve of m.rejoined.splice(0)) resolve();
    }
    if (sub) await this.flush().catch((err: unknown) => this.log?.warn({ err }, 'consumer checkpoints not moved at stop; their last batches will be read again'));
    this.sub = null;
  }
}

/** A group of one: one consumer reading the log from its checkpoint (the embedded bus's BusConsumer for one spec). */
export class CheckpointedConsumer extends ConsumerGroup {
  constructor(knex: Knex, store: EventStore, spec: LogConsumerSpec, log?: Logger, deferMs = CHECKPOINT_DEFER_MS) {
    super(knex, store, [{ spec, deferMs }], log);
  }
}
