/** What a code means: the HTTP status it answers with, whether sending the request again may succeed, its words. */
export interface ErrorSpec {
  status: number;
  retryable: boolean;
  message: string;
}

/** One owner's codes (the kernel's, or a family's `errors`), keyed by code. */
export type ErrorTable = Readonly<Record<`IKW-${string}`, ErrorSpec>>;

/** Declares an owner's codes, their types kept: a family's `errors.ts` (and its manifest's `errors`), or the kernel's below. */
export function declareErrorCodes<const Codes extends ErrorTable>(codes: Codes): Codes {
  return codes;
}

/**
 * The error catalogue (docs/errors.md, "Who owns a code"). Every non-2xx answer carries one of its
 * codes; docs/errors.md lists them (a unit test keeps the two in step). Codes are stable: never
 * reuse or renumber one. These are the kernel's: what the kernel packages answer with and any
 * family may too. A family declares its own in `packages/families/<family>/errors.ts` and lists
 * them in its manifest's `errors`; the family list assembles the catalogue from the kernel's and
 * theirs (`ERROR_CODES` in packages/families/index.ts), which the system hands the HTTP edge.
 */
export const KERNEL_ERROR_CODES = declareErrorCodes({
  // Authentication and credentials (packages/http/auth.ts)
  'IKW-AUT-001': { status: 401, retryable: false, message: 'No credential was given; send Authorization: Bearer <API key>' },
  'IKW-AUT-002': { status: 401, retryable: false, message: 'The API key is not valid or has been revoked' },
  'IKW-AUT-003': { status: 403, retryable: false, message: 'X-Environment does not match the environment of the API key' },
  'IKW-AUT-004': { status: 403, retryable: false, message: 'The API key does not have the scope this operation needs' },
  'IKW-AUT-005': { status: 400, retryable: false, message: 'X-Environment must be sandbox or live' },
  'IKW-AUT-006': { status: 400, retryable: false, message: 'This operation requires the X-Environment header' },
  'IKW-AUT-007': { status: 401, retryable: false, message: 'The access token or refresh token is not valid or has expired' },
  'IKW-AUT-008': { status: 401, retryable: false, message: 'The e-mail address or password is wrong' },
  'IKW-AUT-009': { status: 403, retryable: false, message: 'This operation needs the platform operator credential (sk_admin_…)' },
  // The operator routes (/api/v1/operator/…, docs/operator.md): answered by packages/http/auth.ts.
  'IKW-OPR-001': { status: 403, retryable: false, message: "This operator's role does not allow this operation" },
  'IKW-OPR-002': { status: 401, retryable: false, message: 'The operator session has ended or expired; sign in again' },
  // An ACC code, as it was before codes had owners: packages/http refuses an API key on a route for signed-in users.
  'IKW-ACC-003': { status: 403, retryable: false, message: 'This operation is for signed-in users: use the access token from POST /api/v1/auth/login, not an API key' },
  // The request's shape, before any route runs (packages/http/app.ts, services/api/server.ts)
  'IKW-REQ-001': { status: 400, retryable: false, message: 'The request body is not valid JSON' },
  'IKW-REQ-002': { status: 415, retryable: false, message: 'Request bodies must be sent as application/json' },
  'IKW-REQ-003': { status: 413, retryable: false, message: 'The request body is larger than 1 MiB' },
  'IKW-REQ-004': { status: 431, retryable: false, message: 'The request headers are too large' },
  'IKW-REQ-005': { status: 400, retryable: false, message: 'The request could not be parsed' },
  'IKW-REQ-006': { status: 415, retryable: false, message: 'The Content-Encoding of the request body is not supported; use gzip, deflate, br or none' },
  'IKW-REQ-007': { status: 400, retryable: false, message: 'The request body is not in the Content-Encoding it names' },
  'IKW-REQ-008': { status: 408, retryable: true, message: 'The request was not received in time' },
  'IKW-REQ-009': { status: 417, retryable: false, message: 'The Expect header asks for something other than 100-continue' },
  // Parameters: the routes' schemas (packages/http/validation.ts); the countries, currencies and operators of packages/catalog
  'IKW-VAL-001': { status: 400, retryable: false, message: 'A parameter is missing or invalid' },
  'IKW-VAL-002': { status: 400, retryable: false, message: 'The request contains a parameter this operation does not accept' },
  'IKW-VAL-003': { status: 400, retryable: false, message: 'Unknown or unsupported currency' },
  'IKW-VAL-004': { status: 400, retryable: false, message: 'Unknown or unsupported country' },
  'IKW-VAL-005': { status: 400, retryable: false, message: 'Unknown operator for this country' },
  'IKW-VAL-006': { status: 400, retryable: false, message: 'This operator does not serve this direction' },
  'IKW-VAL-007': { status: 400, retryable: false, message: 'The phone number is not a valid mobile number for the country' },
  'IKW-VAL-008': { status: 400, retryable: false, message: "The amount is outside the operator's limits" },
  'IKW-VAL-009': { status: 400, retryable: false, message: 'The currency is not the currency of this country or operator' },
  'IKW-VAL-010': { status: 400, retryable: false, message: 'The country does not match the transaction country' },
  'IKW-VAL-011': { status: 400, retryable: false, message: 'A text value contains a NUL character or an unpaired surrogate' },
  // Routing, rate limits, resources and their state, idempotency
  'IKW-RTE-001': { status: 404, retryable: false, message: 'No such route' },
  'IKW-RTE-002': { status: 405, retryable: false, message: 'This route does not accept that method' },
  'IKW-LIM-001': { status: 429, retryable: true, message: 'Too many requests; retry after the seconds in Retry-After' },
  'IKW-LIM-002': { status: 429, retryable: true, message: 'Too many waits for events are running for this credential or merchant; retry after the seconds in Retry-After' },
  // The limits and holds the platform's risk operators set (docs/limits.md): a limit is the LIM group's whatever sets it, so the risk family answers with these.
  'IKW-LIM-003': { status: 422, retryable: false, message: "The amount is above this account's per-transaction maximum for this currency" },
  'IKW-LIM-004': { status: 422, retryable: true, message: "This payout would take today's payouts above this account's daily payout cap for this currency; retry after the seconds in Retry-After" },
  'IKW-LIM-005': { status: 422, retryable: false, message: "Payouts of this account are frozen by the platform's risk team; payments are still taken" },
  'IKW-LIM-006': {
    status: 400,
    retryable: false,
    message: 'Limits and holds given are not valid: amounts positive and whole in the minor unit of a known currency, a reserve above 0 and at most 100 percent held 1 to 365 days, a freeze with a reason',
  },
  // Risk rules (docs/risk.md): IKW-LIM-007 names no rule, since the payer may read it.
  'IKW-LIM-007': { status: 422, retryable: false, message: 'This payment or payout was declined' },
  'IKW-LIM-008': {
    status: 400,
    retryable: false,
    message:
      'Risk rules or blocklist entries given are not valid: known rules and actions, limits and minutes whole and positive, amounts in the minor unit of a known currency, a phone or destination in international form, an e-mail address',
  },
  'IKW-LIM-009': { status: 409, retryable: false, message: 'This payout is not held for review' },
  'IKW-LIM-010': { status: 403, retryable: false, message: 'A payout held for review is released or declined by a signed-in person with payouts rights, not an API key' },
  'IKW-RES-001': { status: 404, retryable: false, message: 'No such resource' },
  'IKW-RES-002': { status: 409, retryable: false, message: 'The resource is not in a state that allows this operation' },
  'IKW-RES-003': { status: 409, retryable: true, message: 'The resource was changed by a concurrent request; retry' },
  'IKW-IDM-001': { status: 400, retryable: false, message: 'Idempotency-Key must be 1 to 255 printable characters' },
  'IKW-IDM-002': { status: 422, retryable: false, message: 'This Idempotency-Key was used with a different request' },
  'IKW-IDM-003': { status: 409, retryable: true, message: 'A request with this Idempotency-Key is still being processed' },
  'IKW-IDM-004': { status: 400, retryable: false, message: 'This operation requires an Idempotency-Key header in live mode' },
  // The rails (packages/connectors, services/rails.ts). The connectors are the kernel's, and so are their codes: a rail's new code goes here.
  'IKW-PRV-001': { status: 422, retryable: false, message: 'Live processing is not enabled for this operator; no connector is configured' },
  'IKW-PRV-002': { status: 502, retryable: true, message: 'The operator or acquirer did not answer; nothing was charged, retry later' },
  'IKW-PRV-003': { status: 401, retryable: false, message: "The provider callback's signature or content digest could not be verified; nothing was applied" },
  'IKW-PRV-004': { status: 404, retryable: false, message: 'No connector of this provider is configured on this service' },
  'IKW-PRV-005': { status: 403, retryable: false, message: 'Live payments and payouts are not open for this merchant yet: its activation application must be approved first (the merchant: GET /api/v1/merchant/activation)' },
  'IKW-PRV-006': { status: 422, retryable: false, message: "Nothing can carry this refund through the payment's rail; nothing was refunded" },
  'IKW-PRV-010': { status: 422, retryable: false, message: "The bank gives the account holder's name differently; nothing was held" },
  'IKW-PRV-011': { status: 422, retryable: false, message: 'The bank does not know this account number; nothing was held' },
  'IKW-PRV-012': { status: 422, retryable: false, message: 'The provider lists no bank with this code for the currency' },
  'IKW-PRV-013': { status: 422, retryable: false, message: "This saved card's authorization is single-use: it cannot be charged again" },
  'IKW-PRV-014': { status: 422, retryable: false, message: "No saved card with this token for the intent's customer" },
  'IKW-PRV-015': { status: 422, retryable: false, message: "A card payment through this acquirer needs the payer's e-mail: the intent's customer has none" },
  'IKW-PRV-016': { status: 422, retryable: false, message: 'The rail that carries this operator cannot take this amount; nothing was held' },
  'IKW-PRV-017': { status: 422, retryable: false, message: 'The operator refused the one-time code; the payment still waits for the right one' },
  // The service itself
  'IKW-SVC-001': { status: 503, retryable: true, message: 'The service is not ready' },
  'IKW-INT-001': { status: 500, retryable: true, message: 'An internal error occurred; it has been logged' },
});
type KernelErrorCodes = typeof KERNEL_ERROR_CODES;

/**
 * The catalogue's codes as types: the kernel's, and every family's, which its `errors.ts` adds by
 * declaration merging (as `Registrations` is filled), so the kernel types `ApiError` by every
 * family's codes without importing one, and a code nobody declares does not compile.
 */
export interface ErrorCatalogue extends KernelErrorCodes {}

export type ErrorCode = Extract<keyof ErrorCatalogue, string>;

/** The kernel's own codes: the only ones whose words a refusal may leave out, since they are at hand here; a family's thrower gives its words (from its `errors.ts`). */
export type KernelErrorCode = keyof KernelErrorCodes;

/**
 * What `code` means in `table`: the catalogue the system opened with (the edge is handed it, as
 * `AppDeps.errors`), or the kernel's own codes where only those can come.
 */
export function specOf(table: ErrorTable, code: ErrorCode): ErrorSpec {
  const spec = table[code];
  if (!spec) throw new Error(`${code} is in the catalogue's type but not in the catalogue: its family's errors are not in its manifest`);
  return spec;
}

/** An owner's part of the catalogue: `the kernel` or a family's name, with its codes. */
export interface ErrorCodesOf {
  owner: string;
  codes: ErrorTable;
}

/**
 * The catalogue, assembled from its owners' tables: a code declared twice, or not of the form
 * IKW-XXX-NNN, is a mistake of the lists, refused at start-up. Ordered as docs/errors.md lists
 * them: by group (the code's prefix) in `groupOrder`, then by number; groups it does not name come
 * after, in the order their owners are given.
 */
export function assembleErrorCodes(owners: readonly ErrorCodesOf[], groupOrder: readonly string[]): ErrorTable {
  const ownerOf = new Map<string, string>();
  const byGroup = new Map<string, [string, ErrorSpec][]>();
  for (const { owner, codes } of owners) {
    for (const [code, spec] of Object.entries(codes)) {
      if (!/^IKW-[A-Z]{3}-\d{3}$/.test(code)) throw new Error(`${owner} declares the error code ${code}, not of the form IKW-XXX-NNN`);
      const first = ownerOf.get(code);
      if (first) throw new Error(`${first} and ${owner} both declare the error code ${code}`);
      ownerOf.set(code, owner);
      const group = code.slice(4, 7);
      byGroup.set(group, [...(byGroup.get(group) ?? []), [code, spec]]);
    }
  }
  const groups = [...groupOrder.filter((group) => byGroup.has(group)), ...[...byGroup.keys()].filter((group) => !groupOrder.includes(group))];
  return Object.fromEntries(groups.flatMap((group) => byGroup.get(group)!.sort(([a], [b]) => (a < b ? -1 : 1))));
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  param?: string;
  request_id?: string;
  /**
   * Every problem of the request, when it reports them all rather than the first: each refused item
   * of a list (payout instructions, by index), each problem of an automation's definition (by param).
   */
  errors?: ItemError[];
}

/**
 * One problem of a request that reports every problem: its code, its words, the field at fault
 * (`param`, a dotted path such as `instructions.3.amount` or `steps.1.params.url`) and, for an
 * item of a list the request carries (payout instructions), the item's index in that list.
 */
export interface ItemError {
  index?: number;
  code: ErrorCode;
  message: string;
  param?: string;
}

/**
 * An answer that is not a success. Thrown by handlers, rendered by the HTTP layer, which reads its
 * status and retryability from the catalogue it is handed. Its words are the thrower's; only a
 * kernel's code may leave them out (they are the kernel's table's).
 */
export class ApiError extends Error {
  constructor(code: KernelErrorCode, message?: string, param?: string, headers?: Record<string, string>);
  constructor(code: ErrorCode, message: string, param?: string, headers?: Record<string, string>);
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? KERNEL_ERROR_CODES[code as KernelErrorCode].message);
    this.name = 'ApiError';
  }

  /** The answer's body; `table` says whether the code is retryable. */
  toBody(table: ErrorTable, requestId?: string): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      retryable: specOf(table, this.code).retryable,
      ...(this.param !== undefined ? { param: this.param } : {}),
      ...(requestId !== undefined ? { request_id: requestId } : {}),
    };
  }
}

/** A request refused because items of its list are invalid: every one is reported, not only the first. */
export class ItemsRefused extends ApiError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly errors: ItemError[],
    param?: string,
  ) {
    super(code, message, param);
  }

  override toBody(table: ErrorTable, requestId?: string): ErrorBody {
    return { ...super.toBody(table, requestId), errors: this.errors };
  }
}

/** A refusal as one problem of a list of them (ItemsRefused's `errors`): an ApiError, or a Refusal (refusal.ts), whose field is its param. */
export function problemOf(err: ApiError | { code: ErrorCode; message: string; field?: string | undefined }): ItemError {
  const param = err instanceof ApiError ? err.param : err.field;
  return { code: err.code, message: err.message, ...(param !== undefined ? { param } : {}) };
}

/** Refuses with every one of `problems` (none: nothing): the first is the answer's own code, message and param, so a client reading one problem reads that one. */
export function refuseEvery(problems: readonly ItemError[]): void {
  const [first] = problems;
  if (first) throw new ItemsRefused(first.code, first.message, [...problems], first.param);
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError('IKW-RES-001', `No such ${what}: '${id}'`, 'id');
}
