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
 * A checkpointed reader of the global log (the embedded bus): resumes after its stored
 * checkpoint, applies batches in order, and restarts from the stored checkpoint when it moved.
 */
export class CheckpointedConsumer {
  private sub: Subscription | null = null;
  private stopped = false;

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    private readonly spec: ConsumerSpec,
    private readonly log?: Logger,
  ) {}

  async start(): Promise<void> {
    let checkpoint = await readCheckpoint(this.knex, this.spec.checkpointTable, this.spec.name);
    if (this.stopped) return;
    let moved = false;
    const sub: Subscription = this.store.subscribe({
      after: checkpoint,
      batchSize: this.spec.batchSize ?? 500,
      handle: async (events) => {
        await applyBatch(this.knex, this.spec, checkpoint, events);
        checkpoint = events[events.length - 1]!.position;
      },
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

  private async restart(old: Subscription): Promise<void> {
    if (this.sub !== old) return;
    this.sub = null;
    await old.stop();
    await this.start();
  }

  /** Resolves when everything committed before the call has been handled. */
  async caughtUp(): Promise<void> {
    await this.sub?.caughtUp();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.sub?.stop();
    this.sub = null;
  }
}
