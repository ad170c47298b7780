/**
 * Live mobile money of Mali and Togo through Hub2, end to end through the public API
 * (docs/connectors.md, "Hub2"): the real Hub2Connector over HTTP to the Hub2 stand-in on loopback,
 * its signed webhooks posted to the service's webhook route, status checks run on the manual clock.
 * Every request Sika sends is checked against Hub2's contract by the stand-in; each test ends by
 * asserting that none left it.
 */
import t, { type Test } from '#tap';
import { assertError, confirm, createIntent, mobileMoney, retrieve } from '../support/payments.js';
import { balance, fund, getPayout, payoutFee, postPayout } from '../support/payouts.js';
import { goLive, startHub2Live } from '../support/live.js';
import { attemptsForReview } from '../../services/rails.js';
import { advance } from '../support/system.js';

const live = await startHub2Live(t);
const { svc, standin } = live;
const MINUTE = 60_000;
/** HUB2_STATUS_CHECK_AFTER's default: the first status check of an attempt with no final answer. */
const FIRST_CHECK = 2 * MINUTE;
/** Every status check of an attempt, one after the other: past them it is left for review. */
const EVERY_CHECK = [FIRST_CHECK, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE, 3 * 60 * MINUTE, 6 * 60 * MINUTE, 12 * 60 * MINUTE, 24 * 60 * MINUTE];

const ML = '+22376123456';
const TG = '+22890123456';

/** The requests that would move money (a payment attempt, a transfer), as the stand-in received them. */
const paymentAttempts = () => standin.requests.filter((r) => r.method === 'POST' && /^\/payment-intents\/[^/]+\/payments$/.test(r.path));
const transferPosts = () => standin.requests.filter((r) => r.method === 'POST' && r.path === '/transfers');

/** Ends a test: no request left Hub2's contract. */
function conforms(t: Test): void {
  t.same(standin.deviations.splice(0), [], 'every request followed Hub2’s contract');
}

/** Runs the jobs due now (callback jobs, status checks set for now). */
const settleJobs = () => svc.system.scheduler.runUntilIdle();

/** The Hub2 intent Sika made for a confirmation, by its purchase reference (the operation id), and its one payment. */
function hub2Of(operationId: string) {
  const intent = standin.intentByPurchaseReference(operationId);
  if (!intent) throw new Error(`no Hub2 intent for ${operationId}`);
  return { intent, payment: intent.payments[0] };
}

async function confirmed(key: string, options: { msisdn?: string; operator?: string; country?: string; amount?: number } = {}) {
  const country = options.country ?? 'ML';
  const intent = await createIntent(svc, key, { amount: options.amount ?? 10_000, transaction_country: country });
  const res = await confirm(svc, key, intent.id, { payment_method: mobileMoney(options.msisdn ?? ML, options.operator ?? 'orange_money', country) });
  return { intent, res, operationId: res.body?.latest_operation as string };
}

const feeOf = async (key: string, id: string) => (await retrieve(svc, key, id)).fee as number;

t.test('a Mali payment succeeds through Hub2: intent, then one attempt; a webhook only names what to read again', async (t) => {
  const { key } = await goLive(svc, 'Bamako payments');
  const { intent, res, operationId } = await confirmed(key);
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'processing', livemode: true });
  const { intent: hub2Intent, payment } = hub2Of(operationId);
  t.match(hub2Intent, { purchaseReference: operationId, customerReference: intent.id, amount: 10_000, currency: 'XOF' });
  t.match(JSON.parse(paymentAttempts().at(-1)!.body), { paymentMethod: 'mobile_money', country: 'ML', provider: 'orange', mobileMoney: { msisdn: ML } });

  standin.settle('payment', payment!.id, 'successful');
  t.equal(await standin.sendWebhook('payment.succeeded', payment!.id), 200, 'the webhook is taken');
  t.equal(await standin.sendWebhook('payment.succeeded', payment!.id), 200, 'and taken again when repeated');
  await settleJobs();
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded' });
  const fee = await feeOf(key, intent.id);
  t.same(await balance(svc, key), { available: 0, pending: 10_000 - fee, reserved: 0 }, 'the payment once on the balance');
  t.equal(paymentAttempts().filter((r) => r.path.includes(hub2Intent.id)).length, 1, 'one attempt on the intent');
  conforms(t);
});

t.test('Togo: Flooz goes to Hub2 as Moov; a payer’s refusal fails the payment, nothing moves', async (t) => {
  const { key } = await goLive(svc, 'Lomé payments');
  const { intent, res, operationId } = await confirmed(key, { msisdn: TG, operator: 'flooz', country: 'TG' });
  t.equal(res.status, 200, res.text);
  t.match(JSON.parse(paymentAttempts().at(-1)!.body), { country: 'TG', provider: 'moov', mobileMoney: { msisdn: TG } });
  const { payment } = hub2Of(operationId);
  standin.settle('payment', payment!.id, 'failed', 'customer_insufficient_funds');
  t.equal(await standin.sendWebhook('payment.failed', payment!.id), 200);
  await settleJobs();
  t.match(await retrieve(svc, key, intent.id), { status: 'failed', amount_received: 0, last_payment_error: { code: 'insufficient_funds' } });
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 });
  conforms(t);
});

t.test('Wave in Mali: the payer is sent to Hub2’s page', async (t) => {
  const { key } = await goLive(svc, 'Wave payments');
  const { res } = await confirmed(key, { operator: 'wave' });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'requires_action', next_action: { type: 'redirect_to_url', redirect_to_url: { url: /^https?:\/\// } } });
  conforms(t);
});

t.test('forged webhooks do nothing; a signed one with another amount is not believed: Hub2’s record decides', async (t) => {
  const { key } = await goLive(svc, 'Forgeries');
  const { intent, operationId } = await confirmed(key);
  const { intent: hub2Intent, payment } = hub2Of(operationId);
  standin.settle('payment', payment!.id, 'successful');
  // Requests about this payment only: an earlier test's status checks may still ask about theirs.
  const aboutIt = () => standin.requests.filter((r) => r.path.includes(hub2Intent.id) || r.path.includes(payment!.id)).length;
  const asked = aboutIt();
  for (const forge of ['wrong_secret', 'tampered', 'unsigned'] as const) t.equal(await standin.sendWebhook('payment.succeeded', payment!.id, { forge }), 401, `${forge}: refused`);
  await settleJobs();
  t.equal(aboutIt(), asked, 'nothing was asked of Hub2 for a webhook that does not verify');
  t.match(await retrieve(svc, key, intent.id), { status: 'processing' }, 'and nothing moved');

  t.equal(await standin.sendWebhook('payment.succeeded', payment!.id, { override: { amount: 5 } }), 200, 'signed, another amount: taken as a prompt');
  await settleJobs();
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded', amount_received: 10_000 }, 'Hub2’s own record, read again, matched the attempt');
  conforms(t);
});

t.test('a webhook whose intent Hub2 cannot read back is answered 200: the status check settles the payment', async (t) => {
  const { key } = await goLive(svc, 'Hub2 reads down');
  const { intent, operationId } = await confirmed(key);
  const { payment } = hub2Of(operationId);
  standin.settle('payment', payment!.id, 'successful');
  standin.failReads = true;
  t.equal(await standin.sendWebhook('payment.succeeded', payment!.id), 200, 'taken, never a 5xx');
  await settleJobs();
  t.match(await retrieve(svc, key, intent.id), { status: 'processing' }, 'nothing moved on its word');
  standin.failReads = false;
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded' }, 'the first status check read it');
  conforms(t);
});

t.test('a webhook that never comes, or comes late: the status check settles the payment once', async (t) => {
  const { key } = await goLive(svc, 'Missing webhooks');
  const { intent, operationId } = await confirmed(key);
  const { payment } = hub2Of(operationId);
  standin.settle('payment', payment!.id, 'successful');
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded' }, 'the first status check read it');
  t.equal(await standin.sendWebhook('payment.succeeded', payment!.id), 200, 'the late webhook is taken');
  await settleJobs();
  const fee = await feeOf(key, intent.id);
  t.same(await balance(svc, key), { available: 0, pending: 10_000 - fee, reserved: 0 }, 'and moves nothing more');
  conforms(t);
});

t.test('a payment attempt whose answer is lost is never sent again: the check follows the one Hub2 kept', async (t) => {
  const { key } = await goLive(svc, 'Lost payment answers');
  standin.next({ type: 'lose_answer' });
  const lost = await confirmed(key);
  t.equal(lost.res.status, 200, lost.res.text);
  t.match(lost.res.body, { status: 'processing' }, 'the outcome is unknown: processing, settled by the status check');
  const { intent: hub2Intent, payment } = hub2Of(lost.operationId);
  standin.settle('payment', payment!.id, 'successful');
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, lost.intent.id), { status: 'succeeded' });
  t.equal(paymentAttempts().filter((r) => r.path.includes(hub2Intent.id)).length, 1, 'one attempt');

  standin.next({ type: 'server_error', taken: false });
  const refused = await confirmed(key);
  t.match(refused.res.body, { status: 'processing' }, 'a 5xx may have kept it: processing');
  for (const delay of EVERY_CHECK) await advance(svc, delay);
  const refusedIntent = standin.intentByPurchaseReference(refused.operationId)!;
  t.equal(paymentAttempts().filter((r) => r.path.includes(refusedIntent.id)).length, 1, 'never sent again: Hub2 may take several payments on one intent');
  t.match(await retrieve(svc, key, refused.intent.id), { status: 'processing' }, 'nothing failed by guess');
  t.ok(
    (await attemptsForReview(svc.system.knex)).some((a) => a.id === refused.intent.id),
    'left for an operator to settle with Hub2',
  );
  conforms(t);
});

t.test('amounts Hub2 cannot take and refunds it does not make are refused before anything is held', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refusals');
  // What these refusals could send is a POST (an intent, a payment, a transfer); an earlier test's
  // status checks may still GET their payments meanwhile.
  const posts = () => standin.requests.filter((r) => r.method === 'POST').length;
  const before = posts();
  const odd = await confirmed(key, { amount: 10_002 });
  assertError(t, odd.res, 'IKW-PRV-016', 'amount');
  await fund(svc, merchant.id, 50_000, 'live');
  const payout = await postPayout(svc, key, { amount: 10_003, currency: 'xof', destination: { type: 'mobile_money', country: 'ML', operator: 'orange_money', msisdn: ML } }, { idempotencyKey: 'odd-payout' });
  assertError(t, payout, 'IKW-PRV-016', 'amount');
  t.same(await balance(svc, key), { available: 50_000, pending: 0, reserved: 0 }, 'nothing held');
  t.equal(posts(), before, 'nothing asked of Hub2');

  const { intent, operationId } = await confirmed(key);
  standin.settle('payment', hub2Of(operationId).payment!.id, 'successful');
  await advance(svc, FIRST_CHECK);
  const refund = await svc.request('POST', `/api/v1/merchant/payments/${intent.id as string}/refund`, { key, body: { amount: 1_000 }, headers: { 'idempotency-key': 'hub2-refund' } });
  assertError(t, refund, 'IKW-PRV-006');
  t.equal(standin.requests.filter((r) => r.method === 'POST' && r.path.includes('refund')).length, 0, 'nothing sent to Hub2');
  conforms(t);
});

t.test('Mali payouts through Hub2: paid, failed with the money back, a lost answer found by its reference, a 5xx sent again once', async (t) => {
  const { merchant, key } = await goLive(svc, 'Bamako payouts');
  await fund(svc, merchant.id, 200_000, 'live');
  const fee = payoutFee(10_000, { type: 'mobile_money', country: 'ML', operator: 'orange_money' });
  let n = 0;
  const payOut = async (operator = 'orange_money', country = 'ML', msisdn = ML) => {
    const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: { type: 'mobile_money', country, operator, msisdn } }, { idempotencyKey: `hub2-payout-${++n}` });
    t.equal(res.status, 200, res.text);
    return res.body as { id: string; status: string };
  };
  const get = async (id: string) => (await getPayout(svc, key, id)).body;
  const transferOf = (payoutId: string) => standin.transfersByReference(payoutId);

  const paid = await payOut();
  t.match(paid, { status: 'in_transit', livemode: true });
  t.match(JSON.parse(transferPosts().at(-1)!.body), { reference: paid.id, amount: 10_000, currency: 'XOF', destination: { type: 'mobile_money', country: 'ML', msisdn: ML, provider: 'orange' } });
  const [transfer] = transferOf(paid.id);
  standin.settle('transfer', transfer!.id, 'successful');
  t.equal(await standin.sendWebhook('transfer.succeeded', transfer!.id), 200);
  t.equal(await standin.sendWebhook('transfer.succeeded', transfer!.id), 200, 'repeated');
  await settleJobs();
  t.match(await get(paid.id), { status: 'paid' });
  t.same(await balance(svc, key), { available: 200_000 - 10_000 - fee, pending: 0, reserved: 0 }, 'paid once');

  const failed = await payOut();
  standin.settle('transfer', transferOf(failed.id)[0]!.id, 'failed', 'invalid_destination');
  t.equal(await standin.sendWebhook('transfer.failed', transferOf(failed.id)[0]!.id), 200);
  await settleJobs();
  t.match(await get(failed.id), { status: 'failed' });
  t.same(await balance(svc, key), { available: 200_000 - 10_000 - fee, pending: 0, reserved: 0 }, 'the failed payout’s money is back');

  standin.next({ type: 'lose_answer' });
  const lost = await payOut();
  t.equal(transferOf(lost.id).length, 1, 'Hub2 kept it');
  await advance(svc, FIRST_CHECK);
  standin.settle('transfer', transferOf(lost.id)[0]!.id, 'successful');
  await advance(svc, 5 * MINUTE);
  t.match(await get(lost.id), { status: 'paid' }, 'found by its reference, followed by its id');
  t.equal(transferPosts().filter((r) => r.body.includes(lost.id)).length, 1, 'never posted again');

  standin.next({ type: 'server_error', taken: false });
  const dropped = await payOut();
  t.equal(transferOf(dropped.id).length, 0, 'Hub2 kept nothing');
  await advance(svc, FIRST_CHECK);
  t.equal(transferOf(dropped.id).length, 1, 'the check listed none under its reference, and sent it again');
  standin.settle('transfer', transferOf(dropped.id)[0]!.id, 'successful');
  await advance(svc, FIRST_CHECK);
  t.match(await get(dropped.id), { status: 'paid' });
  t.same(await balance(svc, key), { available: 200_000 - 3 * (10_000 + fee), pending: 0, reserved: 0 }, 'each payout paid once');
  conforms(t);
});

t.test('Togo payouts: a transfer that stays pending goes to review; an operator down fails it with the money back', async (t) => {
  const { merchant, key } = await goLive(svc, 'Lomé payouts');
  await fund(svc, merchant.id, 100_000, 'live');
  const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: { type: 'mobile_money', country: 'TG', operator: 'tmoney', msisdn: TG } }, { idempotencyKey: 'tg-pending' });
  t.equal(res.status, 200, res.text);
  const pending = res.body as { id: string };
  t.match(JSON.parse(transferPosts().at(-1)!.body), { destination: { country: 'TG', provider: 'tmoney' } });
  standin.settle('transfer', standin.transfersByReference(pending.id)[0]!.id, 'pending');
  for (const delay of EVERY_CHECK) await advance(svc, delay);
  t.match((await getPayout(svc, key, pending.id)).body, { status: 'in_transit' }, 'never failed by guess');
  t.ok(
    (await attemptsForReview(svc.system.knex)).some((a) => a.id === pending.id),
    'left for review',
  );

  standin.operatorDown('moov', 'TG');
  const down = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: { type: 'mobile_money', country: 'TG', operator: 'flooz', msisdn: TG } }, { idempotencyKey: 'tg-down' });
  t.equal(down.status, 200, down.text);
  await advance(svc, FIRST_CHECK);
  t.match((await getPayout(svc, key, down.body.id as string)).body, { status: 'failed', failure_code: 'operator_unavailable' });
  standin.operatorUp('moov', 'TG');
  const fee = payoutFee(10_000, { type: 'mobile_money', country: 'TG', operator: 'tmoney' });
  t.same(await balance(svc, key), { available: 100_000 - 10_000 - fee, pending: 0, reserved: 10_000 + fee }, 'the pending one held, the failed one back');
  conforms(t);
});
