import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../packages/core/config.js';
import type { RecordedExchange } from '../../packages/http/app.js';
import type { Route } from '../../packages/http/routes.js';
import { operationIdOf } from '../../services/api/openapi.js';
import { EXAMPLES_DIR, type ApiExample } from '../../services/api/reference/examples.js';

/** Where a run records, apart from docs/examples: the suites that compare the served document with docs/openapi.json run beside the recording ones. */
export const RECORDED_DIR = '.cache/api-examples';

/**
 * The reference's examples are real exchanges (docs/architecture.md, "Words and examples of the
 * reference"): with SIKA_RECORD_EXAMPLES=1, every service a suite starts writes the first JSON
 * success of each operation that has no example in docs/examples to .cache/api-examples/<operationId>.json;
 * `make api-examples` then adds them to docs/examples. The fuzz suites are left out: their requests
 * are made to break things, not to show how an operation is used.
 */
export function exampleRecorder(): ((r: Route, exchange: RecordedExchange) => void) | undefined {
  if (process.env.SIKA_RECORD_EXAMPLES !== '1') return undefined;
  if (/[/\\]fuzz[/\\]/.test(process.argv[1] ?? '')) return undefined;
  const dir = path.join(PROJECT_ROOT, RECORDED_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const seen = new Set<string>();
  return (r, exchange) => {
    const id = operationIdOf(r);
    if (seen.has(id) || exchange.status >= 400 || r.path === '/openapi.json') return;
    seen.add(id);
    if (fs.existsSync(path.join(PROJECT_ROOT, EXAMPLES_DIR, `${id}.json`))) return;
    const example: ApiExample = {
      // Requests carry secrets too (an invitation's token, a sign-in link's).
      ...(exchange.body !== undefined ? { request: maskSecrets(exchange.body) } : {}),
      ...(Object.keys(exchange.query).length > 0 ? { query: maskSecrets(exchange.query) as Record<string, unknown> } : {}),
      status: exchange.status,
      ...(exchange.response !== undefined ? { response: maskSecrets(exchange.response) } : {}),
    };
    try {
      // `wx`: another suite's process may have written it first; the first one stays.
      fs.writeFileSync(path.join(dir, `${id}.json`), `${JSON.stringify(example, null, 2)}\n`, { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  };
}

/**
 * The prefixes of the secrets the service gives out (keys, webhook secrets, portal, refresh,
 * invitation, sign-in link, reset and e-mail change tokens), and access tokens (JWTs, `eyJ…`).
 */
const PREFIXES = String.raw`sk_(?:test|live|admin)_|rk_(?:test|live)_|whsec_|cps_|rt_|inv_|ml_|pr_|ec_`;
const SECRET = new RegExp(String.raw`\b(?:(?:${PREFIXES})[\w.+/=-]+|eyJ[\w-]+\.[\w-]+\.[\w-]+)`, 'g');

/** Every secret in a request or answer keeps its prefix and becomes `X`s of the same length, never the real one. */
export function maskSecrets(value: unknown): unknown {
  const standIn = (secret: string) => {
    const prefix = new RegExp(String.raw`^(?:${PREFIXES}|eyJ)`).exec(secret)![0];
    return prefix + 'X'.repeat(secret.length - prefix.length);
  };
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replace(SECRET, standIn) : v))) as unknown;
}
