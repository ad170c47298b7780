import type { Knex } from 'knex';
import { systemClock, type Clock } from '../packages/core/clock.js';
import type { Config } from '../packages/core/config.js';
import { openDatabase, type Database } from '../packages/core/database.js';
import { createLogger, type Logger } from '../packages/core/logger.js';
import { PostgresEventStore } from '../packages/eventstore/postgres/store.js';
import { IdempotencyStore } from '../packages/http/idempotency.js';
import { migrate } from '../infra/migrations.js';
import { ALL_PROJECTIONS } from '../projections/registry.js';
import { inlineProjections, rebuildInline } from '../projections/runner.js';

/** Everything a process of the service shares: database, event store, clock, logger. */
export interface System {
  config: Config;
  db: Database;
  knex: Knex;
  store: PostgresEventStore;
  clock: Clock;
  log: Logger;
  idempotency: IdempotencyStore;
  /** Rebuilds the named read models (all when empty) from position zero; returns events applied. */
  rebuildProjections(names?: string[]): Promise<number>;
  close(): Promise<void>;
}

export interface SystemOptions {
  clock?: Clock;
  log?: Logger;
  poolMax?: number;
}

/** Opens the database (embedded or DATABASE_URL), migrates, and wires the Postgres event store. */
export async function openSystem(config: Config, options: SystemOptions = {}): Promise<System> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: options.poolMax, log });
  try {
    const applied = await migrate(db.knex);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
  } catch (err) {
    await db.close();
    throw err;
  }
  const store = new PostgresEventStore(db.knex, { inline: inlineProjections(ALL_PROJECTIONS), listenUrl: db.url });
  return {
    config,
    db,
    knex: db.knex,
    store,
    clock,
    log,
    idempotency: new IdempotencyStore(db.knex, clock, config.idempotencyTtlMs),
    rebuildProjections: async (names = []) => {
      const unknown = names.filter((n) => !ALL_PROJECTIONS.some((p) => p.name === n));
      if (unknown.length > 0) throw new Error(`Unknown projection(s): ${unknown.join(', ')}; known: ${ALL_PROJECTIONS.map((p) => p.name).join(', ')}`);
      const chosen = names.length === 0 ? ALL_PROJECTIONS : ALL_PROJECTIONS.filter((p) => names.includes(p.name));
      return rebuildInline(db.knex, chosen, (trx, after, limit) => store.readCommitted(trx, after, limit));
    },
    close: async () => {
      await store.close();
      await db.close();
    },
  };
}
