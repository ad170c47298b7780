import type { Knex } from 'knex';

/** One step of a table's schema, applied once in name order by infra/migrations.ts. */
export interface Migration {
  /** Unique and stable: `<owner>/<nnn>-<what>`. */
  name: string;
  up(knex: Knex | Knex.Transaction): Promise<void>;
}
