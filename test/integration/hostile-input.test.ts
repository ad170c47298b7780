/**
 * Input that PostgreSQL or the body decoder cannot take, found by an attacker-style run
 * (docs/decisions.md, "HTTP"): a NUL byte in a path id or a query value, NUL or an unpaired
 * surrogate in a JSON string or key, a Content-Encoding the body is not in or that is not
 * supported, and nesting deeper than the body limit allows; and, found by the fuzz sweep
 * (test/fuzz), requests Node answers itself: an Expect other than 100-continue, and CONNECT; and
 * a path that is not UTF-8 from a client that half-closes its connection (found by a security
 * review's sweep: answered with nothing). Each is a coded 4xx, never a 500 or a bare answer.
 */
import net from 'node:net';
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import t, { type Test } from '#tap';
import { assertError, assertOk } from '../support/assertions.js';
import { startService, type TestResponse } from '../support/system.js';

const svc = await startService(t);
const merchant = await svc.merchant('Hostile input merchant');
const key = merchant.api_keys.sandbox;

const product = await svc.request('POST', '/api/v1/merchant/products', { key, body: { name: 'Plan' } });
if (product.status !== 200) throw new Error(`product: ${product.status} ${product.text}`);

/** A JSON text sent as is (JSON.stringify would also write "\ud800" as an escape; this says it plainly). */
function postJson(path: string, json: string | Buffer, headers: Record<string, string> = {}): Promise<TestResponse> {
  return svc.request('POST', path, { key, rawBody: json, headers: { 'content-type': 'application/json', ...headers } });
}

/** One request written on a socket, for what no client library sends; the answer parsed loosely. */
function rawHttp(request: string): Promise<TestResponse> {
  const { port, hostname } = new URL(svc.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const head = all.slice(0, Math.max(split, 0)).split('\r\n');
      const headers = new Headers();
      for (const line of head.slice(1)) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim());
      const text = split < 0 ? '' : all.slice(split + 4);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0), headers, text, body });
    });
    socket.end(request);
  });
}

function assertNoServerError(t: Test, res: TestResponse): void {
  t.ok(res.status < 500, `not a 5xx (got ${res.status}: ${res.text.slice(0, 200)})`);
}

t.test('a NUL byte in a path parameter is a 400 naming the parameter', async (t) => {
  const cases: [string, string, string][] = [
    ['GET', '/api/v1/payouts/po_%00', 'id'],
    ['GET', '/api/v1/payment-intents/pi_%00x', 'id'],
    ['PATCH', '/api/v1/payment-intents/%00', 'id'],
    ['POST', '/api/v1/payment-intents/pi_%00/cancel', 'id'],
    ['GET', '/api/v1/merchant/customers/%00', 'id'],
    ['GET', '/api/v1/merchant/products/prod_%00', 'id'],
    ['DELETE', '/api/v1/merchant/settings/payouts/destinations/%00', 'id'],
    ['GET', '/api/v1/webhook-endpoints/we_%00', 'id'],
    ['GET', '/operations/status/op_%00', 'operationId'],
    ['GET', '/hosted/invoices/in_%00', 'id'],
  ];
  for (const [method, path, param] of cases) {
    await t.test(`${method} ${path}`, async (t) => {
      const headers = { 'x-environment': 'sandbox' };
      const res = await svc.request(method, path, { key, headers, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
      assertNoServerError(t, res);
      assertError(t, res, 'IKW-VAL-011', param);
    });
  }
});

t.test('a NUL byte in a query value is a 400 naming the parameter', async (t) => {
  const cases: [string, string][] = [
    ['/api/v1/payment-intents?starting_after=pi_%00', 'starting_after'],
    ['/api/v1/payment-intents?ending_before=%00', 'ending_before'],
    ['/api/v1/payment-intents?customer=cus_%00', 'customer'],
    ['/api/v1/balance-transactions?source=%00', 'source'],
    ['/api/v1/webhook-endpoints?starting_after=we_%00', 'starting_after'],
    ['/api/v1/merchant/customers?search=a%00b', 'search'],
    ['/api/v1/billing/invoices?customerId=%00', 'customerId'],
  ];
  for (const [path, param] of cases) {
    await t.test(path, async (t) => {
      const res = await svc.request('GET', path, { key });
      assertNoServerError(t, res);
      assertError(t, res, 'IKW-VAL-011', param);
    });
  }
  await t.test('in a query parameter name', async (t) => {
    assertError(t, await svc.request('GET', '/api/v1/merchant/customers?sea%00rch=x', { key }), 'IKW-VAL-011', 'sea\u0000rch');
  });
});

t.test('NUL or an unpaired surrogate in a JSON string is a 400 naming the field', async (t) => {
  const cases: [string, string, string, string][] = [
    ['NUL in a string', '/api/v1/merchant/products', '{"name": "a\\u0000b"}', 'name'],
    ['a lone high surrogate', '/api/v1/merchant/products', '{"name": "\\ud800"}', 'name'],
    ['a lone low surrogate', '/api/v1/merchant/products', '{"name": "x\\udc00y"}', 'name'],
    ['two high surrogates', '/api/v1/merchant/products', '{"name": "\\ud800\\ud800"}', 'name'],
    ['NUL in a metadata value', '/api/v1/merchant/products', '{"name": "p", "metadata": {"k": "\\u0000"}}', 'metadata.k'],
    ['NUL in a metadata key', '/api/v1/merchant/products', '{"name": "p", "metadata": {"a\\u0000": "v"}}', 'metadata.a\u0000'],
    ['a surrogate in a metadata key', '/api/v1/payment-intents', '{"amount": 100, "currency": "XOF", "transaction_country": "SN", "metadata": {"\\udfff": "v"}}', 'metadata.\udfff'],
    ['NUL in a description', '/api/v1/payment-intents', '{"amount": 100, "currency": "XOF", "transaction_country": "SN", "description": "\\u0000"}', 'description'],
    ['NUL deep inside metadata', '/api/v1/payment-intents', '{"amount": 100, "currency": "XOF", "transaction_country": "SN", "metadata": {"k": [1, {"x": "\\u0000"}]}}', 'metadata.k.1.x'],
  ];
  for (const [name, path, json, param] of cases) {
    await t.test(name, async (t) => {
      const res = await postJson(path, json);
      assertNoServerError(t, res);
      assertError(t, res, 'IKW-VAL-011', param);
    });
  }
  await t.test('a raw NUL byte inside a string is not JSON at all', async (t) => {
    assertError(t, await postJson('/api/v1/merchant/products', '{"name": "a\u0000b"}'), 'IKW-REQ-001', null);
  });
  await t.test('a well-formed surrogate pair (an emoji) is accepted', async (t) => {
    const res = await postJson('/api/v1/merchant/products', '{"name": "\\ud83d\\ude00 plan"}');
    assertOk(t, res);
    t.equal(res.body.name, '\u{1F600} plan');
  });
  await t.test('with an Idempotency-Key, nothing is stored for replay', async (t) => {
    const headers = { 'idempotency-key': 'nul-then-fixed' };
    assertError(t, await postJson('/api/v1/merchant/products', '{"name": "\\u0000"}', headers), 'IKW-VAL-011', 'name');
    assertOk(t, await postJson('/api/v1/merchant/products', '{"name": "fixed"}', headers));
  });
});

t.test('Content-Encoding', async (t) => {
  const json = JSON.stringify({ name: 'Compressed plan' });
  await t.test('gzip, deflate and br bodies are decoded', async (t) => {
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
      ['GZip', gzipSync(json)],
    ] as const) {
      const res = await postJson('/api/v1/merchant/products', bytes, { 'content-encoding': encoding });
      assertOk(t, res);
      t.equal(res.body?.name, 'Compressed plan', encoding);
    }
  });
  await t.test('a body that is not in the encoding it names is a 400', async (t) => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await postJson('/api/v1/merchant/products', json, { 'content-encoding': encoding });
      assertNoServerError(t, res);
      assertError(t, res, 'IKW-REQ-007', null);
    }
  });
  await t.test('a truncated gzip body is a 400', async (t) => {
    const res = await postJson('/api/v1/merchant/products', gzipSync(json).subarray(0, 15), { 'content-encoding': 'gzip' });
    assertError(t, res, 'IKW-REQ-007', null);
  });
  await t.test('the 1 MiB limit applies to the decoded body', async (t) => {
    const bomb = gzipSync(`{"name": "p", "description": "${' '.repeat(8 * 1024 * 1024)}"}`);
    t.ok(bomb.length < 64 * 1024, 'small on the wire');
    assertError(t, await postJson('/api/v1/merchant/products', bomb, { 'content-encoding': 'gzip' }), 'IKW-REQ-003', null);
  });
  await t.test('an unsupported encoding is a 415 that lists the supported ones', async (t) => {
    for (const encoding of ['compress', 'zstd', 'x-bogus', 'gzip, gzip', 'gzip, identity']) {
      const res = await postJson('/api/v1/merchant/products', json, { 'content-encoding': encoding });
      assertError(t, res, 'IKW-REQ-006', null);
      t.equal(res.headers.get('accept-encoding'), 'gzip, deflate, br', `Accept-Encoding for ${encoding}`);
    }
  });
  await t.test('identity is the same as no encoding', async (t) => {
    assertOk(t, await postJson('/api/v1/merchant/products', json, { 'content-encoding': 'identity' }));
  });
  await t.test('a request without a body may name any encoding', async (t) => {
    assertOk(t, await svc.request('GET', '/api/v1/merchant/products', { key, headers: { 'content-encoding': 'x-bogus' } }));
  });
});

t.test('nesting deeper than 64 levels is a 400', async (t) => {
  const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  await t.test('in free-form metadata, with an Idempotency-Key', async (t) => {
    const json = `{"amount": 100, "currency": "XOF", "transaction_country": "SN", "metadata": {"k": ${deep(20_000)}}}`;
    const res = await postJson('/api/v1/payment-intents', json, { 'idempotency-key': 'deep-metadata' });
    assertNoServerError(t, res);
    assertError(t, res, 'IKW-REQ-001', null);
  });
  await t.test('arrays count too', async (t) => {
    const res = await postJson('/api/v1/merchant/products', '{"name": "p", "x": ' + '['.repeat(65) + ']'.repeat(65) + '}');
    assertError(t, res, 'IKW-REQ-001', null);
  });
  await t.test('64 levels are accepted by the decoder (the schema has the last word)', async (t) => {
    const json = `{"amount": 100, "currency": "XOF", "transaction_country": "SN", "metadata": {"k": ${deep(62)}}}`;
    assertOk(t, await postJson('/api/v1/payment-intents', json));
  });
});

t.test('requests Node would answer bare get a coded answer', async (t) => {
  await t.test('an Expect other than 100-continue is a 417', async (t) => {
    const res = await rawHttp(`GET /api/v1/merchant/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nExpect: the-unexpected\r\nConnection: close\r\n\r\n`);
    assertError(t, res, 'IKW-REQ-009', null);
  });
  await t.test('CONNECT is a 405', async (t) => {
    const res = await rawHttp('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assertError(t, res, 'IKW-RTE-002', null);
  });
});

/**
 * Bytes written on a fresh connection, `then` (if any) written once the first write is out, and
 * the connection half-closed (FIN) right after, as `nc` and many scripts do; every answer on it.
 */
function rawAnswers(first: string, then?: string): Promise<string[]> {
  const { port, hostname } = new URL(svc.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve(
        Buffer.concat(chunks)
          .toString('utf8')
          .split(/(?=HTTP\/1\.1 \d{3} )/)
          .filter((a) => a !== ''),
      ),
    );
    socket.write(first, () => (then === undefined ? socket.end() : socket.end(then)));
  });
}

t.test('a path that is not UTF-8 is answered 400 every time, on every route, however the request is sent', async (t) => {
  const sequences = ['%ff%fe', '%FF', '%c3%28', '%e0%80%80', '%ed%a0%80', '%f4%90%80%80', '%c0%af', '%fe%ff', '%80', 'ok%ff'];
  const routes: [string, string][] = [
    ['DELETE', '/api/v1/auth/passkeys/{}'],
    ['PATCH', '/api/v1/auth/passkeys/{}'],
    ['GET', '/api/v1/payouts/{}'],
    ['POST', '/api/v1/payment-intents/{}/cancel'],
    ['GET', '/api/template-engine/templates/{}'],
    ['GET', '/api/v1/funding/public/campaigns/{}'],
    ['GET', '/hosted/invoices/{}'],
    ['PUT', '/api/v1/assets/{}/upload'],
    ['DELETE', '/api/v1/automations/{}'],
  ];
  // A request the server answers only after reading the database, in front of the bad one on the
  // same connection: the bad one's answer is not ready when the client's FIN arrives.
  const slow = `GET /api/v1/balance HTTP/1.1\r\nHost: sika\r\nAuthorization: Bearer ${key}\r\n\r\n`;
  const ways: [string, (request: string) => Promise<string[]>][] = [
    ['alone, Connection: close', (r) => rawAnswers(r.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'))],
    ['alone, then FIN', (r) => rawAnswers(r)],
    ['with a JSON body, then FIN', (r) => rawAnswers(r.replace('\r\n\r\n', '\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'))],
    ['behind a request that reads the database, then FIN', (r) => rawAnswers(slow, r)],
  ];
  let sent = 0;
  for (let i = 0; i < 3; i++) {
    for (const [s, sequence] of sequences.entries()) {
      for (const [r, [method, template]] of routes.entries()) {
        const [how, send] = ways[(s + r + i) % ways.length]!;
        const request = `${method} ${template.replace('{}', sequence)} HTTP/1.1\r\nHost: sika\r\n\r\n`;
        const answers = await send(request);
        sent++;
        const last = answers[answers.length - 1] ?? '';
        const expected = how.startsWith('behind') ? 2 : 1;
        if (answers.length !== expected || !/^HTTP\/1\.1 400 /.test(last) || !last.includes('"code":"IKW-REQ-005"')) {
          t.fail(`${method} ${template.replace('{}', sequence)} sent ${how}: ${answers.length} answer(s) ${JSON.stringify(answers.map((a) => a.slice(0, 120)))}`);
          return;
        }
      }
    }
  }
  t.pass(`${sent} requests, each answered 400 IKW-REQ-005`);
});
