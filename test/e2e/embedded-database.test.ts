/**
 * The embedded PostgreSQL of a DATA_DIR is stopped by exactly one process, also after a crash.
 * When the service's node process alone is killed (an out-of-memory kill: SIGKILL to node, not to
 * its process group), its postmaster keeps running; the next service on that DATA_DIR must not
 * leave it running forever after its own clean stop. A CLI run that joins the server a live
 * service started must leave it running for the service.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import t, { type Test } from '#tap';
import { clusterDir, freePort, SHARED_ROOT, startEmbeddedPostgres } from '#packages/core/embedded-postgres.js';
import { startProcess, type ServiceProcess } from '../support/child-process.js';
import { dataDirFor, gone, postmasterPid, running } from '../support/data-dir.js';

/** First start of a DATA_DIR runs initdb: slow on a busy machine. */
const START_TIMEOUT_MS = 180_000;

async function startService(t: Test, dataDir: string): Promise<{ proc: ServiceProcess; port: number }> {
  const port = await freePort();
  const proc = startProcess('services/standalone/main.js', { DATA_DIR: dataDir, PORT: String(port) });
  t.teardown(() => void proc.child.kill('SIGKILL'));
  await proc.waitFor(/sika is serving/, START_TIMEOUT_MS);
  return { proc, port };
}

async function stopService(t: Test, proc: ServiceProcess): Promise<void> {
  proc.child.kill('SIGTERM');
  t.equal(await proc.exit, 0, 'clean exit on SIGTERM');
  t.match(proc.output(), /stopped/);
}

t.test('a service killed with SIGKILL: the next one on its DATA_DIR leaves no postmaster behind after a clean stop', async (t) => {
  const dataDir = dataDirFor(t);
  const first = await startService(t, dataDir);
  const orphan = postmasterPid(dataDir);
  t.ok(orphan !== null && running(orphan), 'the first service runs an embedded postmaster');

  first.proc.child.kill('SIGKILL'); // node only, as the out-of-memory killer does; the postmaster is not signalled
  await first.proc.exit;
  t.ok(running(orphan!), 'its postmaster outlives it (orphaned)');

  const second = await startService(t, dataDir);
  t.match(second.proc.output(), /left running by a process that died/, 'the restarted service says what it found');
  const health = await fetch(`http://127.0.0.1:${second.port}/readyz`);
  t.equal(health.status, 200, 'the restarted service reaches its database');
  await health.arrayBuffer();
  const serving = postmasterPid(dataDir);
  t.ok(serving !== null && running(serving), 'a postmaster serves the restarted service');

  await stopService(t, second.proc);
  t.ok(await gone(orphan!), `the orphaned postmaster (pid ${orphan}) is stopped`);
  t.ok(await gone(serving!), `the postmaster the second service used (pid ${serving}) is stopped`);
  t.throws(() => process.kill(serving!, 0), 'no such process');
  t.equal(postmasterPid(dataDir), null, 'postmaster.pid is gone: the server shut down cleanly');

  // And the data survived: a third start on the same DATA_DIR serves again.
  const third = await startService(t, dataDir);
  const again = await fetch(`http://127.0.0.1:${third.port}/readyz`);
  t.equal(again.status, 200);
  await again.arrayBuffer();
  await stopService(t, third.proc);
  const last = postmasterPid(dataDir);
  t.equal(last, null, 'stopped cleanly again');
});

t.test('a CLI run that joins the server of a live service leaves it running', async (t) => {
  const dataDir = dataDirFor(t);
  const service = await startService(t, dataDir);
  const pid = postmasterPid(dataDir);
  t.ok(pid !== null && running(pid));

  const cli = startProcess('bin/cli.js', { DATA_DIR: dataDir }, ['merchants', 'create', '--name', 'Joined', '--json']);
  t.equal(await cli.exit, 0, 'the CLI run succeeds', { output: cli.output() });
  const { api_keys } = JSON.parse(/^\{.*\}$/m.exec(cli.output())?.[0] ?? 'null') as { api_keys: { sandbox: string } };
  t.ok(running(pid!), 'the postmaster still runs after the CLI exits');
  t.equal(postmasterPid(dataDir), pid, 'the same one');

  const res = await fetch(`http://127.0.0.1:${service.port}/api/v1/webhook-endpoints`, { headers: { authorization: `Bearer ${api_keys.sandbox}` } });
  t.equal(res.status, 200, 'the service still reads its database (and sees what the CLI wrote)');
  await res.arrayBuffer();

  await stopService(t, service.proc);
  t.ok(await gone(pid!), 'the service stops its postmaster');
});

t.test('a DATA_DIR closed to others (0700): the service starts, keeps its data across restarts, and DATA_DIR says where the cluster is', async (t) => {
  const dataDir = dataDirFor(t);
  t.equal(fs.statSync(dataDir).mode & 0o777, 0o700);
  const first = await startService(t, dataDir);
  const cli = startProcess('bin/cli.js', { DATA_DIR: dataDir }, ['merchants', 'create', '--name', 'Kept', '--json']);
  t.equal(await cli.exit, 0, 'the CLI writes to the database of the running service', { output: cli.output() });
  const { api_keys } = JSON.parse(/^\{.*\}$/m.exec(cli.output())?.[0] ?? 'null') as { api_keys: { sandbox: string } };
  await stopService(t, first.proc);

  if (process.getuid?.() === 0) {
    // PostgreSQL runs as `postgres`, who cannot traverse DATA_DIR: the cluster lives under SHARED_ROOT.
    const location = fs.readFileSync(path.join(dataDir, 'postgres.location'), 'utf8').trim();
    t.equal(path.dirname(path.dirname(location)), SHARED_ROOT, `the cluster is kept under ${SHARED_ROOT}`);
    t.equal(clusterDir(dataDir), location);
  } else {
    t.equal(clusterDir(dataDir), path.join(dataDir, 'pg'), 'not root: the server runs as this user, in DATA_DIR');
  }
  t.ok(fs.existsSync(path.join(clusterDir(dataDir), 'PG_VERSION')), 'an initialised cluster');

  const second = await startService(t, dataDir);
  t.notMatch(second.proc.output(), /initialising embedded PostgreSQL/, 'the restart finds the same cluster');
  const res = await fetch(`http://127.0.0.1:${second.port}/api/v1/webhook-endpoints`, { headers: { authorization: `Bearer ${api_keys.sandbox}` } });
  t.equal(res.status, 200, 'the merchant created before the restart still authenticates');
  await res.arrayBuffer();
  await stopService(t, second.proc);
});

t.test(
  "a throwaway run killed before it stops: the next start deletes its cluster and stops its postmaster, and keeps a service's cluster",
  { skip: process.getuid?.() === 0 ? false : `not root: throwaway clusters live in their own DATA_DIR, not under ${SHARED_ROOT}` },
  async (t) => {
    // A test run's server, started by a process that is then killed (SIGKILL: no stop runs).
    const killedDir = dataDirFor(t);
    const module = new URL('../../packages/core/embedded-postgres.js', import.meta.url).href;
    const run = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startEmbeddedPostgres } = await import(${JSON.stringify(module)}); await startEmbeddedPostgres(process.argv[1], { persistent: false, fast: true }); console.log('started'); setInterval(() => {}, 60_000);`,
        killedDir,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      run.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('started') ? resolve() : undefined));
      run.once('exit', (code) => reject(new Error(`the throwaway run exited (${code}) before its server started`)));
    });
    const left = clusterDir(killedDir);
    const orphan = postmasterPid(killedDir);
    t.ok(orphan !== null && running(orphan), 'the run serves from a cluster under SHARED_ROOT');
    t.equal(fs.readFileSync(`${left}.throwaway`, 'utf8').trim(), String(run.pid), "marked as the run's throwaway cluster");
    run.kill('SIGKILL');
    await new Promise((resolve) => run.once('exit', resolve));

    // A service's cluster, stopped: no process owns it now, and it must outlive every sweep.
    const keptDir = dataDirFor(t);
    await (await startEmbeddedPostgres(keptDir)).stop();
    const kept = clusterDir(keptDir);

    const next = await startEmbeddedPostgres(dataDirFor(t), { persistent: false, fast: true });
    t.ok(await gone(orphan!), `the killed run's postmaster (pid ${orphan}) is stopped`);
    t.notOk(fs.existsSync(left), 'its cluster is deleted');
    t.notOk(fs.existsSync(`${left}.throwaway`), 'and its mark');
    t.ok(fs.existsSync(path.join(kept, 'PG_VERSION')), "the service's cluster is kept");
    t.notOk(fs.existsSync(`${kept}.throwaway`), 'a kept cluster carries no mark');
    await next.stop();
  },
);

/** The state letter of `pid` (R, S, T, Z…) from /proc, or null once it is gone. */
function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
  } catch {
    return null;
  }
}

/** The pids whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

t.test(
  'a postmaster killed with SIGKILL and not reaped yet (a zombie): the next start waits for its last backend, then starts over its stale lock',
  { skip: fs.existsSync('/proc/sysvipc/shm') ? false : 'needs /proc (Linux)' },
  async (t) => {
    const dataDir = dataDirFor(t);
    const first = await startEmbeddedPostgres(dataDir);
    const postgresBinary = fs.readlinkSync(`/proc/${postmasterPid(dataDir)}/exe`);
    await first.stop();
    const pgDir = clusterDir(dataDir);
    const owner = fs.statSync(pgDir);

    // A parent that never reaps: the shell execs into sleep, so the killed postmaster stays a zombie,
    // as it does when the service was killed first and init has not reaped the postmaster yet.
    const parent = spawn('/bin/sh', ['-c', '"$0" -D "$1" -p "$2" -c listen_addresses=127.0.0.1 -c unix_socket_directories= & exec sleep 600', postgresBinary, pgDir, String(await freePort())], {
      ...(process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {}),
      cwd: path.dirname(pgDir),
      env: { ...process.env, LC_MESSAGES: 'C' },
      stdio: 'ignore',
      detached: true,
    });
    t.teardown(() => {
      try {
        process.kill(-parent.pid!, 'SIGKILL'); // init then reaps the zombie
      } catch {
        // gone
      }
    });
    const lockFile = path.join(pgDir, 'postmaster.pid');
    const started = Date.now();
    while (!(fs.existsSync(lockFile) && fs.readFileSync(lockFile, 'utf8').split('\n')[7]?.trim() === 'ready')) {
      if (Date.now() - started > START_TIMEOUT_MS) throw new Error('the postmaster under a non-reaping parent did not get ready');
      await new Promise((r) => setTimeout(r, 50));
    }
    const postmaster = postmasterPid(dataDir)!;
    const backend = childrenOf(postmaster)[0]!;
    t.ok(backend, 'the postmaster has a backend process');

    process.kill(backend, 'SIGSTOP'); // it stays attached to the shared memory until continued
    process.kill(postmaster, 'SIGKILL');
    while (processState(postmaster) !== 'Z') await new Promise((r) => setTimeout(r, 20));
    t.equal(postmasterPid(dataDir), postmaster, 'the killed postmaster left its lock file, naming a zombie');

    let done = false;
    const restart = startEmbeddedPostgres(dataDir).finally(() => (done = true));
    await new Promise((r) => setTimeout(r, 1_500));
    t.notOk(done, 'while a backend of the killed server still uses its shared memory, the start waits');
    t.equal(postmasterPid(dataDir), postmaster, 'and the lock stays');

    process.kill(backend, 'SIGCONT'); // it sees its postmaster is dead and exits
    const server = await restart;
    t.equal(processState(postmaster), 'Z', 'the old postmaster is still not reaped');
    const client = new pg.Client({ connectionString: server.url(server.database) });
    await client.connect();
    t.same((await client.query('SELECT 1 AS one')).rows, [{ one: 1 }], 'a new server serves the same cluster');
    await client.end();
    await server.stop();
    t.equal(postmasterPid(dataDir), null, 'and stops cleanly');
  },
);

t.test('a DATA_DIR that cannot be made: one line says why and what to do, exit 1', async (t) => {
  const proc = startProcess('services/standalone/main.js', { DATA_DIR: '/dev/null/sika', PORT: String(await freePort()) });
  t.equal(await proc.exit, 1);
  t.match(proc.output(), /^sika failed to start: DATA_DIR \/dev\/null\/sika cannot be written \(ENOTDIR\): choose a directory this user can write\n$/);
});
