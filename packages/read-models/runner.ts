import type { Knex } from 'knex';
import { ConsumerGroup, readCheckpoint, type GroupMember } from '#packages/bus/consumer.js';
import type { EventStore, RecordedEvent } from '#packages/eventstore/port.js';
import type { InlineHandler } from '#packages/eventstore/postgres/store.js';
import type { Logger } from '#packages/core/logger.js';
import type { Projection } from './projection.js';

/** Each projection's share of `events`: those of the types it handles, in log order. */
function sharesOf(projections: readonly Projection[], events: readonly RecordedEvent[]): Map<Projection, RecordedEvent[]> {
  const shares = new Map<Projection, RecordedEvent[]>(projections.map((p) => [p, []]));
  const byType = new Map<string, RecordedEvent[][]>();
  for (const event of events) {
    let lists = byType.get(event.type);
    if (!lists) byType.set(event.type, (lists = projections.filter((p) => p.handles.includes(event.type)).map((p) => shares.get(p)!)));
    for (const list of lists) list.push(event);
  }
  return shares;
}

/** A projection's share of some events: in one `applyBatch` call where it has one (a few set-based statements instead of some per event). */
async function applyShare(trx: Knex.Transaction, projection: Projection, handled: readonly RecordedEvent[]): Promise<void> {
  if (handled.length > 1 && projection.applyBatch) await projection.applyBatch(trx, handled);
  else for (const event of handled) await projection.apply(trx, event);
}

/**
 * Applies the events to every projection that handles their types, in log order, projection by
 * projection, not event by event: none reads another's tables.
 */
export async function applyEvents(trx: Knex.Transaction, projections: readonly Projection[], events: readonly RecordedEvent[]): Promise<void> {
  for (const [projection, handled] of sharesOf(projections, events)) await applyShare(trx, projection, handled);
}

/** The Postgres store runs projections in the append's transaction: a client reads what it wrote. */
export function inlineProjections(projections: readonly Projection[]): InlineHandler {
  return (trx, events) => applyEvents(trx, projections, events);
}

const CHECKPOINTS = 'read.projection_checkpoints';

export function readProjectionCheckpoint(knex: Knex | Knex.Transaction, name: string): Promise<string | null> {
  return readCheckpoint(knex, CHECKPOINTS, name);
}

/**
 * The projections as consumers of a group (ConsumerGroup): one checkpoint each, applied in the
 * group's shared transaction, a batch's rows and its checkpoint in one commit. A batch a
 * projection acts on none of writes no row, and its checkpoint may be left behind for
 * `checkpointDeferMs` (docs/performance.md steps 27 and 30): a crash then reads those batches
 * again and skips them again. Only where nothing waits on the stored checkpoints: with
 * EventStoreDB, read-your-writes (ReadYourWritesStore) waits until every one has passed an
 * append, so there they move at once (0, the default).
 */
export function projectionConsumers(projections: readonly Projection[], checkpointDeferMs = 0): GroupMember[] {
  return projections.map((p) => ({ spec: { name: p.name, checkpointTable: CHECKPOINTS, handles: p.handles, handle: (trx, events) => applyEvents(trx, [p], events) }, deferMs: checkpointDeferMs }));
}

/**
 * Runs projections asynchronously from their checkpoints (the mode of stores that cannot run
 * projections inside the append, like EventStoreDB, and of the read models that follow the log):
 * a consumer group of one consumer per projection, each one's batch and checkpoint committed
 * together, in one transaction with the others that act on the same batch.
 */
export class ProjectionRunner extends ConsumerGroup {
  constructor(knex: Knex, store: EventStore, projections: readonly Projection[], log?: Logger, checkpointDeferMs = 0) {
    super(knex, store, projectionConsumers(projections, checkpointDeferMs), log);
  }
}

/** Reads committed events inside a transaction, without the xmin fence (see rebuildInline). */
export type TransactionalReader = (trx: Knex.Transaction, after: string | null, limit: number) => Promise<RecordedEvent[]>;

/** Events read and applied at a time by a rebuild: the larger, the fewer statements per event. */
const REBUILD_PAGE = 10_000;

/** A rebuild's pages under way at once: Node computes the next pages' rows while the database writes the earlier ones' (docs/performance.md). */
const REBUILD_PAGES_IN_FLIGHT = 3;

export interface RebuildOptions {
  /** Events read at a time (REBUILD_PAGE). */
  pageSize?: number;
  /** Pages applied at once (REBUILD_PAGES_IN_FLIGHT); with 1, each page is applied before the next starts. */
  pagesInFlight?: number;
}

/**
 * A rebuild's pages, several under way at once. Each projection's share of a page runs after its
 * share of the pages before, so its own statements keep the log's order, while the projections run
 * side by side (none reads another's tables). On a pipelined connection each statement goes out when
 * it is made: the backend writes one projection's rows while Node computes another's.
 */
class PagesUnderWay {
  private readonly lastShares = new Map<Projection, Promise<void>>();
  private readonly pages: Promise<unknown>[] = [];

  constructor(
    private readonly trx: Knex.Transaction,
    private readonly projections: readonly Projection[],
    private readonly inFlight: number,
  ) {}

  /** Starts a page's shares; returns once fewer than `inFlight` pages are under way. */
  async add(events: readonly RecordedEvent[]): Promise<void> {
    const shares: Promise<void>[] = [];
    for (const [projection, handled] of sharesOf(this.projections, events)) {
      if (handled.length === 0) continue;
      const share = (this.lastShares.get(projection) ?? Promise.resolve()).then(() => applyShare(this.trx, projection, handled));
      share.catch(() => undefined); // its failure reaches the rebuild through its page
      this.lastShares.set(projection, share);
      shares.push(share);
    }
    const page = Promise.all(shares);
    page.catch(() => undefined); // awaited below or in finish()
    this.pages.push(page);
    if (this.pages.length >= this.inFlight) await this.pages.shift();
  }

  /** Every page applied. */
  async finish(): Promise<void> {
    await Promise.all(this.pages);
  }

  /** After a failure: every share ended, so no statement of the rebuild runs once its transaction has. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.lastShares.values());
  }
}

/**
 * Rebuilds inline projections from position zero while the service keeps running. The tables are
 * locked for the whole rebuild: appends that would touch them wait, and apply their events after
 * the rebuild commits, so nothing is applied twice or missed. The rebuild writes through `writer`,
 * a pool whose connections pipeline (createKnex's `pipeline`), with several pages under way. The log
 * is read on a connection of `knex` in the rebuild's own snapshot (taken once the locks are held), a
 * page ahead, so the database reads the next page while it writes the others.
 */
export async function rebuildInline(writer: Knex, knex: Knex, projections: readonly Projection[], read: TransactionalReader, options: RebuildOptions = {}): Promise<number> {
  const pageSize = options.pageSize ?? REBUILD_PAGE;
  return writer.transaction(async (trx) => {
    const tables = projections.flatMap((p) => p.tables);
    await trx.raw(`LOCK TABLE ${tables.map(() => '??').join(', ')} IN ACCESS EXCLUSIVE MODE`, tables);
    await trx.raw(`TRUNCATE ${tables.map(() => '??').join(', ')}`, tables);
    const exported = await trx.raw<{ rows: { snapshot: string }[] }>('SELECT pg_export_snapshot() AS snapshot');
    const snapshot = exported.rows[0]!.snapshot;
    // SET TRANSACTION SNAPSHOT takes no bindings: the id is checked before it goes into the text.
    if (!/^[0-9A-F]+-[0-9A-F]+(-[0-9]+)?$/i.test(snapshot)) throw new Error(`Unexpected snapshot id ${snapshot}`);
    const reader = await knex.transaction({ isolationLevel: 'repeatable read', readOnly: true });
    try {
      await reader.raw(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
      const readPage = (after: string | null) => {
        const page = read(reader, after, pageSize);
        page.catch(() => undefined); // awaited below; a failure while a page is applied is not unhandled
        return page;
      };
      let after: string | null = null;
      let applied = 0;
      const pages = new PagesUnderWay(trx, projections, options.pagesInFlight ?? REBUILD_PAGES_IN_FLIGHT);
      try {
        for (let next = readPage(null); ;) {
          const batch = await next;
          if (batch.length === 0) break;
          after = batch[batch.length - 1]!.position;
          next = readPage(after);
          await pages.add(batch);
          applied += batch.length;
        }
        await pages.finish();
      } catch (err) {
        await pages.settle();
        throw err;
      }
      const last = after;
      await trx(CHECKPOINTS)
        .insert(projections.map((p) => ({ name: p.name, position: last, updated_at: trx.fn.now() })))
        .onConflict('name')
        .merge();
      return applied;
    } finally {
      await reader.rollback().catch(() => undefined);
    }
  });
}

/** Rebuilds asynchronous projections: reset tables and checkpoint; the runner catches up. */
export async function resetForRebuild(knex: Knex, projections: readonly Projection[]): Promise<void> {
  await knex.transaction(async (trx) => {
    for (const p of projections) {
      await trx(CHECKPOINTS).where({ name: p.name }).forUpdate();
      await trx.raw(`TRUNCATE ${p.tables.map(() => '??').join(', ')}`, p.tables);
      await trx(CHECKPOINTS).insert({ name: p.name, position: null, updated_at: trx.fn.now() }).onConflict('name').merge();
    }
  });
}
