/**
 * A statement's arithmetic (packages/families/statements/statement.ts) over random entries of the
 * kinds the ledger posts on the merchant's balance: opening + Σ lines = closing on each balance,
 * every entry in its kind's line, a fee only where the entry changed what the merchant holds.
 */
import fc from 'fast-check';
import t from '#tap';
import { categoryOf, linesOf, StatementSum, totalOf, type Balances, type Movement } from '#packages/families/statements/statement.js';

const money = fc.integer({ min: 0, max: 1_000_000 });

/** An entry as the ledger's recipes move the merchant's accounts (docs/ledger.md, "The posting of every operation"). */
const movement: fc.Arbitrary<Movement> = fc.oneof(
  fc.record({ amount: money, fee: money }).map(({ amount, fee }) => ({ kind: 'payment', fee: Math.min(fee, amount), available: 0, pending: amount - Math.min(fee, amount), reserved: 0 })),
  money.map((net) => ({ kind: 'payment_settlement', fee: 0, available: net, pending: -net, reserved: 0 })),
  money.map((r) => ({ kind: 'reserve_hold', fee: 0, available: 0, pending: -r, reserved: r })),
  money.map((r) => ({ kind: 'reserve_release', fee: 0, available: r, pending: 0, reserved: -r })),
  money.map((a) => ({ kind: 'refund', fee: 0, available: -a, pending: 0, reserved: 0 })),
  fc.record({ amount: money, fee: money }).map(({ amount, fee }) => ({ kind: 'payout_hold', fee, available: -(amount + fee), pending: 0, reserved: amount + fee })),
  fc.record({ amount: money, fee: money }).map(({ amount, fee }) => ({ kind: 'payout_paid', fee, available: 0, pending: 0, reserved: -(amount + fee) })),
  fc.record({ amount: money, fee: money }).map(({ amount, fee }) => ({ kind: 'payout_release', fee, available: amount + fee, pending: 0, reserved: -(amount + fee) })),
  fc.record({ gross: money, fee: money }).map(({ gross, fee }) => ({ kind: 'campaign_release', fee: Math.min(fee, gross), available: gross - Math.min(fee, gross), pending: 0, reserved: 0 })),
  fc.record({ amount: money, fee: money }).map(({ amount, fee }) => ({ kind: 'dispute_opened', fee, available: -(amount + fee), pending: 0, reserved: amount })),
  money.map((a) => ({ kind: 'escrow_release', fee: 0, available: a, pending: 0, reserved: 0 })),
);
const balances: fc.Arbitrary<Balances> = fc.record({ available: money, pending: money, reserved: money });

t.test('opening + Σ lines = closing, on each balance, for any entries', async (t) => {
  fc.assert(
    fc.property(balances, fc.array(movement, { maxLength: 40 }), (opening, movements) => {
      const sum = new StatementSum(opening);
      for (const m of movements) sum.add(m);
      const { lines, closing } = sum.totals();
      for (const a of ['available', 'pending', 'reserved'] as const) {
        const moved = movements.reduce((s, m) => s + m[a], 0);
        if (closing[a] !== opening[a] + moved) return false;
        if (closing[a] !== opening[a] + lines.reduce((s, l) => s + l[a], 0)) return false;
      }
      return closing.total === totalOf(closing) && lines.every((l) => l.total === l.available + l.pending + l.reserved);
    }),
  );
  t.pass('holds');
});

t.test('each entry in its line; the fee apart only where what the merchant holds changed', async (t) => {
  t.same(linesOf({ kind: 'payment', fee: 300, available: 0, pending: 9_700, reserved: 0 }), [
    { category: 'payments', moved: { available: 0, pending: 10_000, reserved: 0 } },
    { category: 'fees', moved: { available: 0, pending: -300, reserved: 0 } },
  ]);
  t.same(linesOf({ kind: 'payout_paid', fee: 100, available: 0, pending: 0, reserved: -5_100 }), [
    { category: 'payouts', moved: { available: 0, pending: 0, reserved: -5_000 } },
    { category: 'fees', moved: { available: 0, pending: 0, reserved: -100 } },
  ]);
  t.same(linesOf({ kind: 'payout_hold', fee: 100, available: -5_100, pending: 0, reserved: 5_100 }), [{ category: 'payouts', moved: { available: -5_100, pending: 0, reserved: 5_100 } }], 'a hold charges nothing');
  t.equal(categoryOf('dispute_opened'), 'disputes');
  t.equal(categoryOf('dispute_lost'), 'disputes');
  t.equal(categoryOf('escrow_funding'), 'adjustments');
  t.equal(categoryOf('batch_allocation'), 'payouts');
  const sum = new StatementSum({ available: 0, pending: 0, reserved: 0 });
  t.same(
    sum.totals().lines.map((l) => l.category),
    ['payments', 'settlements', 'fees', 'refunds', 'disputes', 'payouts', 'reserves', 'reserve_releases', 'adjustments'],
    'every line, zero when nothing moved',
  );
});
