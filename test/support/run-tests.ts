/**
 * `make test`: starts throwaway embedded PostgreSQL servers for the whole run, one per file running
 * at once (each file takes one for itself and creates its own databases in it, copies of one
 * migrated template: test/support/db.ts), runs every suite with tap, stops the servers, and ends
 * with the failures (each "not ok" line and the start of its diagnostics, so that the tail of a CI
 * log names them) and a plain "N passed, N failed" line.
 *
 * Files run SIKA_TEST_JOBS at a time (default: CPUs + 1). The suites spend most of their time
 * waiting for PostgreSQL and child processes, so on 2 cores three files at once finish the run
 * in about half the time of tap's own default (one job where there are 2 CPUs). The files are
 * compiled JavaScript, so tap's TypeScript loader is skipped (TAP_TYPE_STRIP_ONLY).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedPostgresError, startEmbeddedPostgres } from '#packages/core/embedded-postgres.js';

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

async function main(): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-test-'));
  const locks = path.join(dataDir, 'locks');
  fs.mkdirSync(locks);
  // One server per file running at once: each file takes one for itself (test/support/db.ts).
  const servers = await Promise.all(Array.from({ length: jobs() }, (_, i) => startEmbeddedPostgres(path.join(dataDir, `pg${i}`), { persistent: false, fast: true })));
  const root = path.resolve(import.meta.dirname, '../../..');
  // Only *.test.js files are suites; everything else under dist/test is support code.
  const args = process.argv.slice(2);
  const files = (args.length ? args : ['dist/test']).flatMap((a) => (fs.statSync(a).isDirectory() ? findTests(a) : [a]));
  try {
    const tap = spawn(path.join(root, 'node_modules/.bin/tap'), ['--disable-coverage', '--reporter=tap', '--timeout=300', `--jobs=${jobs()}`, ...files], {
      cwd: root,
      env: { ...process.env, SIKA_TEST_PG_SERVERS: servers.map((s) => s.url('postgres')).join(' '), SIKA_TEST_PG_LOCKS: locks, TAP_TYPE_STRIP_ONLY: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // tap ends with a summary line such as "# { total: 44, pass: 43, fail: 1, skip: 1 }".
    let summary = '';
    const failures = new FailureList();
    tap.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      summary = (summary + chunk.toString()).slice(-4096);
      failures.read(chunk.toString());
    });
    const code = await new Promise<number>((resolve) => tap.on('close', (c) => resolve(c ?? 1)));
    failures.print();
    const line = /# \{ total: \d+[^}]*\}/.exec(summary)?.[0] ?? '';
    const count = (key: string) => Number(new RegExp(`${key}: (\\d+)`).exec(line)?.[1] ?? 0);
    const failed = count('fail');
    const skipped = count('skip');
    process.stdout.write(`\n${count('pass')} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
    return code === 0 && failed === 0 ? 0 : 1;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`test run failed: ${err instanceof EmbeddedPostgresError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
