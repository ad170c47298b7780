/**
 * Data directories of the embedded PostgreSQL for tests that start the real service on one: the
 * postmaster a directory runs, and a teardown that stops whatever postmaster a failing run left
 * and deletes the directory and its cluster (which, as root, may live under SHARED_ROOT).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { clusterDir } from '#packages/core/embedded-postgres.js';

/** The pid in the cluster's postmaster.pid, or null when there is none. */
export function postmasterPid(dataDir: string): number | null {
  const file = path.join(clusterDir(dataDir), 'postmaster.pid');
  if (!fs.existsSync(file)) return null;
  return Number(fs.readFileSync(file, 'utf8').split('\n')[0]) || null;
}

/**
 * Whether `pid` is a running process. A process that has exited but whose parent (init, for an
 * orphan) has not reaped it yet is a zombie: it runs nothing, so it counts as gone.
 */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (not Linux): kill(0) is all there is. With /proc, the process vanished meanwhile.
    return !fs.existsSync('/proc/self/stat');
  }
}

/** Init reaps orphans in its own time: poll with a deadline until `pid` has gone. */
export async function gone(pid: number, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (running(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** At the test's end: stops the postmaster `dataDir` runs, if any, and deletes its cluster and `remove`. */
export function cleanUpDataDir(t: Test, dataDir: string, remove = dataDir): void {
  t.teardown(async () => {
    const pid = postmasterPid(dataDir);
    if (pid !== null && running(pid)) {
      process.kill(pid, 'SIGQUIT');
      await gone(pid);
    }
    fs.rmSync(clusterDir(dataDir), { recursive: true, force: true });
    fs.rmSync(remove, { recursive: true, force: true });
  });
}

/**
 * A fresh DATA_DIR, mode 0700 as `mktemp -d` makes it: closed to the `postgres` user that runs the
 * server when the tests run as root. Whatever postmaster a failing run leaves is stopped at the end.
 */
export function dataDirFor(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-e2e-db-'));
  cleanUpDataDir(t, dir);
  return dir;
}
