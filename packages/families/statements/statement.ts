/**
 * A statement's arithmetic (docs/statements.md), pure: the merchant's three balances at the
 * period's start, each entry of the period put in one category line, and the balances at its end.
 * opening + Σ lines = closing, for each balance, by construction: every amount an entry moved is in
 * exactly one line (its fee, when it charged one, in `fees`).
 */

/** The merchant's own accounts of the ledger, as GET /api/v1/balance shows them. */
export interface Balances {
  available: number;
  pending: number;
  reserved: number;
}

export type StatementCategory = 'payments' | 'settlements' | 'fees' | 'refunds' | 'disputes' | 'payouts' | 'reserves' | 'reserve_releases' | 'adjustments';

/** The lines' order on the statement. */
export const STATEMENT_CATEGORIES: readonly StatementCategory[] = ['payments', 'settlements', 'fees', 'refunds', 'disputes', 'payouts', 'reserves', 'reserve_releases', 'adjustments'];

/** What one entry of the ledger moved on the merchant's accounts (read.ledger_entries). */
export interface Movement extends Balances {
  kind: string;
  fee: number;
}

const KIND_CATEGORIES: Readonly<Record<string, StatementCategory>> = {
  payment: 'payments',
  payment_settlement: 'settlements',
  refund: 'refunds',
  refund_reversal: 'refunds',
  payout_hold: 'payouts',
  payout_paid: 'payouts',
  payout_release: 'payouts',
  batch_hold: 'payouts',
  batch_allocation: 'payouts',
  batch_release: 'payouts',
  reserve_hold: 'reserves',
  reserve_release: 'reserve_releases',
};

/**
 * The line an entry's kind falls in. Every kind the disputes family posts starts with `dispute`
 * (no entry of it is needed here for its entries to fall in); any other kind that touches the
 * balance (escrow funded from or released to it, a campaign's release) is an adjustment.
 */
export function categoryOf(kind: string): StatementCategory {
  if (kind.startsWith('dispute')) return 'disputes';
  return KIND_CATEGORIES[kind] ?? 'adjustments';
}

const ACCOUNTS = ['available', 'pending', 'reserved'] as const;
const zero = (): Balances => ({ available: 0, pending: 0, reserved: 0 });
export const totalOf = (b: Balances): number => b.available + b.pending + b.reserved;

/**
 * An entry's movement split into its lines: a fee is charged when the entry changed what the
 * merchant holds (a payment's net, a payout paid with its fee, a campaign's release net of its
 * fees, a dispute's fee) and named a fee; it goes to `fees`, taken from the account that moved
 * most in that direction, and the entry's own line shows the amount before it. A hold or a release
 * between the merchant's own accounts charges nothing, whatever its `fee` field says.
 */
export function linesOf(m: Movement): { category: StatementCategory; moved: Balances }[] {
  const category = categoryOf(m.kind);
  const moved: Balances = { available: m.available, pending: m.pending, reserved: m.reserved };
  const total = totalOf(moved);
  if (m.fee <= 0 || total === 0) return [{ category, moved }];
  const sign = Math.sign(total);
  const charged = ACCOUNTS.filter((a) => Math.sign(moved[a]) === sign).sort((a, b) => Math.abs(moved[b]) - Math.abs(moved[a]))[0]!;
  const fees = zero();
  fees[charged] = -m.fee;
  moved[charged] += m.fee;
  return [
    { category, moved },
    { category: 'fees', moved: fees },
  ];
}

export interface StatementLine extends Balances {
  category: StatementCategory;
  total: number;
  /** How many entries of the ledger it sums. */
  count: number;
}

export interface StatementTotals {
  opening: Balances & { total: number };
  lines: StatementLine[];
  closing: Balances & { total: number };
}

/** Adds entries up, line by line, from the opening balances. */
export class StatementSum {
  private readonly lines = new Map<StatementCategory, StatementLine>(STATEMENT_CATEGORIES.map((category) => [category, { category, available: 0, pending: 0, reserved: 0, total: 0, count: 0 }]));

  constructor(private readonly opening: Balances) {}

  add(m: Movement): void {
    for (const { category, moved } of linesOf(m)) {
      const line = this.lines.get(category)!;
      for (const a of ACCOUNTS) line[a] += moved[a];
      line.total += totalOf(moved);
      line.count += 1;
    }
  }

  totals(): StatementTotals {
    const lines = [...this.lines.values()].map((l) => ({ ...l }));
    const closing = { ...this.opening };
    for (const line of lines) for (const a of ACCOUNTS) closing[a] += line[a];
    return { opening: { ...this.opening, total: totalOf(this.opening) }, lines, closing: { ...closing, total: totalOf(closing) } };
  }
}
