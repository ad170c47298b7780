import type { Knex } from 'knex';
import type { Logger } from '../core/logger.js';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/port.js';

/** Thrown when the stored checkpoint is not where this consumer left it (reset, or another instance). */
export class CheckpointMoved extends Error {}

export interface ConsumerSpec {
  /** Unique per consumer; the checkpoint row's key. */
  name: string;
  /** Table with columns (name text primary key, position text, updated_at timestamptz). */
  checkpointTable: string;
  /** Applies a batch inside the transaction that also moves the checkpoint. */
  handle(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<void>;
  batchSize?: number;
  /**
   * The event types `handle` acts on, when it ignores all others: a batch with none of them only
   * moves the checkpoint, in one statement instead of a transaction (docs/performance.md).
   */
  handles?: readonly string[];
  /**
   * Narrower than `handles`, for a consumer that acts on some events of its types only (an entry
   * of one kind, a payout of the payout engine): whether `handle` would act on this event, decided
   * from the event alone. A batch it acts on none of takes the path of `handles` above.
   */
  acts?(event: RecordedEvent): boolean;
}

/** Whether `handle` would act on any of the events: a consumer that names neither `handles` nor `acts` acts on every batch. */
export function actsOnAny(spec: ConsumerSpec, events: readonly RecordedEvent[]): boolean {
  if (!spec.handles && !spec.acts) return true;
  return events.some((e) => (!spec.handles || spec.handles.includes(e.type)) && (!spec.acts || spec.acts(e)));
}

export async function readCheckpoint(db: Knex | Knex.Transaction, table: string, name: string): Promise<string | null> {
  const row = await db(table).where({ name }).first<{ position: string | null } | undefined>();
  return row?.position ?? null;
}

/**
 * Moves the checkpoint to `position`, provided it is still where this consumer left it
 * (`expected`): one compare-and-set statement; a missing row (the first batch) is inserted, a
 * moved checkpoint throws CheckpointMoved.
 */
export async function moveCheckpoint(knex: Knex, spec: ConsumerSpec, expected: string | null, position: string): Promise<void> {
  const moved = await knex(spec.checkpointTable)
    .where({ name: spec.name })
    .andWhereRaw('position IS NOT DISTINCT FROM ?', [expected])
    .update({ position, updated_at: knex.fn.now() });
  if (moved === 1) return;
  await knex.transaction(async (trx) => claimCheckpoint(trx, spec, expected, position));
}

/**
 * In a transaction: moves the checkpoint from `expected` to `position` and holds its row locked
 * until the commit. The update is the claim (one statement when the checkpoint is where it was
 * left); only when it matched no row is the row read, to tell a first batch (no row: inserted)
 * from a moved checkpoint (CheckpointMoved).
 */
async function claimCheckpoint(trx: Knex.Transaction, spec: ConsumerSpec, expected: string | null, position: string | null): Promise<void> {
  const table = spec.checkpointTable;
  const moved = await trx(table)
    .where({ name: spec.name })
    .andWhereRaw('position IS NOT DISTINCT FROM ?', [expected])
    .update({ position: position ?? expected, updated_at: trx.fn.now() });
  if (moved === 1) return;
  const row = await trx(table).where({ name: spec.name }).forUpdate().first<{ position: string | null } | undefined>();
  if (row || expected !== null) throw new CheckpointMoved();
  await trx(table).insert({ name: spec.name, position, updated_at: trx.fn.now() });
}

/**
 * Applies one batch and moves the checkpoint in one transaction, so a batch's effects and its
 * checkpoint commit together (exactly-once for what is written to this database). The checkpoint
 * is claimed first (moved and locked, claimCheckpoint): if it moved, nothing is applied. A batch
 * the consumer acts on none of (actsOnAny) only moves the checkpoint, in one statement.
 */
export async function applyBatch(knex: Knex, spec: ConsumerSpec, expected: string | null, events: readonly RecordedEvent[]): Promise<void> {
  const last = events[events.length - 1];
  if (last && !actsOnAny(spec, events)) return moveCheckpoint(knex, spec, expected, last.position);
  await knex.transaction(async (trx) => {
    await claimCheckpoint(trx, spec, expected, last?.position ?? null);
    await spec.handle(trx, events);
  });
}

/**
 * How long a consumer may leave its stored checkpoint behind batches it acts on none of. Every
 * commit wakes every consumer of a process; most act on none of it, and moving each one's
 * checkpoint past each commit cost a statement per consumer per commit. A checkpoint left behind
 * only makes a restart read those batches again and skip them again: nothing is applied twice.
 */
export const CHECKPOINT_DEFER_MS = 100;

/**
 * A checkpointed reader of the global log (the embedded bus): resumes after its stored
 * checkpoint, applies batches in order, and restarts from the stored checkpoint when it moved.
 * Batches it acts on none of move the stored checkpoint at most every `deferMs` (or with the
 * next batch it acts on, or when caught up or stopped), not one statement each; with `deferMs` 0
 * each moves it at once (for checkpoints something waits on, like the projector's).
 */
export class CheckpointedConsumer {
  private sub: Subscription | null = null;
  private stopped = false;
  /** The stored checkpoint, as this consumer last read or wrote it. */
  private stored: string | null = null;
  /** How far batches it acts on none of took it past `stored` (null: not past it). */
  private skipped: string | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  /** Batches and deferred moves of the checkpoint, one at a time. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    private readonly spec: ConsumerSpec,
    private readonly log?: Logger,
    private readonly deferMs = CHECKPOINT_DEFER_MS,
  ) {}

  async start(): Promise<void> {
    const checkpoint = await readCheckpoint(this.knex, this.spec.checkpointTable, this.spec.name);
    if (this.stopped) return;
    this.stored = checkpoint;
    this.skipped = null;
    let moved = false;
    const sub: Subscription = this.store.subscribe({
      after: checkpoint,
      batchSize: this.spec.batchSize ?? 500,
      handle: (events) =>
        this.serially(async () => {
          const last = events[events.length - 1]!.position;
          if (this.deferMs > 0 && !actsOnAny(this.spec, events)) {
            this.skipped = last;
            this.flushSoon(sub);
            return;
          }
          await applyBatch(this.knex, this.spec, this.stored, events);
          this.stored = last;
          this.skipped = null;
        }),
      onError: (err) => {
        if (err instanceof CheckpointMoved) {
          // Resubscribe from the stored checkpoint, once, outside the loop that reported it.
          if (!moved) setImmediate(() => void this.restart(sub));
          moved = true;
          return;
        }
        this.log?.error({ err, consumer: this.spec.name }, 'consumer batch failed; retrying');
      },
    });
    this.sub = sub;
  }

  private serially(work: () => Promise<void>): Promise<void> {
    const run = this.writing.then(work);
    this.writing = run.catch(() => undefined);
    return run;
  }

  private flushSoon(sub: Subscription): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush(sub).catch((err: unknown) => {
        if (err instanceof CheckpointMoved) return void this.restart(sub);
        this.log?.error({ err, consumer: this.spec.name }, 'consumer checkpoint not moved; retrying');
        this.flushSoon(sub);
      });
    }, this.deferMs);
    this.flushTimer.unref();
  }

  /** Stores how far the batches it acted on none of took it. */
  private flush(sub: Subscription): Promise<void> {
    return this.serially(async () => {
      if (this.sub !== sub || this.skipped === null) return;
      const position = this.skipped;
      await moveCheckpoint(this.knex, this.spec, this.stored, position);
      this.stored = position;
      if (this.skipped === position) this.skipped = null;
    });
  }

  private async restart(old: Subscription): Promise<void> {
    if (this.sub !== old) return;
    this.sub = null;
    this.cancelFlush();
    await old.stop();
    await this.start();
  }

  private cancelFlush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
  }

  /** Resolves when everything committed before the call has been handled, and the stored checkpoint says so. */
  async caughtUp(): Promise<void> {
    const sub = this.sub;
    if (!sub) return;
    await sub.caughtUp();
    this.cancelFlush();
    await this.flush(sub).catch((err: unknown) => {
      if (!(err instanceof CheckpointMoved)) throw err;
      void this.restart(sub);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const sub = this.sub;
    await sub?.stop();
    this.cancelFlush();
    if (sub) await this.flush(sub).catch((err: unknown) => this.log?.warn({ err, consumer: this.spec.name }, 'consumer checkpoint not moved at stop; its last batches will be read again'));
    this.sub = null;
  }
}
