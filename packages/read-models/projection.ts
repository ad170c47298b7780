import type { Knex } from 'knex';
import type { Migration } from '#packages/core/migration.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';

/**
 * A read model: tables in schema `read`, folded from the event log. `apply` must depend only on
 * the event and on rows this projection wrote for the same aggregate, so that a rebuild from
 * position zero produces the same rows as the live run.
 */
export interface Projection {
  name: string;
  /** Tables this projection owns (schema-qualified), truncated on rebuild. */
  tables: string[];
  /** Ordered, append-only list of table migrations. */
  migrations: Migration[];
  /** Event types it reads; others are never passed to apply. */
  handles: readonly string[];
  apply(trx: Knex.Transaction, event: RecordedEvent): Promise<void>;
  /**
   * Optional: applies several events (only of types it handles, in log order) with set-based
   * statements, leaving exactly the rows `apply` would leave applied to each in turn. Rebuilds,
   * multi-event commits and the log-following runner use it; without it, `apply` runs per event.
   */
  applyBatch?(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<void>;
  /**
   * A read model no request reads its own writes from (analytics): applied by a consumer that
   * follows the log in batches, not inside every command's commit, so commands neither wait for it
   * nor contend on its aggregate rows (docs/architecture.md, "Projections").
   */
  followsLog?: true;
}
