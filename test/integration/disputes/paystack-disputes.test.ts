/**
 * Disputes of live card payments through Paystack, end to end through the public API
 * (docs/disputes.md): the real PaystackConnector over HTTP to the Paystack stand-in, which keeps
 * the disputes the card network opens and checks each answer against Paystack's contract; its
 * signed dispute webhooks posted to POST /connectors/paystack/events, which only prompt a read of
 * the dispute. Each step's balance (available, pending, reserved) is asserted.
 */
import t, { type Test } from 'tap';
import { paystackReference } from '../../../packages/connectors/paystack/index.js';
import { assertError } from '../../support/assertions.js';
import { balance, fund } from '../../support/payouts.js';
import { confirm, createIntent } from '../../support/payments.js';
import { goLive, startPaystackLive } from '../../support/live.js';
import { advance } from '../../support/system.js';
import type { Dispute } from '../../support/paystack-standin.js';

const { svc, standin } = await startPaystackLive(t);
const DAY = 86_400_000;
const settleJobs = () => svc.system.scheduler.runUntilIdle();
const funds = (key: string) => balance(svc, key, 'ngn');

/** A live NGN card payment Paystack collected and Sika verified, and available funds for the dispute to hold. */
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

/** The card network opens a dispute; Paystack tells Sika by webhook, and the read job runs. */
async function opened(reference: string, options: { dueInMs?: number; refundAmount?: number } = {}) {
  const dispute = standin.openDispute(reference, { now: svc.clock.now(), category: 'fraud', ...options });
  if ((await standin.sendDisputeWebhook('charge.dispute.create', dispute)) !== 200) throw new Error('dispute webhook refused');
  await settleJobs();
  return dispute;
}

const list = async (key: string, query = '') => svc.request('GET', `/api/v1/disputes${query}`, { key });
const disputeOf = async (key: string, paymentId: string) => {
  const res = await list(key, `?payment_intent=${paymentId}`);
  return (res.body.data as Record<string, unknown>[])[0];
};
const evidence = { customer_email: 'ada@example.com', customer_name: 'Ada Obi', customer_phone: '08012345678', service_details: 'Two cups, delivered to Lekki', delivery_date: '2026-11-20' };
const submit = (key: string, id: string, body: object, idempotencyKey?: string) => svc.request('POST', `/api/v1/disputes/${id}/evidence`, { key, body, ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}) });
const accept = (key: string, id: string, idempotencyKey?: string) => svc.request('POST', `/api/v1/disputes/${id}/accept`, { key, body: {}, ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}) });
const resolve = async (dispute: Dispute, resolution: 'declined' | 'auto-accepted') => {
  standin.resolveDispute(dispute, resolution);
  if ((await standin.sendDisputeWebhook('charge.dispute.resolve', dispute)) !== 200) throw new Error('dispute webhook refused');
  await settleJobs();
};

async function balanced(t: Test, merchantId: string) {
  const rows = await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchantId, environment: 'live' }).sum<{ total: string }[]>({ total: 'amount' });
  t.equal(Number(rows[0]!.total), 0, 'the ledger balances: every account of the merchant sums to zero');
}

function conforms(t: Test): void {
  t.same(standin.takeDeviations(), [], 'every request followed Paystack’s contract');
}

t.test('a dispute opened by a verified webhook holds its amount; forged news does nothing; evidence before the due date; won gives it back', async (t) => {
  const { merchant, key } = await goLive(svc, 'Disputed shop');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const before = await funds(key);

  const dispute = standin.openDispute(reference, { now: svc.clock.now(), category: 'fraud' });
  for (const forge of ['unsigned', 'other_key', 'tampered'] as const) t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute, { forge }), 401, `forged (${forge}): refused`);
  await settleJobs();
  t.same((await list(key)).body.data, [], 'forged news opens nothing');
  t.same(await funds(key), before, 'and holds nothing');

  t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute), 200);
  await settleJobs();
  const created = await disputeOf(key, paymentId);
  t.match(created, { object: 'dispute', livemode: true, status: 'needs_response', reason: 'fraud', amount: 500_000, currency: 'ngn', payment_intent: paymentId, evidence: null, closed_at: null });
  t.match(created!.id, /^dp_[0-9A-Za-z]{24}$/);
  t.equal(created!.evidence_due_by, dispute.dueAt, "Paystack's due date");
  t.same(await funds(key), { ...before, available: before.available - 500_000, reserved: before.reserved + 500_000 }, 'the disputed amount moved from available to reserved');

  t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute), 200, 'Paystack retries');
  t.equal(await standin.sendDisputeWebhook('charge.dispute.remind', dispute), 200, 'and reminds');
  await settleJobs();
  t.equal((await list(key)).body.data.length, 1, 'one dispute');
  t.same(await funds(key), { ...before, available: before.available - 500_000, reserved: before.reserved + 500_000 }, 'held once');

  const id = created!.id as string;
  const retrieved = await svc.request('GET', `/api/v1/disputes/${id}`, { key });
  t.equal(retrieved.status, 200);
  t.same(retrieved.body, created);

  assertError(t, await submit(key, id, { ...evidence, files: ['as_nothing'] }), 'IKW-DSP-004', 'files');
  const sent = await submit(key, id, evidence, 'evidence-1');
  t.equal(sent.status, 200, sent.text);
  t.match(sent.body, { status: 'under_review', evidence: { customer_name: 'Ada Obi', delivery_date: '2026-11-20', delivery_address: null, files: [] } });
  const again = await submit(key, id, evidence, 'evidence-1');
  t.same(again.body, sent.body, 'the same Idempotency-Key: the first answer');
  t.match(standin.disputeRequests, [{ method: 'POST', path: `/dispute/${dispute.id}/evidence`, body: { customer_email: 'ada@example.com', customer_name: 'Ada Obi', customer_phone: '08012345678', service_details: 'Two cups, delivered to Lekki', delivery_date: '2026-11-20' } }]);
  t.equal(standin.disputeRequests.length, 1, 'sent to Paystack once');
  assertError(t, await submit(key, id, evidence), 'IKW-DSP-001');

  await resolve(dispute, 'declined');
  t.match(await disputeOf(key, paymentId), { status: 'won', closed_at: String });
  t.same(await funds(key), before, 'won: the amount is back on the available balance');
  await resolve(dispute, 'declined');
  t.same(await funds(key), before, 'a repeated resolution moves nothing');
  assertError(t, await accept(key, id), 'IKW-DSP-003');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a lost dispute is debited for good; an accepted one too; late evidence is refused; another merchant’s dispute is 404', async (t) => {
  const { merchant, key } = await goLive(svc, 'Losing shop');
  const other = await goLive(svc, 'Other shop');
  const lost = await paidCard(merchant.id, key, 300_000);
  const before = await funds(key);
  const clearing = async () => Number((await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchant.id, environment: 'live', currency: 'ngn', account: 'rail_clearing:paystack' }).first<{ amount: string }>('amount'))?.amount ?? 0);
  const clearingBefore = await clearing();

  const dispute = await opened(lost.reference, { dueInMs: 2 * DAY });
  const d = await disputeOf(key, lost.paymentId);
  t.same(await funds(key), { ...before, available: before.available - 300_000, reserved: before.reserved + 300_000 });
  assertError(t, await svc.request('GET', `/api/v1/disputes/${d!.id}`, { key: other.key }), 'IKW-RES-001');
  assertError(t, await submit(other.key, d!.id as string, evidence), 'IKW-RES-001');
  assertError(t, await accept(other.key, d!.id as string), 'IKW-RES-001');
  t.same((await list(other.key)).body.data, [], "another merchant's list does not show it");

  await advance(svc, 3 * DAY);
  assertError(t, await submit(key, d!.id as string, evidence), 'IKW-DSP-002');
  t.equal(standin.disputeRequests.filter((r) => r.path.startsWith(`/dispute/${dispute.id}/`)).length, 0, 'late evidence never reaches Paystack');

  // Three days on, the payment settled: what is pending and available together is what counts.
  const spendable = async () => {
    const f = await funds(key);
    return { spendable: f.available + f.pending, reserved: f.reserved };
  };
  t.same(await spendable(), { spendable: before.available + before.pending - 300_000, reserved: before.reserved + 300_000 });
  await resolve(dispute, 'auto-accepted');
  t.match(await disputeOf(key, lost.paymentId), { status: 'lost' });
  t.same(await spendable(), { spendable: before.available + before.pending - 300_000, reserved: before.reserved }, 'lost: out of reserved for good');
  t.equal(await clearing(), clearingBefore + 300_000, "back out through Paystack's clearing account");
  await resolve(dispute, 'auto-accepted');
  t.same(await spendable(), { spendable: before.available + before.pending - 300_000, reserved: before.reserved }, 'a repeat debits nothing more');

  const accepted = await paidCard(merchant.id, key, 200_000);
  const mid = await funds(key);
  const second = await opened(accepted.reference);
  const s = await disputeOf(key, accepted.paymentId);
  t.same(await funds(key), { ...mid, available: mid.available - 200_000, reserved: mid.reserved + 200_000 });
  const res = await accept(key, s!.id as string, 'accept-1');
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'accepted', closed_at: String });
  t.same((await accept(key, s!.id as string, 'accept-1')).body, res.body, 'the same Idempotency-Key: the first answer');
  t.match(standin.disputeRequests.filter((r) => r.path === `/dispute/${second.id}/resolve`), [{ method: 'PUT', body: { resolution: 'merchant-accepted', refund_amount: 200_000 } }]);
  t.same(await funds(key), { ...mid, available: mid.available - 200_000 }, 'accepted: as lost');
  t.equal(await standin.sendDisputeWebhook('charge.dispute.resolve', second), 200, "Paystack's news of the acceptance");
  await settleJobs();
  t.same(await funds(key), { ...mid, available: mid.available - 200_000 }, 'changes nothing');
  t.match(await disputeOf(key, accepted.paymentId), { status: 'accepted' });
  t.same((await list(key, '?status=accepted')).body.data.map((x: { id: string }) => x.id), [s!.id]);

  await balanced(t, merchant.id);
  t.same(await svc.system.verifyProjections(), [], 'projections verify: every read model equals its rebuild');
  conforms(t);
});

t.test('news of a dispute of no payment of Sika’s, or of another amount, does nothing', async (t) => {
  const { merchant, key } = await goLive(svc, 'Unmatched shop');
  const { reference } = await paidCard(merchant.id, key, 100_000);
  const before = await funds(key);
  const dispute = standin.openDispute(reference, { now: svc.clock.now() });
  // The transaction Paystack reads back is another amount than the payment's: not matched.
  standin.transaction(reference)!.request.amount = 90_000;
  t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute), 200);
  await settleJobs();
  t.same((await list(key)).body.data, []);
  t.same(await funds(key), before);
  t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute, { override: { id: 999_999 } }), 200, 'a dispute Paystack does not know');
  await settleJobs();
  t.same((await list(key)).body.data, []);
  conforms(t);
});
