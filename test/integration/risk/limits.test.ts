/**
 * The limits and holds the platform's risk operators set (docs/limits.md), through the real
 * server on a real PostgreSQL and a manual clock: the per-transaction maximum (payments and
 * payouts), the daily payout cap (its boundary, its Retry-After, its day, two payouts racing for
 * it), the payout freeze (payments still taken), the rolling reserve (held on the payment's
 * success, shown with its release date, released by the settlement job, spent by a refund), the
 * ledger balanced and every read model equal to its rebuild (`sika projections verify`), another
 * merchant's and the other environment's limits apart.
 */
import t, { type Test } from '#tap';
import type { Environment } from '#packages/core/owner.js';
import { assertError, assertOk, balance, balanceTransactions, fund, ledgerOf, mobileMoney, payoutFee, postPayout } from '../../support/payouts.js';
import { confirm, createIntent, mobileMoney as payWith, operatorAnswers, snNumber } from '../../support/payments.js';
import { activateLive, startPaymentsService, type TestService } from '../../support/system.js';
import { CANCEL_URL, createSession, payByMobileMoney, SUCCESS_URL } from '../../support/checkout.js';
import { engine, walletInstruction } from '../../support/payout-engine.js';

const svc: TestService = await startPaymentsService(t);
const OPERATOR = { actor: 'operator:op_risk_1' };
const DAY_MS = 86_400_000;
const owner = (merchantId: string, environment: Environment = 'sandbox') => ({ merchantId, environment });
const limits = () => svc.system.merchantLimits;

/** A sandbox payment of `amount` XOF that succeeds; its intent. */
async function pay(key: string, amount: number) {
  const intent = await createIntent(svc, key, { amount });
  assertOk(t, await confirm(svc, key, intent.id, { payment_method: payWith(snNumber('67')) }));
  await operatorAnswers(svc);
  return intent;
}

/** Every ledger entry of the balance sums to zero, and no account the chart forbids is below zero. */
async function assertBalanced(t: Test, merchantId: string) {
  const { state } = await ledgerOf(svc, merchantId);
  for (const account of ['available', 'pending', 'reserved']) t.ok((state.balances.get(account) ?? 0) >= 0, `${account} is not negative`);
  const entries = await svc.system.store.readStream(`balance-${merchantId}-sandbox-xof`);
  for (const e of entries)
    t.equal(
      (e.data as { lines: { amount: number }[] }).lines.reduce((s, l) => s + l.amount, 0),
      0,
      `${(e.data as { kind: string }).kind} is balanced`,
    );
}

t.test('the per-transaction maximum refuses payments and payouts above it, and passes them at it', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await fund(svc, m.id, 100_000);
  await limits().setAmounts(owner(m.id), { transactionMaximums: { XOF: 5_000 }, dailyPayoutCaps: {} }, OPERATOR);

  const above = await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 5_001, currency: 'xof', transaction_country: 'SN' } });
  assertError(t, above, 'IKW-LIM-003', 'amount');
  t.match(above.body.message, /5000 xof/, 'the message names the maximum');
  t.ok(await createIntent(svc, key, { amount: 5_000 }), 'a payment at the maximum is created');

  const destination = mobileMoney('67');
  assertError(t, await postPayout(svc, key, { amount: 5_001, currency: 'xof', destination }), 'IKW-LIM-003', 'amount');
  assertOk(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination }));

  // A checkout session (and so a payment link's) makes its payment intent as it opens: refused there.
  const session = await svc.request('POST', '/api/v1/checkout/sessions', { key, body: { amount: 5_001, currency: 'XOF', country: 'SN', successUrl: SUCCESS_URL, cancelUrl: CANCEL_URL } });
  assertError(t, session, 'IKW-LIM-003', 'amount');
  const atMaximum = await createSession(svc, key, { amount: 5_000 });
  assertOk(t, await payByMobileMoney(svc, atMaximum.id, snNumber('67')));
  const other = await svc.sandboxMerchant();
  t.ok(await createIntent(svc, other.key, { amount: 50_000 }), "another merchant is not under this one's maximum");
});

t.test('the daily payout cap: at the cap passes, above it refused with Retry-After to 00:00 UTC; the next day starts again', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await fund(svc, m.id, 100_000);
  await limits().setAmounts(owner(m.id), { transactionMaximums: {}, dailyPayoutCaps: { xof: 5_000 } }, OPERATOR);
  const now = svc.clock.now();
  const evening = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 22, 0, 0);
  svc.clock.advance(evening - now.getTime());
  const destination = mobileMoney('67');

  assertOk(t, await postPayout(svc, key, { amount: 3_000, currency: 'xof', destination }));
  const over = await postPayout(svc, key, { amount: 2_001, currency: 'xof', destination });
  assertError(t, over, 'IKW-LIM-004', 'amount');
  t.equal(over.headers.get('retry-after'), String(2 * 3_600), 'Retry-After: the seconds until 00:00 UTC');
  assertOk(t, await postPayout(svc, key, { amount: 2_000, currency: 'xof', destination })); // the day at exactly the cap passes
  assertError(t, await postPayout(svc, key, { amount: 100, currency: 'xof', destination }), 'IKW-LIM-004');
  const payoutsToday = async () => (await svc.request('GET', '/api/v1/limits', { key })).body.payoutsToday;
  t.same(await payoutsToday(), { xof: 5_000 }, "the merchant reads today's payouts as the cap counts them (the refused ones not)");

  svc.clock.advance(2 * 3_600_000);
  t.same(await payoutsToday(), { xof: 0 }, "yesterday's payouts are not today's");
  assertOk(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination })); // at 00:00 UTC the day starts again
  const later = await postPayout(svc, key, { amount: 100, currency: 'xof', destination });
  assertError(t, later, 'IKW-LIM-004');
  t.equal(later.headers.get('retry-after'), String(24 * 3_600));

  await t.test('a failed payout does not count', async (t) => {
    const { merchant: f, key: fk } = await svc.sandboxMerchant();
    await fund(svc, f.id, 100_000);
    await limits().setAmounts(owner(f.id), { transactionMaximums: {}, dailyPayoutCaps: { xof: 5_000 } }, OPERATOR);
    // The sandbox operator refuses payouts to numbers ending in 01 (docs/sandbox-testing.md).
    const failing = await postPayout(svc, fk, { amount: 5_000, currency: 'xof', destination: mobileMoney('01') });
    assertOk(t, failing);
    await operatorAnswers(svc);
    const { state } = await ledgerOf(svc, f.id);
    t.equal(state.posted.has(`payout_release:${failing.body.id}`), true, 'the payout failed and its hold came back');
    t.same((await svc.request('GET', '/api/v1/limits', { key: fk })).body.payoutsToday, { xof: 0 }, "nor in today's payouts the merchant reads");
    assertOk(t, await postPayout(svc, fk, { amount: 5_000, currency: 'xof', destination })); // its amount is free again
  });
});

t.test('payouts racing for the last of the day: exactly as many pass as the cap allows', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await fund(svc, m.id, 100_000);
  await limits().setAmounts(owner(m.id), { transactionMaximums: {}, dailyPayoutCaps: { xof: 1_000 } }, OPERATOR);
  const destination = mobileMoney('67');
  const two = await Promise.all([1, 2].map(() => postPayout(svc, key, { amount: 600, currency: 'xof', destination })));
  t.same(two.map((a) => a.status).sort(), [200, 422], 'two payouts of 600 at a cap of 1000: exactly one passes');
  assertError(
    t,
    two.find((a) => a.status !== 200)!,
    'IKW-LIM-004',
  );

  const { merchant: n, key: nk } = await svc.sandboxMerchant();
  await fund(svc, n.id, 100_000);
  await limits().setAmounts(owner(n.id), { transactionMaximums: {}, dailyPayoutCaps: { xof: 3_000 } }, OPERATOR);
  const ten = await Promise.all(Array.from({ length: 10 }, () => postPayout(svc, nk, { amount: 1_000, currency: 'xof', destination })));
  t.equal(ten.filter((a) => a.status === 200).length, 3, 'ten payouts of 1000 at a cap of 3000: three pass');
  t.ok(
    ten.filter((a) => a.status !== 200).every((a) => a.body.code === 'IKW-LIM-004'),
    'the others are over the cap',
  );
  t.same(await balance(svc, nk), { available: 100_000 - 3 * (1_000 + payoutFee(1_000, destination)), pending: 0, reserved: 3 * (1_000 + payoutFee(1_000, destination)) });
});

t.test('a payout freeze refuses payouts with its reason; payments are still taken; unfrozen, payouts pass', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await fund(svc, m.id, 100_000);
  await limits().setAmounts(owner(m.id), { transactionMaximums: { xof: 500_000 }, dailyPayoutCaps: { xof: 2_000_000 } }, OPERATOR);
  await limits().setReserve(owner(m.id), { percent: 5, days: 90 }, OPERATOR);
  await limits().freezePayouts(owner(m.id), 'Unusual refund rate under review', OPERATOR);
  const destination = mobileMoney('67');
  const frozen = await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination });
  assertError(t, frozen, 'IKW-LIM-005', 'amount');
  t.match(frozen.body.message, /Unusual refund rate under review/, 'the merchant reads the reason');
  const dashboard = await svc.request('POST', '/api/v1/merchant/payouts', { key, body: { amount: 1_000, currency: 'xof', destination } });
  assertError(t, dashboard, 'IKW-LIM-005');

  const intent = await pay(key, 10_000);
  const paid = await svc.request('GET', `/api/v1/payment-intents/${intent.id}`, { key });
  t.equal(paid.body.status, 'succeeded', 'a payment is still taken');

  const shown = await svc.request('GET', '/api/v1/limits', { key });
  assertOk(t, shown);
  t.equal(shown.body.payoutFreeze.reason, 'Unusual refund rate under review');
  t.type(shown.body.payoutFreeze.since, 'number');

  const other = await svc.sandboxMerchant();
  await fund(svc, other.merchant.id, 10_000);
  assertOk(t, await postPayout(svc, other.key, { amount: 1_000, currency: 'xof', destination })); // another merchant's payouts are not frozen
  const theirs = await svc.request('GET', '/api/v1/limits', { key: other.key });
  t.same({ freeze: theirs.body.payoutFreeze, maximums: theirs.body.transactionMaximums, merchant: theirs.body.merchantId }, { freeze: null, maximums: {}, merchant: other.merchant.id }, "and do not see this one's limits");

  await limits().unfreezePayouts(owner(m.id), OPERATOR);
  assertOk(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination })); // unfrozen, payouts pass

  const events = await svc.system.store.readStream(`merchant_limits-${m.id}-sandbox`);
  t.same(
    events.map((e) => [e.type, e.metadata.actor]),
    [
      ['merchant_limits.amounts_set', 'operator:op_risk_1'],
      ['merchant_limits.reserve_set', 'operator:op_risk_1'],
      ['merchant_limits.payouts_frozen', 'operator:op_risk_1'],
      ['merchant_limits.payouts_unfrozen', 'operator:op_risk_1'],
    ],
    'every decision is an event with its operator as actor',
  );
});

t.test('a payout batch is decided at its execution: frozen, refused', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await fund(svc, m.id, 100_000);
  const created = await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(1_000), walletInstruction(2_000, '68')] });
  assertOk(t, created);
  await limits().freezePayouts(owner(m.id), 'Documents expired', OPERATOR);
  assertError(t, await engine(svc, key, 'POST', `/batches/${created.body.id}/execute`), 'IKW-LIM-005');
  t.same(await balance(svc, key), { available: 100_000, pending: 0, reserved: 0 }, 'nothing held');
  await limits().unfreezePayouts(owner(m.id), OPERATOR);
  await limits().setAmounts(owner(m.id), { transactionMaximums: { xof: 1_999 }, dailyPayoutCaps: {} }, OPERATOR);
  assertError(t, await engine(svc, key, 'POST', `/batches/${created.body.id}/execute`), 'IKW-LIM-003', 'amount');
  await limits().setAmounts(owner(m.id), { transactionMaximums: {}, dailyPayoutCaps: { xof: 2_999 } }, OPERATOR);
  assertError(t, await engine(svc, key, 'POST', `/batches/${created.body.id}/execute`), 'IKW-LIM-004');
  await limits().setAmounts(owner(m.id), { transactionMaximums: { xof: 2_000 }, dailyPayoutCaps: { xof: 3_000 } }, OPERATOR);
  assertOk(t, await engine(svc, key, 'POST', `/batches/${created.body.id}/execute`)); // at the maximum and the cap, executed
  await operatorAnswers(svc);
  assertError(t, await postPayout(svc, key, { amount: 100, currency: 'xof', destination: mobileMoney('67') }), 'IKW-LIM-004', 'amount');
});

t.test('the rolling reserve: held on the payment, shown with its release date, released by the job after N days', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await limits().setReserve(owner(m.id), { percent: 10, days: 30 }, OPERATOR);
  const paidAt = svc.clock.now().getTime();
  const intent = await pay(key, 10_000);
  const fee = (await svc.request('GET', `/api/v1/payment-intents/${intent.id}`, { key })).body.fee ?? null;
  const { state } = await ledgerOf(svc, m.id);
  const net = (state.balances.get('available') ?? 0) + (state.balances.get('reserved') ?? 0) + (state.balances.get('pending') ?? 0);
  const reserve = Math.floor(net / 10);
  t.ok(reserve > 0, `a reserve of ${reserve} (net ${net}${fee === null ? '' : `, fee ${fee}`})`);
  t.same(await balance(svc, key), { available: net - reserve, pending: 0, reserved: reserve }, "the balance's reserved holds it");

  const holds = await balanceTransactions(svc, key, '?type=reserve_hold');
  t.equal(holds.length, 1);
  t.equal(holds[0]!.source, intent.id, 'its source is the payment');
  t.equal(holds[0]!.net, -reserve);
  t.equal(holds[0]!.status, 'pending');
  const releaseOn = holds[0]!.available_on;
  t.ok(Math.abs(releaseOn - Math.floor((paidAt + 30 * DAY_MS) / 1000)) <= 10, 'its available_on is the release date, 30 days after the payment');
  const shown = await svc.request('GET', '/api/v1/limits', { key });
  t.same(shown.body.rollingReserve, { percent: 10, days: 30 });
  t.same(shown.body.reservesHeld.totals, { xof: reserve }, 'the merchant reads the reserve held');
  t.match(shown.body.reservesHeld.soonest, [{ paymentIntent: intent.id, amount: reserve, currency: 'xof' }]);
  t.equal(Math.floor(Date.parse(shown.body.reservesHeld.soonest[0].releasesAt) / 1000), releaseOn, "with its release date, the hold's available_on");
  t.same(shown.body.payoutsToday, {}, 'no daily cap: no payouts counted');
  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean with the reserve held');
  await assertBalanced(t, m.id);

  await operatorAnswers(svc, 29 * DAY_MS);
  t.equal((await balance(svc, key)).reserved, reserve, 'still held the day before');
  await operatorAnswers(svc, 2 * DAY_MS);
  t.same(await balance(svc, key), { available: net, pending: 0, reserved: 0 }, 'released to available by the job');
  const released = await balanceTransactions(svc, key, '?type=reserve_release');
  t.equal(released.length, 1);
  t.equal(released[0]!.net, reserve);
  t.equal((await balanceTransactions(svc, key, '?type=reserve_hold'))[0]!.status, 'available', 'the hold reads released');
  t.same((await svc.request('GET', '/api/v1/limits', { key })).body.reservesHeld, { totals: {}, soonest: [] }, 'released: no longer held');
  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean once released');
  await assertBalanced(t, m.id);
});

t.test('a refund of a reserved payment spends its reserve first: nothing held twice, nothing negative', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await limits().setReserve(owner(m.id), { percent: 50, days: 30 }, OPERATOR);
  const intent = await pay(key, 10_000);
  const { state } = await ledgerOf(svc, m.id);
  const reserve = state.balances.get('reserved') ?? 0;
  const available = state.balances.get('available') ?? 0;
  t.ok(reserve > 0 && available > 0);
  // More than what is available, less than what the payment left: only with its reserve.
  const amount = available + 1;
  const refund = await svc.request('POST', `/api/v1/merchant/payments/${intent.id}/refund`, { key, body: { amount } });
  assertOk(t, refund);
  t.equal(refund.body.status, 'succeeded', `refunded ${amount} of a payment whose ${reserve} was reserved`);
  t.same(await balance(svc, key), { available: available + reserve - amount, pending: 0, reserved: 0 }, 'the reserve came back and paid for the refund');
  const releases = await balanceTransactions(svc, key, '?type=reserve_release');
  t.equal(releases.length, 1, 'one release, with the refund');

  await operatorAnswers(svc, 31 * DAY_MS);
  t.same(await balance(svc, key), { available: available + reserve - amount, pending: 0, reserved: 0 }, 'the release date releases nothing more');
  t.equal((await balanceTransactions(svc, key, '?type=reserve_release')).length, 1);
  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean');
  await assertBalanced(t, m.id);
});

t.test('sandbox and live are apart', async (t) => {
  const m = await svc.merchant();
  await activateLive(svc, m.id);
  await limits().setAmounts(owner(m.id, 'live'), { transactionMaximums: { xof: 1_000 }, dailyPayoutCaps: {} }, OPERATOR);
  await limits().setReserve(owner(m.id, 'sandbox'), { percent: 5, days: 7 }, OPERATOR);
  const live = await svc.request('POST', '/api/v1/payment-intents', {
    key: m.api_keys.live,
    headers: { 'idempotency-key': 'live-1' },
    body: { amount: 1_001, currency: 'xof', transaction_country: 'SN' },
  });
  assertError(t, live, 'IKW-LIM-003');
  t.ok(await createIntent(svc, m.api_keys.sandbox, { amount: 1_001 }), "live's maximum does not apply to sandbox");
  const liveLimits = await svc.request('GET', '/api/v1/limits', { key: m.api_keys.live });
  const sandboxLimits = await svc.request('GET', '/api/v1/limits', { key: m.api_keys.sandbox });
  t.same([liveLimits.body.environment, liveLimits.body.transactionMaximums, liveLimits.body.rollingReserve], ['live', { xof: 1_000 }, null]);
  t.same([sandboxLimits.body.environment, sandboxLimits.body.transactionMaximums, sandboxLimits.body.rollingReserve], ['sandbox', {}, { percent: 5, days: 7 }]);
});

t.test('the use cases refuse limits that are not', async (t) => {
  const m = await svc.merchant();
  const refused = async (what: string, run: () => Promise<unknown>) => {
    await t.rejects(run(), { code: 'IKW-LIM-006' }, what);
  };
  await refused('a negative maximum', () => limits().setAmounts(owner(m.id), { transactionMaximums: { xof: -1 }, dailyPayoutCaps: {} }, OPERATOR));
  await refused('an unknown currency', () => limits().setAmounts(owner(m.id), { transactionMaximums: {}, dailyPayoutCaps: { zzz: 10 } }, OPERATOR));
  await refused('a reserve over 100 %', () => limits().setReserve(owner(m.id), { percent: 101, days: 7 }, OPERATOR));
  await refused('a reserve of no days', () => limits().setReserve(owner(m.id), { percent: 5, days: 0 }, OPERATOR));
  await refused('a freeze without a reason', () => limits().freezePayouts(owner(m.id), '  ', OPERATOR));
});
