/**
 * The error catalogue. Every non-2xx answer carries one of these codes; docs/errors.md lists them
 * (a unit test keeps the two in step). Codes are stable: never reuse or renumber one.
 */
export const ERROR_CODES = {
  'IKW-AUT-001': { status: 401, retryable: false, message: 'No credential was given; send Authorization: Bearer <API key>' },
  'IKW-AUT-002': { status: 401, retryable: false, message: 'The API key is not valid or has been revoked' },
  'IKW-AUT-003': { status: 403, retryable: false, message: 'X-Environment does not match the environment of the API key' },
  'IKW-AUT-004': { status: 403, retryable: false, message: 'The API key does not have the scope this operation needs' },
  'IKW-AUT-005': { status: 400, retryable: false, message: 'X-Environment must be sandbox or live' },
  'IKW-AUT-006': { status: 400, retryable: false, message: 'This operation requires the X-Environment header' },
  'IKW-AUT-007': { status: 401, retryable: false, message: 'The access token or refresh token is not valid or has expired' },
  'IKW-AUT-008': { status: 401, retryable: false, message: 'The e-mail address or password is wrong' },
  'IKW-AUT-009': { status: 403, retryable: false, message: 'This operation needs the platform operator credential (sk_admin_…)' },
  'IKW-REQ-001': { status: 400, retryable: false, message: 'The request body is not valid JSON' },
  'IKW-REQ-002': { status: 415, retryable: false, message: 'Request bodies must be sent as application/json' },
  'IKW-REQ-003': { status: 413, retryable: false, message: 'The request body is larger than 1 MiB' },
  'IKW-REQ-004': { status: 431, retryable: false, message: 'The request headers are too large' },
  'IKW-REQ-005': { status: 400, retryable: false, message: 'The request could not be parsed' },
  'IKW-REQ-006': { status: 415, retryable: false, message: 'The Content-Encoding of the request body is not supported; use gzip, deflate, br or none' },
  'IKW-REQ-007': { status: 400, retryable: false, message: 'The request body is not in the Content-Encoding it names' },
  'IKW-REQ-008': { status: 408, retryable: true, message: 'The request was not received in time' },
  'IKW-REQ-009': { status: 417, retryable: false, message: 'The Expect header asks for something other than 100-continue' },
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
  'IKW-RTE-001': { status: 404, retryable: false, message: 'No such route' },
  'IKW-RTE-002': { status: 405, retryable: false, message: 'This route does not accept that method' },
  'IKW-LIM-001': { status: 429, retryable: true, message: 'Too many requests; retry after the seconds in Retry-After' },
  'IKW-LIM-002': { status: 429, retryable: true, message: 'Too many waits for events are running for this credential or merchant; retry after the seconds in Retry-After' },
  'IKW-RES-001': { status: 404, retryable: false, message: 'No such resource' },
  'IKW-RES-002': { status: 409, retryable: false, message: 'The resource is not in a state that allows this operation' },
  'IKW-RES-003': { status: 409, retryable: true, message: 'The resource was changed by a concurrent request; retry' },
  'IKW-IDM-001': { status: 400, retryable: false, message: 'Idempotency-Key must be 1 to 255 printable characters' },
  'IKW-IDM-002': { status: 422, retryable: false, message: 'This Idempotency-Key was used with a different request' },
  'IKW-IDM-003': { status: 409, retryable: true, message: 'A request with this Idempotency-Key is still being processed' },
  'IKW-IDM-004': { status: 400, retryable: false, message: 'This operation requires an Idempotency-Key header in live mode' },
  'IKW-PAY-001': { status: 400, retryable: false, message: 'Give exactly one destination: destination or payout_method_id' },
  'IKW-PAY-002': { status: 400, retryable: false, message: 'No such payout method for this merchant and environment' },
  'IKW-PAY-003': { status: 400, retryable: false, message: 'This payout method has been deleted' },
  'IKW-PAY-004': { status: 409, retryable: true, message: 'This payout method is still in its safety delay' },
  'IKW-PAY-005': { status: 403, retryable: false, message: 'An API key cannot weaken payout safeguards (lower the safety delay, open inline destinations to API keys): a signed-in user does, with a second factor' },
  'IKW-PAY-006': { status: 403, retryable: false, message: 'Weakening payout safeguards needs challenge_id: a verified second-factor challenge of purpose payout-settings/delay' },
  'IKW-PAY-007': { status: 403, retryable: false, message: 'A payout to a destination this merchant never paid needs challenge_id: a verified second-factor challenge of purpose payouts/new-destination' },
  'IKW-PAY-008': { status: 403, retryable: false, message: "This merchant's payout settings refuse inline destinations to API keys: pay out to a saved payout method (payout_method_id)" },
  'IKW-PEN-001': { status: 400, retryable: false, message: 'One or more payout instructions are invalid; errors lists each by index' },
  'IKW-PEN-002': { status: 400, retryable: false, message: 'No such recipient for this merchant and environment' },
  'IKW-PEN-003': { status: 400, retryable: false, message: 'This recipient has been archived' },
  'IKW-PEN-004': { status: 400, retryable: false, message: 'The CSV body is malformed' },
  'IKW-PEN-005': { status: 409, retryable: false, message: 'The payout batch is not in a state that allows this operation' },
  'IKW-CAP-001': { status: 422, retryable: false, message: 'This payment method is disabled for this account' },
  'IKW-CAP-002': { status: 422, retryable: false, message: 'This payment method is suspended for this account' },
  'IKW-CAP-003': { status: 409, retryable: false, message: 'A payment capability for this country, currency, method and operator already exists' },
  'IKW-CFG-001': { status: 422, retryable: false, message: 'This country and currency are not activated for this direction for this account' },
  'IKW-CFG-002': { status: 422, retryable: false, message: "The amount is outside this account's activated bounds for this country and currency" },
  'IKW-CFG-003': { status: 409, retryable: false, message: 'An activation for this country and currency exists already' },
  'IKW-CFG-004': { status: 400, retryable: false, message: 'The platform operator credential must name the merchant it acts on (merchantId)' },
  'IKW-CFG-005': { status: 403, retryable: false, message: 'The platform operator set this activation: only the operator changes or deletes it' },
  'IKW-WHK-001': { status: 400, retryable: false, message: 'This URL cannot receive webhooks' },
  'IKW-WHK-002': { status: 400, retryable: false, message: 'Unknown event type' },
  'IKW-BIL-001': { status: 409, retryable: false, message: 'This status transition is not allowed' },
  'IKW-BIL-002': { status: 409, retryable: false, message: 'The product is used by a subscription and cannot be deleted' },
  'IKW-BIL-003': { status: 400, retryable: false, message: 'The refund amount is above what remains refundable on this payment' },
  'IKW-BIL-004': { status: 409, retryable: false, message: 'Only a succeeded payment can be refunded' },
  'IKW-BIL-005': { status: 409, retryable: false, message: "The customer's wallet is empty" },
  'IKW-BIL-006': { status: 400, retryable: false, message: 'No such customer for this merchant and environment' },
  'IKW-BIL-007': { status: 400, retryable: false, message: 'No such price for this merchant and environment' },
  'IKW-BIL-008': { status: 400, retryable: false, message: 'This price cannot be used here' },
  'IKW-BIL-009': { status: 409, retryable: false, message: 'The invoice is not open for payment' },
  'IKW-BIL-010': { status: 400, retryable: false, message: "The currency does not match the wallet's or the invoice's" },
  'IKW-BIL-011': { status: 409, retryable: false, message: 'This subscription does not take usage records' },
  'IKW-CHK-001': { status: 409, retryable: false, message: 'The checkout session is not open for payment: it is complete, canceled or expired' },
  'IKW-CHK-002': { status: 410, retryable: false, message: 'The payment link no longer takes payments: it was deactivated or has expired' },
  'IKW-CHK-003': { status: 409, retryable: false, message: 'This single-use payment link has been paid, or is being paid, through another checkout session' },
  'IKW-CHK-004': { status: 400, retryable: false, message: 'This payment method type is not one the checkout session accepts' },
  'IKW-CHK-005': { status: 403, retryable: false, message: 'The hosted checkout form was sent from another site' },
  'IKW-CPT-001': { status: 401, retryable: false, message: 'The code is wrong, has expired or was already used; ask for a new one' },
  'IKW-CPT-002': { status: 401, retryable: false, message: 'Sign in to the customer portal: the portal token is missing, wrong, expired or signed out' },
  'IKW-CPT-003': { status: 403, retryable: false, message: "The merchant's customer portal does not let customers do this" },
  'IKW-BAL-001': { status: 400, retryable: false, message: 'The available balance does not cover the amount plus fees' },
  'IKW-ACC-001': { status: 409, retryable: false, message: 'An account with this e-mail address already exists' },
  'IKW-ACC-002': { status: 403, retryable: false, message: 'Your role in this organization does not allow this' },
  'IKW-ACC-003': { status: 403, retryable: false, message: 'This operation is for signed-in users: use the access token from POST /api/v1/auth/login, not an API key' },
  'IKW-ACC-004': { status: 403, retryable: false, message: 'The current password is wrong' },
  'IKW-ACC-005': { status: 400, retryable: false, message: 'The code is wrong' },
  'IKW-ACC-006': { status: 400, retryable: false, message: 'This code or link has expired, was already used or had too many wrong tries; ask for a new one' },
  'IKW-ACC-007': { status: 400, retryable: false, message: 'Sign-up needs the e-mail address (and the phone, when given) verified by a pre-signup challenge for that same address' },
  'IKW-ACC-008': { status: 409, retryable: false, message: 'This person is already a member of the organization or has a pending invitation' },
  'IKW-ACC-009': { status: 400, retryable: false, message: 'The passkey was not accepted' },
  'IKW-ACC-010': { status: 409, retryable: false, message: 'An organization you own requires a second factor; add another before removing this one' },
  'IKW-ACC-011': { status: 403, retryable: false, message: 'This needs challenge_id: a challenge of its purpose (POST /api/v1/auth/mfa/challenge), verified within the last 5 minutes' },
  'IKW-ACC-012': { status: 409, retryable: false, message: 'You already belong to as many organizations as one user may' },
  'IKW-FED-001': { status: 403, retryable: false, message: 'Sign-in with Google is not configured on this service (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)' },
  'IKW-FED-002': { status: 400, retryable: false, message: 'This sign-in with Google is unknown, was already used or has expired; start again' },
  'IKW-FED-003': { status: 400, retryable: false, message: 'returnUrl must be an http(s) URL on the origin of this service or an allowed origin, without a fragment' },
  'IKW-FED-004': { status: 400, retryable: false, message: "Google's answer could not be verified (refused, wrong code, nonce or ID token, or Google could not be reached); start again" },
  'IKW-FED-005': { status: 403, retryable: false, message: 'Google did not confirm that this e-mail address belongs to this Google account' },
  'IKW-FED-006': { status: 403, retryable: false, message: 'No Sika account is connected to this Google account or uses its e-mail address; sign up first (POST /api/v1/auth/register), then connect Google' },
  'IKW-FED-007': { status: 409, retryable: false, message: 'This Google account is already connected to another Sika user' },
  'IKW-MKT-001': { status: 409, retryable: false, message: 'A marketplace seller with this sellerId already exists' },
  'IKW-MKT-002': { status: 400, retryable: false, message: 'An order line names a seller that is not one of your marketplace sellers' },
  'IKW-MKT-003': { status: 400, retryable: false, message: 'The commission rule cannot be used: unknown, inactive or in another currency' },
  'IKW-MKT-004': { status: 409, retryable: false, message: 'The order is not in a state that allows this: refunds need a paid order, cancel an unpaid one' },
  'IKW-MKT-005': { status: 400, retryable: false, message: 'The refund amount is above what remains refundable on the order' },
  'IKW-MKT-006': { status: 409, retryable: false, message: "A seller's funds no longer cover their share of the refund" },
  'IKW-MKT-007': { status: 400, retryable: false, message: "The seller's available funds do not cover the payout amount plus its fee" },
  'IKW-MKT-008': { status: 409, retryable: false, message: 'This payment pays a marketplace order: refund it with POST /api/v1/marketplace/refunds' },
  'IKW-ESC-001': { status: 409, retryable: false, message: 'The escrow contract is not in a state that allows this operation' },
  'IKW-ESC-002': { status: 400, retryable: false, message: 'This payment intent cannot fund this contract' },
  'IKW-ESC-003': { status: 409, retryable: false, message: 'An open dispute freezes this escrow contract' },
  'IKW-ESC-004': { status: 400, retryable: false, message: 'The amount is more than the contract holds for it' },
  'IKW-ESC-005': { status: 409, retryable: false, message: 'The escrow release is not pending' },
  'IKW-ESC-006': { status: 409, retryable: false, message: 'The escrow dispute has been resolved already' },
  'IKW-ESC-007': { status: 400, retryable: false, message: 'No such participant or milestone on this contract' },
  'IKW-ESC-008': { status: 400, retryable: false, message: 'A release goes to one destination' },
  'IKW-ESC-009': { status: 409, retryable: false, message: 'The milestone cannot be released' },
  'IKW-ESC-010': { status: 409, retryable: false, message: 'This payment funded an escrow contract: refund it with POST /api/v1/escrow/contracts/{id}/refund' },
  'IKW-FND-001': { status: 409, retryable: false, message: 'The funding campaign is not in a state that allows this' },
  'IKW-FND-002': { status: 409, retryable: false, message: 'The funding campaign takes no contributions: it is not published, has ended or has passed its deadline' },
  'IKW-FND-003': { status: 409, retryable: false, message: 'An all-or-nothing campaign below its target cannot be closed: it is refunded at its deadline, or cancel it' },
  'IKW-FND-004': { status: 409, retryable: false, message: 'The contribution is not in a state that allows this' },
  'IKW-FND-005': { status: 400, retryable: false, message: 'The released funds not yet paid out do not cover this payout and its fee' },
  'IKW-FND-006': { status: 409, retryable: false, message: 'This payment is a contribution to a funding campaign: refund it with POST /api/v1/funding/contributions/{id}/refund' },
  'IKW-PRV-001': { status: 422, retryable: false, message: 'Live processing is not enabled for this operator; no connector is configured' },
  'IKW-PRV-002': { status: 502, retryable: true, message: 'The operator or acquirer did not answer; nothing was charged, retry later' },
  'IKW-PRV-003': { status: 401, retryable: false, message: "The provider callback's signature or content digest could not be verified; nothing was applied" },
  'IKW-PRV-004': { status: 404, retryable: false, message: 'No connector of this provider is configured on this service' },
  'IKW-PRV-005': { status: 403, retryable: false, message: 'Live payments and payouts are not activated for this account: the platform operator opens live' },
  'IKW-PRV-006': { status: 422, retryable: false, message: "This payment's rail cannot refund its payer through Sika yet; nothing was refunded" },
  'IKW-PRV-010': { status: 422, retryable: false, message: "The bank gives the account holder's name differently; nothing was held" },
  'IKW-PRV-011': { status: 422, retryable: false, message: 'The bank does not know this account number; nothing was held' },
  'IKW-PRV-012': { status: 422, retryable: false, message: 'The provider lists no bank with this code for the currency' },
  'IKW-PRV-013': { status: 422, retryable: false, message: "This saved card's authorization is single-use: it cannot be charged again" },
  'IKW-PRV-014': { status: 422, retryable: false, message: "No saved card with this token for the intent's customer" },
  'IKW-PRV-015': { status: 422, retryable: false, message: "A card payment through this acquirer needs the payer's e-mail: the intent's customer has none" },
  'IKW-AST-001': { status: 400, retryable: false, message: 'This content type is not accepted for this purpose of asset' },
  'IKW-AST-002': { status: 400, retryable: false, message: 'The asset is larger than the size limit' },
  'IKW-AST-003': { status: 413, retryable: false, message: 'The upload brings more bytes than the size declared for the asset' },
  'IKW-AST-004': { status: 409, retryable: false, message: 'The asset is not in a state that allows this operation' },
  'IKW-AST-005': { status: 422, retryable: false, message: 'The uploaded file is not the size declared for the asset' },
  'IKW-AST-006': { status: 422, retryable: false, message: 'The SHA-256 of the uploaded file is not the one declared for the asset' },
  'IKW-AST-007': { status: 422, retryable: false, message: 'The uploaded file is not of the declared content type' },
  'IKW-AST-008': { status: 403, retryable: false, message: 'The signed URL is not valid or has expired' },
  'IKW-AST-009': { status: 503, retryable: true, message: 'The file store could not be reached; retry later' },
  'IKW-ITL-001': { status: 400, retryable: false, message: 'The date range is not valid: from must be before to, within the longest range allowed' },
  'IKW-SVC-001': { status: 503, retryable: true, message: 'The service is not ready' },
  'IKW-INT-001': { status: 500, retryable: true, message: 'An internal error occurred; it has been logged' },
  // The template engine (docs/template-engine.md)
  'IKW-TPL-001': { status: 400, retryable: false, message: 'The template does not parse as Liquid' },
  'IKW-TPL-002': { status: 400, retryable: false, message: 'The variable schema is not a JSON Schema of an object' },
  'IKW-TPL-003': { status: 422, retryable: false, message: "The data does not match the template's variable schema" },
  'IKW-TPL-004': { status: 400, retryable: false, message: 'The template has no content in this locale' },
  'IKW-TPL-005': { status: 409, retryable: false, message: 'The template has no published version' },
  'IKW-TPL-006': { status: 422, retryable: false, message: 'The rendered template is over a size limit' },
  // Automations (docs/automations.md)
  'IKW-ATM-001': { status: 400, retryable: false, message: 'The automation definition is invalid' },
  'IKW-ATM-002': { status: 400, retryable: false, message: 'The cron expression is invalid' },
  'IKW-ATM-003': { status: 400, retryable: false, message: 'A step names a template that does not exist or is of another kind' },
} as const satisfies Record<string, { status: number; retryable: boolean; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

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

/** An answer that is not a success. Thrown by handlers and deciders, rendered by the HTTP layer. */
export class ApiError extends Error {
  readonly status: number;
  readonly retryable: boolean;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
  }

  toBody(requestId?: string): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
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

  override toBody(requestId?: string): ErrorBody {
    return { ...super.toBody(requestId), errors: this.errors };
  }
}

/** A refusal as one problem of a list of them (ItemsRefused's `errors`). */
export function problemOf(err: ApiError): ItemError {
  return { code: err.code, message: err.message, ...(err.param !== undefined ? { param: err.param } : {}) };
}

/** Refuses with every one of `problems` (none: nothing): the first is the answer's own code, message and param, so a client reading one problem reads that one. */
export function refuseEvery(problems: readonly ItemError[]): void {
  const [first] = problems;
  if (first) throw new ItemsRefused(first.code, first.message, [...problems], first.param);
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError('IKW-RES-001', `No such ${what}: '${id}'`, 'id');
}
