import { ApiError, KERNEL_ERROR_CODES, type ErrorCode, type KernelErrorCode } from './errors.js';

/**
 * A decider's refusal of a command: a code of the catalogue, a message, and the domain field at
 * fault ('amount', 'orderId'). It knows no HTTP status and no request parameter: the same command
 * may come from routes that spell the field differently (path `id`, body `orderId`, snake_case), so
 * the route names the field (Route.fields) and the catalogue the edge is handed gives the status and
 * retryability (packages/http/app.ts). Its words are the thrower's; only a kernel's code may leave
 * them out (the kernel's table has them): a family gives its own code's words from its `errors.ts`.
 */
export class Refusal extends Error {
  constructor(code: KernelErrorCode, message?: string, field?: string, retryAfterSeconds?: number);
  constructor(code: ErrorCode, message: string, field?: string, retryAfterSeconds?: number);
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly field?: string,
    /** When the same command may be sent again (a limit of things running at once): the edge's Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message ?? KERNEL_ERROR_CODES[code as KernelErrorCode].message);
    this.name = 'Refusal';
  }
}

/** One refused item of a list a command carries: its index in the list, code, words, and its field within the item. */
export interface RefusedItem {
  index: number;
  code: ErrorCode;
  message: string;
  field?: string;
}

/**
 * A refusal of every refused item of a list at once (a payout batch's instructions): the answer
 * lists them (ItemsRefused, docs/errors.md), each as `<list>.<index>.<field>` in the route's names
 * for the list (`field`) and for the item's fields.
 */
export class RefusedItems extends Refusal {
  constructor(
    code: ErrorCode,
    message: string,
    readonly items: readonly RefusedItem[],
    /** The list the items are of. */
    field: string,
  ) {
    super(code, message, field);
  }
}

/**
 * Whether `err` is a coded refusal, a decider's Refusal or an ApiError of the application code, and,
 * when codes are given, one of them. Callers that absorb or retry refusals test with this, so they do
 * not depend on which of the two kinds a refusal comes as.
 */
export function isRefused(err: unknown, ...codes: ErrorCode[]): err is Refusal | ApiError {
  return (err instanceof Refusal || err instanceof ApiError) && (codes.length === 0 || codes.includes(err.code));
}

/** The field a refusal names, whichever of the two kinds it comes as (the catcher renames it for its own command). */
export function refusedField(err: Refusal | ApiError): string | undefined {
  return err instanceof Refusal ? err.field : err.param;
}
