/**
 * The module hook of a file worker (file-worker.ts): a test file's `import t from 'tap'` gets the
 * stand-in of file-tap.ts, whose `t` is the subtest the worker runs that file in. tap's own
 * modules, the stand-in and the worker keep the real root.
 */
import type { ResolveHook } from 'node:module';

const STAND_IN = new URL('./file-tap.js', import.meta.url).href;
const KEEP_ROOT = [STAND_IN, new URL('./file-worker.js', import.meta.url).href];

export const resolve: ResolveHook = (specifier, context, next) => {
  const parent = context.parentURL;
  if (specifier === 'tap' && parent && !parent.includes('/node_modules/') && !KEEP_ROOT.includes(parent)) return { url: STAND_IN, shortCircuit: true };
  return next(specifier, context);
};
