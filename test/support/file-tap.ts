/**
 * What `import t from '#tap'` gives a test file run by a file worker (file-worker.ts): the subtest
 * the worker runs the file in, so that the file's tests, teardowns and counts are that file's, as
 * tap's root is when the file runs as a process of its own. Files run one after another, so the
 * file running now is the one whose code calls `t`.
 */
import tap, { type Test } from 'tap';

let current: Test | undefined;

/** The file worker names the subtest of the file it starts. */
export function runningFile(t: Test | undefined): void {
  current = t;
}

const now = (): Test => current ?? tap;

const t = new Proxy({} as Test, {
  // tap's methods use private fields: they are called on the subtest itself, not on this proxy.
  get: (_, key) => {
    const target = now();
    const value: unknown = Reflect.get(target, key, target);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
  set: (_, key, value) => Reflect.set(now(), key, value),
  has: (_, key) => key in now(),
});

export default t;
