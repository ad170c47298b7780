/**
 * `make test`: starts throwaway embedded PostgreSQL servers for the whole run, one per file running
 * at once (each file takes one for itself and creates its own databases in it, copies of one
 * migrated template: test/support/db.ts), runs every suite, stops the servers, and ends with the
 * failures (each "not ok" line and the start of its diagnostics, so that the tail of a CI log
 * names them) and a plain "N passed, N failed" line.
 *
 * Each file is a tap script run by Node itself, SIKA_TEST_JOBS at a time (default: CPUs + 1; the
 * suites spend much of their time waiting for PostgreSQL and child processes). Not through tap's
 * runner: it starts every file with three loaders (its TypeScript, mock and process-info hooks)
 * that made loading the service's modules take twice as long, and the files are compiled
 * JavaScript. Output is tap's own format, each file's as a subtest once it ends. A file is killed
 * at FILE_TIMEOUT_MS (tap's own limit, TAP_TIMEOUT) and killed with its processes soon after. Node's source maps (stacks and failures at .ts lines)
 * cost every module load; SIKA_TEST_SOURCE_MAPS=1 turns them on.
 *
 * The longest files start first, by the times of the last run kept in .cache/test-times.json (a
 * file without one by its kind's typical time), so that no long file starts last. At the end it
 * prints the run's wall time and its slowest suites (docs/testing.md, "Where the time goes").
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedPostgresError, startEmbeddedPostgres } from '#packages/core/embedded-postgres.js';

/** How long one file may run before it is killed and counted as failed. */
const FILE_TIMEOUT_MS = 300_000;

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
        output,
        counts: { pass: counts?.pass ?? 0, fail: (counts?.fail ?? 0) + (failed ? 1 : 0), skip: counts?.skip ?? 0 },
      });
    });
  });
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

const minutes = (ms: number) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

async function main(): Promise<number> {
  const started = Date.now();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-test-'));
  const locks = path.join(dataDir, 'locks');
  fs.mkdirSync(locks);
  // One server per file running at once: each file takes one for itself (test/support/db.ts).
  const servers = await Promise.all(Array.from({ length: jobs() }, (_, i) => startEmbeddedPostgres(path.join(dataDir, `pg${i}`), { persistent: false, fast: true })));
  const root = path.resolve(import.meta.dirname, '../../..');
  // Only *.test.js files are suites; everything else under dist/test is support code.
  const args = process.argv.slice(2);
  const found = (args.length ? args : ['dist/test']).flatMap((a) => (fs.statSync(a).isDirectory() ? findTests(a) : [a]));
  const times = new SuiteTimes(path.join(root, '.cache/test-times.json'));
  const files = longestFirst(found, times.read());
  // tap's own limit per file (30 s unless told) ends a file's test with "timeout!" before ours kills it.
  const env = { ...process.env, TAP_TIMEOUT: String(FILE_TIMEOUT_MS / 1000), SIKA_TEST_PG_SERVERS: servers.map((s) => s.url('postgres')).join(' '), SIKA_TEST_PG_LOCKS: locks };
  const runs: FileRun[] = [];
  const failures = new FailureList();
  // Interrupted (Ctrl-C, a CI's stop): the files' groups and the servers go too, not left running.
  const interrupted = (signal: NodeJS.Signals) => {
    for (const pid of running) killGroup(pid);
    void Promise.all(servers.map((s) => s.stop())).finally(() => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    process.stdout.write(`TAP version 14\n`);
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const run = await runFile(root, files[next++]!, env);
        runs.push(run);
        const indented = run.output.replace(/^(?=.)/gm, '    ');
        const text = `# Subtest: ${run.file}\n${indented}${indented.endsWith('\n') ? '' : '\n'}${run.ok ? 'ok' : 'not ok'} ${runs.length} - ${run.file} # time=${(run.seconds * 1000).toFixed(0)}ms\n\n`;
        process.stdout.write(text);
        failures.read(text);
      }
    };
    await Promise.all(Array.from({ length: Math.min(jobs(), files.length) }, worker));
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  times.write(runs);
  const sum = (key: keyof FileRun['counts']) => runs.reduce((n, r) => n + r.counts[key], 0);
  const [passed, failed, skipped] = [sum('pass'), sum('fail'), sum('skip')];
  process.stdout.write(`1..${runs.length}\n# { total: ${passed + failed + skipped}, pass: ${passed}, fail: ${failed}, skip: ${skipped} }\n`);
  const suiteSeconds = runs.reduce((n, r) => n + r.seconds, 0);
  const slowest = [...runs].sort((a, b) => b.seconds - a.seconds).slice(0, 20);
  process.stdout.write(`\nSlowest suites (of ${runs.length}, ${minutes(suiteSeconds * 1000)} in all, ${jobs()} at a time):\n`);
  process.stdout.write(`${slowest.map((r) => `${r.seconds.toFixed(1).padStart(7)} s  ${r.file}`).join('\n')}\n`);
  process.stdout.write(`Wall time: ${minutes(Date.now() - started)}\n`);
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
