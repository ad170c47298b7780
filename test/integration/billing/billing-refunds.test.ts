/**
 * Refunds of merchant payments against the real server: partial and full refunds, the list of a
 * payment's refunds, the ledger postings, refused refunds (above the remainder, of a payment that
 * did not succeed, another merchant's, one whose money a campaign, an order or an escrow contract
 * holds), the balance check, a refund committed with its ledger entry (no mend job; the saga and
 * its mend on a store without atomic commits), and 20 parallel refunds (from one process and from
 * two) that never together exceed the amount paid.
 */
import t, { type Test } from '#tap';
import type { ErrorCode } from '#packages/core/errors.js';
import { isRefused } from '#packages/core/refusal.js';
import { refundReconcile } from '#packages/families/billing/processes/refund-reconcile.js';
import { Refunds } from '#packages/families/billing/refund/commands.js';
import { paymentRefundsStream } from '#packages/families/billing/refund/events.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import type { Principal } from '#packages/http/context.js';
import { ALL_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { inlineProjections } from '#packages/read-models/runner.js';
import { assertError, assertOk, confirm, createIntent, mobileMoney, snNumber } from '../../support/payments.js';
import { failedPayment, get, succeededPayment } from '../../support/billing.js';
import { escrow, paidContract } from '../../support/escrow.js';
import { activeCampaign, contribute, getCampaign, settle } from '../../support/funding.js';
import { createOrder, createSeller, mkt, payOrder } from '../../support/marketplace.js';
import { failCommitOnce, loseAnswerInCrash, OPERATOR_DELAY_MS, startPaymentsService } from '../../support/system.js';
import { PaymentRecipients } from '#packages/families/payments/payment-intent/recipients.js';

const svc = await startPaymentsService(t);

const refund = (key: string, id: string, body: Record<string, unknown> = {}, idempotencyKey?: string) =>
  svc.request('POST', `/api/v1/merchant/payments/${id}/refund`, { key, body, ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}) });
const available = async (key: string) => (await get(svc, key, '/api/v1/balance')).available[0]?.amount ?? 0;

/** A merchant with a succeeded payment of 10,000 to refund, and `funds` paid in before it: a refund gives back the gross amount while the fee stays charged. */
async function paymentToRefund(funds = 50_000) {
  const { merchant, key } = await svc.sandboxMerchant();
  await succeededPayment(svc, key, funds);
  return { merchant, key, pi: await succeededPayment(svc, key, 10_000) };
}

t.test('partial refunds, then the remainder; the list; the ledger; the events', async (t) => {
  const { merchant: m, key, pi } = await paymentToRefund(20_000);
  const before = await available(key);

  const first = await refund(key, pi.id, { amount: 3_000, reason: 'requested_by_customer' });
  assertOk(t, first);
  t.same(Object.keys(first.body), ['id', 'object', 'amount', 'currency', 'payment_intent', 'status', 'reason', 'failure_reason', 'failure_code', 'failure_message', 'created', 'livemode']);
  t.match(first.body, { id: /^re_/, object: 'refund', amount: 3_000, currency: 'xof', payment_intent: pi.id, status: 'succeeded', reason: 'requested_by_customer', failure_reason: null, livemode: false });
  svc.clock.advance(1000);
  const rest = await refund(key, pi.id, { reason: 'duplicate' });
  assertOk(t, rest);
  t.match(rest.body, { amount: 7_000, status: 'succeeded', reason: 'duplicate' }, 'no amount: all that remains');
  t.equal(await available(key), before - 10_000, 'available goes down by the refunds, the fee is not given back');

  const list = await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`);
  t.match(list, { object: 'list', page: 1, total: 2, has_more: false });
  t.same(
    list.data.map((r: { id: string }) => r.id),
    [rest.body.id, first.body.id],
    'newest first',
  );
  t.same(list.data[1], first.body);

  const txns = (await get(svc, key, '/api/v1/balance-transactions?type=refund')).data;
  t.same(
    txns.map((x: { source: string; amount: number; net: number }) => [x.source, x.amount, x.net]),
    [
      [rest.body.id, -7_000, -7_000],
      [first.body.id, -3_000, -3_000],
    ],
  );

  assertError(t, await refund(key, pi.id, { amount: 1 }), 'IKW-BIL-003', 'amount');
  assertError(t, await refund(key, pi.id), 'IKW-BIL-003', 'amount');

  const events = await svc.system.store.readStream(paymentRefundsStream(pi.id));
  t.same(
    events.map((e) => e.type),
    ['refund.created', 'refund.succeeded', 'refund.created', 'refund.succeeded'],
  );
  t.match(events[0]!.data, { refund: { amount: 3_000 }, object: { status: 'pending' } });
  t.match(events[0]!.metadata, { merchant_id: m.id, environment: 'sandbox', correlation_id: first.body.id, causation_id: pi.id, actor: /^key_/ });
});

t.test('refused refunds: above the remainder, a failed or unconfirmed payment, unknown or foreign payments, bad input', async (t) => {
  const { merchant: m, key, pi } = await paymentToRefund();
  const above = await refund(key, pi.id, { amount: 10_001 });
  assertError(t, above, 'IKW-BIL-003', 'amount');
  t.match(above.body.message, /10000 xof/);
  assertOk(t, await refund(key, pi.id, { amount: 4_000 }));
  assertError(t, await refund(key, pi.id, { amount: 6_001 }), 'IKW-BIL-003', 'amount');

  const failed = await failedPayment(svc, key);
  const res = await refund(key, failed.id, { amount: 100 });
  assertError(t, res, 'IKW-BIL-004', 'id');
  t.match(res.body.message, /failed/);
  const unconfirmed = await createIntent(svc, key);
  assertError(t, await refund(key, unconfirmed.id, { amount: 100 }), 'IKW-BIL-004', 'id');
  const processing = await createIntent(svc, key);
  assertOk(t, await confirm(svc, key, processing.id, { payment_method: mobileMoney(snNumber('03')) }));
  assertError(t, await refund(key, processing.id, { amount: 100 }), 'IKW-BIL-004', 'id');

  assertError(t, await refund(key, 'pi_nope', { amount: 100 }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', '/api/v1/merchant/payments/pi_nope/refunds', { key }), 'IKW-RES-001', 'id');
  const stranger = await svc.merchant('Stranger');
  assertError(t, await refund(stranger.api_keys.sandbox, pi.id, { amount: 100 }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', `/api/v1/merchant/payments/${pi.id}/refunds`, { key: stranger.api_keys.sandbox }), 'IKW-RES-001', 'id');
  assertError(t, await refund(m.api_keys.live, pi.id, { amount: 100 }), 'IKW-RES-001', 'id');

  assertError(t, await refund(key, pi.id, { amount: 0 }), 'IKW-VAL-001', 'amount');
  assertError(t, await refund(key, pi.id, { amount: '100' }), 'IKW-VAL-001', 'amount');
  assertError(t, await refund(key, pi.id, { amount: 100, reason: 'changed_mind' }), 'IKW-VAL-001', 'reason');
  assertError(t, await refund(key, pi.id, { amount: 100, note: 'x' }), 'IKW-VAL-002', 'note');
  t.equal((await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`)).total, 1, 'only the one refund');
});

t.test('a refund the available balance cannot cover fails, is recorded as failed, and frees the amount again', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const pi = await succeededPayment(svc, key, 10_000); // available = 10,000 − fee
  const res = await refund(key, pi.id, { amount: 10_000 });
  assertError(t, res, 'IKW-BAL-001', 'amount');
  const list = await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`);
  t.match(list.data, [{ amount: 10_000, status: 'failed', failure_reason: 'insufficient_funds' }]);
  const partial = await refund(key, pi.id, { amount: 5_000 });
  assertOk(t, partial);
  t.equal(partial.body.status, 'succeeded', 'the failed refund no longer counts against the payment');
  const types = (await svc.system.store.readStream(paymentRefundsStream(pi.id))).map((e) => e.type);
  t.same(types, ['refund.created', 'refund.failed', 'refund.created', 'refund.succeeded']);
});

/** The transaction ids of a refund's events on its payment's stream and of its ledger entry. */
async function commitsOf(merchantId: string, paymentId: string, refundId: string) {
  const rows: { stream_id: string; type: string; data: { source?: string; kind?: string; refund?: { id: string }; refundId?: string }; transaction_id: string }[] = await svc.system
    .knex('events')
    .select('stream_id', 'type', 'data', 'transaction_id')
    .whereIn('stream_id', [paymentRefundsStream(paymentId), `balance-${merchantId}-sandbox-xof`]);
  const txn = (type: string) => rows.filter((r) => r.type === type && (r.data.refund?.id ?? r.data.refundId) === refundId).map((r) => r.transaction_id);
  return {
    created: txn('refund.created'),
    succeeded: txn('refund.succeeded'),
    failed: txn('refund.failed'),
    money: rows.filter((r) => r.type === 'ledger.entry_posted' && r.data.kind === 'refund' && r.data.source === refundId).map((r) => r.transaction_id),
  };
}

t.test('a refund and its ledger entry are one commit, and no reconcile job is left for it', async (t) => {
  const { merchant, key, pi } = await paymentToRefund();
  const res = await refund(key, pi.id, { amount: 2_500 });
  assertOk(t, res);
  const { created, succeeded, money } = await commitsOf(merchant.id, pi.id, res.body.id);
  t.equal(created.length, 1, 'created once');
  t.equal(succeeded.length, 1, 'succeeded once');
  t.equal(money.length, 1, 'posted once');
  t.equal(succeeded[0], money[0], 'the success is in the transaction of the ledger entry');
  t.equal(created[0], money[0], 'and so is the creation');
  const jobs = await svc.system.knex('scheduled_jobs').where({ key: `refund:${res.body.id}` });
  t.same(jobs, [], 'no mend job: the store commits atomically, nothing is left to finish');
});

t.test('a refund the balance refuses is created and failed in one commit', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const pi = await succeededPayment(svc, key, 10_000);
  const res = await refund(key, pi.id, { amount: 10_000 });
  assertError(t, res, 'IKW-BAL-001', 'amount');
  const [failed] = (await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`)).data;
  const commits = await commitsOf(merchant.id, pi.id, failed.id);
  t.equal(commits.created.length, 1);
  t.same(commits.failed, commits.created, 'failed in the commit that created it');
  t.same(commits.money, [], 'no ledger entry');
  t.same(await svc.system.knex('scheduled_jobs').where({ key: `refund:${failed.id}` }), [], 'no mend job');
});

t.test("a store failure at the refund's commit leaves no refund and no money moved; a retry refunds once", async (t) => {
  const { merchant, key, pi } = await paymentToRefund();
  const before = await available(key);
  // The commit that carries the refund fails once, as a crash at that point would.
  const commits = failCommitOnce(t, svc, (writes) => writes.some((w) => w.streamId === paymentRefundsStream(pi.id)));
  const lost = await refund(key, pi.id, { amount: 4_000 });
  t.equal(commits.failed, 1, 'the commit with the refund was tried and failed');
  t.equal(lost.status, 500);
  t.equal((await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`)).total, 0, 'no refund');
  t.same(await svc.system.store.readStream(paymentRefundsStream(pi.id)), [], 'nothing on the refund stream');
  t.equal(await available(key), before, 'no money moved');
  t.equal((await get(svc, key, '/api/v1/balance-transactions?type=refund')).data.length, 0, 'no refund entry');

  const retried = await refund(key, pi.id, { amount: 4_000 });
  assertOk(t, retried);
  t.equal(retried.body.status, 'succeeded');
  t.equal(await available(key), before - 4_000, 'refunded once');
  const { succeeded, money } = await commitsOf(merchant.id, pi.id, retried.body.id);
  t.equal(money.length, 1);
  t.same(succeeded, money, 'with its ledger entry');
});

t.test('a refund retried after a crash before its answer answers the refund the first made: one refund, one ledger entry', async (t) => {
  const { merchant, key, pi } = await paymentToRefund();
  const before = await available(key);
  const first = await refund(key, pi.id, { amount: 4_000 }, 'refund-crash-1');
  assertOk(t, first);
  await loseAnswerInCrash(svc, 'refund-crash-1');
  const retried = await refund(key, pi.id, { amount: 4_000 }, 'refund-crash-1');
  assertOk(t, retried);
  t.equal(retried.headers.get('idempotent-replayed'), null, 'run again, not replayed: the first answer was never stored');
  t.same(retried.body, first.body, 'the same refund, as it stands');
  t.equal(await available(key), before - 4_000, 'refunded once');
  const { created, money } = await commitsOf(merchant.id, pi.id, first.body.id);
  t.equal(created.length, 1, 'one refund');
  t.equal(money.length, 1, 'one ledger entry');
  t.equal((await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`)).total, 1, 'the payment has one refund');

  // All that remains, then a retry: the first took it all, the retry answers it rather than "fully refunded".
  const rest = await refund(key, pi.id, {}, 'refund-crash-2');
  assertOk(t, rest);
  await loseAnswerInCrash(svc, 'refund-crash-2');
  const restRetried = await refund(key, pi.id, {}, 'refund-crash-2');
  assertOk(t, restRetried);
  t.same(restRetried.body, rest.body, 'the refund of the remainder, answered again');
  t.equal(await available(key), before - 10_000);

  const other = await svc.sandboxMerchant();
  assertError(t, await refund(other.key, pi.id, { amount: 4_000 }, 'refund-crash-1'), 'IKW-RES-001', 'id');
});

t.test('a refund the balance refused, retried after a crash, is refused again: no second refund though the balance now covers it', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const pi = await succeededPayment(svc, key, 10_000);
  const first = await refund(key, pi.id, { amount: 10_000 }, 'refund-short-1');
  assertError(t, first, 'IKW-BAL-001', 'amount');
  await loseAnswerInCrash(svc, 'refund-short-1');
  await succeededPayment(svc, key, 20_000);
  const before = await available(key);
  const retried = await refund(key, pi.id, { amount: 10_000 }, 'refund-short-1');
  assertError(t, retried, 'IKW-BAL-001', 'amount');
  t.equal(retried.body.message, first.body.message, 'the same refusal, naming the same failed refund');
  const list = (await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`)).data;
  t.match(list, [{ amount: 10_000, status: 'failed', failure_reason: 'insufficient_funds' }], 'one refund, failed');
  t.equal(list.length, 1);
  t.same((await commitsOf(merchant.id, pi.id, list[0].id)).money, [], 'no ledger entry');
  t.equal(await available(key), before, 'no money moved');
  assertOk(t, await refund(key, pi.id, { amount: 10_000 }, 'refund-short-2')); // another request is another refund
});

/**
 * A payment whose money another family holds is refused with that family's code, and nothing
 * moves: the merchant's available balance (funded, so that it could pay the refund) stays, the
 * payment has no refund, and the family still counts the money.
 */
async function refusedAsHeld(t: Test, key: string, paymentId: string, code: ErrorCode, route: RegExp) {
  const before = await available(key);
  t.ok(before >= 1_000, 'the balance could pay the refund');
  const res = await refund(key, paymentId, { amount: 1_000 });
  assertError(t, res, code, 'id');
  t.match(res.body.message, route, "names the family's refund route");
  t.equal(await available(key), before, 'no money moved');
  t.same(await svc.system.store.readStream(paymentRefundsStream(paymentId)), [], 'no refund recorded');
  t.equal((await get(svc, key, '/api/v1/balance-transactions?type=refund')).data.length, 0, 'no refund entry');
}

t.test("a funding campaign contribution's payment is refunded as a contribution, not from the balance", async (t) => {
  const { key } = await svc.sandboxMerchant();
  await succeededPayment(svc, key, 50_000);
  const campaign = await activeCampaign(svc, key);
  const contribution = await contribute(svc, key, campaign.id, { amountMinor: 5_000 });
  assertOk(t, contribution);
  await settle(svc, OPERATOR_DELAY_MS);
  t.equal((await get(svc, key, `/api/v1/funding/contributions/${contribution.body.id}`)).status, 'succeeded');
  await refusedAsHeld(t, key, contribution.body.paymentIntentId, 'IKW-FND-006', new RegExp(`POST /api/v1/funding/contributions/${contribution.body.id}/refund`));
  t.equal((await getCampaign(svc, key, campaign.id)).raisedAmountMinor, 5_000, 'the campaign still counts it');
});

t.test("a marketplace order's payment is refunded as the order's, not from the balance", async (t) => {
  const { key } = await svc.sandboxMerchant();
  await succeededPayment(svc, key, 50_000);
  await createSeller(svc, key, 'refund-seller');
  const order = await payOrder(svc, key, await createOrder(svc, key, [{ sellerId: 'refund-seller', amountMinor: 10_000 }]));
  t.equal(order.status, 'paid');
  await refusedAsHeld(t, key, order.paymentIntentId, 'IKW-MKT-008', /POST \/api\/v1\/marketplace\/refunds/);
  t.equal((await mkt(svc, key, 'GET', `/orders/${order.id}`)).body.status, 'paid', 'the order is still paid');
});

t.test('a payment that funded an escrow contract is refunded by the contract, not from the balance', async (t) => {
  const { key } = await svc.sandboxMerchant();
  await succeededPayment(svc, key, 50_000);
  const { contract, intent } = await paidContract(svc, key, 10_000);
  t.equal(contract.status, 'funded');
  await refusedAsHeld(t, key, intent.id, 'IKW-ESC-010', new RegExp(`POST /api/v1/escrow/contracts/${contract.id}/refund`));
  t.equal((await escrow(svc, key, 'GET', `/contracts/${contract.id}`)).body.heldMinor, contract.heldMinor, 'the contract still holds it');
});

t.test('20 parallel refunds of 1,000 on a 10,000 payment: exactly 10 succeed, the others are IKW-BIL-003', async (t) => {
  const { key, pi } = await paymentToRefund();
  const before = await available(key);
  const results = await Promise.all(Array.from({ length: 20 }, () => refund(key, pi.id, { amount: 1_000, reason: 'requested_by_customer' })));
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.body?.code === 'IKW-BIL-003');
  t.equal(ok.length, 10, '10 refunds');
  t.equal(refused.length, 10, 'the rest refused as above the remainder');
  for (const r of refused) assertError(t, r, 'IKW-BIL-003', 'amount');
  t.equal(new Set(ok.map((r) => r.body.id)).size, 10);
  t.equal(await available(key), before - 10_000);
  const list = await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds?limit=100`);
  t.equal(list.total, 10);
  t.equal(
    list.data.reduce((sum: number, r: { amount: number }) => sum + r.amount, 0),
    10_000,
  );
});

t.test('parallel refunds from two processes: the stream version decides, the total never exceeds the payment', async (t) => {
  const { merchant: m, key, pi } = await paymentToRefund();
  const row = await svc.system.knex('read.api_keys').where({ merchant_id: m.id, environment: 'sandbox' }).first();
  const principal: Principal = { merchantId: m.id, environment: 'sandbox', livemode: false, actor: row.id, scopes: ['*'] };
  // Another process: its own store (and stream cache), the same database.
  const otherStore = new PostgresEventStore(svc.system.knex, { inline: inlineProjections(ALL_PROJECTIONS) });
  t.teardown(() => otherStore.close());
  const processes = [
    svc.system.billing.refunds,
    new Refunds({ store: otherStore, ledger: svc.system.ledger, clock: svc.clock, scheduleReconcile: svc.system.scheduler.enqueuer(refundReconcile.job), recipients: new PaymentRecipients(), railRefunds: svc.system.railRefunds }),
  ];
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => processes[i % 2]!.create(principal, pi.id, { amount: 1_500 }, { actor: 'test' })));
  const ok = results.filter((r) => r.status === 'fulfilled');
  const refused = results.filter((r) => r.status === 'rejected' && isRefused(r.reason, 'IKW-BIL-003'));
  t.equal(ok.length, 6, '6 × 1,500 fit in 10,000');
  t.equal(refused.length, 14);
  const list = await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds?limit=100`);
  t.equal(
    list.data.reduce((sum: number, r: { amount: number }) => sum + r.amount, 0),
    9_000,
  );
  t.ok(list.data.every((r: { status: string }) => r.status === 'succeeded'));
});

t.test('saga mode (a store without atomic commits): the refund sets its reconcile job, then takes three commits', async (t) => {
  const { merchant: m, key, pi } = await paymentToRefund();
  const row = await svc.system.knex('read.api_keys').where({ merchant_id: m.id, environment: 'sandbox' }).first();
  const principal: Principal = { merchantId: m.id, environment: 'sandbox', livemode: false, actor: row.id, scopes: ['*'] };
  const store = svc.system.store;
  // The same database through a store without appendAtomically, as EventStoreDB is.
  const saga: EventStore = {
    append: store.append.bind(store),
    readStream: store.readStream.bind(store),
    streamVersion: store.streamVersion.bind(store),
    readAll: store.readAll.bind(store),
    headPosition: store.headPosition.bind(store),
    subscribe: store.subscribe.bind(store),
    close: async () => {},
  };
  const refunds = new Refunds({ store: saga, ledger: svc.system.ledger, clock: svc.clock, scheduleReconcile: svc.system.scheduler.enqueuer(refundReconcile.job), recipients: new PaymentRecipients(), railRefunds: svc.system.railRefunds });
  const done = await refunds.create(principal, pi.id, { amount: 3_000 }, { actor: 'test' });
  t.equal(done.status, 'succeeded');
  t.equal((await svc.system.knex('scheduled_jobs').where({ key: `refund:${done.id}` })).length, 1, 'the mend job is set');
  const { created, succeeded, money } = await commitsOf(m.id, pi.id, done.id);
  t.equal(money.length, 1, 'posted once');
  t.not(created[0], money[0], 'created before the posting');
  t.not(succeeded[0], money[0], 'succeeded after it');
  t.match((await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`)).data, [{ id: done.id, status: 'succeeded' }]);
});

t.test('saga mode: a refund left pending by a crash is finished by its reconcile job', async (t) => {
  const { merchant: m, key, pi } = await paymentToRefund();
  const row = await svc.system.knex('read.api_keys').where({ merchant_id: m.id, environment: 'sandbox' }).first();
  // The crash of a store without atomic commits (the only one that schedules this job): the
  // refund stream got its refund.created, the process died before the ledger.
  const { handleCommand } = await import('#packages/eventstore/command-handler.js');
  const { paymentRefundsAggregate } = await import('#packages/families/billing/refund/render.js');
  const owner = { merchantId: m.id, environment: 'sandbox' as const };
  await handleCommand(
    svc.system.store,
    paymentRefundsStream(pi.id),
    paymentRefundsAggregate,
    {
      type: 'create',
      owner,
      at: svc.clock.now(),
      refundId: 're_crashed0000000000000000',
      amount: 2_000,
      reason: null,
      payment: { id: pi.id, merchantId: m.id, environment: 'sandbox', amount: 10_000, currency: 'xof', clearing: 'operator_clearing:orange_money' },
    },
    { merchant_id: m.id, environment: 'sandbox', actor: row.id },
  );
  t.match((await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`)).data, [{ status: 'pending' }]);
  await svc.system.billing.refunds.reconcile({ ...owner, paymentId: pi.id, refundId: 're_crashed0000000000000000' });
  await svc.system.billing.refunds.reconcile({ ...owner, paymentId: pi.id, refundId: 're_crashed0000000000000000' });
  t.match((await get(svc, key, `/api/v1/merchant/payments/${pi.id}/refunds`)).data, [{ status: 'succeeded' }]);
  t.equal((await get(svc, key, '/api/v1/balance-transactions?type=refund')).data.length, 1, 'posted once');
});
