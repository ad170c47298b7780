import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { PROJECT_ROOT } from '#packages/core/config.js';
import { freePort } from '#packages/core/embedded-postgres.js';
import { migratedCopy } from './db.js';

/** The repository root. */
export const root = PROJECT_ROOT;

/** The Node flags `make start` runs the service with (the Makefile's SERVICE_NODE_FLAGS). */
export function serviceNodeFlags(): string[] {
  const line = /^SERVICE_NODE_FLAGS := (.+)$/m.exec(fs.readFileSync(path.join(root, 'Makefile'), 'utf8'));
  if (!line) throw new Error('the Makefile defines no SERVICE_NODE_FLAGS');
  return line[1]!.trim().split(/\s+/);
}

/**
 * How long a wait for a process's output lasts by default: a bound on a hang, not a speed test.
 * A process loads the whole service before it prints anything, which takes seconds on a quiet
 * machine and far longer while the suite's other files and their databases load both cores.
 */
export const WAIT_FOR_OUTPUT_MS = 180_000;

/** A process of the service started from dist/, with its output collected. */
export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output matches; rejects after `timeoutMs` (WAIT_FOR_OUTPUT_MS) or when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code once the output streams have ended. */
  exit: Promise<number | null>;
}

/** Where a process runs from: the project whose `dist/` holds the script (this one by default), and its working directory (that project's root by default). */
export interface ProcessPlace {
  project?: string;
  cwd?: string;
}

/** DATA_DIRs of processes given a database, removed when the test process ends. */
const dataDirs: string[] = [];
process.on('exit', () => dataDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/**
 * A DATA_DIR of its own for a process given a database and none: a service records its
 * configuration there at start (docs/operator.md, "The command line"), which the project's `.data`
 * must not get from a test's throwaway service.
 */
function ownDataDir(env: Record<string, string>): Record<string, string> {
  if (!env.DATABASE_URL || env.DATA_DIR) return {};
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-data-'));
  dataDirs.push(dir);
  return { DATA_DIR: dir };
}

/** Starts `dist/<script>` (e.g. `services/api/main.js`) with a minimal environment plus `env`, and Node's own `nodeArgs`. */
export function startProcess(script: string, env: Record<string, string>, args: string[] = [], nodeArgs: string[] = [], place: ProcessPlace = {}): ServiceProcess {
  const project = place.project ?? root;
  env = { ...ownDataDir(env), ...env };
  return watched(
    spawn(process.execPath, [...nodeArgs, path.join(project, 'dist', script), ...args], {
      cwd: place.cwd ?? project,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/** A child process (spawned with piped stdout and stderr) whose output is collected and can be waited for. */
export function watched(child: ChildProcess): ServiceProcess {
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  // 'close' comes after the output streams ended, so output() is complete once exit resolves.
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exit,
    waitFor: (pattern, timeoutMs = WAIT_FOR_OUTPUT_MS) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        void exit.then(() => {
          if (!pattern.test(out)) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`exited before ${pattern}; output:\n${out}`));
          }
        });
        check();
      }),
  };
}

/**
 * Polls `probe` until it returns a value (not undefined), for tests of real processes on the real
 * clock: no fixed sleeps. A probe that throws (the process is down, restarting) counts as "not
 * yet"; after `timeoutMs` the wait fails naming `what` and the probe's last error.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    const value = await probe().catch((err: unknown) => void (lastError = err));
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}${lastError ? ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A standalone service on a fresh database that a crash test can kill and start again (`serve`),
 * with one merchant made through the CLI. Rate limits are off: the clients retry in a tight loop.
 */
export async function crashableService(t: Test, merchantName: string, extraEnv: Record<string, string> = {}): Promise<{ api: string; serve: () => Promise<ServiceProcess>; sandboxKey: string }> {
  const url = await migratedCopy(t);
  const port = await freePort();
  const env = { DATABASE_URL: url, PORT: String(port), SANDBOX_OPERATOR_DELAY_MS: '200', RATE_LIMIT: 'off', RATE_LIMIT_ADDRESS: 'off', ...extraEnv };
  const serve = async (): Promise<ServiceProcess> => {
    const service = startProcess('services/standalone/main.js', env);
    t.teardown(() => void service.child.kill('SIGKILL'));
    await service.waitFor(/sika is serving/);
    return service;
  };
  const cli = startProcess('bin/cli.js', { DATABASE_URL: url, LOG_LEVEL: 'silent' }, ['merchants', 'create', '--name', merchantName, '--json']);
  t.equal(await cli.exit, 0, 'merchant created');
  const merchant = JSON.parse(cli.output().trim().split('\n').pop()!) as { api_keys: { sandbox: string } };
  return { api: `http://127.0.0.1:${port}`, serve, sandboxKey: merchant.api_keys.sandbox };
}
