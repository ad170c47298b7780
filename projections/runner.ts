import type { Knex } from 'knex';
import type { EventStore, RecordedEvent, Subscription } from '../packages/eventstore/port.js';
import type { InlineHandler } from '../packages/eventstore/postgres/store.js';
import type { Logger } from '../packages/core/logger.js';
import type { Projection } from './projection.js';

/** Applies each event to every projection that handles its type, in log order. */
export async function applyEvents(trx: Knex.Transaction, projections: readonly Projection[], events: readonly RecordedEvent[]): Promise<void> {
  for (const event of events) {
    for (const projection of projections) {
      if (projection.handles.includes(event.type)) await projection.apply(trx, event);
    }
  }
}

/** The Postgres store runs projections in the append's transaction: a client reads what it wrote. */
export function inlineProjections(projections: readonly Projection[]): InlineHandler {
  return (trx, events) => applyEvents(trx, projections, events);
}

export async function readCheckpoint(knex: Knex | Knex.Transaction, name: string): Promise<string | null> {
  const row = await knex('read.projection_checkpoints').where({ name }).first<{ position: string | null } | undefined>();
  return row?.position ?? null;
}

class CheckpointMoved extends Error {}

/**
 * Applies one batch and moves the checkpoint in one transaction. The checkpoint row is locked and
 * compared first: if it is not where this runner left it (a rebuild reset it, another instance
 * advanced it), nothing is applied and the runner restarts from the stored checkpoint.
 */
export async function applyBatch(knex: Knex, projection: Projection, expected: string | null, events: readonly RecordedEvent[]): Promise<void> {
  await knex.transaction(async (trx) => {
    const row = await trx('read.projection_checkpoints').where({ name: projection.name }).forUpdate().first<{ position: string | null } | undefined>();
    if (!row) {
      if (expected !== null) throw new CheckpointMoved();
      await trx('read.projection_checkpoints').insert({ name: projection.name, position: null, updated_at: trx.fn.now() });
    } else if (row.position !== expected) {
      throw new CheckpointMoved();
    }
    await applyEvents(trx, [projection], events);
    const last = events[events.length - 1];
    if (last) {
      await trx('read.projection_checkpoints').where({ name: projection.name }).update({ position: last.position, updated_at: trx.fn.now() });
    }
  });
}

/**
 * Runs projections asynchronously from their checkpoints (the mode of stores that cannot run
 * projections inside the append, like EventStoreDB). Each batch and its checkpoint commit together.
 */
export class ProjectionRunner {
  private readonly running = new Map<string, Subscription>();
  private stopped = false;

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    private readonly log?: Logger,
  ) {}

  async start(): Promise<void> {
    for (const projection of this.projections) await this.startOne(projection);
  }

  private async startOne(projection: Projection): Promise<void> {
    let checkpoint = await readCheckpoint(this.knex, projection.name);
    if (this.stopped) return;
    let moved = false;
    const sub: Subscription = this.store.subscribe({
      after: checkpoint,
      batchSize: 500,
      handle: async (events) => {
        await applyBatch(this.knex, projection, checkpoint, events);
        checkpoint = events[events.length - 1]!.position;
      },
      onError: (err) => {
        if (err instanceof CheckpointMoved) {
          // Resubscribe from the stored checkpoint, once, outside the loop that reported it.
          if (!moved) setImmediate(() => void this.restart(projection, sub));
          moved = true;
          return;
        }
        this.log?.error({ err, projection: projection.name }, 'projection batch failed; retrying');
      },
    });
    this.running.set(projection.name, sub);
  }

  private async restart(projection: Projection, old: Subscription): Promise<void> {
    if (this.running.get(projection.name) !== old) return;
    this.running.delete(projection.name);
    await old.stop();
    await this.startOne(projection);
  }

  /** Resolves when every projection has applied everything committed before the call. */
  async caughtUp(): Promise<void> {
    await Promise.all([...this.running.values()].map((s) => s.caughtUp()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.running.values()].map((s) => s.stop()));
    this.running.clear();
  }
}

/** Reads committed events inside a transaction, without the xmin fence (see rebuildInline). */
export type TransactionalReader = (trx: Knex.Transaction, after: string | null, limit: number) => Promise<RecordedEvent[]>;

/**
 * Rebuilds inline projections from position zero while the service keeps running. The tables are
 * locked for the whole rebuild: appends that would touch them wait, and apply their events after
 * the rebuild commits, so nothing is applied twice or missed.
 */
export async function rebuildInline(knex: Knex, projections: readonly Projection[], read: TransactionalReader): Promise<number> {
  return knex.transaction(async (trx) => {
    const tables = projections.flatMap((p) => p.tables);
    await trx.raw(`LOCK TABLE ${tables.map(() => '??').join(', ')} IN ACCESS EXCLUSIVE MODE`, tables);
    await trx.raw(`TRUNCATE ${tables.map(() => '??').join(', ')}`, tables);
    let after: string | null = null;
    let applied = 0;
    for (;;) {
      const batch = await read(trx, after, 1000);
      if (batch.length === 0) break;
      await applyEvents(trx, projections, batch);
      applied += batch.length;
      after = batch[batch.length - 1]!.position;
    }
    const last = after;
    await trx('read.projection_checkpoints')
      .insert(projections.map((p) => ({ name: p.name, position: last, updated_at: trx.fn.now() })))
      .onConflict('name')
      .merge();
    return applied;
  });
}

/** Rebuilds asynchronous projections: reset tables and checkpoint; the runner catches up. */
export async function resetForRebuild(knex: Knex, projections: readonly Projection[]): Promise<void> {
  await knex.transaction(async (trx) => {
    for (const p of projections) {
      await trx('read.projection_checkpoints').where({ name: p.name }).forUpdate();
      await trx.raw(`TRUNCATE ${p.tables.map(() => '??').join(', ')}`, p.tables);
      await trx('read.projection_checkpoints')
        .insert({ name: p.name, position: null, updated_at: trx.fn.now() })
        .onConflict('name')
        .merge();
    }
  });
}
