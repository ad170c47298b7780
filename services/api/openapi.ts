import type { ErrorCode } from '#packages/core/errors.js';
import { ERROR_CODES } from '#packages/families/index.js';
import { route, type RouteGroup, type Route } from '#packages/http/routes.js';
import type { ApiExample } from './reference/examples.js';

const errorSchema = {
  type: 'object',
  description: 'Every answer that is not a success (docs/errors.md). Clients branch on `code`, never on `message`.',
  required: ['code', 'message', 'retryable', 'request_id'],
  properties: {
    code: {
      type: 'string',
      description: 'What went wrong, stable: branch on it (docs/errors.md)',
      enum: Object.keys(ERROR_CODES),
      'x-enumDescriptions': Object.fromEntries(Object.entries(ERROR_CODES).map(([code, spec]) => [code, `${spec.status}: ${spec.message}`])),
    },
    message: { type: 'string', description: 'What went wrong, in words for a developer; it may change, so never parse it' },
    retryable: { type: 'boolean', description: 'Whether the same request may succeed later (after `Retry-After` where given); `false`: change the request first' },
    param: { type: 'string', description: 'The field at fault, a dotted path into the body or query, when one is' },
    request_id: { type: 'string', description: "This request's id (also the `Request-Id` header): give it to support" },
    errors: {
      type: 'array',
      description:
        "Every problem of a request that reports them all, not only the first (the first is also `code`, `message` and `param` above): each refused item of a list (a payout batch's instructions, by `index`), each problem of an automation's definition (by `param`)",
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          index: { type: 'integer', description: 'The item of the list the request carries (a payout instruction) that this problem is about' },
          code: { type: 'string', description: 'A code of docs/errors.md, as `code` above' },
          message: { type: 'string', description: 'What went wrong with this item, in words' },
          param: { type: 'string', description: 'The field at fault, a dotted path: `instructions.3.amount`, `steps.1.params.url`' },
        },
      },
    },
  },
};

const securitySchemes = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: "An API key: `Authorization: Bearer sk_test_…` (sandbox) or `sk_live_…` (live); its environment is the key's. Each key holds scopes; an operation lists the scope it needs.",
  },
  appToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      "A dashboard user's AppToken from `POST /api/v1/auth/login` (15 minutes; `POST /api/v1/auth/refresh` gives a new one): `Authorization: Bearer <AppToken>`. `X-Environment` picks the environment (sandbox when absent). The user's scopes apply as a key's do.",
  },
  adminKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The platform operator credential: `Authorization: Bearer sk_admin_…`, made with `bin/sika admin keys create`. Only the operations that say so take it; it acts for the merchant it names (`merchantId`). `X-Environment` picks the environment (sandbox when absent).',
  },
  operatorSession: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      "An operator's session token from `POST /api/v1/operator/auth/sign-in/complete` (12 hours; docs/operator.md): `Authorization: Bearer <sessionToken>`, or the console's HttpOnly cookie `sika_operator_session` sent with `Sika-Operator-Cookie: 1`. Only the `/api/v1/operator/…` operations take it, each for the roles it names (an admin's always); they answer any other credential, or none, with the 404 of a path that does not exist. Its scopes are the operation's: `operator.<area>`.",
  },
};

/**
 * `GET /api/v1/payment-intents/:id/confirm` → `getPaymentIntentsByIdConfirm`: the method, then the
 * path without `/api/v1`, a parameter as `By<Name>`. Method and path identify a route, so the id
 * is unique and changes only when the route does; a route may declare its own instead.
 */
export function operationIdOf(r: Pick<Route, 'method' | 'path' | 'operationId'>): string {
  if (r.operationId !== undefined) return r.operationId;
  const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const words = r.path
    .replace(/^\/api\/v1(?=\/)/, '')
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `By${capital(segment.slice(1))}` : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter((word) => word !== '');
  return r.method + words.map(capital).join('');
}

/** Whether the server honours Idempotency-Key on this route: POST and PATCH with a credential (its scope is the merchant × environment). */
export function takesIdempotencyKey(r: Pick<Route, 'method' | 'auth'>): boolean {
  // Operators' changes are not keyed (docs/operator.md): each decides on the state it finds, and a repeat changes nothing.
  return r.auth !== 'public' && !r.auth.operator && (r.method === 'post' || r.method === 'patch');
}

/**
 * The refusals the HTTP layer gives this route by its declaration (packages/http/app.ts and
 * auth.ts): its credential, its parameters and body, its idempotency key, its path's object, the
 * rate limits. The operation's own refusals (a state that forbids it, a balance too low, …) come
 * on top and are listed in docs/errors.md.
 */
export function declaredErrors(r: Route): ErrorCode[] {
  const codes: ErrorCode[] = [];
  // Every route validates its query (no schema: no parameter at all) and refuses unstorable text.
  codes.push('IKW-VAL-002', 'IKW-VAL-011');
  if (r.body || r.query || r.params) codes.push('IKW-VAL-001');
  if (r.body) codes.push('IKW-REQ-001', 'IKW-REQ-002', 'IKW-REQ-003', 'IKW-REQ-006', 'IKW-REQ-007');
  if (r.auth !== 'public' && r.auth.operator) {
    // Anything but an operator session is the 404 of no route; a session of another role, 403.
    codes.push('IKW-RTE-001', 'IKW-OPR-002', 'IKW-AUT-005');
    if (r.auth.operator.length < 4) codes.push('IKW-OPR-001');
  } else if (r.auth !== 'public') {
    codes.push('IKW-AUT-001', 'IKW-AUT-002', 'IKW-AUT-007', 'IKW-AUT-003', 'IKW-AUT-004', 'IKW-AUT-005');
    if (r.auth.appTokenOnly) codes.push('IKW-ACC-003');
    if (r.auth.environmentHeader === 'required') codes.push('IKW-AUT-006');
    if (r.auth.idempotencyKeyInLive === 'required') codes.push('IKW-IDM-004');
    if (r.auth.platform === 'only') codes.push('IKW-AUT-009');
    if (r.auth.platform === 'also') codes.push('IKW-AUT-009', 'IKW-CFG-004');
  }
  if (takesIdempotencyKey(r)) codes.push('IKW-IDM-001', 'IKW-IDM-002', 'IKW-IDM-003');
  // Every path parameter names an object; one the caller has none of is a 404.
  if (/:\w+/.test(r.path)) codes.push('IKW-RES-001');
  // Per client address on every route, per credential on authenticated ones, per subject where throttled.
  codes.push('IKW-LIM-001');
  return codes;
}

/** The credentials an operation takes, with the scope it needs (the platform operator's holds every scope). */
function securityOf(r: Route): unknown[] {
  if (r.auth === 'public') return [];
  if (r.auth.operator) return [{ operatorSession: [r.auth.scope] }];
  if (r.auth.appTokenOnly) return [{ appToken: [] }];
  if (r.auth.platform === 'only') return [{ adminKey: [] }];
  const merchant = [{ apiKey: [r.auth.scope] }, { appToken: [r.auth.scope] }];
  return r.auth.platform === 'also' ? [...merchant, { adminKey: [] }] : merchant;
}

/** Every code a route may answer with: its declaration's and its own refusals, each once. */
export function errorsOf(r: Route): ErrorCode[] {
  return [...new Set([...declaredErrors(r), ...(r.refusals ?? [])])];
}

/** The 4xx answers of a route, one per status, each naming the codes it may carry. */
function errorResponses(r: Route): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(r)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `${[...codes]
        .sort()
        .map((c) => `\`${c}\``)
        .join(', ')}${r.refusals === undefined ? ", or a refusal of the operation's own (docs/errors.md)" : ''}`,
      content: refusalContent(r),
    };
  }
  return responses;
}

/**
 * How a refusal comes: coded JSON; from a hosted page, to a browser, a page saying it in words
 * instead (a form's reason, an expired session's 410).
 */
function refusalContent(r: Route): Record<string, unknown> {
  return {
    'application/json': { schema: { $ref: '#/components/schemas/Error' } },
    ...(r.answers?.html ? { 'text/html': { schema: { type: 'string', description: 'A page for a browser that says it in words' } } } : {}),
  };
}

/** Who may call the route, in words: the reference's first rule under each operation. */
function credentialRule(r: Route): string {
  if (r.auth === 'public') return 'none: a public page or endpoint, for payers and browsers.';
  if (r.auth.operator) {
    const roles = r.auth.operator.length === 4 ? 'any role' : `the role ${[...new Set([...r.auth.operator, 'admin'])].map((role) => `\`${role}\``).join(' or ')}`;
    return `an operator's session (\`operatorSession\`) of ${roles}; another role is refused with \`IKW-OPR-001\`, and any other credential, or none, gets \`404 IKW-RTE-001\` as a path that does not exist.`;
  }
  if (r.auth.appTokenOnly) return "a signed-in dashboard user's access token (`appToken`); an API key is refused with `IKW-ACC-003`.";
  if (r.auth.platform === 'only') return "the platform operator's key (`sk_admin_…`) only.";
  const operator = r.auth.platform === 'also' ? " The platform operator's key (`sk_admin_…`) may call it too, naming the merchant in `merchantId`." : '';
  return `an API key or a dashboard user's access token holding the scope \`${r.auth.scope}\`.${operator}`;
}

function environmentRule(r: Route): string | undefined {
  if (r.auth === 'public') return undefined;
  if (r.auth.operator) return 'an operator acts on the whole platform: every merchant, both environments.';
  if (r.auth.environmentHeader === 'required') return "`X-Environment` is required and must be the API key's environment.";
  return "an API key acts in its own environment; a user's token acts in the one `X-Environment` names (sandbox when absent).";
}

function idempotencyRule(r: Route): string | undefined {
  if (!takesIdempotencyKey(r)) return undefined;
  const live = r.auth !== 'public' && r.auth.idempotencyKeyInLive === 'required' ? ' It is required in live.' : '';
  return `send an \`Idempotency-Key\`: a retry with the same key and body answers what the first request made, whatever happened in between.${live}`;
}

/**
 * An operation's description in the reference: the route's own words, then what its declaration
 * says (credential, environment, idempotency), every error code it may answer with (status and
 * meaning from the error table) and the events it emits. One source: the route.
 */
export function describeOperation(r: Route): string {
  const rules = [`**Credential:** ${credentialRule(r)}`, ...(environmentRule(r) ? [`**Environment:** ${environmentRule(r)}`] : []), ...(idempotencyRule(r) ? [`**Idempotency:** ${idempotencyRule(r)}`] : [])];
  const errors = errorsOf(r)
    .map((code) => ({ code, ...ERROR_CODES[code] }))
    .sort((a, b) => a.status - b.status || a.code.localeCompare(b.code))
    .map((e) => `| ${e.status} | \`${e.code}\` | ${e.message.replace(/\|/g, '\\|')}${e.retryable ? ' (retry later)' : ''} |`);
  const events = r.emits && r.emits.length > 0 ? [`**Events:** ${r.emits.map((t) => `\`${t}\``).join(', ')} (docs/events.md).`] : [];
  return [r.description ?? r.summary, rules.join('\n\n'), ['**Errors:**', '', '| Status | Code | Meaning |', '|---|---|---|', ...errors].join('\n'), ...events].join('\n\n');
}

function headerParameters(r: Route): unknown[] {
  const parameters: unknown[] = [];
  if (r.auth !== 'public' && r.auth.environmentHeader) {
    const required = r.auth.environmentHeader === 'required';
    parameters.push({
      name: 'X-Environment',
      in: 'header',
      required,
      description: required
        ? "The environment the request acts in; required here. With an API key it must be the key's (403 `IKW-AUT-003` otherwise)."
        : "The environment the request acts in. With an API key it must be the key's (403 `IKW-AUT-003` otherwise); with an AppToken it picks one (sandbox when absent).",
      schema: { type: 'string', enum: ['sandbox', 'live'] },
    });
  }
  if (takesIdempotencyKey(r)) {
    const inLive = r.auth !== 'public' && r.auth.idempotencyKeyInLive === 'required';
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      // OpenAPI cannot say "required in live only"; the description does, and 400 IKW-IDM-004 enforces it.
      required: false,
      description: `${inLive ? 'Required in live mode (400 `IKW-IDM-004` without it). ' : ''}The first complete answer to this key is replayed byte for byte, with \`Idempotent-Replayed: true\`, for \`IDEMPOTENCY_TTL\` (24 hours by default); the same key with another body is 422 \`IKW-IDM-002\`, and a repeat while the first request still runs is 409 \`IKW-IDM-003\`. Scope: merchant × environment × method × path.`,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    });
  }
  return parameters;
}

/**
 * A route's success answers: its JSON, CSV, page or file under its status, and a redirect under 303.
 * Every route declares them (tests check each answer against them), so that the document and the
 * clients typed from it say what the service really answers.
 */
function successResponses(r: Route, example: ApiExample | undefined): Record<string, unknown> {
  if (!r.response && !r.answers) throw new Error(`${r.method.toUpperCase()} ${r.path} declares no answer: give it a response schema (or answers)`);
  const content: Record<string, unknown> = {};
  // The example is a real answer of this status (recorded by the tests), so it shows under it only.
  const shown = example !== undefined && example.status === (r.status ?? 200) ? { example: example.response } : {};
  if (r.response) content['application/json'] = { schema: r.response, ...shown };
  if (r.answers?.csv) content['text/csv'] = { schema: { type: 'string', description: `CSV with a header row: ${r.answers.csv.join(',')}` } };
  if (r.answers?.html) content['text/html'] = { schema: { type: 'string', description: 'A page for a browser' } };
  if (r.answers?.file) content[r.answers.file] = { schema: { type: 'string', format: 'binary' } };
  return {
    ...(Object.keys(content).length > 0 ? { [String(r.status ?? 200)]: { description: 'Success', content } } : {}),
    ...(r.answers?.redirect ? { '303': { description: 'See Other: the next page, at `Location`', headers: { Location: { schema: { type: 'string' } } } } } : {}),
  };
}

/** A path parameter's words: its schema's in `params`, else what the name says. */
function pathParameterDescription(r: Route, name: string): string {
  const own = ((r.params?.properties ?? {}) as Record<string, { description?: string }>)[name]?.description;
  if (own !== undefined) return own;
  return name === 'id' ? 'The id of the object the path names' : `The \`${name}\` of the object the path names`;
}

/** A parameter says what it is at the parameter, where the reference shows it (its schema keeps the rest). */
function asParameter(name: string, where: 'query', schema: Record<string, unknown>): Record<string, unknown> {
  const { description, ...rest } = schema as { description?: string };
  return { name, in: where, required: false, ...(description !== undefined ? { description } : {}), schema: rest };
}

function operation(family: RouteGroup, r: Route, example: ApiExample | undefined): Record<string, unknown> {
  const parameters: unknown[] = [];
  for (const name of r.path.match(/:(\w+)/g) ?? []) {
    const param = name.slice(1);
    parameters.push({ name: param, in: 'path', required: true, description: pathParameterDescription(r, param), schema: { type: 'string' } });
  }
  const queryProps = (r.query?.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, schema] of Object.entries(queryProps)) parameters.push(asParameter(name, 'query', schema));
  parameters.push(...headerParameters(r));
  return {
    operationId: operationIdOf(r),
    tags: [family.name],
    summary: r.summary,
    description: describeOperation(r),
    // Either credential works on every authenticated route but the account ones; the array names the scope it must hold.
    security: securityOf(r),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(r.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: r.body, ...(example?.request !== undefined ? { example: example.request } : {}) },
              ...(r.form ? { 'application/x-www-form-urlencoded': { schema: r.body } } : {}),
              // One instruction per line after a header line naming the columns (docs/payout-engine.md).
              ...(r.csvBody ? { 'text/csv': { schema: { type: 'string' } } } : {}),
            },
          },
        }
      : r.rawBody
        ? { requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } } }
        : {}),
    responses: {
      ...successResponses(r, example),
      ...errorResponses(r),
      default: { description: "Other refusals of the operation's own, and server errors (docs/errors.md)", content: refusalContent(r) },
    },
  };
}

/** Assembles the OpenAPI 3.1 document from the same route definitions (and schemas) the app serves. */
export function buildOpenApi(families: readonly RouteGroup[], examples: ReadonlyMap<string, ApiExample> = new Map()): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Map<string, string>();
  for (const family of families) {
    for (const r of family.routes) {
      const id = operationIdOf(r);
      const taken = operationIds.get(id);
      if (taken !== undefined) throw new Error(`operationId ${id} of ${r.method.toUpperCase()} ${r.path} is already ${taken}'s; declare operationId on one of them`);
      operationIds.set(id, `${r.method.toUpperCase()} ${r.path}`);
      const path = r.path.replace(/:(\w+)/g, '{$1}');
      paths[path] ??= {};
      paths[path][r.method] = operation(family, r, examples.get(id));
    }
  }
  const tags = families.filter((family) => family.description !== undefined).map((family) => ({ name: family.name, description: family.description }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sika API',
      version: '1.0.0',
      description:
        'Payments for African merchants: mobile money and cards in, mobile money and bank out. Each operation lists the 4xx answers its declaration implies (credential, parameters, idempotency, rate limits); its own refusals are in docs/errors.md.',
      // package.json: "UNLICENSED". Not an SPDX licence, so a LicenseRef (SPDX's form for others).
      license: { name: 'Proprietary: no licence is granted', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the document is served by the server it describes.
    servers: [{ url: '/', description: 'The server this document was fetched from' }],
    tags,
    paths,
    components: {
      securitySchemes,
      schemas: { Error: errorSchema },
    },
  };
}

export function openApiFamily(document: () => Record<string, unknown>): RouteGroup {
  return {
    name: 'openapi',
    description: 'This document.',
    routes: [
      route({
        method: 'get',
        path: '/openapi.json',
        summary: 'This API described as OpenAPI 3.1',
        description: 'This very document, for tools: generate a client from it (the TypeScript and Python clients are), load it into an API tool, or diff it between versions. The same document drawn for people is at `/docs`.',
        auth: 'public',
        response: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: {
            openapi: { const: '3.1.0', description: 'The version of OpenAPI this document follows' },
            info: { type: 'object', description: 'The API: its title, version, description and licence' },
            servers: { type: 'array', description: 'Where the API is served: this server' },
            tags: { type: 'array', description: 'The families of operations, each with what it is for' },
            paths: { type: 'object', description: 'Every operation, by path and method' },
            components: { type: 'object', description: 'The error schema and the credentials' },
          },
        },
        handler: async () => document(),
      }),
    ],
  };
}
