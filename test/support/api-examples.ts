import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '#packages/core/config.js';
import type { RecordedExchange } from '#packages/http/app.js';
import type { Route } from '#packages/http/routes.js';
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
      ...(exchange.body !== undefined ? { request: maskSecrets(exchange.body, 'request') } : {}),
      ...(Object.keys(exchange.query).length > 0 ? { query: maskSecrets(exchange.query, 'request') as Record<string, unknown> } : {}),
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

/** Fields that hold a secret whatever it looks like: one-time keys, TOTP secrets, recovery codes, passwords. */
const SECRET_FIELDS = new Set(['exchangeKey', 'secret', 'recoveryCodes', 'password', 'currentPassword', 'newPassword']);
/** In a request, a one-time code too (a second factor's, an OAuth callback's); answers' `code`s are ids (a bank's). */
const SECRET_REQUEST_FIELDS = new Set([...SECRET_FIELDS, 'code', 'Code']);
/** Secrets inside URLs: an OAuth request's state, nonce and challenge, a TOTP URI's secret. */
const SECRET_PARAMS = /([?&](?:state|nonce|code_challenge|secret)=)[^&"]+/g;
/** A QR code draws its secret: the example shows none. */
const QR_STAND_IN = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 43 43"><!-- the QR code of otpauthUrl --></svg>';

/**
 * Every secret in a request (`where: 'request'`) or answer becomes a stand-in of its shape, never the
 * real one: a prefixed one keeps its prefix and the rest becomes `X`s of the same length; a secret
 * field's value (each of a list's) keeps its shape (digits `0`, letters `x` or `X`); a URL's secret
 * parameters become `X`s, and a QR code draws nothing.
 */
export function maskSecrets(value: unknown, where: 'request' | 'response' = 'response'): unknown {
  const fields = where === 'request' ? SECRET_REQUEST_FIELDS : SECRET_FIELDS;
  const standIn = (secret: string) => {
    const prefix = new RegExp(String.raw`^(?:${PREFIXES}|eyJ)`).exec(secret)?.[0] ?? '';
    return prefix + 'X'.repeat(secret.length - prefix.length);
  };
  // A field's secret keeps its shape, so that its schema's pattern still holds (a six-digit code stays six digits).
  const shaped = (secret: string) => secret.replace(/[0-9]/g, '0').replace(/[a-z]/g, 'x').replace(/[A-Z]/g, 'X');
  const masked = (v: unknown): unknown => (typeof v === 'string' ? (new RegExp(SECRET.source).test(v) ? v.replace(SECRET, standIn) : shaped(v)) : Array.isArray(v) ? v.map(masked) : v);
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => {
      if (fields.has(key)) return masked(v);
      if (key === 'qrCodeSvg' && typeof v === 'string') return QR_STAND_IN;
      return typeof v === 'string' ? v.replace(SECRET, standIn).replace(SECRET_PARAMS, (whole: string, name: string) => name + 'X'.repeat(whole.length - name.length)) : v;
    }),
  ) as unknown;
}
