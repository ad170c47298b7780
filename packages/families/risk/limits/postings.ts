import { Refusal } from '#packages/core/refusal.js';
import type { LedgerAction, LedgerReducer } from '#packages/ledger/decider.js';
import type { LedgerEntry } from '#packages/ledger/entry.js';
import { PersistentMap } from '#packages/core/persistent-map.js';

/** What the recipes read of an account's limits (events.ts's `Limits` has it). */
interface Limits {
  transactionMaximums: Readonly<Record<string, number>>;
  dailyPayoutCaps: Readonly<Record<string, number>>;
  payoutFreeze: { reason: string } | null;
}

/** The entries that open a payout's hold, whatever family pays it out (docs/ledger.md, "One way to pay out"). */
const OPENS = new Set(['payout_hold', 'batch_hold', 'escrow_payout_hold', 'seller_payout_hold']);
/** The entries that give a hold back: a payout failed or canceled, what a batch did not send. Paid ones keep counting. */
const RETURNS = new Set(['payout_release', 'batch_release', 'escrow_payout_release', 'seller_payout_release']);

/** One payout's (or one batch execution's) part of its day: the amount sent or still to be sent, fees aside. */
interface Counted {
  amount: number;
  /** A batch item's payout: its failure gives back to its batch's count. */
  batch?: string;
}

/** One UTC day's payouts by the source of their hold, and their sum. */
interface Day {
  counted: PersistentMap<Counted>;
  total: number;
}

/**
 * The payouts of the last two UTC days, by day. Each entry of a balance evolves it: persistent maps
 * and a running sum per day, so an entry costs the same whatever the day's payouts so far (a
 * batch of 10,000 items copied a plain record of all of them at each item, docs/performance.md).
 */
export type PayoutsByDay = Readonly<Record<string, Day>>;

const dayOf = (iso: string) => iso.slice(0, 10);
/** What a hold entry moves, fees aside: its positive lines less its fee (a hold's fee is positive, a release's negative). */
const payoutAmountOf = (e: LedgerEntry) => e.lines.reduce((sum, l) => sum + Math.max(l.amount, 0), 0) - Math.abs(e.fee);

/** Where a source's payout is counted: its day and what it counts, newest day first. */
function countedOf(byDay: PayoutsByDay, source: string): { day: string; counted: Counted } | null {
  for (const day of Object.keys(byDay).sort().reverse()) {
    const counted = byDay[day]!.counted.get(source);
    if (counted) return { day, counted };
  }
  return null;
}

/** The days with `source` counted as `counted` on `day`, the sum kept. */
function withCounted(byDay: PayoutsByDay, day: string, source: string, counted: Counted): PayoutsByDay {
  const { counted: map, total } = byDay[day] ?? { counted: PersistentMap.empty<Counted>(), total: 0 };
  return { ...byDay, [day]: { counted: map.set(source, counted), total: total - (map.get(source)?.amount ?? 0) + counted.amount } };
}

/**
 * The day's payouts of a balance, folded from its entries, so the cap is decided on the balance
 * stream whose version already orders every payout's hold: two payouts racing for the last of a
 * day's cap are decided one after the other, and the second sees the first. A payout counts from
 * its hold (created, pending, in transit, paid) until it is given back (failed, canceled); a batch
 * counts from its execution's hold, less what it gives back and what its failed items return.
 */
export const payoutsByDay: LedgerReducer<PayoutsByDay> = {
  name: 'risk.payouts_by_day',
  initial: {},
  evolve(byDay, e) {
    const batch = (e as { batch?: unknown }).batch;
    if (OPENS.has(e.kind)) {
      const today = dayOf(e.postedAt);
      const kept = Object.fromEntries(Object.entries(byDay).filter(([day]) => day >= previousDay(today)));
      return withCounted(kept, today, e.source, { amount: payoutAmountOf(e) });
    }
    if (e.kind === 'batch_allocation' && typeof batch === 'string') {
      const of = countedOf(byDay, batch);
      return of ? withCounted(byDay, of.day, e.source, { amount: 0, batch }) : byDay;
    }
    if (!RETURNS.has(e.kind)) return byDay;
    const own = countedOf(byDay, e.source);
    if (!own) return byDay;
    const target = own.counted.batch ?? e.source;
    const from = countedOf(byDay, target);
    if (!from) return byDay;
    return withCounted(byDay, from.day, target, { ...from.counted, amount: Math.max(0, from.counted.amount - payoutAmountOf(e)) });
  },
};

/** Whether a payout of `source` is counted already (its hold posted). */
export function isCounted(byDay: PayoutsByDay, source: string): boolean {
  return countedOf(byDay, source) !== null;
}

/** What the UTC day of `at` counts against a daily cap: its payouts, as the balance's entries left them (payoutsByDay's state). */
export function payoutsOfDay(byDay: PayoutsByDay, at: Date): number {
  return byDay[dayOf(at.toISOString())]?.total ?? 0;
}

function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

/** Seconds from `at` to the next UTC midnight, when a day's payouts start again from nothing (at least 1). */
export function secondsToNextDay(at: Date): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - at.getTime()) / 1000));
}

/** IKW-LIM-005 when the operators froze this account's payouts, with their reason. */
export function assertPayoutsOpen(limits: Limits, field = 'amount'): void {
  if (limits.payoutFreeze) throw new Refusal('IKW-LIM-005', `Payouts of this account are frozen by the platform's risk team: ${limits.payoutFreeze.reason}`, field);
}

/** IKW-LIM-003 when `amount` is above the account's per-transaction maximum in `currency`. */
export function assertWithinTransactionMaximum(limits: Limits, currency: string, amount: number, field = 'amount'): void {
  const maximum = limits.transactionMaximums[currency.toLowerCase()];
  if (maximum !== undefined && amount > maximum) throw new Refusal('IKW-LIM-003', `The amount ${amount} is above this account's per-transaction maximum of ${maximum} ${currency.toLowerCase()}`, field);
}

/**
 * A payout's hold (`hold`, its funding source's recipe) within the account's limits: refused when
 * payouts are frozen (IKW-LIM-005), when one payout (`largest`: a batch's largest item) is above the
 * per-transaction maximum (IKW-LIM-003), or when `amount` would take the day's payouts in this
 * currency above the daily cap (IKW-LIM-004, Retry-After: the seconds to the next UTC midnight).
 * The cap is decided on the balance as the hold's own commit finds it. A hold already posted
 * (a request retried) is not decided again.
 */
export function withinPayoutLimits(limits: Limits, payout: { source: string; amount: number; largest: number }, hold: LedgerAction, field = 'amount'): LedgerAction {
  if (hold.type !== 'post') throw new Error('Only a hold is decided within the payout limits');
  return {
    type: 'post',
    recipe(book) {
      const counted = book.family(payoutsByDay);
      if (!isCounted(counted, payout.source)) {
        assertPayoutsOpen(limits, field);
        assertWithinTransactionMaximum(limits, book.currency, payout.largest, field);
        const cap = limits.dailyPayoutCaps[book.currency];
        if (cap !== undefined) {
          const sent = payoutsOfDay(counted, book.at);
          if (sent + payout.amount > cap) {
            const retryAfter = secondsToNextDay(book.at);
            throw new Refusal(
              'IKW-LIM-004',
              `Today's payouts (${sent} ${book.currency}) and this one (${payout.amount}) would be above the daily payout cap of ${cap} ${book.currency}; the day starts again at 00:00 UTC, in ${retryAfter} seconds`,
              field,
              retryAfter,
            );
          }
        }
      }
      hold.recipe(book);
    },
  };
}
