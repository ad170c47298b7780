/**
 * Live refunds of card payments through Paystack, end to end through the public API
 * (docs/connectors.md, "Paystack" and "Refunds through a rail"): the real PaystackConnector over
 * HTTP to the Paystack stand-in, which checks each refund request against Paystack's contract;
 * its signed refund webhooks posted to POST /connectors/paystack/events; status checks run on the
 * manual clock. A refund starts pending with its money held; only Paystack's verified answer ends it.
 */
import t, { type Test } from '#tap';
import { paystackReference } from '#packages/connectors/paystack/index.js';
import { assertError } from '../support/assertions.js';
import { balance, fund } from '../support/payouts.js';
import { confirm, createIntent } from '../support/payments.js';
import { goLive, startPaystackLive } from '../support/live.js';
import { advance } from '../support/system.js';
import { attemptsForReview } from '../../services/rails.js';

const { svc, standin } = await startPaystackLive(t);
const MINUTE = 60_000;
/** Paystack's first status check of an attempt with no final answer. */
const FIRST_CHECK = 2 * MINUTE;
/** The delays of the later checks, each after the one before: about two days in all. */
const LATER_CHECKS = [5, 15, 60, 180, 360, 720, 1440].map((m) => m * MINUTE);
const settleJobs = () => svc.system.scheduler.runUntilIdle();

function conforms(t: Test): void {
  t.same(standin.takeDeviations(), [], 'every request followed Paystack’s contract');
}

/** A live NGN card payment Paystack collected and Sika verified; the merchant's available balance funded so refunds are covered. */
async function paidCard(merchantId: string, key: string, amount = 500_000) {
  const intent = await createIntent(svc, key, { amount, currency: 'ngn', transaction_country: 'NG', customer_email: 'ada@example.com' });
  const res = await confirm(svc, key, intent.id, { payment_method: { type: 'card', card: {} } });
  if (res.status !== 200) throw new Error(res.text);
  const reference = paystackReference(res.body.latest_operation as string);
  standin.checkout(reference);
  if ((await standin.sendChargeWebhook(reference)) !== 200) throw new Error('charge webhook refused');
  await settleJobs();
  await fund(svc, merchantId, 1_000_000, 'live', 'ngn');
  return { paymentId: intent.id as string, reference };
}

const refund = (key: string, paymentId: string, body: object) => svc.request('POST', `/api/v1/merchant/payments/${paymentId}/refund`, { key, body });
const refundOf = async (key: string, paymentId: string, id: string) => ((await svc.request('GET', `/api/v1/merchant/payments/${paymentId}/refunds?limit=100`, { key })).body.data as Record<string, unknown>[]).find((r) => r.id === id);
const funds = (key: string) => balance(svc, key, 'ngn');

/** The merchant's live NGN ledger accounts a refund through Paystack moves. */
async function railAccounts(merchantId: string) {
  const rows = await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchantId, environment: 'live', currency: 'ngn' }).select<{ account: string; amount: string }[]>('account', 'amount');
  const of = (account: string) => Number(rows.find((r) => r.account === account)?.amount ?? 0);
  return { inFlight: of('rail_refunds:paystack'), clearing: of('rail_clearing:paystack') };
}

async function balanced(t: Test, merchantId: string) {
  const rows = await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchantId, environment: 'live' }).sum<{ total: string }[]>({ total: 'amount' });
  t.equal(Number(rows[0]!.total), 0, 'the ledger balances: every account of the merchant sums to zero');
}

/** The stand-in's refund of a transaction noted with this Sika refund id. */
function paystackRefund(reference: string, refundId: string) {
  const found = standin.refundsOf(reference).filter((r) => r.request.merchant_note === refundId);
  if (found.length !== 1) throw new Error(`${found.length} Paystack refunds noted ${refundId}`);
  return found[0]!;
}

t.test('a refund reaches the card: pending with its money held, succeeded by the webhook once; partial, then the rest; no more than paid', async (t) => {
  const { merchant, key } = await goLive(svc, 'Card refunds');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const before = await funds(key);
  const rail = await railAccounts(merchant.id);

  const res = await refund(key, paymentId, { amount: 200_000, reason: 'requested_by_customer' });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { object: 'refund', status: 'pending', amount: 200_000, currency: 'ngn', payment_intent: paymentId, livemode: true });
  t.match(standin.refundRequests.at(-1), { transaction: reference, amount: 200_000, currency: 'NGN', merchant_note: res.body.id }, 'the transaction by its reference, kobo as an integer, the refund id as merchant note');
  t.same(await funds(key), { ...before, available: before.available - 200_000 }, 'held out of the available balance while pending');
  t.same(await railAccounts(merchant.id), { inFlight: 200_000, clearing: rail.clearing });

  const first = paystackRefund(reference, res.body.id as string);
  standin.settleRefund(first, 'processing');
  t.equal(await standin.sendRefundWebhook('refund.processing', first), 200, 'refund.processing: recorded only');
  await settleJobs();
  t.match(await refundOf(key, paymentId, res.body.id as string), { status: 'pending' });
  standin.settleRefund(first, 'processed');
  t.equal(await standin.sendRefundWebhook('refund.processed', first), 200, 'refund.processed');
  t.equal(await standin.sendRefundWebhook('refund.processed', first), 200, 'again (Paystack retries)');
  await settleJobs();
  t.match(await refundOf(key, paymentId, res.body.id as string), { status: 'succeeded', failure_code: null });
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing + 200_000 }, 'out through Paystack’s clearing account, once');

  const rest = await refund(key, paymentId, {});
  t.equal(rest.status, 200, rest.text);
  t.match(rest.body, { status: 'pending', amount: 300_000 }, 'the rest of the payment');
  const second = paystackRefund(reference, rest.body.id as string);
  t.equal(second.amount, 300_000);
  assertError(t, await refund(key, paymentId, { amount: 1 }), 'IKW-BIL-003', 'amount');
  t.equal(standin.refundRequests.filter((r) => r.transaction === reference).length, 2, 'nothing over what remains reaches Paystack');
  standin.settleRefund(second, 'processed');
  t.equal(await standin.sendRefundWebhook('refund.processed', second), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, rest.body.id as string), { status: 'succeeded' });
  await advance(svc, FIRST_CHECK);
  t.equal(await standin.sendRefundWebhook('refund.processed', first), 200, 'a late repeat');
  await settleJobs();
  t.same(await funds(key), { ...before, available: before.available - 500_000 }, 'repeats and status checks move nothing more');
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing + 500_000 });
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a lost answer is settled by the status check, never by a second refund; a webhook that never comes too', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund answer lost');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const before = await funds(key);
  standin.nextRefund({ type: 'lose_answer' });
  const res = await refund(key, paymentId, { amount: 100_000 });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'pending' }, 'no answer: pending, not an error');
  const kept = paystackRefund(reference, res.body.id as string);
  standin.settleRefund(kept, 'processed');
  await advance(svc, FIRST_CHECK);
  t.match(await refundOf(key, paymentId, res.body.id as string), { status: 'succeeded' }, 'found in the transaction’s refunds by its note: followed, no webhook needed');
  t.equal(standin.refundsOf(reference).length, 1, 'Paystack saw ONE refund');
  t.equal(standin.refundRequests.filter((r) => r.transaction === reference).length, 1, 'one refund request');

  t.same(await funds(key), { ...before, available: before.available - 100_000 });
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a refund Paystack may have taken is never sent again: a check finding nothing leaves it pending, then in review', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund 5xx');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const before = await funds(key);
  const listed = async () => (await attemptsForReview(svc.system.knex)).filter((a) => a.object === 'refund').map((a) => a.id);
  // A 5xx: Paystack kept nothing here, but Sika cannot know, and Paystack takes no key that would make a second request the same refund.
  standin.nextRefund({ type: 'server_error', taken: false });
  const res = await refund(key, paymentId, { amount: 50_000 });
  t.match(res.body, { status: 'pending' }, 'no answer: pending');
  const id = res.body.id as string;
  for (const delay of [FIRST_CHECK, ...LATER_CHECKS.slice(0, -1)]) {
    await advance(svc, delay);
    t.notOk((await listed()).includes(id), 'not listed while a check is still to come');
  }
  t.equal(standin.refundRequests.filter((r) => r.merchant_note === id).length, 1, 'every check found nothing and sent nothing');
  await advance(svc, LATER_CHECKS.at(-1)!);
  t.match(await refundOf(key, paymentId, id), { status: 'pending' }, 'never failed by guess');
  t.ok((await listed()).includes(id), 'listed for review (sika rails review) once the schedule ran out');
  t.same(standin.refundsOf(reference), [], 'Paystack holds no refund of the payment');
  const after = await funds(key);
  t.equal(after.available + after.pending, before.available + before.pending - 50_000, 'its money held until an operator settles it (the payment settled meanwhile)');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a refund Paystack provably did not take (429) fails at once with its money back: no check would send it', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund 429');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const before = await funds(key);
  standin.nextRefund({ type: 'rate_limited' });
  const res = await refund(key, paymentId, { amount: 50_000 });
  t.equal(res.status, 200, res.text);
  await settleJobs();
  t.match(await refundOf(key, paymentId, res.body.id as string), { status: 'failed', failure_code: 'refund_not_possible' }, 'failed, not left pending for a check that never sends');
  t.same(await funds(key), before, 'its money back');
  await advance(svc, FIRST_CHECK);
  t.equal(standin.refundRequests.filter((r) => r.merchant_note === res.body.id).length, 1, 'one request, never another');
  t.same(standin.refundsOf(reference), [], 'Paystack holds none');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a slow refund is sent once, whatever checks and webhooks come while Paystack answers: one at Paystack, one in Sika', async (t) => {
  const { merchant, key } = await goLive(svc, 'Slow refund');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const before = await funds(key);
  // An earlier refund of the same amount, processed: Paystack repeats its genuine webhook meanwhile.
  const earlier = await refund(key, paymentId, { amount: 100_000 });
  const earlierRecord = standin.settleRefund(paystackRefund(reference, earlier.body.id as string), 'processed');
  t.equal(await standin.sendRefundWebhook('refund.processed', earlierRecord), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, earlier.body.id as string), { status: 'succeeded' });

  standin.nextRefund({ type: 'slow', ms: 3_000 });
  const sent = standin.refundRequests.length;
  const slow = refund(key, paymentId, { amount: 100_000 });
  while (standin.refundRequests.length === sent) await new Promise((resolve) => setTimeout(resolve, 20));
  // While POST /refund is on its way: unsigned refund.processed posts, the earlier refund's genuine webhook, and the first status check.
  for (let i = 0; i < 4; i++) t.equal(await standin.sendRefundWebhook('refund.processed', { ...earlierRecord, id: 9_000 + i }, { forge: 'unsigned' }), 401, 'unsigned: 401');
  t.equal(await standin.sendRefundWebhook('refund.processed', earlierRecord), 200, 'the earlier refund’s webhook again');
  await advance(svc, FIRST_CHECK);
  await settleJobs();
  const res = await slow;
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'pending', amount: 100_000 });
  const id = res.body.id as string;
  // The checks that met the send on its way run again after it.
  await advance(svc, 5 * MINUTE);
  t.equal(standin.refundRequests.filter((r) => r.merchant_note === id).length, 1, 'one refund request');
  const record = paystackRefund(reference, id);
  t.equal(standin.refundsOf(reference).length, 2, 'Paystack holds two refunds of the payment: the earlier one and this one');
  const sika = await svc.system.knex('read.rail_refunds').where({ merchant_id: merchant.id }).select<{ id: string }[]>('id');
  t.equal(sika.length, 2, 'and Sika two');
  standin.settleRefund(record, 'processed');
  t.equal(await standin.sendRefundWebhook('refund.processed', record), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, id), { status: 'succeeded' });
  t.same(await funds(key), { ...before, available: before.available - 200_000 }, 'each refund once');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a refund Paystack rejects or fails is failed with its code and the money back', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund failures');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const before = await funds(key);
  const rail = await railAccounts(merchant.id);
  standin.nextRefund({ type: 'refuse', message: 'Transaction has been fully reversed' });
  const refused = await refund(key, paymentId, { amount: 100_000 });
  t.equal(refused.status, 200, refused.text);
  await settleJobs();
  t.match(await refundOf(key, paymentId, refused.body.id as string), { status: 'failed', failure_code: 'refund_not_possible', failure_message: /fully reversed/ });

  const failing = await refund(key, paymentId, { amount: 100_000 });
  const record = paystackRefund(reference, failing.body.id as string);
  standin.settleRefund(record, 'failed');
  t.equal(await standin.sendRefundWebhook('refund.failed', record), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, failing.body.id as string), { status: 'failed', failure_code: 'refund_failed' });
  t.same(await funds(key), before, 'both refunds’ money back on the available balance');
  t.same(await railAccounts(merchant.id), rail, 'nothing left through Paystack');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('forged, tampered and mismatched refund webhooks move nothing; unverified ones make Sika do nothing at all', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund forgeries');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const res = await refund(key, paymentId, { amount: 100_000 });
  const record = paystackRefund(reference, res.body.id as string);
  const checks = async () => Number((await svc.system.knex('scheduled_jobs').where({ kind: 'refund.status_check' }).whereRaw("payload->>'refundId' = ?", [res.body.id]).count<{ n: string }[]>({ n: '*' }))[0]!.n);
  const scheduled = await checks();
  const asked = standin.requests.length;
  const forged = { ...record, status: 'processed' as const };
  t.equal(await standin.sendRefundWebhook('refund.processed', forged, { forge: 'other_key' }), 401, 'signed with another key: 401');
  t.equal(await standin.sendRefundWebhook('refund.processed', forged, { forge: 'unsigned' }), 401, 'unsigned: 401');
  t.equal(await standin.sendRefundWebhook('refund.processed', forged, { forge: 'tampered' }), 401, 'changed after signing: 401');
  t.equal(await checks(), scheduled, 'no status check asked for');
  await settleJobs();
  t.equal(standin.requests.length, asked, 'Paystack hears nothing from Sika');
  t.equal(await standin.sendRefundWebhook('refund.processed', forged, { override: { amount: '100' } }), 200, 'signed, but not the refund’s amount: taken, names no pending refund');
  await settleJobs();
  t.match(await refundOf(key, paymentId, res.body.id as string), { status: 'pending' }, 'still pending: Paystack lists it pending');
  t.equal(standin.refundRequests.filter((r) => r.merchant_note === res.body.id).length, 1, 'never sent again');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test("another merchant's payment is a 404 to refund", async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund owner');
  const other = await goLive(svc, 'Refund stranger');
  const { paymentId } = await paidCard(merchant.id, key);
  const sent = standin.refundRequests.length;
  assertError(t, await refund(other.key, paymentId, { amount: 1_000 }), 'IKW-RES-001', 'id');
  t.equal(standin.refundRequests.length, sent, 'nothing sent');
  conforms(t);
});
