/**
 * `make test`: starts throwaway embedded PostgreSQL servers for the whole run, one per process that
 * runs files at once (each process takes one for itself and creates its own databases in it,
 * copies of one migrated template: test/support/db.ts), and one Chromium for the browser files;
 * runs every suite, stops them, and ends with where the time went, the failures (each "not ok"
 * line and the start of its diagnostics, so that the tail of a CI log names them) and a plain
 * "N passed, N failed" line.
 *
 * SIKA_TEST_JOBS files run at once (default: CPUs + 1, the one more for the moments a file waits
 * on a child process or the network; the run is CPU-bound, so more only adds contention). The files of most kinds run in file
 * workers (file-worker.ts): long-lived processes that run the files they are sent one after
 * another, so the service's modules load once per worker instead of once per file. The others
 * run as `node <file>`. Not through tap's runner: it starts every file with three loaders (its
 * TypeScript, mock and process-info hooks) that made loading the service's modules take twice as
 * long, and the files are compiled JavaScript. Output is tap's own format, each file's as a
 * subtest once it ends. A file is failed at FILE_TIMEOUT_MS (tap's own limit, TAP_TIMEOUT) and
 * killed with its processes (its process group, or its worker's) soon after. Node's source maps
 * (stacks and failures at .ts lines) cost every module load; SIKA_TEST_SOURCE_MAPS=1 turns them on.
 *
 * The longest files start first, by the times of the last run kept in .cache/test-times.json (a
 * file without one by its kind's typical time), so that no long file starts last (docs/testing.md).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserServer } from 'playwright-core';
import { EmbeddedPostgresError, startEmbeddedPostgres } from '#packages/core/embedded-postgres.js';
import { launchSharedChromium } from './chromium.js';
import { throwawayClusterDir } from './cluster-dir.js';
import type { FileDone, FileOrder } from './file-worker.js';
import { procCpuSeconds } from './proc-cpu.js';

/** How long one file may run before it is failed and killed: 300 s, or SIKA_TEST_FILE_TIMEOUT_S (make test-long's longer runs). */
const FILE_TIMEOUT_MS = (Number(process.env.SIKA_TEST_FILE_TIMEOUT_S) || 300) * 1000;

/**
 * Suites that only repeat a property at length, left out of a run given no paths (make test) and
 * run by make test-long: the simulator's seed, 10 s of rail faults and a kill (docs/reliability.md),
 * which make test-long's regression seeds run longer.
 */
const LONG_ONLY = ['dist/test/sim/'];

function findTests(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => path.join(dir, f))
    .sort();
}

function jobs(): number {
  const asked = Number(process.env.SIKA_TEST_JOBS);
  return Number.isSafeInteger(asked) && asked > 0 ? asked : os.availableParallelism() + 1;
}

/**
 * Keeps tap's failed assertions ("not ok", not TODO or SKIP) with what their diagnostics say
 * failed (found, wanted, diff, message, where), so that the tail of a CI log names them.
 */
class FailureList {
  private static readonly KEPT = new Set(['found', 'wanted', 'diff', 'message', 'error', 'code', 'pattern', 'fileName', 'lineNumber']);
  private readonly lines: string[] = [];
  /** One line per failed assertion: the file, its subtests and the assertion's name. */
  private readonly leaves: string[] = [];
  /** The names of the subtests open at each depth (tap indents each level by four spaces). */
  private readonly subtests: string[] = [];
  private lastFailureIndent = -1;
  private partial = '';
  /** Inside one failure's YAML block: the indentation of its keys, and whether the current key is kept. */
  private block: { indent: number; keeping: boolean; left: number } | undefined;
  private awaitingBlock = false;

  read(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.readLine(line);
  }

  private readLine(line: string): void {
    const indent = line.length - line.trimStart().length;
    const subtest = /^\s*# Subtest: (.*)$/.exec(line)?.[1];
    if (subtest !== undefined) {
      this.subtests.length = indent / 4;
      this.subtests.push(subtest);
      return;
    }
    const failed = /^\s*not ok \d+ - (.*?)(?: # time=.*)?$/.exec(line);
    if (failed && !/# (TODO|SKIP)/i.test(line)) {
      this.lines.push(line);
      // A subtest's own "not ok" follows its failed assertions, which are indented deeper.
      if (this.lastFailureIndent <= indent) this.leaves.push([...this.subtests.slice(0, indent / 4), failed[1]].join(' > '));
      this.lastFailureIndent = indent;
      // A file's own line carries only how tap ran it; its assertions say what failed.
      this.awaitingBlock = indent > 0;
      this.block = undefined;
      return;
    }
    if (this.awaitingBlock) {
      this.awaitingBlock = false;
      if (line.trim() === '---') this.block = { indent, keeping: false, left: 30 };
      return;
    }
    if (!this.block) return;
    if (line.trim() === '...') {
      this.block = undefined;
      return;
    }
    const key = /^\s*([A-Za-z]+):/.exec(line)?.[1];
    if (key && indent === this.block.indent) this.block.keeping = FailureList.KEPT.has(key);
    // The place an assertion failed is under "at:", one level deeper.
    if (key && indent === this.block.indent + 2 && (key === 'fileName' || key === 'lineNumber')) this.keep(line);
    else if (this.block.keeping) this.keep(line);
  }

  private keep(line: string): void {
    if (this.block && this.block.left-- > 0) this.lines.push(line);
  }

  print(): void {
    if (this.lines.length === 0) return;
    process.stdout.write(`\nFailures:\n${this.lines.slice(0, 400).join('\n')}\n`);
    process.stdout.write(`\nFailed:\n${this.leaves.slice(0, 40).join('\n')}\n`);
  }
}

/** What one file's run came to: its output (tap's), how it ended and its counts. */
interface FileRun {
  file: string;
  ok: boolean;
  seconds: number;
  /** CPU seconds of the file's process and the children it waited for (browsers, services), not the shared PostgreSQL servers. */
  cpuSeconds: number;
  output: string;
  counts: { pass: number; fail: number; skip: number };
}

/** tap ends a file's output with a line such as "# { total: 44, pass: 43, fail: 1, skip: 1 }". */
function countsOf(output: string): FileRun['counts'] | null {
  const line = /^# \{ total: \d+[^}]*\}$/m.exec(output)?.[0];
  if (!line) return null;
  const count = (key: string) => Number(new RegExp(`${key}: (\\d+)`).exec(line)?.[1] ?? 0);
  return { pass: count('pass'), fail: count('fail'), skip: count('skip') };
}

/** The process groups of the files running now: each file's own, so Ctrl-C does not reach them by itself. */
const running = new Set<number>();

/**
 * CPU seconds of this process's children reaped so far, with what they reaped in turn (Linux's
 * cutime and cstime in /proc/self/stat; 0 elsewhere). Read as each file's process is reaped, its
 * growth is that file's CPU: libuv reaps exited children together, so two files ending in the same
 * instant share a reading (rare; the sum stays exact).
 */
function reapedCpuSeconds(): number {
  return procCpuSeconds({ own: false, reaped: true });
}
let lastReapedCpu = 0;

/** The CPU of the children reaped since the last call: the process that just exited. */
function cpuReapedSinceLast(): number {
  const reaped = reapedCpuSeconds();
  const since = reaped - lastReapedCpu;
  lastReapedCpu = reaped;
  return since;
}

/** CPU seconds of the file workers beyond their files' own: loading modules, between files. */
let workersOwnCpu = 0;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function runFile(root: string, file: string, env: NodeJS.ProcessEnv): Promise<FileRun> {
  const started = Date.now();
  const nodeArgs = process.env.SIKA_TEST_SOURCE_MAPS === '1' ? ['--enable-source-maps'] : [];
  // A process group of its own, so that a file killed at its timeout takes what it started along.
  const child = spawn(process.execPath, [...nodeArgs, file], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  running.add(child.pid!);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid!);
  }, FILE_TIMEOUT_MS + 10_000);
  return new Promise((resolve) => {
    let cpuSeconds = 0;
    child.on('exit', () => (cpuSeconds = cpuReapedSinceLast()));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid!);
      const seconds = (Date.now() - started) / 1000;
      const counts = countsOf(output);
      const ended = timedOut ? `killed ${FILE_TIMEOUT_MS / 1000 + 10} s after its start` : code !== 0 ? `exited with ${signal ?? code}` : counts ? null : 'ended without its summary';
      // A file that died or hung is one failure more, named like an assertion so the failure list shows it.
      if (ended) output += `\nnot ok 1 - ${file} ${ended}\n`;
      const failed = ended !== null && (!counts || counts.fail === 0);
      resolve({
        file,
        ok: ended === null,
        seconds,
        cpuSeconds,
        output,
        counts: { pass: counts?.pass ?? 0, fail: (counts?.fail ?? 0) + (failed ? 1 : 0), skip: counts?.skip ?? 0 },
      });
    });
  });
}

/**
 * The kinds whose files run in file workers (file-worker.ts), one after another in a long-lived
 * process: they load the service's modules once per worker instead of once per file. The others
 * (e2e, fuzz, the simulator, scale-out) run a process each: they start processes of their own and
 * run long, so a process's start is a small share of them. SIKA_TEST_WORKER_KINDS names others
 * (the runner's own test, file-workers.test.ts).
 */
const WORKER_KINDS = (process.env.SIKA_TEST_WORKER_KINDS ?? 'unit,integration,contract,browser').split(',');
const inWorker = (file: string) => WORKER_KINDS.some((kind) => file.includes(`/test/${kind}/`));

/** A file worker: a process running the files it is sent one at a time, over IPC. */
class FileWorker {
  private output = '';
  private readonly child: ChildProcess;
  /** Called as stdout brings more of the worker's TAP (run() waits there for a file's closing line). */
  private onOutput: (() => void) | null = null;
  private readonly ready: Promise<void>;
  private readonly exited: Promise<string>;
  private done: ((message: FileDone) => void) | null = null;
  /** The CPU its files reported, to tell its own from theirs when it exits. */
  private filesCpu = 0;

  constructor(root: string, env: NodeJS.ProcessEnv) {
    const nodeArgs = process.env.SIKA_TEST_SOURCE_MAPS === '1' ? ['--enable-source-maps'] : [];
    // A process group of its own, so that a worker killed takes what its file started along.
    // The condition makes a file's `#tap` the worker's stand-in (package.json "imports", file-worker.ts).
    this.child = fork(path.join(root, 'dist/test/support/file-worker.js'), [], { cwd: root, env, execArgv: [...nodeArgs, '--conditions=sika-file-worker'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'], detached: true });
    running.add(this.child.pid!);
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
      this.onOutput?.();
    });
    // tap's root also writes to the channel (its timeouts, for a tap runner): only the worker's own messages count.
    let started: () => void;
    this.ready = new Promise((resolve) => (started = resolve));
    this.child.on('message', (message: Partial<FileDone> & { ready?: boolean }) => {
      if (message.ready === true) started();
      else if (typeof message.file === 'string' && message.counts) this.done?.(message as FileDone);
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.alive = false;
        running.delete(this.child.pid!);
        workersOwnCpu += cpuReapedSinceLast() - this.filesCpu;
        resolve(`its worker exited with ${signal ?? code}`);
      }),
    );
  }

  /** Whether it can take another file (it neither died nor was killed). */
  alive = true;

  async run(file: string): Promise<FileRun> {
    const started = Date.now();
    this.output = '';
    let overdue: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      this.ready.then(
        () =>
          new Promise<FileDone>((resolve) => {
            this.done = resolve;
            // A worker that died since its last file answers through `exited`.
            if (this.child.connected) this.child.send({ file, timeoutMs: FILE_TIMEOUT_MS } satisfies FileOrder);
          }),
      ),
      this.exited,
      new Promise<string>((resolve) => (overdue = setTimeout(() => resolve(`killed ${FILE_TIMEOUT_MS / 1000 + 10} s after its start`), FILE_TIMEOUT_MS + 10_000))),
    ]);
    clearTimeout(overdue);
    this.done = null;
    if (typeof ended === 'string') {
      this.alive = false;
      killGroup(this.child.pid!);
      const output = `${this.fileOutput(file)}\nnot ok 1 - ${file} ${ended}\n`;
      return { file, ok: false, seconds: (Date.now() - started) / 1000, cpuSeconds: 0, output, counts: { pass: 0, fail: 1, skip: 0 } };
    }
    this.filesCpu += ended.cpuSeconds;
    await this.closingLine(file);
    return { file, ok: ended.counts.fail === 0, seconds: (Date.now() - started) / 1000, cpuSeconds: ended.cpuSeconds, output: this.fileOutput(file), counts: ended.counts };
  }

  /**
   * Waits for the file's closing line on stdout: tap writes it before the worker answers over IPC,
   * but the pipe may bring it a moment after the answer (a second at most, else the output is cut
   * where it stands).
   */
  private async closingLine(file: string): Promise<void> {
    const closed = () => this.output.split('\n').some((line) => /^(not )?ok \d+ - /.test(line) && line.includes(` - ${file}`));
    if (closed()) return;
    await new Promise<void>((resolve) => {
      const giveUp = setTimeout(resolve, 1_000);
      this.onOutput = () => {
        if (!closed()) return;
        clearTimeout(giveUp);
        resolve();
      };
    });
    this.onOutput = null;
  }

  /** The file's part of the worker's TAP, as the file run alone prints it: the subtest's lines, one level up. */
  private fileOutput(file: string): string {
    const lines = this.output.split('\n');
    const start = lines.indexOf(`# Subtest: ${file}`) + 1;
    const end = lines.findIndex((line, i) => i >= start && /^(not )?ok \d+ - /.test(line));
    return lines
      .slice(start, end < 0 ? undefined : end)
      .map((line) => line.replace(/^ {4}/, ''))
      .join('\n');
  }

  /** Tells it there is nothing more and waits for it to end (killed after 10 s). */
  async stop(): Promise<void> {
    if (this.child.connected) this.child.send({ file: null, timeoutMs: 0 } satisfies FileOrder);
    const timer = setTimeout(() => killGroup(this.child.pid!), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** The times of the last run's files, kept to start the longest first next time. */
class SuiteTimes {
  constructor(private readonly file: string) {}

  read(): Map<string, number> {
    try {
      return new Map(Object.entries(JSON.parse(fs.readFileSync(this.file, 'utf8')) as Record<string, number>));
    } catch {
      return new Map();
    }
  }

  /** Keeps these times, over those of files this run did not run. */
  write(runs: readonly FileRun[]): void {
    const times = Object.fromEntries([...this.read(), ...runs.map((r) => [r.file, Math.round(r.seconds * 10) / 10] as const)]);
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(this.file, `${JSON.stringify(times, null, 1)}\n`);
  }
}

/** A file the last run did not time is guessed at by kind, in seconds (a quiet 2-core run's typical file of each). */
const KIND_SECONDS: Record<string, number> = { browser: 25, e2e: 60, integration: 12, contract: 10, fuzz: 60, sim: 30 };
const guess = (file: string) => Object.entries(KIND_SECONDS).find(([kind]) => file.includes(`/test/${kind}/`))?.[1] ?? 2;

function longestFirst(files: readonly string[], last: Map<string, number>): string[] {
  const seconds = (file: string) => last.get(file) ?? guess(file);
  return [...files].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
}

const cpuOf = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
const minutes = (ms: number) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
const cpu = (seconds: number) => minutes(seconds * 1000);

async function main(): Promise<number> {
  const started = Date.now();
  const root = path.resolve(import.meta.dirname, '../../..');
  // Only *.test.js files are suites; everything else under dist/test is support code. Found
  // before any server starts, so that a path that does not exist leaves none running.
  const args = process.argv.slice(2);
  const found = args.length ? args.flatMap((a) => (fs.statSync(a).isDirectory() ? findTests(a) : [a])) : findTests('dist/test').filter((f) => !LONG_ONLY.some((dir) => f.startsWith(dir)));
  const dataDir = throwawayClusterDir();
  const locks = path.join(dataDir, 'locks');
  fs.mkdirSync(locks);
  // A server for each file running at once, and one for each file worker, which keeps its own while
  // its slot runs a file in a process of its own: each process takes one for itself (test/support/db.ts).
  const servers = await Promise.all(Array.from({ length: 2 * jobs() }, (_, i) => startEmbeddedPostgres(path.join(dataDir, `pg${i}`), { persistent: false, fast: true })));
  // SIKA_TEST_TIMES: another file of times (the runner's own test keeps its fixtures' apart).
  const times = new SuiteTimes(process.env.SIKA_TEST_TIMES ?? path.join(root, '.cache/test-times.json'));
  const files = longestFirst(found, times.read());
  // One Chromium for every browser file (each opens a context of its own in it): a Chromium's
  // start per file cost about a CPU-second more.
  // Without it (no chromium) each browser file launches its own and says what is missing.
  const browser: BrowserServer | null = files.some((f) => f.includes('/test/browser/')) ? await launchSharedChromium().catch(() => null) : null;
  // tap's own limit per file (30 s unless told) ends a file's test with "timeout!" before ours kills it.
  const env = {
    ...process.env,
    TAP_TIMEOUT: String(FILE_TIMEOUT_MS / 1000),
    SIKA_TEST_PG_SERVERS: servers.map((s) => s.url('postgres')).join(' '),
    // The run's locks (lock-dir.ts): each server's, the shared Chromium's clipboard.
    SIKA_TEST_LOCKS: locks,
    ...(browser ? { SIKA_TEST_BROWSER: browser.wsEndpoint() } : {}),
  };
  const runs: FileRun[] = [];
  let sharedBrowserCpu: number;
  const failures = new FailureList();
  const pending = [...files];
  // Interrupted (Ctrl-C, a CI's stop): the files' groups and the servers go too, not left running,
  // and no slot starts another file (or a worker for it) once its own is killed.
  const interrupted = (signal: NodeJS.Signals) => {
    pending.length = 0;
    for (const pid of running) killGroup(pid);
    void Promise.all([...servers.map((s) => s.stop()), browser?.close()]).finally(() => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    process.stdout.write(`TAP version 14\n`);
    // What the servers' initdb cost is theirs, not the first file's.
    lastReapedCpu = reapedCpuSeconds();
    const slot = async () => {
      let worker: FileWorker | null = null;
      for (let file = pending.shift(); file !== undefined; file = pending.shift()) {
        if (inWorker(file) && !worker?.alive) {
          if (worker) await worker.stop();
          worker = new FileWorker(root, env);
        }
        const run = inWorker(file) ? await worker!.run(file) : await runFile(root, file, env);
        runs.push(run);
        const indented = run.output.replace(/^(?=.)/gm, '    ');
        const text = `# Subtest: ${run.file}\n${indented}${indented.endsWith('\n') ? '' : '\n'}${run.ok ? 'ok' : 'not ok'} ${runs.length} - ${run.file} # time=${(run.seconds * 1000).toFixed(0)}ms\n\n`;
        process.stdout.write(text);
        failures.read(text);
      }
      if (worker) await worker.stop();
    };
    await Promise.all(Array.from({ length: Math.min(jobs(), files.length) }, slot));
  } finally {
    const beforeShared = reapedCpuSeconds();
    await browser?.close();
    sharedBrowserCpu = reapedCpuSeconds() - beforeShared;
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  times.write(runs);
  const sum = (key: keyof FileRun['counts']) => runs.reduce((n, r) => n + r.counts[key], 0);
  const [passed, failed, skipped] = [sum('pass'), sum('fail'), sum('skip')];
  process.stdout.write(`1..${runs.length}\n# { total: ${passed + failed + skipped}, pass: ${passed}, fail: ${failed}, skip: ${skipped} }\n`);
  const suiteSeconds = runs.reduce((n, r) => n + r.seconds, 0);
  const suiteCpu = runs.reduce((n, r) => n + r.cpuSeconds, 0);
  const slowest = [...runs].sort((a, b) => b.seconds - a.seconds).slice(0, 20);
  process.stdout.write(`\nSlowest suites (of ${runs.length}, ${minutes(suiteSeconds * 1000)} in all, ${jobs()} at a time), wall and CPU seconds:\n`);
  process.stdout.write(`${slowest.map((r) => `${r.seconds.toFixed(1).padStart(7)} s ${r.cpuSeconds.toFixed(1).padStart(6)} s  ${r.file}`).join('\n')}\n`);
  const kinds = new Map<string, { files: number; seconds: number; cpu: number }>();
  for (const r of runs) {
    const kind = /\/test\/([^/]+)\//.exec(r.file)?.[1] ?? 'other';
    const k = kinds.get(kind) ?? { files: 0, seconds: 0, cpu: 0 };
    kinds.set(kind, { files: k.files + 1, seconds: k.seconds + r.seconds, cpu: k.cpu + r.cpuSeconds });
  }
  const byKind = [...kinds].sort((a, b) => b[1].cpu - a[1].cpu);
  process.stdout.write(`By kind, wall and CPU: ${byKind.map(([kind, k]) => `${kind} ${k.files} files ${minutes(k.seconds * 1000)}, ${cpu(k.cpu)}`).join('; ')}\n`);
  const wall = Date.now() - started;
  const serversCpu = reapedCpuSeconds() - suiteCpu - workersOwnCpu - sharedBrowserCpu;
  process.stdout.write(
    `CPU: the files ${cpu(suiteCpu)}, the file workers' own ${cpu(workersOwnCpu)}, the PostgreSQL servers ${cpu(serversCpu)}, the shared Chromium ${cpu(sharedBrowserCpu)}, this runner ${cpu(cpuOf(process.cpuUsage()))}\n`,
  );
  process.stdout.write(`Wall time: ${minutes(wall)}\n`);
  failures.print();
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  return failed === 0 && runs.every((r) => r.ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`test run failed: ${err instanceof EmbeddedPostgresError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
