import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Test } from 'tap';
import { createKnex } from '../../packages/core/database.js';
import { startEmbeddedPostgres } from '../../packages/core/embedded-postgres.js';
import type { Migration } from '../../packages/core/migration.js';
import { PostgresEventStore } from '../../packages/eventstore/postgres/store.js';
import { migrate } from '../../infra/migrations.js';

let serverUrl: Promise<string> | null = null;

/** The admin URL of the run's PostgreSQL; a file run on its own starts one of its own. */
function adminUrl(t: Test): Promise<string> {
  if (process.env.SIKA_TEST_PG) return Promise.resolve(process.env.SIKA_TEST_PG);
  serverUrl ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-test-'));
    const server = await startEmbeddedPostgres(dir, { persistent: false, fast: true });
    t.teardown(() => server.stop());
    return server.url('postgres');
  })();
  return serverUrl;
}

/** A fresh, empty database for one test; dropped when the test ends. */
export async function freshDatabase(t: Test): Promise<string> {
  const admin = await adminUrl(t);
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  t.teardown(async () => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface MigratedDatabase {
  url: string;
  knex: Knex;
}

/**
 * A fresh database with `migrations` applied (every migration of the service by default) and a
 * connection pool on it; the pool is destroyed and the database dropped when the test ends.
 */
export async function migratedDatabase(t: Test, options: { poolSize?: number; migrations?: readonly Migration[] } = {}): Promise<MigratedDatabase> {
  const url = await freshDatabase(t);
  const knex = createKnex(url, options.poolSize ?? 20);
  t.teardown(() => knex.destroy());
  await migrate(knex, options.migrations);
  return { url, knex };
}

/** A fresh migrated database and a Postgres event store on it that listens for appends; closed when the test ends. */
export async function postgresStore(t: Test, options: { poolSize?: number; pollIntervalMs?: number } = {}): Promise<MigratedDatabase & { store: PostgresEventStore }> {
  const db = await migratedDatabase(t, options);
  const store = new PostgresEventStore(db.knex, { listenUrl: db.url, pollIntervalMs: options.pollIntervalMs ?? 50 });
  t.teardown(() => store.close());
  return { ...db, store };
}
