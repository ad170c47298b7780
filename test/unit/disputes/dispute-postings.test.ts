/**
 * A dispute's entries on the ledger (docs/disputes.md, "The ledger"): the hold and the catalog's
 * fee in one posting, a win giving back the held amount and keeping the fee, a loss paying the
 * held amount out; a balance short of the amount and fee holds what there is, the rest a shortfall.
 */
import t from '#tap';
import { fold } from '#packages/core/decider.js';
import { disputeFee } from '#packages/catalog/index.js';
import '#packages/families/index.js';
import { debitDisputed, disputeCharge, holdDisputed, releaseDisputed } from '#packages/families/disputes/postings.js';
import { balanceOf, type LedgerAction, type LedgerCommand, type LedgerState } from '#packages/ledger/decider.js';
import { familiesLedger } from '../../support/ledger.js';
import { isBalanced } from '#packages/ledger/entry.js';

const ctx = { merchantId: 'acct_1', environment: 'live' as const, currency: 'ngn', at: new Date('2026-11-28T10:00:00Z') };
let n = 0;
const cmd = (action: LedgerAction): LedgerCommand => ({ ...ctx, newEntryId: () => `txn_${++n}`, ...action }) as LedgerCommand;
const funded = (available: number): LedgerState =>
  fold(
    familiesLedger.decider,
    familiesLedger.decider.decide(
      cmd({
        type: 'post',
        recipe: (book) =>
          book.post({
            kind: 'top_up',
            source: `top_${available}`,
            lines: [
              { account: 'bank_clearing', amount: -available },
              { account: 'available', amount: available },
            ],
            amount: available,
            fee: 0,
            net: available,
          }),
      }),
      familiesLedger.decider.initialState,
    ),
  );
const apply = (state: LedgerState, action: LedgerAction) => {
  const events = familiesLedger.decider.decide(cmd(action), state);
  for (const e of events) if (!isBalanced(e.data.lines)) throw new Error(`${e.data.kind} does not balance`);
  return { events, state: events.reduce((s, e) => familiesLedger.decider.evolve(s, e), state) };
};
const accounts = (s: LedgerState) => ({ available: balanceOf(s, 'available'), reserved: balanceOf(s, 'reserved'), fees: balanceOf(s, 'fees'), clearing: balanceOf(s, 'rail_clearing:paystack') });

t.test('the catalog sets an NGN dispute fee and none elsewhere', async (t) => {
  t.equal(disputeFee('ngn'), 150_000);
  t.equal(disputeFee('NGN'), 150_000);
  t.equal(disputeFee('xof'), 0);
});

t.test('opened: the amount held and the fee charged in one posting, once; won: the amount back, the fee kept', async (t) => {
  const charge = disputeCharge(1_000_000, 500_000, 150_000);
  t.same(charge, { held: 500_000, fee: 150_000, shortfall: 0 });
  const opened = apply(funded(1_000_000), holdDisputed({ source: 'dp_1', charge }));
  t.equal(opened.events.length, 1, 'one posting');
  t.match(opened.events[0]!.data, { kind: 'dispute_hold', amount: -500_000, fee: 150_000, net: -650_000 });
  t.same(accounts(opened.state), { available: 350_000, reserved: 500_000, fees: 150_000, clearing: 0 });
  t.same(apply(opened.state, holdDisputed({ source: 'dp_1', charge })).events, [], 'a second opening posts nothing');

  const won = apply(opened.state, releaseDisputed('dp_1'));
  t.match(won.events[0]!.data, { kind: 'dispute_release', amount: 500_000, net: 500_000 });
  t.same(accounts(won.state), { available: 850_000, reserved: 0, fees: 150_000, clearing: 0 }, 'the fee stays Sika’s');
  t.same(apply(won.state, releaseDisputed('dp_1')).events, [], 'released once');
});

t.test('lost: the held amount out through the clearing account, the fee already charged', async (t) => {
  const opened = apply(funded(1_000_000), holdDisputed({ source: 'dp_2', charge: disputeCharge(1_000_000, 300_000, 150_000) }));
  const lost = apply(opened.state, debitDisputed('dp_2', 'rail_clearing:paystack'));
  t.same(accounts(lost.state), { available: 550_000, reserved: 0, fees: 150_000, clearing: 300_000 });
  t.same(apply(lost.state, debitDisputed('dp_2', 'rail_clearing:paystack')).events, [], 'debited once');
});

t.test('a short balance: the hold first, the fee from what is left, the rest a shortfall; an empty one posts nothing', async (t) => {
  t.same(disputeCharge(600_000, 500_000, 150_000), { held: 500_000, fee: 100_000, shortfall: 50_000 });
  t.same(disputeCharge(250_000, 400_000, 150_000), { held: 250_000, fee: 0, shortfall: 300_000 });
  t.same(disputeCharge(0, 400_000, 150_000), { held: 0, fee: 0, shortfall: 550_000 });
  t.same(disputeCharge(-10, 400_000, 0), { held: 0, fee: 0, shortfall: 400_000 });
  const partial = apply(funded(600_000), holdDisputed({ source: 'dp_3', charge: disputeCharge(600_000, 500_000, 150_000) }));
  t.same(accounts(partial.state), { available: 0, reserved: 500_000, fees: 100_000, clearing: 0 });
  t.same(apply(familiesLedger.decider.initialState, holdDisputed({ source: 'dp_4', charge: disputeCharge(0, 400_000, 150_000) })).events, [], 'nothing to hold');
  t.throws(() => apply(funded(100_000), holdDisputed({ source: 'dp_5', charge: disputeCharge(600_000, 500_000, 0) })), /no longer covers/, 'a balance that moved since the charge was decided: decided again');
});
