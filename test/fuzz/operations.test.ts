/**
 * Property-based sweep over every operation of the OpenAPI document the server serves: bodies that
 * fit the schema, bodies with values swapped for hostile ones (NUL, unpaired surrogates, huge
 * numbers and strings, deep nesting, unknown keys), broken JSON bytes, odd media types and content
 * codings, odd credentials and headers, path and query parameters with odd bytes; and raw requests
 * no client library sends. Property: no answer is a 5xx, and every 4xx is a coded JSON error
 * (problemWith in client.ts).
 *
 * Bounded and seeded in `make test`; `make fuzz` runs long:
 *   FUZZ_RUNS   runs per operation (default 8, about 10 s); the raw-request property runs 4× as many
 *   FUZZ_SEED   the seed (default 20260101); a failure shows the request and the answer, and
 *               the same FUZZ_SEED and FUZZ_RUNS generate the same requests again
 */
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import t from '#tap';
import { buildApi } from '../../services/api/app.js';
import { listen } from '../../services/api/server.js';
import { createInvoice, createProduct, createSubscription, succeededPayment } from '../support/billing.js';
import { startService } from '../support/system.js';
import { brokenJson, contentType, encoded, fromSchema, headerSafe, mutated, nastyKey, nastyString, oddEncodedText, pct, type Schema } from './arbitraries.js';
import { FuzzClient, problemWith, type FuzzRequest, type FuzzResponse } from './client.js';
import { positiveEnv } from '../support/env.js';

const DEFAULT_RUNS = 8;
const RUNS = positiveEnv(process.env.FUZZ_RUNS, DEFAULT_RUNS);
const SEED = positiveEnv(process.env.FUZZ_SEED, 20260101);
// A long run outlasts the runner's limit per file (300 s); each request has its own deadline instead.
if (RUNS > DEFAULT_RUNS) t.setTimeout(0);

const svc = await startService(t);
const merchant = await svc.merchant('Fuzz merchant');
const keys = merchant.api_keys;

// Real objects, so that some path parameters name something that exists and requests reach the
// commands behind them.
const ids = new Set<string>();
function collectIds(value: unknown): void {
  if (Array.isArray(value)) value.forEach(collectIds);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && (k === 'id' || /(_id|Id)$/.test(k) || k === 'customer' || k === 'price')) ids.add(v);
      else collectIds(v);
    }
  }
}
const payment = await succeededPayment(svc, keys.sandbox);
const product = await createProduct(svc, keys.sandbox);
const subscription = await createSubscription(svc, keys.sandbox, { customer_email: 'fuzz@example.com', items: [{ price: product.prices[0].id }] });
const invoice = await createInvoice(svc, keys.sandbox, { customer: payment.customer, currency: 'XOF', amount_due: 700 });
collectIds([payment, product, subscription, invoice]);
const pool = [...ids];

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  method: string;
  template: string;
  parameters: Parameter[];
  body: Schema | undefined;
  secured: boolean;
}

const doc = (await svc.request('GET', '/openapi.json')).body as {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; security?: unknown[] }>>;
};
const operations: Operation[] = Object.entries(doc.paths).flatMap(([template, byMethod]) =>
  Object.entries(byMethod).map(([method, op]) => ({
    method: method.toUpperCase(),
    template,
    parameters: op.parameters ?? [],
    body: op.requestBody?.content['application/json']?.schema,
    secured: (op.security?.length ?? 0) > 0,
  })),
);

// Raw requests go to a listener of their own whose request timeout is short: an incomplete one
// (a chunked body that never ends) is answered with its 408 in a second, not thirty.
const rawServer = await listen(buildApi(svc.system), 0, svc.system.log, '127.0.0.1', { headersMs: 1_000, requestMs: 1_000, keepAliveMs: 1_000, checkIntervalMs: 100 });
t.teardown(() => {
  rawServer.closeAllConnections();
  rawServer.close();
});
const rawClient = new FuzzClient('127.0.0.1', (rawServer.address() as AddressInfo).port);
t.teardown(() => rawClient.close());

const stats = { requests: 0, byStatus: new Map<number, number>(), rawByStatus: new Map<number, number>(), problems: 0, droppedUpgrades: 0 };
const client = new FuzzClient('127.0.0.1', Number(new URL(svc.baseUrl).port));
t.teardown(() => client.close());

function record(res: FuzzResponse): string | null {
  stats.requests++;
  stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
  const problem = problemWith(res);
  if (problem) stats.problems++;
  return problem;
}

/** The request and answer, short enough to read in a failure report. */
function describe(req: FuzzRequest | Buffer, res: FuzzResponse): string {
  const shown = (s: string) => JSON.stringify(s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);
  const request = Buffer.isBuffer(req) ? `raw ${shown(req.toString('latin1'))}` : `${req.method} ${shown(req.path)} headers ${shown(JSON.stringify(req.headers))} body ${req.body ? shown(req.body.toString('latin1')) : 'none'}`;
  return `${request}\n→ ${res.status} ${shown(res.text)}`;
}

// --- One request for an operation ----------------------------------------------------------------
// Most requests break one thing (the body, a path or query parameter, a header, the media type or
// coding, the method) and keep the rest valid, so they get past authentication and validation to
// the code behind them; some break everything at once, some break nothing.

type Focus = 'nothing' | 'body' | 'path' | 'query' | 'headers' | 'transport' | 'method' | 'everything';
const focus: fc.Arbitrary<Focus> = fc.oneof(
  { arbitrary: fc.constant('nothing' as const), weight: 1 },
  { arbitrary: fc.constant('body' as const), weight: 4 },
  { arbitrary: fc.constantFrom('path' as const, 'query' as const, 'headers' as const, 'transport' as const), weight: 6 },
  { arbitrary: fc.constant('method' as const), weight: 1 },
  { arbitrary: fc.constant('everything' as const), weight: 2 },
);

const pathValue = (p: Parameter, hostile: boolean): fc.Arbitrary<string> =>
  fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: hostile ? 1 : 3 }, { arbitrary: fromSchema(p.schema).map((v) => pct(String(v))), weight: 1 }, { arbitrary: oddEncodedText, weight: hostile ? 4 : 0 });

function pathFor(op: Operation, hostile: boolean): fc.Arbitrary<string> {
  const names = [...op.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const params = names.map((n) => op.parameters.find((p) => p.in === 'path' && p.name === n) ?? { name: n, in: 'path' as const });
  return fc.tuple(...params.map((p) => pathValue(p, hostile))).map((values) => values.reduce((path, v, i) => path.replace(`{${names[i]}}`, v), op.template));
}

/**
 * A long poll (`wait` on GET /api/v1/events) may rightly hold its answer up to 30 s, past the
 * sweep's deadline per answer; the sweep asks for at most 2 s of it (integration/events-api tests the
 * waiting itself).
 */
const LONG_POLL_S = 2;
const swept = (p: Parameter): Schema | undefined => (p.name === 'wait' && typeof p.schema?.maximum === 'number' ? { ...p.schema, maximum: Math.min(p.schema.maximum, LONG_POLL_S) } : p.schema);

function queryFor(op: Operation, hostile: boolean): fc.Arbitrary<string> {
  const declared = op.parameters.filter((p) => p.in === 'query');
  const value = (p: Parameter) => fc.oneof({ arbitrary: fromSchema(swept(p)).map((v) => pct(String(v))), weight: 3 }, { arbitrary: fc.constantFrom(...pool), weight: 1 }, { arbitrary: oddEncodedText, weight: hostile ? 4 : 0 });
  const pairs = fc.tuple(
    ...declared.map((p) =>
      fc.option(
        value(p).map((v) => [p.name, v] as const),
        { freq: 2 },
      ),
    ),
  );
  const extra = hostile ? fc.option(fc.array(fc.tuple(fc.oneof(nastyKey.map(pct), fc.constantFrom(...declared.map((p) => p.name), 'expand[]', 'a[b]', '')), oddEncodedText), { maxLength: 2 }), { freq: 2 }) : fc.constant(null);
  return fc.tuple(pairs, extra).map(([chosen, more]) => {
    const all = [...chosen.filter((c) => c !== null), ...(more ?? [])];
    return all.length === 0 ? '' : `?${all.map(([k, v]) => `${k}=${v}`).join('&')}`;
  });
}

const garbageAuthorization = fc.oneof(
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'bearer  sk_test_' + 'A'.repeat(32),
    'Basic dXNlcjpwYXNz',
    `Bearer sk_test_${'a'.repeat(32)}`,
    `Bearer sk_live_${'b'.repeat(129)}`,
    'Bearer a.b.c',
    'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
    'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
    `Bearer ${'k'.repeat(9_000)}`,
  ),
  nastyString.filter((s) => s.length < 8_000).map((s) => headerSafe(`Bearer ${s}`)),
);

const validCredentials = fc.oneof(
  { arbitrary: fc.constant({ authorization: `Bearer ${keys.sandbox}`, 'x-environment': 'sandbox' }), weight: 5 },
  { arbitrary: fc.constant({ authorization: `Bearer ${keys.live}`, 'x-environment': 'live' }), weight: 1 },
);

function headersFor(op: Operation, hostile: boolean): fc.Arbitrary<Record<string, string>> {
  const envDeclared = op.parameters.some((p) => p.in === 'header' && p.name === 'X-Environment');
  const credentials = hostile
    ? fc.oneof(
        { arbitrary: validCredentials, weight: 4 },
        { arbitrary: fc.constant({ authorization: `Bearer ${keys.sandbox}`, 'x-environment': 'live' }), weight: 1 },
        { arbitrary: nastyString.filter((s) => s.length < 8_000).map((s) => ({ authorization: `Bearer ${keys.sandbox}`, 'x-environment': headerSafe(s) })), weight: 1 },
        { arbitrary: garbageAuthorization.map((authorization) => ({ authorization, 'x-environment': 'sandbox' })), weight: 2 },
        { arbitrary: fc.constant({}), weight: 1 },
      )
    : validCredentials;
  const idempotencyKey = hostile
    ? fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 2 },
        { arbitrary: fc.uuid(), weight: 2 },
        { arbitrary: fc.constantFrom('', ' ', 'k'.repeat(256), 'fuzz-shared-key', 'é'), weight: 1 },
        { arbitrary: nastyString.filter((s) => s.length < 8_000).map(headerSafe), weight: 1 },
      )
    : fc.option(fc.uuid(), { freq: 2, nil: undefined });
  const extra = hostile
    ? fc.option(
        fc.tuple(
          fc.constantFrom('accept', 'accept-encoding', 'accept-charset', 'x-forwarded-for', 'origin', 'expect', 'range', 'if-none-match', 'x-request-id', 'request-id', 'cookie', 'x-http-method-override'),
          nastyString.filter((s) => s.length < 8_000).map(headerSafe),
        ),
        { freq: 2 },
      )
    : fc.constant(null);
  return fc.tuple(credentials, idempotencyKey, extra).map(([cred, idem, more]) => {
    const headers: Record<string, string> = {};
    if (!op.secured && !hostile) return headers;
    Object.assign(headers, cred);
    // X-Environment where the operation does not declare it is sent only when it is part of the test.
    if (!envDeclared && !hostile) delete headers['x-environment'];
    if (idem !== undefined && (op.method === 'POST' || op.method === 'PATCH')) headers['idempotency-key'] = idem;
    if (more) headers[more[0]] = more[1];
    return headers;
  });
}

type Body = { bytes: Buffer; contentType: string | undefined; encoding: string | undefined } | undefined;

function bodyFor(op: Operation, broken: boolean, transport: boolean): fc.Arbitrary<Body> {
  const takesBody = op.method === 'POST' || op.method === 'PATCH';
  const base = op.body ? fromSchema(op.body) : fc.jsonValue({ maxDepth: 2 });
  const valid = base.map((v) => Buffer.from(JSON.stringify(v) ?? 'null'));
  const text = broken ? fc.oneof({ arbitrary: mutated(base).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')), weight: 3 }, { arbitrary: base.chain((v) => brokenJson(JSON.stringify(v) ?? 'null')), weight: 1 }) : valid;
  const wire = transport
    ? fc.tuple(text, contentType).chain(([bytes, type]) => encoded(bytes).map(({ encoding, bytes: b }) => ({ bytes: b, contentType: type, encoding })))
    : text.map((bytes) => ({ bytes, contentType: 'application/json' as string | undefined, encoding: undefined as string | undefined }));
  if (!broken && !transport) return takesBody ? wire : fc.constant(undefined);
  // A body where the operation takes none is one of the things to break.
  return fc.oneof({ arbitrary: wire, weight: takesBody ? 10 : 1 }, { arbitrary: fc.constant(undefined), weight: takesBody ? 1 : 3 });
}

function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  return focus.chain((f) => {
    const all = f === 'everything';
    const method = f === 'method' || all ? fc.constantFrom('PUT', 'OPTIONS', 'TRACE', 'PROPFIND', 'DELETE', 'PATCH', 'POST', 'GET') : fc.constant(op.method);
    return fc.tuple(method, pathFor(op, f === 'path' || all), queryFor(op, f === 'query' || all), headersFor(op, f === 'headers' || all), bodyFor(op, f === 'body' || all, f === 'transport' || all)).map(([m, path, query, headers, body]) => {
      const req: FuzzRequest = { method: m, path: path + query, headers: { ...headers } };
      if (body) {
        if (body.contentType !== undefined) req.headers['content-type'] = body.contentType;
        if (body.encoding !== undefined) req.headers['content-encoding'] = body.encoding;
        req.body = body.bytes;
      }
      return req;
    });
  });
}

// --- Raw requests --------------------------------------------------------------------------------

const rawTarget = fc
  .tuple(fc.constantFrom(...operations.map((o) => o.template)), fc.constantFrom('x', '\u0000', ' ', '\u007f', '\u00ff', '\r', '\t', '%00', '#', '?', '\\', '//', 'a\u0000b'))
  .map(([template, junk]) => template.replace(/\{\w+\}/g, junk));
const rawHeaderLine = fc.constantFrom(
  'Content-Length: abc',
  'Content-Length: -1',
  'Content-Length: 2\r\nContent-Length: 3',
  'Transfer-Encoding: chunked',
  'Transfer-Encoding: gzip, chunked',
  'Transfer-Encoding: identity',
  'X-Folded: a\r\n continued',
  'No colon here',
  ': empty name',
  'X-Nul: a\u0000b',
  'X-Bare-CR: a\rb',
  'X-Del: \u007f',
  'Host: a\r\nHost: b',
  'Content-Type: application/json\r\nContent-Type: text/plain',
  `Authorization: Bearer ${keys.sandbox}`,
  'Expect: 100-continue',
  'Expect: nothing',
  'Upgrade: websocket\r\nConnection: Upgrade',
  'X-Long: ' + 'v'.repeat(20_000),
);
const rawRequest = fc
  .tuple(
    fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'CONNECT', 'get', 'G\u0000T', 'PRI', 'M'.repeat(40)),
    rawTarget,
    fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/9.9', ''),
    fc.array(rawHeaderLine, { maxLength: 3 }),
    fc.constantFrom('', '{}', '{"a":', '0\r\n\r\n', '5\r\nhello\r\n0\r\n\r\n', 'zz\r\n', '{"name": "x"}'),
  )
  .map(([method, target, version, lines, body]) => Buffer.from(`${method} ${target} ${version}\r\nHost: fuzz\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n${body}`, 'latin1'));

/** The failure (our short description, not fast-check's whole counterexample) and how to replay it. */
function verdict<T>(details: fc.RunDetails<T>): string {
  if (!details.failed) return 'no 5xx, every 4xx coded';
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return `${error}\n(fast-check seed ${details.seed}, path "${details.counterexamplePath}"; FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} runs this sweep again)`;
}

// --- The properties ------------------------------------------------------------------------------

t.test(`every operation of /openapi.json (${operations.length}), ${RUNS} runs each, seed ${SEED}`, async (t) => {
  t.ok(operations.length > 50, 'the document lists the operations');
  for (const [i, op] of operations.entries()) {
    await t.test(`${op.method} ${op.template}`, async (t) => {
      const details = await fc.check(
        fc.asyncProperty(requestFor(op), async (req) => {
          const res = await client.send(req);
          const problem = record(res);
          if (problem) throw new Error(`${problem}: ${describe(req, res)}`);
        }),
        { seed: SEED + i, numRuns: RUNS, endOnFailure: true },
      );
      t.notOk(details.failed, verdict(details));
    });
  }
});

t.test(`raw requests no client library sends, ${RUNS * 4} runs, seed ${SEED}`, async (t) => {
  const details = await fc.check(
    fc.asyncProperty(rawRequest, async (bytes) => {
      const res = await rawClient.sendRaw(bytes);
      // Node itself drops an upgrade request whose body cannot be framed (no 'upgrade' listener,
      // and adding one would take over every request that names Upgrade): closed, never answered.
      if (res.status === 0 && /\r\nUpgrade:/i.test(bytes.toString('latin1'))) {
        stats.requests++;
        stats.droppedUpgrades++;
        return;
      }
      stats.rawByStatus.set(res.status, (stats.rawByStatus.get(res.status) ?? 0) + 1);
      const problem = record(res);
      if (problem) throw new Error(`${problem}: ${describe(bytes, res)}`);
    }),
    { seed: SEED, numRuns: RUNS * 4, endOnFailure: true },
  );
  t.notOk(details.failed, verdict(details));
});

t.test('summary', async (t) => {
  const counts = (m: Map<number, number>) =>
    [...m.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
  t.comment(`${stats.requests} requests, ${stats.problems} with a problem; statuses: ${counts(stats.byStatus)}`);
  t.comment(`of which raw: ${counts(stats.rawByStatus)}; upgrade requests dropped unanswered: ${stats.droppedUpgrades}`);
  t.ok(stats.requests >= operations.length * RUNS, 'every run sent its request');
});
