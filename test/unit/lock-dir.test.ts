/**
 * The run's locks (test/support/lock-dir.ts: a PostgreSQL server per process, the shared
 * Chromium's clipboard) between real processes: one holder at a time, a waiter served once the
 * holder lets go, and a lock whose holder was killed taken over.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from '#tap';
import { root } from '../support/child-process.js';
import { lock, tryLock } from '../support/lock-dir.js';

const LOCK_DIR_MODULE = new URL(`file://${path.join(root, 'dist/test/support/lock-dir.js')}`).href;

function scratch(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-lock-test-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A Node process running `program` with `tryLock` and `lock` imported; its output collected. */
function nodeWithLocks(t: Test, program: string): { child: ChildProcess; output: () => string; exit: Promise<number | null>; said: (line: string) => Promise<void> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `const { lock, tryLock } = await import(${JSON.stringify(LOCK_DIR_MODULE)}); ${program}`], { cwd: root });
  let output = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  t.teardown(() => void child.kill('SIGKILL'));
  const said = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (output.split('\n').includes(line)) {
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      void exit.then(() => reject(new Error(`exited before "${line}": ${output}`)));
      check();
    });
  return { child, output: () => output, exit, said };
}

t.test('one holder at a time: four processes counting through a file under the lock lose no count', async (t) => {
  const dir = scratch(t);
  const counter = path.join(dir, 'count');
  fs.writeFileSync(counter, '0');
  const rounds = 25;
  // Read, yield, write: without the lock two processes would read the same count and lose one.
  const program = `const fs = await import('node:fs'); for (let i = 0; i < ${rounds}; i++) { const release = await lock(${JSON.stringify(path.join(dir, 'lock'))}); const n = Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8')); await new Promise((r) => setTimeout(r, 1)); fs.writeFileSync(${JSON.stringify(counter)}, String(n + 1)); release(); }`;
  const workers = Array.from({ length: 4 }, () => nodeWithLocks(t, program));
  const codes = await Promise.all(workers.map((w) => w.exit));
  t.same(codes, [0, 0, 0, 0], 'every process ends', { output: workers.map((w) => w.output()).join('\n') });
  t.equal(Number(fs.readFileSync(counter, 'utf8')), 4 * rounds, `every one of the ${4 * rounds} increments counted`);
});

t.test('a waiter gets the lock once its holder lets go, not before', async (t) => {
  const dir = path.join(scratch(t), 'lock');
  const release = tryLock(dir);
  t.ok(release, 'this process takes the free lock');
  t.equal(tryLock(dir), null, 'and cannot take it twice: its holder is alive');
  const waiter = nodeWithLocks(t, `console.log('waiting'); const release = await lock(${JSON.stringify(dir)}); console.log('held'); release();`);
  await waiter.said('waiting');
  // Several of the waiter's 20 ms polls, each finding the holder alive.
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.notOk(waiter.output().includes('held'), 'the waiter still waits while this process holds the lock');
  release!();
  await waiter.said('held');
  t.equal(await waiter.exit, 0, 'the waiter takes it once released');
});

t.test("a lock whose holder was killed is taken over; a live holder's is not", async (t) => {
  const dir = path.join(scratch(t), 'lock');
  const holder = nodeWithLocks(t, `if (!tryLock(${JSON.stringify(dir)})) process.exit(3); console.log('held'); setInterval(() => {}, 60_000);`);
  await holder.said('held');
  t.equal(tryLock(dir), null, 'a live holder keeps it');
  t.equal(fs.readFileSync(path.join(dir, 'pid'), 'utf8'), String(holder.child.pid), 'the lock names its holder');
  holder.child.kill('SIGKILL');
  await holder.exit;
  t.ok(tryLock(dir), 'once the holder is killed, the lock is taken over');
  t.equal(fs.readFileSync(path.join(dir, 'pid'), 'utf8'), String(process.pid), 'and names its new holder');
  const release = await lock(path.join(path.dirname(dir), 'other'));
  release();
  t.notOk(fs.existsSync(path.join(path.dirname(dir), 'other')), 'a release removes the lock');
});
