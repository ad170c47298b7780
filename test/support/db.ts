import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Test } from 'tap';
import { createKnex } from '#packages/core/database.js';
import { DatabaseNotifications } from '#packages/core/notifications.js';
import { startEmbeddedPostgres } from '#packages/core/embedded-postgres.js';
import type { Migration } from '#packages/core/migration.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { migrate, MIGRATIONS } from '../../infra/migrations.js';
import { throwawayClusterDir } from './cluster-dir.js';
import { tryLock } from './lock-dir.js';

let serverUrl: Promise<string> | null = null;

/**
 * The admin URL of this file's PostgreSQL. `make test` starts one server per concurrent test file
 * (SIKA_TEST_PG_SERVERS, test/support/run-tests.ts) and each file takes one for itself: the
 * Postgres store's reads wait for every transaction in progress on their server (its xmin fence),
 * so files sharing a server would see each other's transactions. A file run on its own starts
 * a server of its own, stopped when the file's last test ends (not its first's: the other tests
 * use it too).
 */
function adminUrl(): Promise<string> {
  serverUrl ??= (async () => {
    const servers = (process.env.SIKA_TEST_PG_SERVERS ?? '').split(' ').filter(Boolean);
    const locks = process.env.SIKA_TEST_LOCKS;
    if (servers.length > 0 && locks) return claimServer(servers, locks);
    const dir = throwawayClusterDir();
    const server = await startEmbeddedPostgres(dir, { persistent: false, fast: true });
    // Imported here, not above: importing tap makes a process a tap test with a 30 s limit, and
    // scripts that import this module for other helpers (make test-schema's, the simulator's, the
    // bench's) are not tests. tap's root, not `#tap`: the server is the process's, not a file's.
    // oxlint-disable-next-line no-restricted-imports
    const { default: tap } = await import('tap');
    tap.teardown(async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    return server.url('postgres');
  })();
  return serverUrl;
}

/**
 * Takes one of the run's servers for this process until it exits: a lock directory per server
 * (lock-dir.ts). The runner starts as many servers as files run at once, so one is free or soon will be.
 */
async function claimServer(servers: readonly string[], locks: string): Promise<string> {
  for (;;) {
    for (const [i, url] of servers.entries()) {
      const release = tryLock(path.join(locks, `pg${i}`));
      if (!release) continue;
      process.on('exit', release);
      return url;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A fresh, empty database for one test; dropped when the test ends. */
export async function freshDatabase(t: Test, template?: string): Promise<string> {
  const admin = await adminUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  // FILE_COPY copies the template's files; the default, WAL_LOG, writes all of its 12 MB through
  // the WAL as well, twice the server's CPU per copy (docs/testing.md).
  await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template} STRATEGY FILE_COPY` : ''}`);
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
  const url = options.migrations ? await freshDatabase(t) : await migratedCopy(t);
  const knex = createKnex(url, options.poolSize ?? 20);
  t.teardown(() => knex.destroy());
  if (options.migrations) await migrate(knex, options.migrations);
  return { url, knex };
}

let template: Promise<string> | null = null;

/**
 * The name of a database of the run's server with every migration applied, made once per server
 * (the first test file to ask makes it, under an advisory lock; the others wait for it). Its name
 * carries a hash of the migrations' names, so a server that outlives a change of them makes another.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const admin = await adminUrl();
    const name = `sika_template_${createHash('sha256')
      .update(MIGRATIONS.map((m) => m.name).join('\n'))
      .digest('hex')
      .slice(0, 12)}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock(20261124)');
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) {
        const building = `${name}_building_${randomBytes(4).toString('hex')}`;
        await client.query(`CREATE DATABASE ${building}`);
        const url = new URL(admin);
        url.pathname = `/${building}`;
        const knex = createKnex(url.toString(), 2);
        try {
          await migrate(knex);
        } finally {
          await knex.destroy();
        }
        // Under its final name only once complete: a crash mid-migration leaves no half template.
        await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
    } finally {
      await client.end();
    }
    return name;
  })();
  return template;
}

/**
 * A fresh database with every migration applied, copied from the run's template (a copy costs a
 * fraction of migrating); dropped when the test ends. What the service would migrate at start is
 * already there, so a service opened on it starts at once.
 */
export async function migratedCopy(t: Test): Promise<string> {
  const source = await migratedTemplate();
  return freshDatabase(t, source);
}

/** A fresh migrated database and a Postgres event store on it that listens for appends; closed when the test ends. */
export async function postgresStore(t: Test, options: { poolSize?: number; pollIntervalMs?: number } = {}): Promise<MigratedDatabase & { store: PostgresEventStore }> {
  const db = await migratedDatabase(t, options);
  const notifications = new DatabaseNotifications(db.url);
  const store = new PostgresEventStore(db.knex, { notifications, pollIntervalMs: options.pollIntervalMs ?? 50 });
  t.teardown(async () => {
    await store.close();
    await notifications.close();
  });
  return { ...db, store };
}
