import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '#packages/core/config.js';

/** Where the recorded examples live, from the project's root: one file per operation, `<operationId>.json`. */
export const EXAMPLES_DIR = 'docs/examples';

/** One real exchange of an operation, recorded by the test suites (test/support/api-examples.ts); no `response` when it answered a page or a redirect. */
export interface ApiExample {
  request?: unknown;
  query?: Record<string, unknown>;
  status: number;
  response?: unknown;
}

/** The recorded examples by operationId (none when the folder is absent: a build outside the repository). */
export function loadExamples(root = PROJECT_ROOT): ReadonlyMap<string, ApiExample> {
  const dir = path.join(root, EXAMPLES_DIR);
  if (!fs.existsSync(dir)) return new Map();
  return new Map(
    fs
      .readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [file.slice(0, -'.json'.length), JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as ApiExample]),
  );
}
