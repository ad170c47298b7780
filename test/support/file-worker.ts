/**
 * A process of `make test` that runs test files one after another (run-tests.ts sends them over
 * IPC), each as a subtest of tap's root with the file's `t` being that subtest (file-tap.ts).
 * Loading the service's modules, tap and the first app build (and V8's compiling of the hot code)
 * is paid once per worker instead of once per file: the files' CPU fell by about 40 % in a first
 * measure (docs/testing.md).
 *
 * Test files import tap as `#tap` (package.json "imports"): in a worker, started with the condition
 * `sika-file-worker`, that is the stand-in of file-tap.ts, whose `t` is the subtest the worker runs
 * the file in; elsewhere it is tap itself. A condition, not a module hook: Node 20 runs a hook on a
 * thread of its own and sends it every module's resolution and load, which cost the files about
 * 9 % more CPU (docs/testing.md).
 *
 * After each file it answers with the file's counts and CPU seconds (its own and its reaped
 * children's, from /proc/self/stat); its TAP goes to stdout, where the runner cuts each file's part.
 */
import { pathToFileURL } from 'node:url';
import tap, { type Test } from 'tap';
import { runningFile } from './file-tap.js';
import { procCpuSeconds } from './proc-cpu.js';

// Started without the condition, a worker would run every file's tests on tap's root, and each
// file would end with no counts of its own and pass: refuse to start instead.
if (import.meta.resolve('#tap') !== new URL('./file-tap.js', import.meta.url).href) throw new Error('a file worker needs --conditions=sika-file-worker (run-tests.ts starts it so)');

/** What the runner sends: a file to run, or null when there is none left. */
export interface FileOrder {
  file: string | null;
  timeoutMs: number;
}

/** What the worker answers once a file's tests ended. */
export interface FileDone {
  file: string;
  counts: { pass: number; fail: number; skip: number };
  cpuSeconds: number;
}

const cpuSeconds = () => procCpuSeconds({ own: true, reaped: true });

/** The runner's orders, in the order sent; a file waits here while another runs. */
const orders: FileOrder[] = [];
let ordered: (() => void) | null = null;
process.on('message', (message: Partial<FileOrder>) => {
  if (message.file === undefined) return;
  orders.push(message as FileOrder);
  ordered?.();
});

async function nextOrder(): Promise<FileOrder> {
  if (orders.length === 0) {
    // tap's root unrefs the IPC channel (a tap runner's channel must not keep a file running), so
    // the wait for the next file holds the process up by itself.
    const waiting = setInterval(() => undefined, 60_000);
    await new Promise<void>((resolve) => (ordered = resolve));
    clearInterval(waiting);
  }
  return orders.shift()!;
}

// The root lives as long as the worker; each file's subtest has the file's limit.
tap.setTimeout(0);
process.send!({ ready: true });
for (;;) {
  const order = await nextOrder();
  if (order.file === null) break;
  const file = order.file;
  const cpuBefore = cpuSeconds();
  let ran: Test | undefined;
  await tap.test(file, { timeout: order.timeoutMs }, async (t) => {
    ran = t;
    runningFile(t);
    await import(pathToFileURL(file).href);
  });
  runningFile(undefined);
  const counts = ran ? { pass: ran.counts.pass, fail: ran.counts.fail, skip: ran.counts.skip } : { pass: 0, fail: 1, skip: 0 };
  const done: FileDone = { file, counts, cpuSeconds: cpuSeconds() - cpuBefore };
  process.send!(done);
}
process.disconnect();
