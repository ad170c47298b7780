import type { Knex } from 'knex';
import type { Environment } from '#packages/core/owner.js';
import type { ReconciliationRunEvent, ReconciliationRunRecorded } from '../reconciliation-runs.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';

const TABLE = 'read.reconciliation_runs';

/** read.reconciliation_runs: every recorded reconciliation of a rail, its report whole (docs/reconciliation.md, "Rails"). */
export const reconciliationRunsProjection: Projection = {
  name: 'reconciliation-runs',
  tables: [TABLE],
  migrations: [
    {
      name: 'reconciliation-runs/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE ${TABLE} (
          id text PRIMARY KEY,
          seq text NOT NULL,
          rail text NOT NULL,
          environment text NOT NULL,
          differences integer NOT NULL,
          run json NOT NULL
        );
        CREATE INDEX ON ${TABLE} (rail, environment, seq)`),
    },
  ],
  handles: ['reconciliation.run_recorded'],
  ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
    const { data } = event as unknown as ReconciliationRunEvent;
    const row = { id: data.runId, seq: event.position, rail: data.rail, environment: data.environment, differences: data.wallets.length + data.attempts.length, run: data };
    return [{ table: TABLE, insert: row }];
  }),
};

/** The runs, newest first; of one rail and environment when given. */
export function listReconciliationRuns(knex: Knex, filter: { rail?: string; environment?: Environment }, query: CursorQuery, url: string): Promise<CursorList<ReconciliationRunRecorded>> {
  const base = knex(TABLE).select('seq', 'id', 'run');
  if (filter.rail !== undefined) base.where('rail', filter.rail);
  if (filter.environment !== undefined) base.where('environment', filter.environment);
  return cursorPage<{ seq: string; run: ReconciliationRunRecorded }, ReconciliationRunRecorded>(base, query, url, 'id', (row) => row.run);
}

export async function findReconciliationRun(knex: Knex, id: string): Promise<ReconciliationRunRecorded | undefined> {
  const row = await knex(TABLE).where({ id }).first<{ run: ReconciliationRunRecorded } | undefined>('run');
  return row?.run;
}
