/**
 * The marketplace through the real server: commission rules, sellers, orders paid by one payment
 * intent and split among sellers and commission, refunds in proportion, settlements by each
 * seller's mode and delay, balances; every refusal, another merchant's objects as 404, and replays.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { createOrder, createRule, createSeller, mkt, payOrder } from '../../support/marketplace.js';
import { advance, loseAnswerInCrash, startPaymentsService } from '../../support/system.js';
import { paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';
import { orderStream } from '#packages/families/marketplace/marketplace-order/events.js';
import { listeningEndpoint, settle, startWebhookService, verify } from '../../support/webhooks.js';

const svc = await startPaymentsService(t);
const { key } = await svc.sandboxMerchant();
const other = await svc.sandboxMerchant('Other');
const DAY = 86_400_000;

t.test('commission rules: create, retrieve, list, update', async (t) => {
  const res = await mkt(svc, key, 'POST', '/commission-rules', { name: 'Ten percent', percentBasisPoints: 1000, fixedFeeMinor: 50, currency: 'XOF' });
  assertOk(t, res);
  t.match(res.body, { object: 'marketplace_commission_rule', name: 'Ten percent', percentBasisPoints: 1000, fixedFeeMinor: 50, currency: 'xof', isActive: true, status: 'active', livemode: false });
  t.match(res.body.id, /^[0-9a-f-]{36}$/);
  const got = await mkt(svc, key, 'GET', `/commission-rules/${res.body.id}`);
  assertOk(t, got);
  t.same(got.body, res.body);

  const patched = await mkt(svc, key, 'PATCH', `/commission-rules/${res.body.id}`, { percentBasisPoints: 500, isActive: false });
  assertOk(t, patched);
  t.match(patched.body, { percentBasisPoints: 500, fixedFeeMinor: 50, isActive: false, status: 'inactive' });
  const inactive = await mkt(svc, key, 'GET', '/commission-rules?status=inactive');
  t.same(
    inactive.body.data.map((r: { id: string }) => r.id),
    [res.body.id],
  );
  const list = await mkt(svc, key, 'GET', '/commission-rules?currency=XOF');
  t.ok(list.body.data.some((r: { id: string }) => r.id === res.body.id));

  assertError(t, await mkt(svc, key, 'POST', '/commission-rules', { name: 'x', currency: 'xof', percentBasisPoints: 10_001 }), 'IKW-VAL-001', 'percentBasisPoints');
  assertError(t, await mkt(svc, key, 'POST', '/commission-rules', { name: 'x', currency: 'zzz' }), 'IKW-VAL-003', 'currency');
  assertError(t, await mkt(svc, key, 'POST', '/commission-rules', { currency: 'xof' }), 'IKW-VAL-001', 'name');
  assertError(t, await mkt(svc, key, 'POST', '/commission-rules', { name: 'x'.repeat(257), currency: 'xof' }), 'IKW-VAL-001', 'name');
  assertError(t, await mkt(svc, key, 'PATCH', `/commission-rules/${res.body.id}`, {}), 'IKW-VAL-001');
  assertError(t, await mkt(svc, key, 'PATCH', `/commission-rules/${res.body.id}`, { currency: 'ghs' }), 'IKW-VAL-002', 'currency');
  assertError(t, await mkt(svc, other.key, 'GET', `/commission-rules/${res.body.id}`), 'IKW-RES-001');
  assertError(t, await mkt(svc, other.key, 'PATCH', `/commission-rules/${res.body.id}`, { isActive: true }), 'IKW-RES-001', 'id');
  t.notOk((await mkt(svc, other.key, 'GET', '/commission-rules')).body.data.some((r: { id: string }) => r.id === res.body.id));
});

t.test('commission rules: an Idempotency-Key creates one rule', async (t) => {
  const body = { name: 'Once', percentBasisPoints: 250, currency: 'xof' };
  const [a, b] = await Promise.all([mkt(svc, key, 'POST', '/commission-rules', body, 'rule-once'), mkt(svc, key, 'POST', '/commission-rules', body, 'rule-once')]);
  const ok = [a, b].filter((r) => r.status === 200);
  t.ok(ok.length >= 1);
  const again = await mkt(svc, key, 'POST', '/commission-rules', body, 'rule-once');
  assertOk(t, again);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  for (const r of ok) t.equal(r.body.id, again.body.id);
  const all = await mkt(svc, key, 'GET', '/commission-rules?limit=100');
  t.equal(all.body.data.filter((r: { name: string }) => r.name === 'Once').length, 1);
});

t.test('sellers: create, retrieve, list, settlement schedule; one sellerId is one seller', async (t) => {
  const res = await mkt(svc, key, 'POST', '/sellers', { sellerId: 'shop-1', displayName: 'Boutique Awa' });
  assertOk(t, res, 201);
  t.match(res.body, { object: 'marketplace_seller', sellerId: 'shop-1', displayName: 'Boutique Awa', settlementMode: 'rolling', settlementDelayDays: 7, livemode: false });
  assertOk(t, await mkt(svc, key, 'GET', `/sellers/${res.body.id}`));
  assertError(t, await mkt(svc, key, 'POST', '/sellers', { sellerId: 'shop-1', displayName: 'Again' }), 'IKW-MKT-001', 'sellerId');
  assertOk(t, await mkt(svc, other.key, 'POST', '/sellers', { sellerId: 'shop-1', displayName: 'Theirs' }), 201);

  const changed = await mkt(svc, key, 'POST', `/sellers/${res.body.id}/settlement`, { settlementMode: 'weekly', settlementDelayDays: 2 });
  assertOk(t, changed);
  t.match(changed.body, { settlementMode: 'weekly', settlementDelayDays: 2 });
  const weekly = await mkt(svc, key, 'GET', '/sellers?settlementMode=weekly');
  t.same(
    weekly.body.data.map((s: { id: string }) => s.id),
    [res.body.id],
  );

  assertError(t, await mkt(svc, key, 'POST', '/sellers', { sellerId: 'x', displayName: 'y', settlementMode: 'hourly' }), 'IKW-VAL-001', 'settlementMode');
  assertError(t, await mkt(svc, key, 'POST', '/sellers', { sellerId: 'x', displayName: 'y', settlementDelayDays: -1 }), 'IKW-VAL-001', 'settlementDelayDays');
  assertError(t, await mkt(svc, key, 'POST', '/sellers', { displayName: 'y' }), 'IKW-VAL-001', 'sellerId');
  assertError(t, await mkt(svc, key, 'POST', '/sellers', { sellerId: 'x', displayName: 'd'.repeat(257) }), 'IKW-VAL-001', 'displayName');
  assertError(t, await mkt(svc, key, 'POST', '/sellers', { sellerId: 'has space', displayName: 'y' }), 'IKW-VAL-001', 'sellerId');
  assertOk(t, await mkt(svc, key, 'POST', '/sellers', { sellerId: 'long-name', displayName: 'd'.repeat(256) }), 201);
  assertError(t, await mkt(svc, key, 'POST', `/sellers/${res.body.id}/settlement`, {}), 'IKW-VAL-001');
  assertError(t, await mkt(svc, other.key, 'GET', `/sellers/${res.body.id}`), 'IKW-RES-001');
  assertError(t, await mkt(svc, other.key, 'POST', `/sellers/${res.body.id}/settlement`, { settlementMode: 'manual' }), 'IKW-RES-001', 'id');
  assertError(t, await mkt(svc, other.key, 'GET', `/sellers/${res.body.id}/balance`), 'IKW-RES-001');
});

t.test('an order is paid by one intent, then split: Σ shares + commission = amount paid', async (t) => {
  const rule = await createRule(svc, key, { percentBasisPoints: 1000, fixedFeeMinor: 25 });
  const a = await createSeller(svc, key, 'split-a');
  await createSeller(svc, key, 'split-b');
  const res = await mkt(svc, key, 'POST', '/orders', {
    currency: 'XOF',
    transactionCountry: 'sn',
    buyerName: 'Fatou',
    buyerEmail: 'fatou@example.com',
    lines: [
      { sellerId: 'split-a', amountMinor: 10_005, commissionRuleId: rule.id, description: 'Basket' },
      { sellerId: 'split-b', amountMinor: 3_000 },
      { sellerId: 'split-a', amountMinor: 1_000, commissionRuleId: rule.id },
    ],
  });
  assertOk(t, res, 201);
  const order = res.body;
  // 10% of 10,005 = 1,000.5 → 1,001 (half up) + 25; 10% of 1,000 = 100 + 25.
  t.match(order, { object: 'marketplace_order', status: 'requires_payment', currency: 'xof', transactionCountry: 'SN', amountMinor: 14_005, commissionMinor: 1_151, refundedMinor: 0, buyerName: 'Fatou', processingFeeMinor: null });
  t.same(order.sellerShares, [
    { sellerId: 'split-a', amountMinor: 11_005 - 1_151 },
    { sellerId: 'split-b', amountMinor: 3_000 },
  ]);
  const intent = await svc.request('GET', `/api/v1/payment-intents/${order.paymentIntentId}`, { key });
  t.match(intent.body, { amount: 14_005, currency: 'xof', status: 'requires_payment_method' });
  t.same(intent.body.metadata, {}, 'the platform key is not shown');

  const paid = await payOrder(svc, key, order);
  t.equal(paid.status, 'paid');
  t.ok(paid.processingFeeMinor > 0, 'the processing fee is recorded');
  const balance = await mkt(svc, key, 'GET', `/sellers/${a.id}/balance`);
  assertOk(t, balance);
  t.same(balance.body.balances, [{ currency: 'xof', pendingMinor: 9_854, availableMinor: 0 }]);
  const merchant = await svc.request('GET', '/api/v1/balance', { key });
  t.notOk(
    merchant.body.available.some((b: { amount: number }) => b.amount > 0),
    'the merchant’s own balance is not credited',
  );
  t.same(merchant.body.seller_funds, [{ currency: 'xof', pending: 12_854, available: 0 }], 'the sellers’ funds are shown apart');
  const before = await svc.request('GET', `/api/v1/balance?as_of=${order.created - 1}`, { key });
  t.notOk('seller_funds' in before.body, 'as_of: as they stood then (none)');
  const theirs = await svc.request('GET', '/api/v1/balance', { key: other.key });
  t.notOk('seller_funds' in theirs.body, 'another merchant: none');
  const totals = await mkt(svc, key, 'GET', '/balance');
  t.same(totals.body.balances, [{ currency: 'xof', sellerPendingMinor: 12_854, sellerAvailableMinor: 0, commissionMinor: 1_151 - paid.processingFeeMinor }]);
});

t.test("an order's payment, the order paid and the sellers' split are one commit", async (t) => {
  await createSeller(svc, key, 'commit-a');
  const order = await createOrder(svc, key, [{ sellerId: 'commit-a', amountMinor: 4_000 }]);
  t.equal((await payOrder(svc, key, order)).status, 'paid');
  const rows: { stream_id: string; type: string; data: { orderId?: string }; transaction_id: string }[] = await svc.system
    .knex('events')
    .select('stream_id', 'type', 'data', 'transaction_id')
    .whereIn('stream_id', [paymentIntentStream(order.paymentIntentId), orderStream(order.id)])
    .orWhere((q) => {
      q.where('stream_id', 'like', 'balance-%').whereRaw("data->>'kind' = 'order_payment' and data->>'orderId' = ?", [order.id]);
    });
  const of = (type: string) => rows.filter((r) => r.type === type).map((r) => r.transaction_id);
  t.equal(of('payment_intent.succeeded').length, 1);
  t.same(of('marketplace_order.paid'), of('payment_intent.succeeded'), 'the order is paid in the commit of the success');
  t.same(of('ledger.entry_posted'), of('payment_intent.succeeded'), "and the sellers' split on the ledger too");
});

t.test('orders: each refusal names its field', async (t) => {
  const rule = await createRule(svc, key);
  const inactive = await createRule(svc, key, { isActive: false });
  const ghs = await createRule(svc, key, { currency: 'ghs' });
  await createSeller(svc, key, 'refuse-a');
  const line = { sellerId: 'refuse-a', amountMinor: 1_000 };
  const order = (lines: unknown[], extra: Record<string, unknown> = {}) => mkt(svc, key, 'POST', '/orders', { currency: 'xof', transactionCountry: 'SN', lines, ...extra });
  assertError(t, await order([{ sellerId: 'nobody', amountMinor: 1 }]), 'IKW-MKT-002', 'lines.0.sellerId');
  assertError(t, await order([line, { ...line, commissionRuleId: inactive.id }]), 'IKW-MKT-003', 'lines.1.commissionRuleId');
  assertError(t, await order([{ ...line, commissionRuleId: ghs.id }]), 'IKW-MKT-003', 'lines.0.commissionRuleId');
  assertError(t, await order([{ ...line, commissionRuleId: '0190e0a0-0000-7000-8000-000000000000' }]), 'IKW-MKT-003', 'lines.0.commissionRuleId');
  assertError(t, await order([{ ...line, commissionRuleId: 'nope' }]), 'IKW-VAL-001', 'lines.0.commissionRuleId');
  assertError(t, await order([]), 'IKW-VAL-001', 'lines');
  assertError(t, await order([{ ...line, amountMinor: 0 }]), 'IKW-VAL-001', 'lines.0.amountMinor');
  assertError(t, await order([line], { currency: 'ghs' }), 'IKW-VAL-009', 'currency');
  assertError(t, await order([line], { transactionCountry: 'ZZ' }), 'IKW-VAL-004', 'transactionCountry');
  assertError(t, await order([line], { idempotencyKey: 'k'.repeat(65) }), 'IKW-VAL-001', 'idempotencyKey');
  assertError(t, await order([line], { buyerEmail: 'not-mail' }), 'IKW-VAL-001', 'buyerEmail');
  assertError(t, await order([line], { buyerName: 'b'.repeat(257) }), 'IKW-VAL-001', 'buyerName');
  assertError(t, await order([line], { currency: 'xofx' }), 'IKW-VAL-001', 'currency');
  assertError(t, await order([line], { transactionCountry: 'SEN' }), 'IKW-VAL-001', 'transactionCountry');
  assertOk(t, await order([line], { idempotencyKey: 'k'.repeat(64), buyerName: 'b'.repeat(256) }), 201);
  assertError(t, await order([line], { surprise: true }), 'IKW-VAL-002', 'surprise');
  const ok = await order([{ ...line, commissionRuleId: rule.id }], { buyerName: null, idempotencyKey: null });
  assertOk(t, ok, 201);
  t.equal(ok.body.buyerName, null);
});

t.test('orders: the body idempotencyKey and the Idempotency-Key header each make one order', async (t) => {
  await createSeller(svc, key, 'idem-a');
  const body = { currency: 'xof', transactionCountry: 'SN', idempotencyKey: 'cart-42', lines: [{ sellerId: 'idem-a', amountMinor: 500 }] };
  const first = await mkt(svc, key, 'POST', '/orders', body);
  const second = await mkt(svc, key, 'POST', '/orders', body);
  t.equal(second.body.id, first.body.id);
  t.equal(second.body.paymentIntentId, first.body.paymentIntentId);
  const noKey = { ...body, idempotencyKey: undefined };
  const h1 = await mkt(svc, key, 'POST', '/orders', noKey, 'hdr-1');
  const h2 = await mkt(svc, key, 'POST', '/orders', noKey, 'hdr-1');
  t.equal(h2.body.id, h1.body.id);
  t.equal(h2.headers.get('idempotent-replayed'), 'true');
  const theirs = await mkt(svc, other.key, 'POST', '/orders', body);
  assertError(t, theirs, 'IKW-MKT-002', 'lines.0.sellerId');
});

t.test('orders: retrieve, list, cancel; another merchant’s order is 404', async (t) => {
  await createSeller(svc, key, 'cancel-a');
  const order = await createOrder(svc, key, [{ sellerId: 'cancel-a', amountMinor: 700 }]);
  assertOk(t, await mkt(svc, key, 'GET', `/orders/${order.id}`));
  assertError(t, await mkt(svc, other.key, 'GET', `/orders/${order.id}`), 'IKW-RES-001');
  assertError(t, await mkt(svc, other.key, 'POST', `/orders/${order.id}/cancel`), 'IKW-RES-001', 'id');
  const canceled = await mkt(svc, key, 'POST', `/orders/${order.id}/cancel`);
  assertOk(t, canceled);
  t.equal(canceled.body.status, 'canceled');
  const intent = await svc.request('GET', `/api/v1/payment-intents/${order.paymentIntentId}`, { key });
  t.equal(intent.body.status, 'canceled', 'its payment intent is canceled too');
  const list = await mkt(svc, key, 'GET', '/orders?status=canceled');
  t.same(
    list.body.data.map((o: { id: string }) => o.id),
    [order.id],
  );
  assertError(t, await mkt(svc, key, 'POST', '/refunds', { orderId: order.id }), 'IKW-MKT-004', 'orderId');

  const paid = await payOrder(svc, key, await createOrder(svc, key, [{ sellerId: 'cancel-a', amountMinor: 700 }]));
  assertError(t, await mkt(svc, key, 'POST', `/orders/${paid.id}/cancel`), 'IKW-MKT-004', 'id');
});

t.test('refunds reverse the shares and the commission in proportion, never beyond the amount paid', async (t) => {
  const rule = await createRule(svc, key, { percentBasisPoints: 2000 });
  const a = await createSeller(svc, key, 'refund-a');
  const b = await createSeller(svc, key, 'refund-b');
  const order = await payOrder(
    svc,
    key,
    await createOrder(svc, key, [
      { sellerId: 'refund-a', amountMinor: 6_000, commissionRuleId: rule.id },
      { sellerId: 'refund-b', amountMinor: 4_000, commissionRuleId: rule.id },
    ]),
  );
  // Shares 4,800 and 3,200, commission 2,000: a tenth of each.
  const res = await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 1_000, reason: 'Damaged' });
  assertOk(t, res, 201);
  t.match(res.body, { object: 'marketplace_refund', orderId: order.id, amountMinor: 1_000, currency: 'xof', reason: 'Damaged', status: 'succeeded', commissionReversedMinor: 200 });
  t.same(res.body.sellerReversals, [
    { sellerId: 'refund-a', amountMinor: 480, fromPendingMinor: 480 },
    { sellerId: 'refund-b', amountMinor: 320, fromPendingMinor: 320 },
  ]);
  t.same((await mkt(svc, key, 'GET', `/refunds/${res.body.id}`)).body, res.body);
  t.equal((await mkt(svc, key, 'GET', `/orders/${order.id}`)).body.status, 'partially_refunded');

  assertError(t, await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 9_001 }), 'IKW-MKT-005', 'amountMinor');
  const rest = await mkt(svc, key, 'POST', '/refunds', { orderId: order.id });
  assertOk(t, rest, 201);
  t.equal(rest.body.amountMinor, 9_000, 'no amount: what remains');
  t.equal((await mkt(svc, key, 'GET', `/orders/${order.id}`)).body.status, 'refunded');
  for (const s of [a, b]) t.same((await mkt(svc, key, 'GET', `/sellers/${s.id}/balance`)).body.balances, [{ currency: 'xof', pendingMinor: 0, availableMinor: 0 }]);
  assertError(t, await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 1 }), 'IKW-MKT-004', 'orderId');

  const asPayment = await svc.request('POST', `/api/v1/merchant/payments/${order.paymentIntentId}/refund`, { key, body: { amount: 1 } });
  assertError(t, asPayment, 'IKW-MKT-008', 'id');
  const list = await mkt(svc, key, 'GET', `/refunds?orderId=${order.id}`);
  t.same(
    list.body.data.map((r: { id: string }) => r.id),
    [rest.body.id, res.body.id],
  );
  assertError(t, await mkt(svc, other.key, 'POST', '/refunds', { orderId: order.id }), 'IKW-RES-001', 'orderId');
  assertError(t, await mkt(svc, other.key, 'GET', `/refunds/${res.body.id}`), 'IKW-RES-001');
  assertError(t, await mkt(svc, key, 'POST', '/refunds', { orderId: 'not-a-uuid' }), 'IKW-VAL-001', 'orderId');
  assertError(t, await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, reason: 'r'.repeat(1001) }), 'IKW-VAL-001', 'reason');
});

t.test('refunds: an Idempotency-Key refunds once', async (t) => {
  await createSeller(svc, key, 'idem-refund');
  const order = await payOrder(svc, key, await createOrder(svc, key, [{ sellerId: 'idem-refund', amountMinor: 5_000 }]));
  const body = { orderId: order.id, amountMinor: 1_000 };
  const first = await mkt(svc, key, 'POST', '/refunds', body, 'refund-once');
  const again = await mkt(svc, key, 'POST', '/refunds', body, 'refund-once');
  assertOk(t, again, 201);
  t.equal(again.body.id, first.body.id);
  t.equal((await mkt(svc, key, 'GET', `/orders/${order.id}`)).body.refundedMinor, 1_000);
});

t.test('refunds: retried after a crash lost the answer, the refund the first made is answered, nothing reversed twice', async (t) => {
  await createSeller(svc, key, 'crash-refund');
  const order = await payOrder(svc, key, await createOrder(svc, key, [{ sellerId: 'crash-refund', amountMinor: 5_000 }]));
  // All that remains: a retry that decided again would find nothing left (IKW-MKT-004).
  const body = { orderId: order.id };
  const first = await mkt(svc, key, 'POST', '/refunds', body, 'refund-crash');
  assertOk(t, first, 201);
  await loseAnswerInCrash(svc, 'refund-crash');
  const retried = await mkt(svc, key, 'POST', '/refunds', body, 'refund-crash');
  assertOk(t, retried, 201);
  t.equal(retried.headers.get('idempotent-replayed'), null, 'run again: the first answer was never stored');
  t.same(retried.body, first.body, 'the first refund, as it stands');
  t.same(
    (await mkt(svc, key, 'GET', `/refunds?orderId=${order.id}`)).body.data.map((r: { id: string }) => r.id),
    [first.body.id],
    'one refund',
  );
  t.equal((await mkt(svc, key, 'GET', `/orders/${order.id}`)).body.refundedMinor, 5_000);
  const entries = await svc.system.knex('events').whereRaw(`type = 'ledger.entry_posted' AND data->>'kind' = 'order_refund' AND data->>'source' = ?`, [first.body.id]);
  t.equal(entries.length, 1, 'one ledger entry');
});

t.test('20 parallel refunds of one order: together never more than was paid', async (t) => {
  const rule = await createRule(svc, key, { percentBasisPoints: 1500 });
  const a = await createSeller(svc, key, 'race-a');
  await createSeller(svc, key, 'race-b');
  const order = await payOrder(
    svc,
    key,
    await createOrder(svc, key, [
      { sellerId: 'race-a', amountMinor: 7_001, commissionRuleId: rule.id },
      { sellerId: 'race-b', amountMinor: 2_999, commissionRuleId: rule.id },
    ]),
  );
  const answers = await Promise.all(Array.from({ length: 20 }, () => mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 777 })));
  const ok = answers.filter((r) => r.status === 201);
  for (const r of answers) if (r.status !== 201) assertError(t, r, 'IKW-MKT-005', 'amountMinor');
  t.equal(ok.length, Math.floor(10_000 / 777), 'as many as fit, each decided on the merits');
  const after = (await mkt(svc, key, 'GET', `/orders/${order.id}`)).body;
  t.equal(after.refundedMinor, ok.length * 777);
  let sellers = 0;
  let commission = 0;
  for (const r of ok) {
    sellers += r.body.sellerReversals.reduce((s: number, x: { amountMinor: number }) => s + x.amountMinor, 0);
    commission += r.body.commissionReversedMinor;
    t.equal(r.body.sellerReversals.reduce((s: number, x: { amountMinor: number }) => s + x.amountMinor, 0) + r.body.commissionReversedMinor, 777);
  }
  t.equal(sellers + commission, after.refundedMinor);
  const balance = (await mkt(svc, key, 'GET', `/sellers/${a.id}/balance`)).body.balances[0];
  const shareA = after.sellerShares[0].amountMinor;
  t.ok(balance.pendingMinor >= 0 && balance.pendingMinor <= shareA);
});

t.test('settlements: process-due moves shares by each seller’s mode and delay', async (t) => {
  const { key } = await svc.sandboxMerchant('Settling');
  const rolling = await createSeller(svc, key, 'roll', { settlementMode: 'rolling', settlementDelayDays: 2 });
  const manual = await createSeller(svc, key, 'hand', { settlementMode: 'manual' });
  const order = await payOrder(
    svc,
    key,
    await createOrder(svc, key, [
      { sellerId: 'roll', amountMinor: 4_000 },
      { sellerId: 'hand', amountMinor: 1_000 },
    ]),
  );

  let run = await mkt(svc, key, 'POST', '/settlements/process-due', {});
  assertOk(t, run);
  t.match(run.body, { object: 'marketplace_settlement_run', settledCount: 0, settlements: [], hasMore: false });
  await advance(svc, 2 * DAY);
  run = await mkt(svc, key, 'POST', '/settlements/process-due', { currency: 'XOF', maxItems: 10 });
  t.match(run.body, { settledCount: 1, settledMinor: [{ currency: 'xof', amountMinor: 4_000 }], hasMore: false });
  t.match(run.body.settlements[0], { object: 'marketplace_settlement', orderId: order.id, sellerId: 'roll', amountMinor: 4_000, currency: 'xof' });
  t.same((await mkt(svc, key, 'GET', `/sellers/${rolling.id}/balance`)).body.balances, [{ currency: 'xof', pendingMinor: 0, availableMinor: 4_000 }]);
  t.same((await mkt(svc, key, 'GET', `/sellers/${manual.id}/balance`)).body.balances, [{ currency: 'xof', pendingMinor: 1_000, availableMinor: 0 }], 'manual: stays pending');
  t.equal((await mkt(svc, key, 'POST', '/settlements/process-due', {})).body.settledCount, 0, 'nothing twice');

  const id = run.body.settlements[0].id;
  t.same((await mkt(svc, key, 'GET', `/settlements/${id}`)).body, run.body.settlements[0]);
  t.same(
    (await mkt(svc, key, 'GET', '/settlements?sellerId=roll')).body.data.map((s: { id: string }) => s.id),
    [id],
  );
  assertError(t, await mkt(svc, other.key, 'GET', `/settlements/${id}`), 'IKW-RES-001');

  // A refund after settlement takes the seller's share back from their available funds.
  const refund = await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 500 });
  t.same(refund.body.sellerReversals, [
    { sellerId: 'roll', amountMinor: 400, fromPendingMinor: 0 },
    { sellerId: 'hand', amountMinor: 100, fromPendingMinor: 100 },
  ]);

  // Switching the manual seller to weekly makes their share due on the next Monday.
  await mkt(svc, key, 'POST', `/sellers/${manual.id}/settlement`, { settlementMode: 'weekly', settlementDelayDays: 0 });
  await advance(svc, 7 * DAY);
  run = await mkt(svc, key, 'POST', '/settlements/process-due', { maxItems: 1 });
  t.match(run.body, { settledCount: 1, settlements: [{ sellerId: 'hand', amountMinor: 900 }] });
  assertError(t, await mkt(svc, key, 'POST', '/settlements/process-due', { maxItems: 0 }), 'IKW-VAL-001', 'maxItems');
  assertError(t, await mkt(svc, key, 'POST', '/settlements/process-due', { currency: 'euro' }), 'IKW-VAL-001', 'currency');
});

t.test('the marketplace balance of another merchant shows none of these funds', async (t) => {
  const theirs = await mkt(svc, other.key, 'GET', '/balance');
  assertOk(t, theirs);
  t.same(theirs.body.balances, []);
});

t.test('webhooks: an order’s life is delivered as marketplace_order.* events', async (t) => {
  const hooks = await startWebhookService(t, { env: { SANDBOX_OPERATOR_DELAY_MS: '7000' } });
  const { key } = await hooks.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, hooks, key, ['marketplace_order.created', 'marketplace_order.paid', 'marketplace_order.refunded', 'marketplace_order.canceled']);
  await createSeller(hooks, key, 'hooked');
  const order = await payOrder(hooks, key, await createOrder(hooks, key, [{ sellerId: 'hooked', amountMinor: 2_000 }]));
  assertOk(t, await mkt(hooks, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 500 }), 201);
  const canceled = await createOrder(hooks, key, [{ sellerId: 'hooked', amountMinor: 100 }]);
  assertOk(t, await mkt(hooks, key, 'POST', `/orders/${canceled.id}/cancel`));
  await settle(hooks);
  const payloads = receiver.requests.map((r) => verify(endpoint.secret, r));
  t.same(payloads.map((p) => p.type).sort(), ['marketplace_order.canceled', 'marketplace_order.created', 'marketplace_order.created', 'marketplace_order.paid', 'marketplace_order.refunded']);
  const paid = payloads.find((p) => p.type === 'marketplace_order.paid')!;
  t.match(paid.data, { object: 'marketplace_order', id: order.id, status: 'paid', amountMinor: 2_000 });
  t.match(payloads.find((p) => p.type === 'marketplace_order.refunded')!.data, { refundedMinor: 500, status: 'partially_refunded' });
});

t.test('tenant isolation: no list shows another merchant’s objects, process-due settles only the caller’s', async (t) => {
  const { key } = await svc.sandboxMerchant('Isolated');
  const rule = await createRule(svc, key);
  const seller = await createSeller(svc, key, 'iso');
  const order = await payOrder(svc, key, await createOrder(svc, key, [{ sellerId: 'iso', amountMinor: 3_000, commissionRuleId: rule.id }]));
  const refund = (await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 100 })).body;
  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((o) => o.id);
  const theirs = await mkt(svc, other.key, 'POST', '/settlements/process-due', {});
  t.equal(theirs.body.settledCount, 0, 'another merchant’s process-due settles none of these shares');
  const mine = await mkt(svc, key, 'POST', '/settlements/process-due', {});
  t.equal(mine.body.settledCount, 1);
  for (const [path, id] of [
    ['/commission-rules', rule.id],
    ['/sellers', seller.id],
    ['/orders', order.id],
    ['/refunds', refund.id],
    ['/settlements', mine.body.settlements[0].id],
  ] as const) {
    t.ok(ids(await mkt(svc, key, 'GET', `${path}?limit=100`)).includes(id), `${path}: in the owner’s list`);
    t.notOk(ids(await mkt(svc, other.key, 'GET', `${path}?limit=100`)).includes(id), `${path}: not in another merchant’s`);
    assertError(t, await mkt(svc, other.key, 'GET', `${path}?starting_after=${id}`), 'IKW-VAL-001', 'starting_after');
  }
});

t.test('every POST and PATCH replays its first answer for the same Idempotency-Key', async (t) => {
  const { key } = await svc.sandboxMerchant('Replays');
  const rule = await createRule(svc, key);
  const seller = await createSeller(svc, key, 'replay');
  const paid = await payOrder(svc, key, await createOrder(svc, key, [{ sellerId: 'replay', amountMinor: 4_000 }]));
  const unpaid = await createOrder(svc, key, [{ sellerId: 'replay', amountMinor: 1_000 }]);
  const calls: [string, string, unknown][] = [
    ['PATCH', `/commission-rules/${rule.id}`, { fixedFeeMinor: 5 }],
    ['POST', '/sellers', { sellerId: 'replay-2', displayName: 'Two' }],
    ['POST', `/sellers/${seller.id}/settlement`, { settlementDelayDays: 3 }],
    ['POST', `/orders/${unpaid.id}/cancel`, undefined],
    ['POST', '/refunds', { orderId: paid.id, amountMinor: 10 }],
    ['POST', '/settlements/process-due', {}],
  ];
  for (const [method, path, body] of calls) {
    const first = await mkt(svc, key, method, path, body, `replay${path}`);
    t.ok(first.status === 200 || first.status === 201, `${method} ${path} (${first.text.slice(0, 120)})`);
    const again = await mkt(svc, key, method, path, body, `replay${path}`);
    t.equal(again.status, first.status, `${path}: same status`);
    t.equal(again.headers.get('idempotent-replayed'), 'true', `${path}: replayed`);
    t.equal(again.text, first.text, `${path}: byte for byte`);
  }
  t.equal((await mkt(svc, key, 'GET', `/orders/${paid.id}`)).body.refundedMinor, 10, 'the refund was made once');
});
