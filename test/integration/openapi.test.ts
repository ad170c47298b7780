/**
 * The API reference (`GET /openapi.json`, checked in as docs/openapi.json) against the route
 * declarations it is generated from: operationIds, credentials, the Idempotency-Key and
 * X-Environment headers, and the 4xx answers of every operation. `make openapi-lint` runs
 * Redocly's recommended rules over the same document.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import type { ErrorCode } from '#packages/core/errors.js';
import { ERROR_CODES } from '#packages/families/index.js';
import { route, type RouteGroup, type Route } from '#packages/http/routes.js';
import { Reply } from '#packages/http/context.js';
import { apiFamilies } from '../../services/api/app.js';
import { buildOpenApi, errorsOf, openApiFamily, operationIdOf } from '../../services/api/openapi.js';
import { startService } from '../support/system.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}
interface Response {
  description: string;
  content?: Record<string, { schema: Record<string, unknown> }>;
}
interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; description?: string }>; schemas: Record<string, unknown> };
  servers?: unknown[];
  info: { license?: unknown };
}

const svc = await startService(t);
const served = await svc.request('GET', '/openapi.json');
const doc = served.body as Document;

// The routes the server mounts, each with the operation the document gives it.
const routes: Route[] = [...apiFamilies(svc.system), openApiFamily(() => ({}))].flatMap((f) => f.routes);
const operations = routes.map((r) => ({ r, name: `${r.method.toUpperCase()} ${r.path}`, op: doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method] }));
const header = (op: Operation, name: string) => op.parameters?.find((p) => p.in === 'header' && p.name === name);
/** The codes a 4xx response names in its description. */
const namedCodes = (res: Response) => [...res.description.matchAll(/IKW-[A-Z]{3}-\d{3}/g)].map((m) => m[0] as ErrorCode);

t.test('GET /openapi.json serves the checked-in docs/openapi.json (regenerate: bin/sika docs openapi > docs/openapi.json)', async (t) => {
  t.equal(served.status, 200);
  t.equal(served.body.openapi, '3.1.0');
  const checkedIn = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/openapi.json'), 'utf8'));
  t.same(served.body, checkedIn);
  t.ok(doc.paths['/api/v1/payouts']?.post, 'payout creation is documented');
  t.ok(doc.paths['/api/v1/payment-intents/{id}/confirm']?.post, 'path parameters use OpenAPI syntax');
});

t.test('every route is an operation of the document, and nothing else is', async (t) => {
  for (const { name, op } of operations) t.ok(op, `${name} is documented`);
  const documented = Object.values(doc.paths).reduce((n, byMethod) => n + Object.keys(byMethod).length, 0);
  t.equal(documented, routes.length, 'as many operations as routes');
});

t.test('operationIds: on every operation, unique, URL-safe, derived from method and path', async (t) => {
  const seen = new Map<string, string>();
  for (const { r, name, op } of operations) {
    const id = op?.operationId;
    t.match(id, /^[A-Za-z][A-Za-z0-9]*$/, `${name} has a URL-safe operationId`);
    t.equal(id, operationIdOf(r), `${name}: the id of its method and path`);
    t.notOk(seen.has(id!), `${name}: ${id} is not also ${seen.get(id!)}'s`);
    seen.set(id!, name);
  }
  t.equal(operationIdOf({ method: 'post', path: '/api/v1/payment-intents/:id/confirm' }), 'postPaymentIntentsByIdConfirm');
  t.equal(operationIdOf({ method: 'post', path: '/api/v1/webhook-endpoints/:id/rotate_secret' }), 'postWebhookEndpointsByIdRotateSecret');
  t.equal(operationIdOf({ method: 'get', path: '/openapi.json' }), 'getOpenapiJson');
  t.equal(operationIdOf({ method: 'get', path: '/api/v1/x', operationId: 'listX' }), 'listX', 'a declared id wins');

  const handler = async () => ({});
  const clash: RouteGroup = {
    name: 'clash',
    routes: [
      route({ method: 'get', path: '/a', summary: 'a', auth: 'public', operationId: 'same', response: { type: 'object' }, handler }),
      route({ method: 'get', path: '/b', summary: 'b', auth: 'public', operationId: 'same', response: { type: 'object' }, handler }),
    ],
  };
  t.throws(() => buildOpenApi([clash]), /operationId same of GET \/b is already GET \/a's/, 'a duplicate id stops the build of the document');
});

t.test('credentials: API key and AppToken schemes; each operation takes either with its scope, account ones an access token, public ones none', async (t) => {
  const schemes = doc.components.securitySchemes;
  t.match(schemes.apiKey, { type: 'http', scheme: 'bearer', description: /sk_test_.*sk_live_/ }, 'API keys');
  t.match(schemes.appToken, { type: 'http', scheme: 'bearer', description: /POST \/api\/v1\/auth\/login/ }, "dashboard users' AppTokens");
  t.match(schemes.adminKey, { type: 'http', scheme: 'bearer', description: /sk_admin_.*bin\/sika admin keys create/ }, 'the platform operator credential');
  t.match(schemes.operatorSession, { type: 'http', scheme: 'bearer', description: /sign-in\/complete.*sika_operator_session/ }, "operators' sessions");
  for (const { r, name, op } of operations) {
    if (r.auth === 'public') t.same(op?.security, [], `${name} is public: security []`);
    else if (r.auth.operator) t.same(op?.security, [{ operatorSession: [r.auth.scope] }], `${name}: an operator session only, scope ${r.auth.scope}`);
    else if (r.auth.appTokenOnly) t.same(op?.security, [{ appToken: [] }], `${name}: a signed-in user's access token only`);
    else if (r.auth.platform === 'only') t.same(op?.security, [{ adminKey: [] }], `${name}: the platform operator credential only`);
    else if (r.auth.platform === 'also') t.same(op?.security, [{ apiKey: [r.auth.scope] }, { appToken: [r.auth.scope] }, { adminKey: [] }], `${name}: either credential with scope ${r.auth.scope}, or the operator's`);
    else t.same(op?.security, [{ apiKey: [r.auth.scope] }, { appToken: [r.auth.scope] }], `${name}: either credential, scope ${r.auth.scope}`);
  }
  t.ok(operations.some(({ r }) => r.auth === 'public') && operations.some(({ r }) => r.auth !== 'public' && !r.auth.appTokenOnly) && operations.some(({ r }) => r.auth !== 'public' && r.auth.appTokenOnly), 'all three kinds are checked');
});

t.test('Idempotency-Key: a header parameter of every POST and PATCH that takes a credential', async (t) => {
  let checked = 0;
  for (const { r, name, op } of operations) {
    const key = header(op!, 'Idempotency-Key');
    if ((r.method === 'post' || r.method === 'patch') && r.auth !== 'public' && !r.auth.operator) {
      checked++;
      t.match(key, { in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } }, `${name} takes Idempotency-Key`);
      if (r.auth.idempotencyKeyInLive === 'required') t.match(key?.description, /Required in live mode/, `${name}: required in live`);
    } else {
      // Public POSTs (sign-in, the sandbox 3-D Secure page) have no merchant to scope a key by: the server ignores it there;
      // nor do operators' changes, which each decide on the state they find (docs/operator.md).
      t.notOk(key, `${name} does not document Idempotency-Key`);
    }
  }
  t.ok(checked > 0);
  t.match(header(doc.paths['/api/v1/payouts']!.post!, 'Idempotency-Key')?.description, /Required in live mode/, 'payout creation says live needs one');
});

t.test('X-Environment: a header parameter where the route declares it, required where the route requires it', async (t) => {
  for (const { r, name, op } of operations) {
    const env = header(op!, 'X-Environment');
    const declared = r.auth === 'public' ? undefined : r.auth.environmentHeader;
    if (declared) t.match(env, { in: 'header', required: declared === 'required', schema: { enum: ['sandbox', 'live'] } }, `${name}: X-Environment ${declared}`);
    else t.notOk(env, `${name} does not declare X-Environment`);
  }
  t.equal(header(doc.paths['/api/v1/payouts']!.post!, 'X-Environment')?.required, true, 'payouts require it');
  t.equal(header(doc.paths['/api/v1/payment-intents']!.post!, 'X-Environment')?.required, false, 'payment intents take it');
});

t.test('4xx answers: those the route declaration implies and its own refusals, each with the shared error body', async (t) => {
  t.ok(doc.components.schemas.Error, 'components/schemas/Error');
  for (const { r, name, op } of operations) {
    const statuses = Object.keys(op!.responses).filter((s) => /^4\d\d$/.test(s));
    // A refusal of the operation's own (Route.refusals) brings its status whatever the declaration implies.
    const own = new Set((r.refusals ?? []).map((code) => String(ERROR_CODES[code].status)));
    const expect = (status: string, implied: boolean, why: string) => {
      const due = implied || own.has(status);
      t.equal(statuses.includes(status), due, `${name}: ${due ? '' : 'no '}${status} (${implied || !due ? why : 'a refusal of its own'})`);
    };
    expect('400', true, 'every route refuses unknown query parameters');
    expect('401', r.auth !== 'public', 'a credential');
    const operator = r.auth !== 'public' ? r.auth.operator : undefined;
    expect('403', r.auth !== 'public' && (!operator || operator.length < 4), operator ? 'a role' : 'a scope');
    expect('404', /:\w+/.test(r.path) || operator !== undefined, operator ? 'hidden from any other credential' : 'an object in the path');
    const idempotent = (r.method === 'post' || r.method === 'patch') && r.auth !== 'public' && !operator;
    expect('409', idempotent, 'IKW-IDM-003');
    expect('422', idempotent, 'IKW-IDM-002');
    expect('429', true, 'rate limits');
    // A refusal of its own may be a 5xx (a provider that did not answer, the database out of reach).
    const answered = Object.keys(op!.responses).filter((s) => /^[45]\d\d$/.test(s));
    for (const status of answered) {
      const res = op!.responses[status]!;
      t.same(res.content?.['application/json']?.schema, { $ref: '#/components/schemas/Error' }, `${name} ${status}: the error body`);
      const codes = namedCodes(res);
      t.ok(codes.length > 0, `${name} ${status} names its codes`);
      for (const code of codes) t.equal(String(ERROR_CODES[code]?.status), status, `${name} ${status}: ${code} is a ${status}`);
    }
    t.same(answered.flatMap((s) => namedCodes(op!.responses[s]!)).sort(), [...errorsOf(r)].sort(), `${name}: every declared code in one answer`);
    t.ok(op!.responses.default, `${name}: default for the rest`);
  }
});

t.test('servers and licence', async (t) => {
  t.ok(doc.servers && doc.servers.length > 0, 'a server');
  t.match(doc.info.license, { name: String, identifier: String }, 'a licence with an identifier');
});

// The document against the server: what it says a request without a credential, or with a
// parameter no operation accepts, gets is what the server answers.
t.test('documented refusals are the answers the server gives', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const concrete = (p: string) => p.replace(/:operationId/g, `op_${'0'.repeat(24)}`).replace(/:(\w+)/g, 'nope');
  const documents = (op: Operation, status: number, code: string) => namedCodes(op.responses[String(status)] ?? { description: '' }).includes(code as ErrorCode);
  for (const { r, name, op } of operations) {
    const method = r.method.toUpperCase();
    const credential = r.auth === 'public' ? {} : { key, headers: { 'x-environment': 'sandbox' } };
    const unknown = await svc.request(method, `${concrete(r.path)}?no_such_parameter=1`, { ...credential, ...(r.body ? { body: {} } : {}) });
    t.ok(documents(op!, unknown.status, unknown.body?.code), `${name} with an unknown parameter: ${unknown.status} ${unknown.body?.code} is documented`);
    if (r.auth !== 'public') {
      const anonymous = await svc.request(method, concrete(r.path));
      // An operator route is hidden: no route at all for anyone but an operator.
      const status = r.auth.operator ? 404 : 401;
      t.equal(anonymous.status, status, `${name} without a credential: ${status}`);
      t.ok(documents(op!, status, anonymous.body?.code), `${name}: ${anonymous.body?.code} is documented`);
    }
  }
});

// The success answers: every route declares them, and the test service checks each answer it gives
// against them (startService's checkAnswers), so the document cannot drift from the service.
t.test('success answers: declared by every route; an answer that departs from its declaration is a 500 in tests', async (t) => {
  for (const { name, op } of operations) {
    const successes = Object.keys(op!.responses).filter((s) => /^[23]\d\d$/.test(s));
    t.ok(successes.length > 0, `${name} declares its success`);
    for (const s of successes) {
      const content = op!.responses[s]!.content;
      if (s === '303') continue;
      t.ok(content && Object.keys(content).length > 0, `${name} ${s}: a media type`);
      const json = content?.['application/json']?.schema;
      if (json) t.not(JSON.stringify(json), JSON.stringify({ type: 'object', additionalProperties: true }), `${name}: a JSON answer's schema says what it holds`);
    }
  }
  t.throws(
    () => buildOpenApi([{ name: 'test', routes: [route({ method: 'get', path: '/test/silent', summary: 'Says nothing of its answer', auth: 'public', handler: async () => ({}) })] }]),
    /declares no answer/,
    'a route that declares no answer is refused',
  );

  const declared = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
  const family: RouteGroup = {
    name: 'test',
    routes: [
      route({ method: 'get', path: '/test/true', summary: 'Answers as declared', auth: 'public', response: declared, handler: async () => ({ id: 'x' }) }),
      route({ method: 'get', path: '/test/lying', summary: 'Answers other than declared', auth: 'public', response: declared, handler: async () => ({ id: 7 }) }),
      route({ method: 'get', path: '/test/extra', summary: 'A field it does not name', auth: 'public', response: declared, handler: async () => ({ id: 'x', refreshHash: 'abc' }) }),
      route({
        method: 'get',
        path: '/test/nested-extra',
        summary: 'A field of a list item it does not name',
        auth: 'public',
        response: { type: 'object', properties: { data: { type: 'array', items: declared } } },
        handler: async () => ({ data: [{ id: 'x' }, { id: 'y', proof: {} }] }),
      }),
      route({
        method: 'get',
        path: '/test/free-form',
        summary: 'A free-form object and a map of named values',
        auth: 'public',
        response: { type: 'object', properties: { id: { type: 'string' }, data: { type: 'object' }, metadata: { type: 'object', additionalProperties: { type: 'string' } } } },
        handler: async () => ({ id: 'x', data: { anything: { deep: 1 } }, metadata: { order: '42' } }),
      }),
      route({ method: 'get', path: '/test/page', summary: 'A page it does not declare', auth: 'public', response: declared, handler: async () => Reply.html('<p>hi</p>') }),
      route({ method: 'get', path: '/test/moved', summary: 'A redirect it does not declare', auth: 'public', answers: { html: true }, handler: async () => Reply.redirect('/test/true') }),
    ],
  };
  const checked = await startService(t, { families: () => [family] });
  t.equal((await checked.request('GET', '/test/true')).status, 200, 'an answer as declared passes');
  t.equal((await checked.request('GET', '/test/free-form')).status, 200, "a free-form object's fields and a map's keys need no names");
  for (const path of ['/test/lying', '/test/extra', '/test/nested-extra', '/test/page', '/test/moved']) {
    const res = await checked.request('GET', path);
    t.equal(res.status, 500, `${path}: 500`);
  }
});
