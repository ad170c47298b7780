import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/**
 * One leg of a journal entry: an account of the chart (a kind, or a kind and the id of what it is
 * held for: `escrow:<contract>`) and a signed integer amount; every entry's legs sum to zero.
 */
export interface Line {
  account: string;
  amount: number;
}

/** Gross amount, fee and net as the merchant's balance sees an entry (balance transaction fields). */
export interface EntryAmounts {
  amount: number;
  fee: number;
  net: number;
}

/**
 * What a family's recipe posts (docs/ledger.md, "Recipes"): an entry of its own `kind` about
 * `source` (the object it is about), once per `kind:source`. `refs` are the family's own fields,
 * stored after the amounts; `availableOn` defaults to the posting time.
 */
export interface Posting extends EntryAmounts {
  kind: string;
  source: string;
  lines: Line[];
  refs?: Readonly<Record<string, unknown>>;
  availableOn?: Date;
}

/**
 * The stored `ledger.entry_posted`: the posting with its balance, id and times. A family's refs
 * sit beside the amounts (the shape entries have always had); the engine reads none of them.
 */
export interface LedgerEntry extends EntryAmounts {
  entryId: string;
  kind: string;
  source: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  lines: Line[];
  /** When the funds become available (payments), ISO date-time. */
  availableOn: string;
  postedAt: string;
}

export type LedgerEntryEvent = DomainEvent<'ledger.entry_posted', LedgerEntry>;

/** One balance: a merchant's money in one environment and currency. */
export interface BalanceRef {
  merchantId: string;
  environment: Environment;
  currency: string;
}

export const balanceStream = (merchantId: string, environment: Environment, currency: string) => `balance-${merchantId}-${environment}-${currency.toLowerCase()}`;

/** Every line an integer, and the lines sum to zero. */
export function isBalanced(lines: readonly Line[]): boolean {
  return lines.reduce((sum, l) => sum + l.amount, 0) === 0 && lines.every((l) => Number.isSafeInteger(l.amount));
}

/** Amounts a recipe was given: non-negative integers, or a bug of its caller. */
export function assertAmounts(...amounts: number[]): void {
  for (const a of amounts) if (!Number.isSafeInteger(a) || a < 0) throw new Error(`Ledger amounts must be non-negative integers, got ${a}`);
}
