import fs from 'node:fs';
import path from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Knex } from 'knex';
import { match } from 'path-to-regexp';
import { ApiError, ItemsRefused, specOf, type ErrorCode, type ErrorTable } from '#packages/core/errors.js';
import { Refusal, RefusedItems } from '#packages/core/refusal.js';
import { newId } from '#packages/core/ids.js';
import type { Logger } from '#packages/core/logger.js';
import type { RateLimitRule } from '#packages/core/config.js';
import { anyCidrContains, parseIp, type Cidr } from '#packages/core/cidr.js';
import type { Metrics } from '#packages/core/metrics.js';
import { authenticate, HiddenRoute, type Credentials } from './auth.js';
import { Reply, type AnswerHeaders, type HandlerContext, type Principal } from './context.js';
import { isHtml, pageHeaders } from './page-policy.js';
import { IdempotencyStore, type StoredAnswer } from './idempotency.js';
import type { RateLimiter } from './rate-limit.js';
import type { RouteGroup, Method, Route } from './routes.js';
import { answerMismatch, assertStorableText, MAX_BODY_DEPTH, nestsDeeperThan, precompile, validate, validateEveryProblem } from './validation.js';
import type { Owner } from '#packages/core/owner.js';

export const BODY_LIMIT = '1mb';
/**
 * The content codings a request body may be sent in: those body-parser decodes on every Node
 * version we run (zstd only on some), named here so the set does not change with the runtime.
 */
export const BODY_ENCODINGS = ['gzip', 'deflate', 'br'] as const;

/** A single-page application served as files (the dashboard): GET only, the rest of the app untouched. */
/** A success as the route received and answered it (AppDeps.recordExchange): its JSON answer, none for a page or a redirect. */
export interface RecordedExchange {
  body?: unknown;
  query: Record<string, unknown>;
  status: number;
  response?: unknown;
}

export interface StaticSite {
  /** Where it is served, e.g. `/dashboard`. */
  mount: string;
  /** Its built files; `index.html` answers every path under `mount` that names no file. */
  dir: string;
  /** Sent with every answer (the Content-Security-Policy, …). */
  headers: Record<string, string>;
  /** The service's front page: `GET /` redirects here (302), so an address typed bare lands somewhere. */
  home?: boolean;
}

/** Pages served beside the API by their own handler (the rendered reference at /docs), under their own policy. */
export interface MountedPages {
  mount: string;
  handler: (req: Request, res: Response, next: NextFunction) => void;
  /**
   * A link relation for `GET /` (RFC 8631: `service-doc` for documentation meant for people), sent
   * as a `Link` header with the redirect to the home site, so a client that lands on `/` finds it.
   */
  rel?: string;
}

export interface AppDeps {
  knex: Knex;
  /** Single-page applications served beside the API. */
  sites?: readonly StaticSite[];
  pages?: readonly MountedPages[];
  /** API keys, operator keys and dashboard AppTokens, through the ports their families fill. */
  credentials: Credentials;
  log: Logger;
  idempotency: IdempotencyStore;
  families: readonly RouteGroup[];
  /** The error catalogue the system opened with (the kernel's codes and every family's): each refusal's status and retryability. */
  errors: ErrorTable;
  /** Records request counts and latencies, and serves them at GET /metrics. */
  metrics?: Metrics;
  /** GET /metrics needs `Authorization: Bearer <token>`; without one it is not served. */
  metricsToken?: string | null;
  /**
   * Tests: each success is checked against what its route declares (`response`, `answers`); one
   * that departs from it is a 500, because /openapi.json (and the clients typed from it) would be wrong.
   */
  checkAnswers?: boolean;
  /**
   * Tests: a route's request schemas compile when a request first needs them, not when the app is
   * built. A file starts many services, and compiling every route's schemas is most of building
   * one; the service's processes, and tests that build the app without it, still compile them all at start.
   */
  compileSchemasOnFirstUse?: boolean;
  /**
   * Tests that record the reference's examples (docs/architecture.md, "Words and examples of the reference"): told of each JSON success
   * with the request that made it, so that every example in /openapi.json is a real exchange.
   */
  recordExchange?(r: Route, exchange: RecordedExchange): void;
  /**
   * Requests per client address and per credential, counted in PostgreSQL across processes;
   * guessing-throttled routes (sign-in, codes) per subject and per client address.
   */
  rateLimits?: { limiter: RateLimiter; perCredential: RateLimitRule | null; perAddress: RateLimitRule | null; signIn: RateLimitRule | null; signInAddress: RateLimitRule | null };
  /**
   * The reverse proxies in front of the service (TRUST_PROXY): a request from one of them comes from
   * the address its X-Forwarded-For names and over its X-Forwarded-Proto. None by default: the peer is the client.
   */
  trustedProxies?: readonly Cidr[];
}

/** Express's 'trust proxy' test of one hop: whether the address is in a trusted proxy's range. */
export function trustsProxy(ranges: readonly Cidr[]): (address: string) => boolean {
  return (address) => {
    const ip = parseIp(address);
    return ip !== null && anyCidrContains(ranges, ip);
  };
}

/** The client's address: the peer's, or, behind a trusted proxy, the nearest untrusted one of X-Forwarded-For. */
const clientAddress = (req: Request) => req.ip ?? 'unknown';

/** What a request counts against: its client address and, once known, its credential. */
function rateBuckets(limits: NonNullable<AppDeps['rateLimits']>, req: Request, principal: Principal | undefined) {
  return [...(limits.perAddress ? [{ key: `address:${clientAddress(req)}`, rule: limits.perAddress }] : []), ...(limits.perCredential && principal ? [{ key: `credential:${principal.actor}`, rule: limits.perCredential }] : [])];
}

/** Counts the request against its client address and, once known, its credential (429 when over). */
async function limitRate(deps: AppDeps, req: Request, res: Response, principal: Principal | undefined): Promise<void> {
  const limits = deps.rateLimits;
  if (!limits) return;
  const headers = await limits.limiter.take(rateBuckets(limits, req, principal));
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/** Counts `requests` more for what the handler spent (a long poll's waiting), refusing nothing; the answer's headers say what is left. */
async function countSpent(deps: AppDeps, req: Request, res: Response, principal: Principal | undefined, requests: number): Promise<void> {
  const limits = deps.rateLimits;
  if (!limits) return;
  const { headers } = await limits.limiter.count(rateBuckets(limits, req, principal), requests);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/**
 * Counts one attempt of a guessing-throttled route (sign-in, codes) against its subject and the
 * client address; 429 when either is over. Attempts are counted before the handler runs, so a
 * burst of parallel guesses cannot slip past; the returned function, called on success, resets
 * the subject's count: what is limited is repeated failure.
 */
async function throttle(deps: AppDeps, r: Route, body: unknown, principal: Principal | undefined, req: Request, res: Response): Promise<() => Promise<void>> {
  const limits = deps.rateLimits;
  if (!r.throttle || !limits) return async () => undefined;
  const subject = limits.signIn ? { key: `${r.path}:${r.throttle(body, principal)}`, rule: limits.signIn } : null;
  const address = limits.signInAddress ? { key: `${r.path}:address:${clientAddress(req)}`, rule: limits.signInAddress } : null;
  const headers = await limits.limiter.take([...(subject ? [subject] : []), ...(address ? [address] : [])]);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  return r.throttleEveryRequest || !subject ? async () => undefined : () => limits.limiter.clear([subject]);
}

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    log: Logger;
  }
}

const LEGACY_MERCHANT_PREFIX = '/api/merchant/';
const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** Routes without a query schema accept no query parameters. One object, so ajv compiles it once. */
const NO_QUERY = { type: 'object', additionalProperties: false };

/**
 * Whether an idempotency key keeps this answer for replay. Not kept: server errors, retryable
 * errors and request/validation/auth failures; the client is expected to fix or retry those.
 */
function keepForReplay(status: number, refused?: { code: ErrorCode; retryable: boolean }): boolean {
  if (status >= 500) return false;
  if (refused === undefined) return true;
  return !refused.retryable && !/^IKW-(REQ|VAL|AUT|IDM)-/.test(refused.code);
}

function sendJson(res: Response, status: number, body: string, headers: AnswerHeaders = {}): void {
  res.status(status);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(body);
}

function errorAnswer(err: ApiError, errors: ErrorTable, requestId: string): StoredAnswer {
  return { status: specOf(errors, err.code).status, body: JSON.stringify(err.toBody(errors, requestId)) };
}

/** The request_id inside a stored error answer, if it has one. */
function errorRequestId(answer: StoredAnswer): string | undefined {
  if (answer.status < 400) return undefined;
  try {
    const id = (JSON.parse(answer.body) as { request_id?: unknown }).request_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Maps a decider's refusal to the answer of the route that carried it, body-parser failures and
 * anything unexpected to a coded error; never a stack trace. A refusal's field is the request
 * parameter the route names it by (`fields`), or its own name where the route names none.
 */
export function toApiError(err: unknown, log: Logger, fields: Readonly<Record<string, string>> = {}): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof RefusedItems) {
    const list = requestParam(err.field!, fields);
    const errors = err.items.map(({ field, ...item }) => ({ ...item, ...(field !== undefined ? { param: `${list}.${item.index}.${requestParam(field, fields)}` } : {}) }));
    return new ItemsRefused(err.code, err.message, errors, list);
  }
  if (err instanceof Refusal) {
    const headers: Record<string, string> = err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
    return new ApiError(err.code, err.message, err.field === undefined ? undefined : requestParam(err.field, fields), headers);
  }
  // The router could not percent-decode a path parameter (e.g. `%E0%A4%A`): the client's fault.
  if (err instanceof URIError) return new ApiError('IKW-REQ-005', 'The request path is not valid percent-encoding');
  const type = (err as { type?: string }).type;
  switch (type) {
    case 'entity.parse.failed':
      return new ApiError('IKW-REQ-001');
    case 'entity.too.large':
      return new ApiError('IKW-REQ-003');
    case 'parameters.too.many':
      return new ApiError('IKW-VAL-002', 'The form has more fields than the operation takes');
    case 'encoding.unsupported':
      return unsupportedEncoding();
    case 'charset.unsupported':
      return new ApiError('IKW-REQ-002', 'Request bodies must be UTF-8 JSON');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError('IKW-REQ-005');
    default:
      log.error({ err }, 'unhandled error');
      return new ApiError('IKW-INT-001');
  }
}

/**
 * The request parameter a domain field is answered under: the route's name for the field or, for a
 * field within one ('paymentMethod.mobileMoney.msisdn', 'enabledEvents.2'), for its longest named
 * prefix, the rest kept; the field's own name where the route names neither. A `*` of a name stands
 * for any index of a list ('prices.*.recurring.intervalCount'), and keeps it in the answer.
 */
function requestParam(field: string, fields: Readonly<Record<string, string>>): string {
  for (let prefix = field; ; prefix = prefix.slice(0, prefix.lastIndexOf('.'))) {
    if (Object.hasOwn(fields, prefix)) return `${fields[prefix]}${field.slice(prefix.length)}`;
    const indexes = prefix.split('.').filter((s) => /^\d+$/.test(s));
    const pattern = prefix.replace(/(^|\.)\d+(?=\.|$)/g, '$1*');
    if (indexes.length > 0 && Object.hasOwn(fields, pattern)) return `${fields[pattern]!.replace(/\*/g, () => indexes.shift()!)}${field.slice(prefix.length)}`;
    if (!prefix.includes('.')) return field;
  }
}

/** 415 with the codings we do take in Accept-Encoding, as RFC 9110 (15.5.16) asks. */
function unsupportedEncoding(): ApiError {
  return new ApiError('IKW-REQ-006', undefined, undefined, { 'Accept-Encoding': BODY_ENCODINGS.join(', ') });
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function runRoute(r: Route, deps: AppDeps) {
  if (!deps.compileSchemasOnFirstUse) {
    if (r.body) precompile(r.body, r.everyProblem ? 'every-problem' : 'body');
    if (r.query) precompile(r.query, 'query');
    if (r.params) precompile(r.params, 'params');
  }
  const upperMethod = r.method.toUpperCase();

  return async (req: Request, res: Response) => {
    res.locals.route = r.path;
    const header = (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    };
    if (r.headers) res.set(r.headers({ header, secure: req.secure }));
    let principal: Principal | undefined;
    // Aborted when the client closes the connection, or its side of it (half-open connections are
    // allowed: services/api/server.ts), before its answer is sent: a handler that waits stops.
    const clientGone = new AbortController();
    const gone = () => {
      if (!res.writableFinished) clientGone.abort();
    };
    // The socket as it is now: by the time the answer closes, the request may have let go of it (null).
    const socket = req.socket;
    res.on('close', gone);
    socket.on('end', gone);
    res.on('close', () => socket.off('end', gone));
    if (socket.readableEnded) gone();
    let complete: ((answer: StoredAnswer, keep: boolean) => Promise<void>) | undefined;
    let requestRef: string | undefined;
    try {
      const key = header('idempotency-key');
      if (r.auth !== 'public') {
        // A refused credential still counts against its address: guessing keys is rate limited too.
        principal = await authenticate(deps.credentials, r.auth, header).catch(async (err: unknown) => {
          // An operator route called without an operator session answers as no route at all: the same error, and no rate-limit headers either.
          if (err instanceof HiddenRoute) throw noSuchRoute(req);
          await limitRate(deps, req, res, undefined);
          throw err;
        });
        await limitRate(deps, req, res, principal);
        req.log = req.log.child({ merchant_id: principal.merchantId, environment: principal.environment });
        // Live disbursements need a key before anything else is looked at (interface, payout rule 2).
        if (r.auth.idempotencyKeyInLive === 'required' && principal.livemode && key === undefined) {
          throw new ApiError('IKW-IDM-004', undefined, 'Idempotency-Key');
        }
      } else {
        await limitRate(deps, req, res, undefined);
      }
      // A CSV body (text) is the JSON body it stands for, on the routes that take CSV.
      // Raw bodies (uploads) are bytes the handler streams, in no content coding (the digest is of the file itself).
      if (r.rawBody && req.headers['content-encoding'] !== undefined && req.headers['content-encoding'].trim().toLowerCase() !== 'identity') throw unsupportedEncoding();
      let body: unknown = r.rawBody ? {} : (req.body ?? {});
      if (typeof body === 'string') {
        if (!r.csvBody) throw new ApiError('IKW-REQ-002');
        body = r.csvBody(body);
      }
      const query: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
      const params: Record<string, unknown> = { ...req.params };
      // Before the schemas, so every such value gets the same answer whatever else is wrong with it.
      assertStorableText(body, 'body');
      assertStorableText(query, 'query');
      assertStorableText(params, 'params');
      if (r.body && r.everyProblem) {
        const { beyondSchema } = r.everyProblem;
        const owner = principal ? { merchantId: principal.merchantId, environment: principal.environment } : undefined;
        await validateEveryProblem(r.body, body, beyondSchema && owner ? (refused) => beyondSchema({ owner, params }, body, refused) : undefined);
      } else if (r.body) validate(r.body, body, 'body');
      else if (BODY_METHODS.has(upperMethod) && Object.keys(body as object).length > 0) {
        throw new ApiError('IKW-VAL-002', 'This operation takes no request body', Object.keys(body as object)[0]);
      }
      validate(r.query ?? NO_QUERY, query, 'query');
      if (r.params) validate(r.params, params, 'params');
      const succeeded = await throttle(deps, r, body, principal, req, res);

      if (key !== undefined && principal && !principal.operator && (upperMethod === 'POST' || upperMethod === 'PATCH')) {
        const claim = await deps.idempotency.claim(principal, upperMethod, req.path, key, body);
        if (claim.kind === 'replay') {
          // A replayed error carries the first request's request_id in its (byte-identical) body;
          // the Request-Id header must name the same id.
          const original = errorRequestId(claim.answer);
          if (original !== undefined) req.log = req.log.child({ replay_of: original });
          sendJson(res, claim.answer.status, claim.answer.body, {
            'Idempotent-Replayed': 'true',
            ...(original !== undefined ? { 'Request-Id': original } : {}),
          });
          return;
        }
        complete = claim.complete;
        requestRef = claim.requestRef;
      }

      const ctx: HandlerContext = {
        body,
        query,
        params,
        principal: principal as Principal,
        owner: (principal ? { merchantId: principal.merchantId, environment: principal.environment } : undefined) as Owner,
        actor: { actor: principal?.actor ?? 'public', requestId: req.requestId, ...(req.ip ? { ip: req.ip } : {}), ...(header('user-agent') ? { userAgent: header('user-agent')! } : {}) },
        requestId: req.requestId,
        ...(requestRef !== undefined ? { requestRef } : {}),
        log: req.log,
        header,
        ...(r.rawBody ? { bodyStream: req } : {}),
        path: req.path,
        signal: clientGone.signal,
        countRequests: (requests) => countSpent(deps, req, res, principal, requests),
        secure: req.secure,
        refusal: (err) => {
          const refused = toApiError(err, req.log);
          return { code: refused.code, param: refused.param, status: specOf(deps.errors, refused.code).status, headers: refused.headers };
        },
      };
      const result = await r.handler(ctx);
      await succeeded();
      const reply = result instanceof Reply ? result : new Reply(result);
      const status = reply.options.status ?? r.status ?? 200;
      if (deps.checkAnswers) assertDeclared(r, status, reply.options.contentType);
      // A page gets the page policy whoever built it, after its own headers, which cannot loosen it.
      const headers = { ...reply.options.headers, ...(isHtml(reply.options.contentType) ? pageHeaders(reply.options.page) : {}), 'Content-Type': reply.options.contentType };
      if (reply.body instanceof Readable) {
        res.status(status).set(headers);
        await pipeline(reply.body, res).catch((err: unknown) => req.log.error({ err }, 'streamed answer failed'));
        return;
      }
      if (reply.options.contentType) {
        // Hosted pages and redirects: sent as they are, never stored for idempotent replay.
        if (complete) await complete({ status, body: '' }, false);
        // A form's post is an example of its request, whatever page or redirect it answers.
        if (r.body) deps.recordExchange?.(r, { body, query, status });
        res.status(status).set(headers).send(String(reply.body));
        return;
      }
      const answer = { status, body: JSON.stringify(reply.body) };
      if (deps.checkAnswers && r.response && answer.body !== undefined) {
        const mismatch = answerMismatch(r.response, JSON.parse(answer.body));
        if (mismatch) undeclared(r, `its JSON departs from the declared schema: ${mismatch}`);
      }
      if (complete) await complete(answer, keepForReplay(answer.status));
      deps.recordExchange?.(r, { ...(r.body ? { body } : {}), query, status: answer.status, response: JSON.parse(answer.body) as unknown });
      sendJson(res, answer.status, answer.body, reply.options.headers);
    } catch (caught) {
      const err = toApiError(caught, req.log, r.fields);
      const answer = errorAnswer(err, deps.errors, req.requestId);
      if (complete) {
        await complete(answer, keepForReplay(answer.status, { code: err.code, retryable: specOf(deps.errors, err.code).retryable })).catch((e: unknown) => req.log.error({ err: e }, 'idempotency record failed'));
      }
      sendJson(res, answer.status, answer.body, err.headers);
    }
  };
}

/** The answer to a path no route serves (and to an operator route called without an operator session). */
function noSuchRoute(req: Request): ApiError {
  return new ApiError('IKW-RTE-001', `No such route: ${req.method} ${req.originalUrl.split('?')[0]}`);
}

function undeclared(r: Route, what: string): never {
  throw new Error(`the answer of ${r.method.toUpperCase()} ${r.path} is not what /openapi.json declares: ${what}`);
}

/** Tests (`checkAnswers`): a success's status and media type are among those the route declares. */
function assertDeclared(r: Route, status: number, contentType: string | undefined): void {
  const media = contentType?.split(';')[0]!.trim();
  if (status === 303) {
    if (!r.answers?.redirect) undeclared(r, 'a redirect');
  } else if (media === 'text/html') {
    if (!r.answers?.html) undeclared(r, 'a page');
  } else if (media === 'text/csv') {
    if (!r.answers?.csv) undeclared(r, 'CSV');
  } else if (media !== undefined) {
    if (!r.answers?.file || (r.answers.file !== media && r.answers.file !== 'application/octet-stream')) undeclared(r, `a file of ${media}`);
  } else if (!r.response) {
    undeclared(r, 'JSON');
  }
}

/**
 * GET /metrics in Prometheus text format, behind METRICS_TOKEN. Without one it is not served: the figures (routes, volumes,
 * backlogs) are nobody's business but the operator's, and a service reachable from anywhere must
 * not publish them by default (docs/operations.md).
 */
function metricsHandler(metrics: Metrics, token: string | null) {
  const expected = token === null ? null : Buffer.from(`Bearer ${token}`);
  return async (req: Request, res: Response, next: NextFunction) => {
    res.locals.route = '/metrics';
    if (!expected) {
      next(new ApiError('IKW-RTE-001', 'GET /metrics is served only when METRICS_TOKEN is set (docs/operations.md)'));
      return;
    }
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      next(new ApiError(req.headers.authorization ? 'IKW-AUT-002' : 'IKW-AUT-001'));
      return;
    }
    try {
      const body = await metrics.render();
      res.status(200).setHeader('Content-Type', metrics.contentType);
      res.send(body);
    } catch (err) {
      next(err);
    }
  };
}

/**
 * Serves a built single-page application: its hashed assets cached for good, `index.html` (never
 * cached) for every other path, so the application's own router handles them. Not built yet: 404.
 */
function staticSite(site: StaticSite) {
  const files = express.static(site.dir, {
    index: false,
    redirect: false,
    fallthrough: true,
    setHeaders: (res, file) => {
      res.set(site.headers);
      res.setHeader('Cache-Control', file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-store');
    },
  });
  const index = path.join(site.dir, 'index.html');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    res.locals.route = site.mount;
    if (req.originalUrl === site.mount) return res.redirect(301, `${site.mount}/`);
    files(req, res, () => {
      if (path.extname(req.path) !== '' || !fs.existsSync(index)) return next(new ApiError('IKW-RTE-001', `Nothing at ${req.originalUrl}${fs.existsSync(index) ? '' : ' (the application is not built: make build)'}`));
      res.set(site.headers).setHeader('Cache-Control', 'no-store');
      res.sendFile(index);
    });
  };
}

/** Builds the HTTP application: JSON only, coded errors, one router per family. */
export function createApp(deps: AppDeps) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', trustsProxy(deps.trustedProxies ?? []));

  app.use((req: Request, res: Response, next: NextFunction) => {
    req.requestId = newId('req');
    req.log = deps.log.child({ request_id: req.requestId });
    res.setHeader('Request-Id', req.requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      req.log.info({ method: req.method, path: req.path, status: res.statusCode, duration_ms: ms }, 'request');
      // The route pattern, not the path: ids in paths would make a series per object.
      deps.metrics?.observeRequest(req.method, typeof res.locals.route === 'string' ? res.locals.route : 'unmatched', res.statusCode, ms / 1000);
    });
    next();
  });

  const homeLinks = (deps.pages ?? []).filter((p) => p.rel).map((p) => `<${p.mount}/>; rel="${p.rel}"`);
  for (const site of deps.sites ?? []) {
    if (site.home) {
      app.get('/', (_req: Request, res: Response) => {
        res.locals.route = '/';
        if (homeLinks.length > 0) res.setHeader('Link', homeLinks.join(', '));
        res.redirect(302, `${site.mount}/`);
      });
    }
    app.use(site.mount, staticSite(site));
  }
  for (const pages of deps.pages ?? []) app.use(pages.mount, pages.handler);

  // Versioning rule 2: the legacy merchant paths are the same operations, answered exactly alike
  // (the same route, idempotency records and metrics series); not listed again in /openapi.json.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    if (req.url.startsWith(LEGACY_MERCHANT_PREFIX)) req.url = `/api/v1/merchant/${req.url.slice(LEGACY_MERCHANT_PREFIX.length)}`;
    next();
  });

  // Routes that take their body as bytes (asset uploads) run before any body parser: any media type, read as a stream.
  const rawRouter = express.Router();
  for (const family of deps.families) for (const r of family.routes) if (r.rawBody) rawRouter[r.method](r.path, runRoute(r, deps));
  app.use(rawRouter);

  // JSON, HTML forms for the hosted pages' routes, CSV for the routes that declare it (runRoute refuses it
  // elsewhere): a body in any other media type is refused before it is read.
  const formRoutes = deps.families.flatMap((f) => f.routes.filter((r) => r.form).map((r) => ({ method: r.method.toUpperCase(), matcher: match(r.path, { decode: false }) })));
  const takesForm = (req: Request) => formRoutes.some((f) => f.method === req.method && f.matcher(req.path) !== false);
  const parseForm = express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 100 });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (hasBody(req) && req.is('application/x-www-form-urlencoded') && takesForm(req)) {
      parseForm(req, res, next);
      return;
    }
    if (hasBody(req) && !req.is(['application/json', 'application/*+json', 'text/csv'])) {
      next(new ApiError('IKW-REQ-002'));
      return;
    }
    next();
  });
  // One content coding from BODY_ENCODINGS, or none; written back normalised for the body parser.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const named = req.headers['content-encoding'];
    if (named === undefined || !hasBody(req)) return next();
    const coding = named.trim().toLowerCase();
    if (coding === '' || coding === 'identity') delete req.headers['content-encoding'];
    else if ((BODY_ENCODINGS as readonly string[]).includes(coding)) req.headers['content-encoding'] = coding;
    else return next(unsupportedEncoding());
    next();
  });
  // Not strict: a body that is valid JSON but not an object ("x", 42, null) gets IKW-VAL-001 below,
  // not IKW-REQ-001 "not valid JSON".
  const parseJson = express.json({ limit: BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json'] });
  app.use((req: Request, res: Response, next: NextFunction) => {
    parseJson(req, res, (err?: unknown) => {
      // The decompressor's own errors (not gzip, truncated, …) are the only ones body-parser leaves without a type.
      if (err && req.headers['content-encoding'] !== undefined && (err as { type?: string }).type === undefined) {
        next(new ApiError('IKW-REQ-007'));
        return;
      }
      next(err);
    });
  });
  const parseCsv = express.text({ limit: BODY_LIMIT, type: 'text/csv' });
  app.use((req: Request, res: Response, next: NextFunction) => {
    parseCsv(req, res, (err?: unknown) => {
      if (err && req.headers['content-encoding'] !== undefined && (err as { type?: string }).type === undefined) {
        next(new ApiError('IKW-REQ-007'));
        return;
      }
      next(err);
    });
  });
  app.use((req: Request, _res: Response, next: NextFunction) => {
    if (typeof req.body === 'string' && req.is('text/csv')) return next();
    if (req.body !== undefined && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) {
      next(new ApiError('IKW-VAL-001', 'The request body must be a JSON object'));
      return;
    }
    // Deeper bodies would exhaust the stack of recursive code (JSON.stringify, canonical hashing).
    if (req.body !== undefined && nestsDeeperThan(req.body, MAX_BODY_DEPTH)) {
      next(new ApiError('IKW-REQ-001', `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`));
      return;
    }
    next();
  });

  if (deps.metrics) app.get('/metrics', metricsHandler(deps.metrics, deps.metricsToken ?? null));

  const known: { method: Method; matches: (path: string) => boolean }[] = [];
  for (const family of deps.families) {
    const router = express.Router();
    for (const r of family.routes) {
      if (!r.rawBody) router[r.method](r.path, runRoute(r, deps));
      const matcher = match(r.path, { decode: false });
      // An operator route's path is not named to other methods either (no 405 with Allow): it stays invisible.
      if (r.auth === 'public' || !r.auth.operator) known.push({ method: r.method, matches: (p) => matcher(p) !== false });
    }
    app.use(router);
  }

  // Unknown route, or a known path with another method.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const allowed = known.filter((k) => k.matches(req.path)).map((k) => k.method.toUpperCase());
    if (allowed.length > 0) {
      const allow = [...new Set(allowed)].join(', ');
      next(new ApiError('IKW-RTE-002', `${req.method} is not allowed here; use ${allow}`, undefined, { Allow: allow }));
      return;
    }
    next(noSuchRoute(req));
  });

  app.use((caught: unknown, req: Request, res: Response, _next: NextFunction) => {
    const err = toApiError(caught, req.log ?? deps.log);
    const answer = errorAnswer(err, deps.errors, req.requestId);
    sendJson(res, answer.status, answer.body, err.headers);
  });

  return app;
}
