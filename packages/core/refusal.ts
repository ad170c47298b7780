import { ApiError, errorSpec, type ErrorCode } from './errors.js';

/**
 * A decider's refusal of a command: a code of the catalogue, a message, and the domain field at
 * fault ('amount', 'orderId'). It knows no HTTP status and no request parameter: the same command
 * may come from routes that spell the field differently (path `id`, body `orderId`, snake_case), so
 * the route names the field (Route.fields) and the code table gives the status (packages/http/app.ts).
 */
export class Refusal extends Error {
  /** Whether the same command may succeed if sent again (a concurrent change): the catalogue's flag. */
  readonly retryable: boolean;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly field?: string,
    /** When the same command may be sent again (a limit of things running at once): the edge's Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message ?? errorSpec(code).message);
    this.name = 'Refusal';
    this.retryable = errorSpec(code).retryable;
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
