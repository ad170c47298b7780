import type { AnswerHeaders, HandlerContext, Principal, Reply, RequestFacts } from './context.js';
import type { ErrorCode, ItemError } from '#packages/core/errors.js';
import type { JsonSchema } from './validation.js';
import type { OperatorRole, Owner } from '#packages/core/owner.js';

export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface RouteAuth {
  /** Scope the credential must hold, e.g. `payouts.write`. */
  scope: string;
  /** `required`: X-Environment must be sent (payouts). Otherwise it is optional. */
  environmentHeader?: 'required' | 'optional';
  /** Idempotency-Key required in live (payout creation). */
  idempotencyKeyInLive?: 'required';
  /**
   * Only a signed-in user's access token (the account routes: the user, their sessions and
   * organizations); an API key is refused with IKW-ACC-003. Every user holds the scope.
   */
  appTokenOnly?: true;
  /**
   * The platform operator credential (`sk_admin_…`, docs/configuration.md): `only`, no merchant
   * credential may call it (IKW-AUT-009); `also`, it may, besides merchants' own credentials, and
   * names the merchant it acts on. Elsewhere an operator credential is no credential (IKW-AUT-002).
   */
  platform?: 'only' | 'also';
  /**
   * An operator route (/api/v1/operator/…, docs/operator.md): only an operator session whose role
   * is one of these (an admin's always) may call it; an operator of another role gets 403
   * IKW-OPR-001. Any other credential, or none, gets the 404 of a path that does not exist, so the
   * operator interface is invisible to merchants. `scope` names the route's operator scope.
   */
  operator?: readonly OperatorRole[];
}

/** One operation of the interface: what it accepts, who may call it, and what it does. */
export interface Route<Body = unknown, Query = unknown, Params = unknown> {
  method: Method;
  /** Express path, e.g. `/api/v1/payouts/:id`. */
  path: string;
  summary: string;
  /**
   * What the operation does and when to use it, in Markdown, for the reference (/docs): the
   * summary's sentence said fully. Its credential, environment and idempotency rules, its errors
   * and its events are added to it from the rest of the declaration (services/api/openapi.ts).
   */
  description?: string;
  /**
   * The refusals of the operation's own (a state that forbids it, a balance too low, …), besides
   * those its declaration implies (credential, parameters, idempotency, rate limits): the
   * reference lists each with its status and meaning from the error table.
   */
  refusals?: readonly ErrorCode[];
  /** The public event types (docs/events.md) a success of this operation may emit. */
  emits?: readonly string[];
  /** OpenAPI operationId; by default derived from method and path (services/api/openapi.ts). */
  operationId?: string;
  /** `public` routes take no credential (health checks, hosted pages). */
  auth: RouteAuth | 'public';
  body?: JsonSchema;
  /**
   * A body that does not match `body` is refused with every problem of it in `errors`, not only
   * the first (automation definitions: whoever fixes one wants to see all that is wrong at once).
   * `beyondSchema` adds the route's own checks of the parts of such a body that the schema
   * accepted (`refused`: the schema's problems), so that one answer lists both kinds.
   */
  everyProblem?: {
    beyondSchema?(ctx: { owner: Owner; params: Record<string, unknown> }, body: unknown, refused: readonly ItemError[]): Promise<ItemError[]>;
  };
  /**
   * The body may also come as an HTML form (`application/x-www-form-urlencoded`): the hosted
   * pages' forms, which work without JavaScript. Its fields arrive as strings.
   */
  form?: true;
  /**
   * Set on the few routes that also take a `text/csv` body (payout batches): turns the text into
   * the JSON body it stands for, which `body` then validates like any other. Other routes refuse CSV.
   */
  csvBody?(text: string): unknown;
  /**
   * The route takes the request body as bytes of any media type (asset uploads): it is not parsed,
   * the handler reads it from `ctx.bodyStream`.
   */
  rawBody?: true;
  /**
   * A success that is not (only) a JSON body, as /openapi.json describes it: `html`, a page for a
   * browser (hosted pages); `redirect`, a 303 to the next page; `file`, the bytes of a file of that
   * media type (downloads); `csv`, CSV with a header row of these columns (when the client accepts
   * text/csv). A route that also answers JSON declares `response` too.
   */
  answers?: { html?: true; redirect?: true; file?: string; csv?: readonly string[] };
  query?: JsonSchema;
  params?: JsonSchema;
  /** Schema of the JSON success body, for /openapi.json (checked against every answer in tests). */
  response?: JsonSchema;
  /**
   * The request parameter each domain field of a refusal is named by in this route's answer, where
   * the two differ: `{ orderId: 'id' }` when the order comes in the path. A name given for a field
   * also names the fields within it: `{ paymentMethod: 'payment_method' }` answers 'paymentMethod.type'
   * as 'payment_method.type'. A `*` stands for any index of a list:
   * `{ 'prices.*.recurring.intervalCount': 'prices.*.recurring.interval_count' }`. Other fields are
   * answered under their own name (docs/architecture.md, "Refusals").
   */
  fields?: Readonly<Record<string, string>>;
  /** Status of a success; default 200. */
  status?: number;
  /**
   * Guessing throttle (sign-in, code verification): the subject whose attempts are counted, e.g.
   * the e-mail address. Counted after validation, against the sign-in rule, 429 when over.
   */
  throttle?(body: Body, principal: Principal | undefined): string;
  /**
   * Routes that send a message (a code, a link) count every request against `throttle`: a
   * success sends mail, so it does not reset the count as a successful sign-in does.
   */
  throttleEveryRequest?: true;
  /**
   * Headers of every answer of the route, a refusal's too (sign-out clears the dashboard's cookie
   * even when its access token is refused).
   */
  headers?(request: RequestFacts): AnswerHeaders;
  /** Returns the body to send as JSON, or a Reply. */
  handler(ctx: HandlerContext<Body, Query, Params>): Promise<Reply | unknown>;
}

/** The routes of one family of the interface (one router per family). */
export interface RouteGroup {
  name: string;
  /** What the family is for, in a sentence or two: its tag's description in the reference. */
  description?: string;
  routes: Route[];
  /** Scopes its handlers check beyond their routes' own (an automation's steps): API keys may be given them too. */
  scopes?: readonly string[];
}

/** Lets a family declare routes with typed handlers and still be collected in one list. */
export function route<Body = unknown, Query = unknown, Params = unknown>(r: Route<Body, Query, Params>): Route {
  return r as unknown as Route;
}
