/**
 * HTTP error conventions (docs/architecture.md, "HTTP conventions") against the real server and database:
 * malformed and mistyped input, media types, size limits, routing, and the public documents.
 * Every answer must be JSON with a coded error and a Request-Id; none may be a 5xx or HTML.
 */
import net from 'node:net';
import t from '#tap';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { assertError, assertOk } from '../support/assertions.js';
import { startService, type RequestOptions, type TestResponse } from '../support/system.js';

interface EchoBody {
  amount: number;
  note?: string;
  destination?: { msisdn: string; network?: 'mtn' | 'orange' | 'wave' };
}

const echoBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: {
    amount: { type: 'integer' },
    note: { type: 'string' },
    destination: {
      type: 'object',
      additionalProperties: false,
      required: ['msisdn'],
      properties: {
        msisdn: { type: 'string' },
        network: { type: 'string', enum: ['mtn', 'orange', 'wave'] },
      },
    },
  },
};

const testFamily: RouteGroup = {
  name: 'test',
  routes: [
    route<EchoBody>({
      method: 'post',
      path: '/test/echo',
      summary: 'Echoes a validated body (test only)',
      auth: { scope: 'payouts.write' },
      body: echoBodySchema,
      status: 201,
      response: { type: 'object' },
      handler: async (ctx) => ({
        amount: ctx.body.amount,
        note_length: ctx.body.note?.length ?? 0,
        destination: ctx.body.destination ?? null,
        padding_length: ctx.header('x-padding')?.length ?? 0,
      }),
    }),
    route({
      method: 'get',
      path: '/test/whoami',
      summary: 'Who is calling (test only)',
      auth: { scope: 'payouts.read', environmentHeader: 'required' },
      response: { type: 'object' },
      handler: async (ctx) => ({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment }),
    }),
    route<unknown, unknown, { id: string }>({
      method: 'get',
      path: '/test/items/:id',
      summary: 'An item by id (test only)',
      auth: 'public',
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
      response: { type: 'object' },
      handler: async (ctx) => ({ id: ctx.params.id }),
    }),
  ],
};

const svc = await startService(t, { families: () => [testFamily] });
const merchant = await svc.merchant('HTTP errors merchant');
const key = merchant.api_keys.sandbox;

function post(body: unknown, options: RequestOptions = {}): Promise<TestResponse> {
  return svc.request('POST', '/test/echo', { key, body, ...options });
}

function raw(rawBody: string | Buffer, contentType: string | undefined, options: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (contentType !== undefined) headers['content-type'] = contentType;
  return svc.request('POST', '/test/echo', { key, rawBody, ...options, headers });
}

/** One request written by hand on a socket, for what fetch will not send; the answer parsed loosely. */
function rawHttp(request: string): Promise<{ status: number; headers: Map<string, string>; text: string }> {
  const { port, hostname } = new URL(svc.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // The server may close before it has read everything we wrote: keep what it answered.
      if (chunks.length > 0 && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) socket.emit('close');
      else reject(err);
    });
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const head = all.slice(0, split).split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
      }
      resolve({ status, headers, text: all.slice(split + 4) });
    });
    socket.write(request);
  });
}

t.test('a valid request reaches the route', async (t) => {
  const res = await post({ amount: 100, destination: { msisdn: '+22501020304', network: 'mtn' } });
  assertOk(t, res, 201);
  t.same(res.body, { amount: 100, note_length: 0, destination: { msisdn: '+22501020304', network: 'mtn' }, padding_length: 0 });
});

t.test('malformed JSON', async (t) => {
  for (const text of ['{"amount": 1,', '{amount: 1}', "{'amount': 1}", '{"amount": 1}}', 'nul', '\u0000']) {
    await t.test(JSON.stringify(text), async (t) => assertError(t, await raw(text, 'application/json'), 'IKW-REQ-001', null));
  }
});

t.test('media types other than application/json are refused before the body is read', async (t) => {
  await t.test('text/plain', async (t) => {
    assertError(t, await raw('{"amount": 1}', 'text/plain'), 'IKW-REQ-002');
  });
  await t.test('form-encoded', async (t) => {
    assertError(t, await raw('amount=1', 'application/x-www-form-urlencoded'), 'IKW-REQ-002');
  });
  await t.test('multipart', async (t) => {
    const body = '--x\r\nContent-Disposition: form-data; name="amount"\r\n\r\n1\r\n--x--\r\n';
    assertError(t, await raw(body, 'multipart/form-data; boundary=x'), 'IKW-REQ-002');
  });
  await t.test('a body without any Content-Type', async (t) => {
    assertError(t, await raw(Buffer.from('{"amount": 1}'), undefined), 'IKW-REQ-002');
  });
  await t.test('JSON in a charset other than UTF-8', async (t) => {
    assertError(t, await raw('{"amount": 1}', 'application/json; charset=latin1'), 'IKW-REQ-002');
  });
  await t.test('application/json with an explicit utf-8 charset is accepted', async (t) => {
    const res = await raw('{"amount": 1}', 'application/json; charset=utf-8');
    assertOk(t, res, 201);
  });
});

t.test('a body that is JSON but not an object', async (t) => {
  for (const text of ['[1, 2, 3]', '[{"amount": 1}]', '"amount"', '42', 'true', 'null']) {
    await t.test(text, async (t) => assertError(t, await raw(text, 'application/json'), 'IKW-VAL-001', null));
  }
  await t.test('a very deeply nested array', async (t) => {
    const depth = 100_000;
    assertError(t, await raw('['.repeat(depth) + ']'.repeat(depth), 'application/json'), 'IKW-VAL-001');
  });
});

t.test('wrong types', async (t) => {
  const cases: [string, unknown, string][] = [
    ['a string for an integer', { amount: 'ten' }, 'amount'],
    ['"10" for an integer (no coercion)', { amount: '10' }, 'amount'],
    ['a fraction for an integer', { amount: 10.5 }, 'amount'],
    ['null for an integer', { amount: null }, 'amount'],
    ['an object for an integer', { amount: { value: 10 } }, 'amount'],
    ['a number for a string', { amount: 1, note: 5 }, 'note'],
    ['a string for an object', { amount: 1, destination: '+22501020304' }, 'destination'],
    ['a nested wrong type', { amount: 1, destination: { msisdn: 22501020304 } }, 'destination.msisdn'],
    ['a value outside an enum', { amount: 1, destination: { msisdn: '+22501020304', network: 'airtel' } }, 'destination.network'],
  ];
  for (const [name, body, param] of cases) {
    await t.test(name, async (t) => assertError(t, await post(body), 'IKW-VAL-001', param));
  }
});

t.test('unknown fields are refused, naming the field', async (t) => {
  await t.test('top level', async (t) => assertError(t, await post({ amount: 1, amount_cents: 100 }), 'IKW-VAL-002', 'amount_cents'));
  await t.test('nested', async (t) => {
    assertError(t, await post({ amount: 1, destination: { msisdn: '+22501020304', pin: '1234' } }), 'IKW-VAL-002', 'destination.pin');
  });
  await t.test('__proto__ is just an unknown field', async (t) => {
    assertError(t, await raw('{"amount": 1, "__proto__": {"polluted": true}}', 'application/json'), 'IKW-VAL-002', '__proto__');
    t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
  });
  await t.test('an unknown query parameter', async (t) => {
    assertError(t, await svc.request('POST', '/test/echo?expand=all', { key, body: { amount: 1 } }), 'IKW-VAL-002', 'expand');
  });
});

t.test('missing required fields', async (t) => {
  await t.test('top level', async (t) => assertError(t, await post({ note: 'no amount' }), 'IKW-VAL-001', 'amount'));
  await t.test('an empty object', async (t) => assertError(t, await post({}), 'IKW-VAL-001', 'amount'));
  await t.test('no body at all', async (t) => assertError(t, await svc.request('POST', '/test/echo', { key }), 'IKW-VAL-001', 'amount'));
  await t.test('nested', async (t) => {
    assertError(t, await post({ amount: 1, destination: { network: 'mtn' } }), 'IKW-VAL-001', 'destination.msisdn');
  });
});

t.test('body size limit of 1 MiB', async (t) => {
  const envelope = JSON.stringify({ amount: 1, note: '' }).length;
  await t.test('just under the limit is accepted', async (t) => {
    const res = await post({ amount: 1, note: 'x'.repeat(1024 * 1024 - envelope) });
    assertOk(t, res, 201);
    t.equal(res.body?.note_length, 1024 * 1024 - envelope);
  });
  await t.test('one byte over is refused', async (t) => {
    assertError(t, await post({ amount: 1, note: 'x'.repeat(1024 * 1024 - envelope + 1) }), 'IKW-REQ-003', null);
  });
  await t.test('a 5 MiB body is refused', async (t) => {
    assertError(t, await post({ amount: 1, note: 'x'.repeat(5 * 1024 * 1024) }), 'IKW-REQ-003');
  });
  await t.test('a chunked body (no Content-Length) over the limit is refused', async (t) => {
    const body = JSON.stringify({ amount: 1, note: 'x'.repeat(1024 * 1024 + 10) });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(body);
        for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.subarray(i, i + 64 * 1024));
        controller.close();
      },
    });
    const res = await fetch(`${svc.baseUrl}/test/echo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const text = await res.text();
    const parsed = JSON.parse(text) as Record<string, unknown>;
    assertError(t, { status: res.status, headers: res.headers, text, body: parsed }, 'IKW-REQ-003');
  });
});

t.test('header sizes', async (t) => {
  await t.test('a single 10 KB header still reaches the route', async (t) => {
    const res = await post({ amount: 1 }, { headers: { 'x-padding': 'p'.repeat(10 * 1024) } });
    assertOk(t, res, 201);
    t.equal(res.body?.padding_length, 10 * 1024);
  });
  await t.test('a 10 KB Authorization header is an invalid credential', async (t) => {
    const res = await svc.request('POST', '/test/echo', { body: { amount: 1 }, headers: { authorization: `Bearer ${'k'.repeat(10 * 1024)}` } });
    t.equal(res.status, 401);
    assertError(t, res, 'IKW-AUT-002');
  });
  await t.test('headers over 16 KiB in total get 431 with a JSON body', async (t) => {
    const res = await post({ amount: 1 }, { headers: { 'x-padding-a': 'a'.repeat(9 * 1024), 'x-padding-b': 'b'.repeat(9 * 1024) } });
    assertError(t, res, 'IKW-REQ-004', null);
  });
  await t.test('one header over 16 KiB gets 431 too', async (t) => {
    const res = await svc.request('GET', '/healthz', { headers: { 'x-padding': 'p'.repeat(20 * 1024) } });
    assertError(t, res, 'IKW-REQ-004');
  });
});

t.test('HTTP-level garbage gets a coded 400, not a dropped connection', async (t) => {
  const res = await rawHttp('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n');
  t.equal(res.status, 400);
  t.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(res.text) as { code: string; retryable: boolean; request_id?: string };
  t.equal(body.code, 'IKW-REQ-005');
  t.equal(body.retryable, false);
  t.equal(res.headers.get('request-id'), body.request_id, 'Request-Id header equals the body request_id');
  t.match(body.request_id, /^req_/);
});

t.test('routing', async (t) => {
  await t.test('unknown route', async (t) => {
    assertError(t, await svc.request('GET', '/api/v1/nothing-here', { key }), 'IKW-RTE-001', null);
  });
  await t.test('unknown route with a JSON body', async (t) => {
    assertError(t, await svc.request('POST', '/test/echo/deeper', { key, body: { amount: 1 } }), 'IKW-RTE-001');
  });
  await t.test('unknown route without credentials is still 404', async (t) => {
    assertError(t, await svc.request('DELETE', '/nope'), 'IKW-RTE-001');
  });
  await t.test('wrong method on a POST route', async (t) => {
    const res = await svc.request('GET', '/test/echo', { key });
    assertError(t, res, 'IKW-RTE-002', null);
    t.equal(res.headers.get('allow'), 'POST');
  });
  await t.test('wrong method with a body', async (t) => {
    const res = await svc.request('PUT', '/test/echo', { key, body: { amount: 1 } });
    assertError(t, res, 'IKW-RTE-002');
    t.equal(res.headers.get('allow'), 'POST');
  });
  await t.test('wrong method on a GET route', async (t) => {
    const res = await svc.request('DELETE', '/test/whoami', { key });
    assertError(t, res, 'IKW-RTE-002');
    t.equal(res.headers.get('allow'), 'GET');
  });
  await t.test('wrong method on a route with a path parameter', async (t) => {
    const res = await svc.request('POST', '/test/items/abc', { body: { x: 1 } });
    assertError(t, res, 'IKW-RTE-002');
    t.equal(res.headers.get('allow'), 'GET');
  });
  await t.test('a path parameter is decoded and validated', async (t) => {
    const ok = await svc.request('GET', '/test/items/a%20b');
    assertOk(t, ok);
    t.same(ok.body, { id: 'a b' });
    assertError(t, await svc.request('GET', `/test/items/${'z'.repeat(65)}`), 'IKW-VAL-001', 'id');
  });
  await t.test('a path parameter that is not valid percent-encoding', async (t) => {
    const res = await svc.request('GET', '/test/items/%E0%A4%A');
    t.equal(res.status, 400);
    assertError(t, res, 'IKW-REQ-005');
  });
});

t.test('GET /healthz', async (t) => {
  const res = await svc.request('GET', '/healthz');
  assertOk(t, res);
  t.same(res.body, { status: 'ok' });
});

t.test('GET /openapi.json', async (t) => {
  const res = await svc.request('GET', '/openapi.json');
  assertOk(t, res);
  const doc = res.body;
  t.equal(doc.openapi, '3.1.0', 'OpenAPI 3.1');
  t.type(doc.info?.title, 'string');
  t.ok(doc.paths['/healthz']?.get, 'lists GET /healthz');
  t.ok(doc.paths['/openapi.json']?.get, 'lists itself');
  t.ok(doc.paths['/test/whoami']?.get, 'lists GET /test/whoami');
  t.ok(doc.paths['/test/items/{id}']?.get, 'lists GET /test/items/{id} in OpenAPI path syntax');
  const echo = doc.paths['/test/echo']?.post;
  t.ok(echo, 'lists POST /test/echo');
  t.same(echo.requestBody.content['application/json'].schema, echoBodySchema, 'the request schema is the one ajv validates with');
  t.ok(echo.responses['201'], 'the success status of the route');
  t.same(echo.security, [{ apiKey: ['payouts.write'] }, { appToken: ['payouts.write'] }], 'either credential, with the scope it needs');
  const envHeader = (doc.paths['/test/whoami'].get.parameters as { name: string; in: string; required: boolean }[]).find((p) => p.name === 'X-Environment');
  t.same(envHeader && { in: envHeader.in, required: envHeader.required }, { in: 'header', required: true }, 'X-Environment required where the route says so');
  t.ok(doc.components?.schemas?.Error, 'the error schema');
});
