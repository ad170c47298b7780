/**
 * Payouts to marketplace sellers through the real server: an ordinary payout (`po_…`) whose amount
 * and fee are held from the seller's available funds, paid to clearing and fees, or given back to
 * the seller when it fails; never more than the seller has, even in parallel; the merchant's own
 * balance untouched; another merchant's seller or payout is 404; an Idempotency-Key pays once.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { createOrder, createSeller, mkt, payOrder } from '../../support/marketplace.js';
import { mobileMoney } from '../../support/payouts.js';
import { advance, startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const other = await svc.sandboxMerchant('Other');

/** A merchant with a seller holding `amount` available (paid, then settled at once). */
async function sellerWithFunds(sellerId: string, amount: number) {
  const { key } = await svc.sandboxMerchant(`Platform ${sellerId}`);
  const seller = await createSeller(svc, key, sellerId, { settlementMode: 'rolling', settlementDelayDays: 0 });
  await payOrder(svc, key, await createOrder(svc, key, [{ sellerId, amountMinor: amount }]));
  const run = await mkt(svc, key, 'POST', '/settlements/process-due', {});
  if (run.body.settledCount !== 1) throw new Error(`settlement failed: ${run.text}`);
  return { key, seller };
}

const balanceOf = async (key: string, id: string) => (await mkt(svc, key, 'GET', `/sellers/${id}/balance`)).body.balances[0];

t.test('a payout to a seller is held from their funds, then paid', async (t) => {
  const { key, seller } = await sellerWithFunds('payee', 50_000);
  const res = await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 20_000, currency: 'xof', destination: mobileMoney('67'), metadata: { note: 'week 1' } });
  assertOk(t, res, 201);
  const payout = res.body;
  t.match(payout, { object: 'marketplace_payout', sellerId: 'payee', amountMinor: 20_000, currency: 'xof', livemode: false, metadata: { note: 'week 1', marketplace_seller: 'payee' } });
  t.match(payout.id, /^po_/);
  t.ok(payout.feeMinor > 0, 'a payout fee');
  t.same(await balanceOf(key, seller.id), { currency: 'xof', pendingMinor: 0, availableMinor: 30_000 - payout.feeMinor }, 'amount + fee held');

  await advance(svc);
  await advance(svc);
  const paid = await mkt(svc, key, 'GET', `/payouts/${payout.id}`);
  t.equal(paid.body.status, 'paid');
  const asPayout = await svc.request('GET', `/api/v1/payouts/${payout.id}`, { key, headers: { 'x-environment': 'sandbox' } });
  t.match(asPayout.body, { object: 'payout', status: 'paid', amount: 20_000 }, 'an ordinary payout too');
  t.same(await balanceOf(key, seller.id), { currency: 'xof', pendingMinor: 0, availableMinor: 30_000 - payout.feeMinor });
  const merchant = await svc.request('GET', '/api/v1/balance', { key });
  t.notOk(
    merchant.body.available.some((b: { amount: number }) => b.amount !== 0),
    'the merchant’s own balance is untouched',
  );
  t.same(merchant.body.seller_funds, [{ currency: 'xof', pending: 0, available: 30_000 - payout.feeMinor }]);

  const list = await mkt(svc, key, 'GET', '/payouts?sellerId=payee&status=paid');
  t.same(
    list.body.data.map((p: { id: string }) => p.id),
    [payout.id],
  );
  assertError(t, await mkt(svc, other.key, 'GET', `/payouts/${payout.id}`), 'IKW-RES-001');
  assertError(t, await mkt(svc, other.key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 1, currency: 'xof', destination: mobileMoney() }), 'IKW-RES-001', 'id');
  t.same((await mkt(svc, other.key, 'GET', '/payouts')).body.data, []);
});

t.test('a failed payout gives the funds back to the seller', async (t) => {
  const { key, seller } = await sellerWithFunds('bounced', 10_000);
  const res = await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 5_000, currency: 'xof', destination: mobileMoney('01') });
  assertOk(t, res, 201);
  await advance(svc);
  await advance(svc);
  const failed = (await mkt(svc, key, 'GET', `/payouts/${res.body.id}`)).body;
  t.match(failed, { status: 'failed', failureCode: 'recipient_not_found' });
  t.same(await balanceOf(key, seller.id), { currency: 'xof', pendingMinor: 0, availableMinor: 10_000 }, 'all of it back');
  // No read can show the payout failed and the seller's money not back: one commit.
  const rows: { type: string; transaction_id: string }[] = await svc.system
    .knex('events')
    .select('type', 'transaction_id')
    .where({ stream_id: `payout-${res.body.id}`, type: 'payout.failed' })
    .unionAll((q) => {
      q.select('type', 'transaction_id').from('events').where('stream_id', 'like', 'balance-%').whereRaw("data->>'source' = ? and data->>'kind' = 'seller_payout_release'", [res.body.id]);
    });
  t.equal(rows.length, 2, 'the failure and the give-back');
  t.equal(rows[0]!.transaction_id, rows[1]!.transaction_id, 'in one commit');
});

t.test('refusals: more than the seller has, unknown seller, bad bodies', async (t) => {
  const { key, seller } = await sellerWithFunds('short', 1_000);
  assertError(t, await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 1_000, currency: 'xof', destination: mobileMoney() }), 'IKW-MKT-007', 'amountMinor');
  assertError(t, await mkt(svc, key, 'POST', '/sellers/0190e0a0-0000-7000-8000-000000000000/payouts', { amountMinor: 1, currency: 'xof', destination: mobileMoney() }), 'IKW-RES-001', 'id');
  assertError(t, await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 100, currency: 'xof' }), 'IKW-PAY-001', 'destination');
  assertError(t, await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 0, currency: 'xof', destination: mobileMoney() }), 'IKW-VAL-001', 'amountMinor');
  assertError(t, await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 100, currency: 'xof', destination: mobileMoney(), amount: 5 }), 'IKW-VAL-002', 'amount');
  t.same(await balanceOf(key, seller.id), { currency: 'xof', pendingMinor: 0, availableMinor: 1_000 }, 'nothing held by a refusal');
});

t.test('an Idempotency-Key pays once', async (t) => {
  const { key, seller } = await sellerWithFunds('once', 10_000);
  const body = { amountMinor: 2_000, currency: 'xof', destination: mobileMoney() };
  const a = await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, body, 'pay-once');
  const b = await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, body, 'pay-once');
  assertOk(t, b, 201);
  t.equal(b.body.id, a.body.id);
  t.equal((await mkt(svc, key, 'GET', '/payouts?sellerId=once')).body.data.length, 1);
});

t.test('parallel payouts of one seller never take more than the seller has', async (t) => {
  const { key, seller } = await sellerWithFunds('racer', 10_000);
  const answers = await Promise.all(Array.from({ length: 12 }, () => mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 1_500, currency: 'xof', destination: mobileMoney() })));
  const ok = answers.filter((r) => r.status === 201);
  for (const r of answers) if (r.status !== 201) assertError(t, r, 'IKW-MKT-007', 'amountMinor');
  const fee = ok[0]!.body.feeMinor as number;
  t.equal(ok.length, Math.floor(10_000 / (1_500 + fee)), 'as many as the funds cover');
  t.same(await balanceOf(key, seller.id), { currency: 'xof', pendingMinor: 0, availableMinor: 10_000 - ok.length * (1_500 + fee) });
});
