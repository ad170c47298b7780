import type { Knex } from 'knex';

/** One step of a table's schema, applied once in name order by infra/migrations.ts. */
export interface Migration {
  /** Unique and stable: `<owner>/<nnn>-<what>`. */
  name: string;
  up(knex: Knex | Knex.Transaction): Promise<void>;
}

/** A migration that is one SQL script (statements separated by `;`). */
export function sqlMigration(name: string, sql: string): Migration {
  return { name, up: async (knex) => void (await knex.raw(sql)) };
}
