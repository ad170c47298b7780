/**
 * Live refunds through pawaPay, end to end through the public API (docs/connectors.md, "Refunds
 * through a rail"): the real PawapayConnector over HTTP to the pawaPay stand-in, which checks each
 * refund request against pawaPay's contract; its signed callbacks posted to the service's refund
 * callback route; status checks run on the manual clock. A refund starts pending with its id
 * committed and its money held; only the rail's answer, told once, ends it.
 */
import t, { type Test } from '#tap';
import { pawapayId } from '#packages/connectors/pawapay/index.js';
import { confirm, createIntent, mobileMoney, snNumber } from '../support/payments.js';
import { assertError } from '../support/assertions.js';
import { balance, fund } from '../support/payouts.js';
import { goLive, PAWAPAY_TOKEN, startPawapayLive } from '../support/live.js';
import { startProcess } from '../support/child-process.js';
import { railHoldings } from '#packages/families/ledger/read/balances.js';
import { attemptsForReview } from '../../services/rails.js';
import { advance, loseAnswerInCrash } from '../support/system.js';
import { activeCampaign, contribute, DAY, getCampaign } from '../support/funding.js';
import { escrow, ok as escrowOk } from '../support/escrow.js';

const live = await startPawapayLive(t);
const { svc, standin } = live;
const MINUTE = 60_000;
/** PAWAPAY_STATUS_CHECK_AFTER's default: the first status check of an attempt with no final answer. */
const FIRST_CHECK = 2 * MINUTE;

/** The refund requests the stand-in received. */
const refundRequests = () => standin.requests.filter((r) => r.method === 'POST' && r.path === '/v2/refunds').map((r) => JSON.parse(r.body) as Record<string, unknown>);
const settleJobs = () => svc.system.scheduler.runUntilIdle();

function conforms(t: Test): void {
  t.same(standin.takeDeviations(), [], 'every request followed pawaPay’s contract and was signed');
}

/** A live payment pawaPay collected, succeeded; and the merchant's available balance funded so refunds are covered. */
async function paidLive(merchantId: string, key: string, amount = 10_000) {
  const intent = await createIntent(svc, key, { amount });
  const res = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) });
  if (res.status !== 200) throw new Error(res.text);
  const depositId = pawapayId(res.body.latest_operation as string);
  standin.settle('deposits', depositId, 'COMPLETED');
  if ((await standin.sendCallback('deposits', depositId)) !== 200) throw new Error('deposit callback refused');
  await settleJobs();
  await fund(svc, merchantId, 50_000, 'live');
  return { paymentId: intent.id as string, depositId };
}

const refund = (key: string, paymentId: string, body: object, idempotencyKey?: string, service = svc) =>
  service.request('POST', `/api/v1/merchant/payments/${paymentId}/refund`, { key, body, ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}) });
const refundsOf = async (key: string, paymentId: string) => (await svc.request('GET', `/api/v1/merchant/payments/${paymentId}/refunds?limit=100`, { key })).body.data as Record<string, unknown>[];
const refundOf = async (key: string, paymentId: string, id: string) => (await refundsOf(key, paymentId)).find((r) => r.id === id);

/** An escrow contract of 10,000 XOF whose funding payment pawaPay is collecting, and that deposit's id. */
async function contractBeingFunded(t: Test, key: string) {
  const contract = await escrowOk(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 10_000 }));
  const intent = await createIntent(svc, key, { amount: 10_000 });
  await escrowOk(await escrow(svc, key, 'POST', `/contracts/${contract.id}/submit-for-funding`, { paymentIntentId: intent.id }));
  const res = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) });
  t.equal(res.status, 200, res.text);
  return { contract, depositId: pawapayId(res.body.latest_operation as string) };
}

/** The merchant's live XOF ledger accounts that a refund through pawaPay moves. */
async function railAccounts(merchantId: string) {
  const rows = await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchantId, environment: 'live', currency: 'xof' }).select<{ account: string; amount: string }[]>('account', 'amount');
  const of = (account: string) => Number(rows.find((r) => r.account === account)?.amount ?? 0);
  return { inFlight: of('rail_refunds:pawapay'), clearing: of('rail_clearing:pawapay') };
}

/** Every live entry of the merchant balances, and the refunds' in-flight account ends at zero once every refund is answered. */
async function balanced(t: Test, merchantId: string) {
  const rows = await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchantId, environment: 'live' }).sum<{ total: string }[]>({ total: 'amount' });
  t.equal(Number(rows[0]!.total), 0, 'the ledger balances: every account of the merchant sums to zero');
}

t.test('a live refund goes back through pawaPay: pending with its money held, succeeded by the callback, once', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund by callback');
  const { paymentId, depositId } = await paidLive(merchant.id, key);
  const before = await balance(svc, key);
  const rail = await railAccounts(merchant.id);

  const res = await refund(key, paymentId, { amount: 4_000, reason: 'requested_by_customer' });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { object: 'refund', status: 'pending', amount: 4_000, currency: 'xof', payment_intent: paymentId, livemode: true, failure_code: null, failure_message: null });
  const refundId = pawapayId(res.body.id as string);
  t.match(refundRequests().at(-1), { refundId, depositId, amount: '4000', currency: 'XOF', clientReferenceId: res.body.id }, 'pawaPay’s refund of the original deposit, under the UUID derived from the refund id');
  t.match(standin.operation('refunds', refundId), { status: 'ACCEPTED' });
  t.same(await balance(svc, key), { ...before, available: before.available - 4_000 }, 'held out of the available balance while pending');
  t.same(await railAccounts(merchant.id), { inFlight: 4_000, clearing: rail.clearing }, 'on the refunds in flight: still in pawaPay’s wallet as far as the ledger knows');

  standin.settle('refunds', refundId, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', refundId), 200, 'the callback is taken');
  t.equal(await standin.sendCallback('refunds', refundId, { encoding: 'raw' }), 200, 'the same callback again');
  await settleJobs();
  t.match(await refundOf(key, paymentId, res.body.id), { status: 'succeeded', failure_code: null });
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing + 4_000 }, 'out through pawaPay’s clearing account, once');

  t.equal(await standin.sendCallback('refunds', refundId), 200, 'a late repeat');
  await advance(svc, FIRST_CHECK);
  t.same(await balance(svc, key), { ...before, available: before.available - 4_000 }, 'a repeated callback and the status check move nothing more');
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing + 4_000 });
  const row = await svc.system.knex('read.refunds').where({ id: res.body.id }).first();
  t.equal(row.status, 'succeeded', 'the read model says so too');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a lost answer is settled by the status check, never by a second refund', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund answer lost');
  const { paymentId } = await paidLive(merchant.id, key);
  const before = await balance(svc, key);
  const sent = refundRequests().length;
  standin.next({ type: 'lose_answer' });
  const res = await refund(key, paymentId, { amount: 3_000 });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'pending' }, 'no answer: pending, not an error');
  const refundId = pawapayId(res.body.id as string);
  t.match(standin.operation('refunds', refundId), { status: 'ACCEPTED' }, 'pawaPay took it');
  standin.settle('refunds', refundId, 'COMPLETED');
  await advance(svc, FIRST_CHECK);
  t.match(await refundOf(key, paymentId, res.body.id), { status: 'succeeded' }, 'FOUND, COMPLETED: followed');
  t.equal(refundRequests().length, sent + 1, 'exactly one refund request reached pawaPay');
  t.same(await balance(svc, key), { ...before, available: before.available - 3_000 });

  // A 5xx before pawaPay kept anything: NOT_FOUND, so it is sent again under the same id.
  standin.next({ type: 'server_error', taken: false });
  const again = await refund(key, paymentId, { amount: 2_000 });
  t.match(again.body, { status: 'pending' });
  const againId = pawapayId(again.body.id as string);
  t.notOk(standin.operation('refunds', againId), 'pawaPay kept nothing');
  await advance(svc, FIRST_CHECK);
  t.match(standin.operation('refunds', againId), { status: 'ACCEPTED' }, 'sent again under the same id');
  t.same(
    new Set(
      refundRequests()
        .slice(sent)
        .map((r) => r.refundId),
    ).size,
    2,
    'two refunds, two ids, whatever was sent again',
  );
  standin.settle('refunds', againId, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', againId), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, again.body.id), { status: 'succeeded' });
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a refund retried after a crash that followed its send answers the same refund, and pawaPay gets one request', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund retried after send');
  const { paymentId } = await paidLive(merchant.id, key);
  const before = await balance(svc, key);
  const sent = refundRequests().length;
  const first = await refund(key, paymentId, { amount: 4_000 }, 'pawapay-refund-1');
  t.equal(first.status, 200, first.text);
  t.match(first.body, { status: 'pending' });
  // The service dies before the answer reaches the client, which retries with the same key and body.
  await loseAnswerInCrash(svc, 'pawapay-refund-1');
  const retried = await refund(key, paymentId, { amount: 4_000 }, 'pawapay-refund-1');
  t.equal(retried.status, 200, retried.text);
  t.same(retried.body, first.body, 'the refund the first attempt made, pending as it stands');
  t.equal(refundRequests().length, sent + 1, 'pawaPay got one refund request');
  t.same(await balance(svc, key), { ...before, available: before.available - 4_000 }, 'held once');
  t.same((await railAccounts(merchant.id)).inFlight, 4_000, 'one refund in flight');
  t.equal((await refundsOf(key, paymentId)).length, 1, 'the payment has one refund');

  const refundId = pawapayId(first.body.id as string);
  standin.settle('refunds', refundId, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', refundId), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, first.body.id), { status: 'succeeded' });
  t.same(await balance(svc, key), { ...before, available: before.available - 4_000 }, 'refunded once');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a refund committed but never sent, retried after a crash: the retry answers it pending and sends nothing; its status check sends it once', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund retried before send');
  const { paymentId } = await paidLive(merchant.id, key);
  const before = await balance(svc, key);
  const sent = refundRequests().length;
  // pawaPay keeps nothing of the first request: to Sika and to pawaPay, as if the process died before sending it.
  standin.next({ type: 'server_error', taken: false });
  const first = await refund(key, paymentId, { amount: 2_500 }, 'pawapay-refund-2');
  t.equal(first.status, 200, first.text);
  const refundId = pawapayId(first.body.id as string);
  t.notOk(standin.operation('refunds', refundId), 'pawaPay has no such refund');
  await loseAnswerInCrash(svc, 'pawapay-refund-2');
  const retried = await refund(key, paymentId, { amount: 2_500 }, 'pawapay-refund-2');
  t.equal(retried.status, 200, retried.text);
  t.same(retried.body, first.body, 'the pending refund the first attempt committed');
  t.notOk(standin.operation('refunds', refundId), 'the retry sends nothing: the status check set before the commit does');
  t.same(await balance(svc, key), { ...before, available: before.available - 2_500 }, 'held once');

  await advance(svc, FIRST_CHECK);
  t.match(standin.operation('refunds', refundId), { status: 'ACCEPTED' }, 'NOT_FOUND: sent by the status check under the same id');
  standin.settle('refunds', refundId, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', refundId), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, first.body.id), { status: 'succeeded' });
  t.same(
    new Set(
      refundRequests()
        .slice(sent)
        .map((r) => r.refundId),
    ),
    new Set([refundId]),
    'every request pawaPay saw was of the one refund',
  );
  t.equal((await refundsOf(key, paymentId)).length, 1, 'one refund');
  t.same(await balance(svc, key), { ...before, available: before.available - 2_500 }, 'refunded once');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a retry that takes over a first attempt still running makes the same refund, and only one of them sends it', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund taken over while running');
  const { paymentId } = await paidLive(merchant.id, key);
  const before = await balance(svc, key);
  const sent = refundRequests().length;
  const owner = { merchantId: merchant.id, environment: 'live' as const };
  // The first attempt silent past the claim's 60 s, the client's retry runs beside it with the same request.
  const [first, retried] = await Promise.all([0, 1].map(() => svc.system.billing.refunds.create(owner, paymentId, { amount: 1_500 }, { actor: 'test' }, 'taken-over|body')));
  t.equal(retried!.id, first!.id, 'one refund');
  t.equal(refundRequests().length, sent + 1, 'sent once to pawaPay');
  t.same(await balance(svc, key), { ...before, available: before.available - 1_500 }, 'held once');
  const refundId = pawapayId(first!.id);
  standin.settle('refunds', refundId, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', refundId), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, first!.id), { status: 'succeeded' });
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a refund pawaPay rejects or fails is failed with its failure_code, and its money is back', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund refused');
  const { paymentId } = await paidLive(merchant.id, key);
  const before = await balance(svc, key);
  const rail = await railAccounts(merchant.id);

  standin.next({ type: 'reject', code: 'REFUNDS_NOT_ALLOWED' });
  const rejected = await refund(key, paymentId, { amount: 10_000 });
  t.equal(rejected.status, 200, rejected.text);
  t.match(rejected.body, { status: 'failed', failure_code: 'refund_not_supported', failure_message: String, failure_reason: 'rail_failed' }, 'REJECTED at once: failed');
  t.same(await balance(svc, key), before, 'the money is back at once');

  const later = await refund(key, paymentId, { amount: 10_000 });
  t.match(later.body, { status: 'pending' }, 'a failed refund leaves the amount refundable');
  const laterId = pawapayId(later.body.id as string);
  standin.settle('refunds', laterId, 'FAILED', 'RECIPIENT_NOT_FOUND');
  t.equal(await standin.sendCallback('refunds', laterId), 200);
  await settleJobs();
  t.match(await refundOf(key, paymentId, later.body.id), { status: 'failed', failure_code: 'recipient_not_found', failure_reason: 'rail_failed' }, 'FAILED later: its code');
  t.same(await balance(svc, key), before, 'the money is back');
  t.same(await railAccounts(merchant.id), rail, 'nothing left pawaPay’s clearing account');
  const failures = await svc.request('GET', `/api/v1/balance-transactions?type=refund_failure`, { key });
  t.equal(failures.status, 200, failures.text);
  t.equal(failures.body.data.length, 2, 'each return of money is a refund_failure balance transaction');
  t.same(
    failures.body.data.map((b: { amount: number }) => b.amount),
    [10_000, 10_000],
  );
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a forged callback moves nothing; a mismatched one goes to a status check; a repeated one moves nothing more', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund forgeries');
  const { paymentId } = await paidLive(merchant.id, key);
  const res = await refund(key, paymentId, { amount: 5_000 });
  const refundId = pawapayId(res.body.id as string);
  const rail = await railAccounts(merchant.id);
  standin.settle('refunds', refundId, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', refundId, { forge: 'other_key' }), 401, 'signed with a key that is not pawaPay’s');
  t.equal(await standin.sendCallback('refunds', refundId, { forge: 'tampered' }), 401, 'body changed after signing');
  t.equal(await standin.sendCallback('refunds', refundId, { forge: 'unsigned' }), 401, 'unsigned');
  t.equal(await standin.sendCallback('refunds', refundId, { override: { amount: '50.00' } }), 200, 'a mismatched amount: taken, not believed');
  t.equal(await standin.sendCallback('refunds', refundId, { override: { currency: 'GHS' } }), 200, 'a mismatched currency');
  t.notOk(await svc.system.knex('scheduled_jobs').where({ kind: 'refund.callback' }).whereRaw("payload->>'refundId' = ?", [res.body.id]).first(), 'none reached a callback job');
  t.ok(await svc.system.knex('scheduled_jobs').where({ kind: 'refund.status_check' }).whereRaw("payload->>'refundId' = ? AND (payload->>'prompted')::boolean", [res.body.id]).first(), 'a status check is set instead');
  t.same(await railAccounts(merchant.id), rail, 'nothing moved');

  // The status check finds pawaPay's record, which does not match the refund either: review, nothing moves.
  standin.settle('refunds', refundId, 'COMPLETED');
  const record = standin.operation('refunds', refundId)!;
  const asked = record.request.amount;
  record.request.amount = '4999';
  await settleJobs();
  t.match(await refundOf(key, paymentId, res.body.id), { status: 'pending' }, 'a record that does not match: left pending');
  t.same(await railAccounts(merchant.id), rail);
  record.request.amount = asked;
  t.equal(await standin.sendCallback('refunds', refundId), 200, 'the real callback');
  await settleJobs();
  t.match(await refundOf(key, paymentId, res.body.id), { status: 'succeeded' });
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing + 5_000 });
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a signed refund callback pawaPay’s own record does not back up moves nothing; the record decides', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund records decide');
  const { paymentId } = await paidLive(merchant.id, key);
  const res = await refund(key, paymentId, { amount: 5_000 });
  const refundId = pawapayId(res.body.id as string);
  const rail = await railAccounts(merchant.id);
  // pawaPay failed the refund; a signed callback says it completed.
  standin.settle('refunds', refundId, 'FAILED', 'RECIPIENT_NOT_FOUND');
  t.equal(await standin.sendCallback('refunds', refundId, { override: { status: 'COMPLETED', providerTransactionId: 'PP99999997', failureReason: undefined } }), 200);
  t.ok(
    standin.requests.some((r) => r.method === 'GET' && r.path === `/v2/refunds/${refundId}`),
    'the refund was read from pawaPay',
  );
  t.notOk(await svc.system.knex('scheduled_jobs').where({ kind: 'refund.callback' }).whereRaw("payload->>'refundId' = ?", [res.body.id]).first(), 'the callback reached no callback job');
  await settleJobs();
  t.match(await refundOf(key, paymentId, res.body.id), { status: 'failed' }, 'FAILED at pawaPay: the refund fails, as its record says');
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing }, 'nothing left the clearing account');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('parallel refunds of one payment never exceed it, at Sika or at pawaPay', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund race');
  const { paymentId, depositId } = await paidLive(merchant.id, key);
  const results = await Promise.all(Array.from({ length: 10 }, () => refund(key, paymentId, { amount: 3_000 })));
  const ok = results.filter((r) => r.status === 200);
  t.equal(ok.length, 3, '3 × 3,000 fit in 10,000');
  for (const r of results.filter((r) => r.status !== 200)) assertError(t, r, 'IKW-BIL-003', 'amount');
  const sentForDeposit = refundRequests().filter((r) => r.depositId === depositId);
  t.equal(sentForDeposit.length, 3, 'three refunds sent');
  t.equal(
    sentForDeposit.reduce((sum, r) => sum + Number(r.amount), 0),
    9_000,
    'never more than the payment',
  );
  t.equal((await railAccounts(merchant.id)).inFlight, 9_000);
  conforms(t);
});

t.test("another merchant's payment and refunds are a 404", async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund owner');
  const { paymentId } = await paidLive(merchant.id, key);
  const { key: otherKey } = await goLive(svc, 'Refund stranger');
  const sent = refundRequests().length;
  assertError(t, await refund(otherKey, paymentId, { amount: 1_000 }), 'IKW-RES-001', 'id');
  const listed = await svc.request('GET', `/api/v1/merchant/payments/${paymentId}/refunds`, { key: otherKey });
  assertError(t, listed, 'IKW-RES-001', 'id');
  t.equal(refundRequests().length, sent, 'nothing sent');
  conforms(t);
});

t.test('a refund pawaPay never answers stays pending after every status check and is listed for review', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund never answered');
  const { paymentId } = await paidLive(merchant.id, key);
  const res = await refund(key, paymentId, { amount: 2_000 });
  const listed = async () => (await attemptsForReview(svc.system.knex)).filter((a) => a.object === 'refund').map((a) => a.id);
  for (const delay of [FIRST_CHECK, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE, 180 * MINUTE, 360 * MINUTE, 720 * MINUTE]) {
    await advance(svc, delay);
    t.notOk((await listed()).includes(res.body.id), 'not listed while a check is still to come');
  }
  await advance(svc, 1440 * MINUTE);
  t.match(await refundOf(key, paymentId, res.body.id), { status: 'pending' }, 'never failed by guess');
  t.ok((await listed()).includes(res.body.id), 'listed for review (sika rails review)');
  t.equal((await railAccounts(merchant.id)).inFlight, 2_000, 'its money still held');
  conforms(t);
});

t.test('an all-or-nothing campaign that fails at its deadline gives its pawaPay contributions back through pawaPay', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund campaign');
  const deadline = new Date(svc.clock.now().getTime() + 7 * DAY).toISOString();
  const campaign = await activeCampaign(svc, key, { fundingModel: 'all_or_nothing', targetAmountMinor: 50_000, deadline });
  const deposits: string[] = [];
  for (const amountMinor of [20_000, 5_000]) {
    const res = await contribute(svc, key, campaign.id, { amountMinor });
    t.equal(res.status, 200, res.text);
    const depositId = (JSON.parse(standin.requests.filter((r) => r.path === '/v2/deposits').at(-1)!.body) as { depositId: string }).depositId;
    standin.settle('deposits', depositId, 'COMPLETED');
    t.equal(await standin.sendCallback('deposits', depositId), 200);
    deposits.push(depositId);
  }
  await svc.system.drain();
  t.match(await getCampaign(svc, key, campaign.id), { status: 'active', raisedAmountMinor: 25_000 });
  const rail = await railAccounts(merchant.id);
  const sent = refundRequests().length;

  svc.clock.advance(7 * DAY);
  await svc.system.drain();
  t.match(await getCampaign(svc, key, campaign.id), { status: 'failed', heldAmountMinor: 0, refundedAmountMinor: 25_000 });
  const refunds = refundRequests().slice(sent);
  t.same(refunds.map((r) => r.depositId).sort(), [...deposits].sort(), 'each contribution refunded through pawaPay, from its own deposit');
  t.same(refunds.map((r) => r.amount).sort(), ['20000', '5000']);
  t.same(await railAccounts(merchant.id), { inFlight: 25_000, clearing: rail.clearing }, 'pending: out of the campaign, on the refunds in flight');

  for (const r of refunds) {
    standin.settle('refunds', r.refundId as string, 'COMPLETED');
    t.equal(await standin.sendCallback('refunds', r.refundId as string), 200);
  }
  await svc.system.drain();
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing + 25_000 }, 'given back through pawaPay’s clearing account');
  const list = (await svc.request('GET', `/api/v1/funding/campaigns/${campaign.id}/contributions`, { key })).body.data as { status: string; refundReason: string | null }[];
  t.same(
    list.map((c) => [c.status, c.refundReason]),
    [
      ['refunded', 'campaign_failed'],
      ['refunded', 'campaign_failed'],
    ],
  );
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a contribution paid through pawaPay after its campaign ended is taken and given back through pawaPay at once', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund late contribution');
  const campaign = await activeCampaign(svc, key);
  const res = await contribute(svc, key, campaign.id, { amountMinor: 6_000 });
  t.equal(res.status, 200, res.text);
  const depositId = (JSON.parse(standin.requests.filter((r) => r.path === '/v2/deposits').at(-1)!.body) as { depositId: string }).depositId;
  const closed = await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/close`, { key });
  t.equal(closed.status, 200, closed.text);
  const rail = await railAccounts(merchant.id);
  const sent = refundRequests().length;
  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId), 200);
  await svc.system.drain();
  const contribution = (await svc.request('GET', `/api/v1/funding/contributions/${res.body.id}`, { key })).body;
  t.match(contribution, { status: 'refunded', refundReason: 'campaign_ended' });
  const refunds = refundRequests().slice(sent);
  t.match(refunds, [{ depositId, amount: '6000' }], 'sent once the payment’s commit was made, from its own deposit');
  t.same(await railAccounts(merchant.id), { inFlight: 6_000, clearing: rail.clearing - 6_000 }, 'in through pawaPay, pending on its way back');
  standin.settle('refunds', refunds[0]!.refundId as string, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', refunds[0]!.refundId as string), 200);
  await svc.system.drain();
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing }, 'and back out through it');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test("a contribution given back through pawaPay names its refund: pawaPay's record carries its id, and the contribution shows the rail's answer", async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund contribution named');
  const campaign = await activeCampaign(svc, key);
  const paid: { id: string; depositId: string }[] = [];
  for (const amountMinor of [4_000, 3_000]) {
    const res = await contribute(svc, key, campaign.id, { amountMinor });
    t.equal(res.status, 200, res.text);
    const depositId = (JSON.parse(standin.requests.filter((r) => r.path === '/v2/deposits').at(-1)!.body) as { depositId: string }).depositId;
    standin.settle('deposits', depositId, 'COMPLETED');
    t.equal(await standin.sendCallback('deposits', depositId), 200);
    paid.push({ id: res.body.id as string, depositId });
  }
  await svc.system.drain();
  const contribution = async (id: string) => (await svc.request('GET', `/api/v1/funding/contributions/${id}`, { key })).body as Record<string, unknown>;
  t.match(await contribution(paid[0]!.id), { status: 'succeeded', refund: null }, 'not given back: no refund');

  const sent = refundRequests().length;
  const givenBack = [];
  for (const c of paid) {
    const res = await svc.request('POST', `/api/v1/funding/contributions/${c.id}/refund`, { key, headers: { 'idempotency-key': `named-${c.id}` } });
    t.equal(res.status, 200, res.text);
    givenBack.push(res.body as { refund: { id: string } });
  }
  const [completed, failed] = givenBack.map((b) => b.refund);
  t.same(givenBack[0]!.refund, { id: paid[0]!.id, rail: 'pawapay', status: 'pending', failureCode: null, settledAt: null }, 'pending with the rail until its answer');
  const requests = refundRequests().slice(sent);
  t.same(
    requests.map((r) => [r.refundId, r.clientReferenceId, (r.metadata as { sikaId?: string }[]).find((m) => m.sikaId !== undefined)?.sikaId, r.depositId, r.amount]),
    [
      [pawapayId(completed!.id), completed!.id, completed!.id, paid[0]!.depositId, '4000'],
      [pawapayId(failed!.id), failed!.id, failed!.id, paid[1]!.depositId, '3000'],
    ],
    "pawaPay's refund is found by the refund's id: its refundId derives from it, its record carries it",
  );

  standin.settle('refunds', pawapayId(completed!.id), 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', pawapayId(completed!.id)), 200);
  standin.settle('refunds', pawapayId(failed!.id), 'FAILED', 'RECIPIENT_NOT_FOUND');
  t.equal(await standin.sendCallback('refunds', pawapayId(failed!.id)), 200);
  await svc.system.drain();
  t.match(await contribution(paid[0]!.id), { status: 'refunded', refund: { id: paid[0]!.id, rail: 'pawapay', status: 'succeeded', failureCode: null, settledAt: String } }, 'COMPLETED: succeeded');
  t.match(
    await contribution(paid[1]!.id),
    { status: 'refunded', refund: { id: paid[1]!.id, rail: 'pawapay', status: 'failed', failureCode: 'recipient_not_found', settledAt: String } },
    'FAILED: failed with its code, the contribution still given back',
  );
  // The failed give-back's money is back on the campaign's account, and its ledger shows the entry that put it there.
  const ledger = (await svc.request('GET', `/api/v1/funding/campaigns/${campaign.id}/ledger`, { key })).body as { balanceMinor: number; entries: { kind: string; source: string; amountMinor: number }[] };
  const onAccount = await svc.system
    .knex('read.ledger_accounts')
    .where({ merchant_id: merchant.id, environment: 'live', currency: 'xof', account: `campaign:${campaign.id}` })
    .first<{ amount: string }>();
  t.equal(Number(onAccount.amount), 3_000, 'the failed give-back’s money is back on the campaign’s account');
  t.equal(ledger.balanceMinor, 3_000, 'and the campaign’s ledger says so (issue 63: found by the simulator, seed 6301)');
  t.same(
    ledger.entries.filter((e) => e.kind === 'refund_reversal').map((e) => [e.source, e.amountMinor]),
    [[paid[1]!.id, 3_000]],
    'by the reversal of its refund',
  );
  const list = (await svc.request('GET', `/api/v1/funding/campaigns/${campaign.id}/contributions`, { key })).body.data as { id: string; refund: { status: string } }[];
  t.same(
    list.map((c) => [c.id, c.refund.status]),
    [
      [paid[1]!.id, 'failed'],
      [paid[0]!.id, 'succeeded'],
    ],
    'the list shows each refund as it stands',
  );
  const again = await svc.request('POST', `/api/v1/funding/contributions/${paid[0]!.id}/refund`, { key, headers: { 'idempotency-key': `named-${paid[0]!.id}` } });
  t.same(again.body, givenBack[0], 'a retry with its key replays the first answer');
  t.equal(refundRequests().length, sent + 2, 'and sends nothing more');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a payment that reaches an escrow contract canceled meanwhile goes straight back through pawaPay', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund escrow');
  const { contract, depositId } = await contractBeingFunded(t, key);
  await escrowOk(await escrow(svc, key, 'POST', `/contracts/${contract.id}/cancel`));
  const rail = await railAccounts(merchant.id);
  const sent = refundRequests().length;
  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId), 200);
  await svc.system.drain();
  const after = await escrowOk(await escrow(svc, key, 'GET', `/contracts/${contract.id}`));
  t.match(after, { status: 'canceled', heldMinor: 0 });
  t.ok(after.fundedMinor > 0 && after.refundedMinor === after.fundedMinor, 'recorded, then given back');
  const refunds = refundRequests().slice(sent);
  t.match(refunds, [{ depositId, amount: String(after.fundedMinor) }], 'refunded through pawaPay from the deposit that funded it');
  const refundId = refunds[0]!.refundId as string;
  t.equal((await railAccounts(merchant.id)).inFlight, after.fundedMinor, 'pending on the refunds in flight');
  standin.settle('refunds', refundId, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', refundId), 200);
  await svc.system.drain();
  t.same(await railAccounts(merchant.id), { inFlight: 0, clearing: rail.clearing - 10_000 + after.fundedMinor }, 'in through pawaPay, and the held funds back out through it');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('an escrow refund retried beside a first attempt still running, or after a crash, is one refund sent once through pawaPay', async (t) => {
  const { merchant, key } = await goLive(svc, 'Escrow refund taken over');
  const { contract, depositId } = await contractBeingFunded(t, key);
  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId), 200);
  await svc.system.drain();
  const sent = refundRequests().length;
  const owner = { merchantId: merchant.id, environment: 'live' as const };
  const refundOnce = () => svc.system.escrowRefunds.refund(owner, contract.id, { amountMinor: 2_000 }, { actor: 'test' }, 'escrow-taken-over|body');
  const [first, retried] = await Promise.all([refundOnce(), refundOnce()]);
  t.equal(retried!.refundedMinor, 2_000, 'one refund');
  t.equal(first!.refundedMinor, 2_000);
  t.equal(refundRequests().length, sent + 1, 'sent once to pawaPay');
  t.equal((await refundOnce()).refundedMinor, 2_000, 'a later retry answers it too');
  t.equal(refundRequests().length, sent + 1, 'and sends nothing');
  const refundId = refundRequests().at(-1)!.refundId as string;
  standin.settle('refunds', refundId, 'COMPLETED');
  t.equal(await standin.sendCallback('refunds', refundId), 200);
  await svc.system.drain();
  t.equal((await railAccounts(merchant.id)).inFlight, 0, 'nothing left in flight');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a give-back the rail refuses: its money returns to the account it left and it is listed for review', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund escrow refused');
  const { contract, depositId } = await contractBeingFunded(t, key);
  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId), 200);
  await svc.system.drain();
  const funded = await escrowOk(await escrow(svc, key, 'GET', `/contracts/${contract.id}`));
  t.ok(funded.heldMinor > 0, 'the contract holds the payment');
  standin.next({ type: 'reject', code: 'REFUNDS_NOT_ALLOWED' });
  const canceled = await escrowOk(await escrow(svc, key, 'POST', `/contracts/${contract.id}/cancel`));
  t.match(canceled, { status: 'canceled', heldMinor: 0 }, 'the contract has given its funds back');
  const onLedger = await svc.system
    .knex('read.ledger_accounts')
    .where({ merchant_id: merchant.id, environment: 'live', currency: 'xof', account: `escrow:${contract.id}` })
    .first<{ amount: string }>();
  t.equal(Number(onLedger.amount), funded.heldMinor, 'refused by pawaPay: the money is back in the contract’s escrow, not lost');
  t.equal((await railAccounts(merchant.id)).inFlight, 0, 'nothing in flight');
  const review = (await attemptsForReview(svc.system.knex)).filter((a) => a.merchant_id === merchant.id);
  t.match(review, [{ object: 'refund', status: 'failed', amount: funded.heldMinor, currency: 'xof' }], 'listed for review, to settle with the payer by hand');
  await balanced(t, merchant.id);
  conforms(t);
});

// Last: it reads every refund the tests above made.
t.test('bin/sika reconcile pawapay, pawaPay configured: refunds and wallets agree, then the one difference the stand-in was told to make', async (t) => {
  const expected = (await railHoldings(svc.system.knex, 'pawapay', 'live')).find((h) => h.currency === 'xof')?.amount ?? 0;
  // What pawaPay holds is what the ledger expects: the Senegal wallet only (refunds still pending are still in it).
  for (const country of ['GHA', 'KEN', 'BFA']) standin.wallets.set(country, '0');
  standin.wallets.set('SEN', String(expected));
  const reconcile = () => startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent', PAWAPAY_API_TOKEN: PAWAPAY_TOKEN, PAWAPAY_API_URL: standin.url }, ['reconcile', 'pawapay', '--json']);
  const agreed = reconcile();
  t.equal(await agreed.exit, 0, agreed.output());
  const report = JSON.parse(agreed.output().trim().split('\n').pop()!) as { wallets: unknown[]; attempts: unknown[]; checked: number };
  t.same(report.wallets, [], 'the wallet as the ledger expects');
  t.same(report.attempts, [], 'every payment and refund as pawaPay has it');
  const refunds = await svc.system.knex('read.refunds').where({ environment: 'live' }).whereNot({ status: 'failed' }).count<{ n: string }[]>({ n: '*' });
  t.ok(report.checked > Number(refunds[0]!.n), 'the refunds were checked with the payments');

  // pawaPay completed a refund Sika still holds pending (its callback never came, its next check not yet due).
  const pending = await svc.system.knex('read.refunds').where({ environment: 'live', status: 'pending' }).orderBy('seq').first<{ id: string; merchant_id: string }>();
  standin.settle('refunds', pawapayId(pending.id), 'COMPLETED');
  const differs = reconcile();
  t.equal(await differs.exit, 1, 'differences: exit 1');
  const found = JSON.parse(differs.output().trim().split('\n').pop()!) as { attempts: unknown[] };
  t.same(found.attempts, [{ kind: 'refund', id: pending.id, merchantId: pending.merchant_id, sika: 'pending', rail: 'succeeded' }], 'exactly the refund pawaPay has otherwise');
  conforms(t);
});

// Very last: it restarts the service.
t.test('a crash between the refund request and its answer: after the restart the refund completes once', async (t) => {
  const { merchant, key } = await goLive(svc, 'Refund crash');
  const { paymentId } = await paidLive(merchant.id, key);
  standin.next({ type: 'hang' });
  const sent = refundRequests().length;
  const cutOff = refund(key, paymentId, { amount: 3_000 }, 'pawapay-refund-crash').catch((err: unknown) => err);
  // The refund has reached pawaPay, which holds its answer: the process dies now.
  while (standin.hangingCount === 0) await new Promise((resolve) => setImmediate(resolve));
  const next = await live.restart();
  standin.dropHanging();
  t.type(await cutOff, Error, 'the client lost its connection with the process');
  t.equal(refundRequests().length, sent + 1, 'one refund request was sent');
  const refundId = refundRequests().at(-1)!.refundId as string;
  const listed = async () => (await next.request('GET', `/api/v1/merchant/payments/${paymentId}/refunds`, { key })).body.data as { id: string; status: string }[];
  t.match(await listed(), [{ status: 'pending' }], 'committed pending before the call');
  // The client retries with the same key and body; the dead process's claim is taken over at once.
  const retried = await refund(key, paymentId, { amount: 3_000 }, 'pawapay-refund-crash', next);
  t.equal(retried.status, 200, retried.text);
  t.equal(pawapayId(retried.body.id as string), refundId, 'the retry answers the refund sent before the crash');
  t.match(retried.body, { status: 'pending' });
  t.equal(refundRequests().length, sent + 1, 'and sends nothing');
  t.equal((await listed()).length, 1, 'one refund');
  standin.settle('refunds', refundId, 'COMPLETED');
  next.clock.advance(FIRST_CHECK);
  await next.system.scheduler.runUntilIdle();
  const [done] = await listed();
  t.equal(done!.status, 'succeeded', 'the status check set before the call found it');
  t.equal(pawapayId(done!.id), refundId, 'the refund sent before the crash');
  t.equal(await standin.sendCallback('refunds', refundId), 200, 'its callback, late');
  await next.system.scheduler.runUntilIdle();
  const rows = await next.system.knex('read.ledger_accounts').where({ merchant_id: merchant.id, environment: 'live', currency: 'xof', account: 'rail_refunds:pawapay' }).first<{ amount: string } | undefined>();
  t.equal(Number(rows?.amount ?? 0), 0, 'nothing left in flight: sent once');
  t.equal(refundRequests().length, sent + 1, 'and never sent twice');
  conforms(t);
});

// After the crash above: it restarts the service again.
t.test('a contribution whose process died while pawaPay held its deposit’s answer, retried with its key, answers the contribution it made', async (t) => {
  // The service the test above restarted.
  const current = await live.restart();
  const { key } = await goLive(current, 'Contribution crash');
  const campaign = await activeCampaign(current, key);
  const deposits = () => standin.requests.filter((r) => r.method === 'POST' && r.path === '/v2/deposits');
  const body = { campaignId: campaign.id, amountMinor: 5_000, currency: 'XOF', paymentMethod: { type: 'mobile_money', mobileMoney: { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } } };
  const requestKey = `crash-contribution-${campaign.id as string}`;
  standin.next({ type: 'hang' });
  const sent = deposits().length;
  const cutOff = current.request('POST', '/api/v1/funding/contributions', { key, body, headers: { 'idempotency-key': requestKey } }).catch((err: unknown) => err);
  // The deposit has reached pawaPay, which holds its answer: the process dies now.
  while (standin.hangingCount === 0) await new Promise((resolve) => setImmediate(resolve));
  const next = await live.restart();
  standin.dropHanging();
  t.type(await cutOff, Error, 'the client lost its connection with the process');
  t.equal(deposits().length, sent + 1, 'one deposit request was sent');
  const depositId = (JSON.parse(deposits().at(-1)!.body) as { depositId: string }).depositId;

  // The client's retry, with its key and body (issue 63: found by the simulator, seed 6301).
  await loseAnswerInCrash(next, requestKey);
  const retried = await next.request('POST', '/api/v1/funding/contributions', { key, body, headers: { 'idempotency-key': requestKey } });
  t.equal(retried.status, 200, `the retry answers the contribution its first attempt made, not a 409: ${retried.text}`);
  t.match(retried.body, { object: 'funding.contribution', campaignId: campaign.id, status: 'pending', amountMinor: 5_000 });
  t.equal(deposits().length, sent + 1, 'the retry sends nothing: the status check set before the call decides');
  const list = (await next.request('GET', `/api/v1/funding/contributions?campaignId=${campaign.id as string}`, { key })).body.data as { id: string }[];
  t.same(
    list.map((c) => c.id),
    [retried.body.id],
    'one contribution',
  );

  standin.settle('deposits', depositId, 'COMPLETED');
  next.clock.advance(FIRST_CHECK);
  await next.system.drain();
  t.match((await next.request('GET', `/api/v1/funding/contributions/${retried.body.id as string}`, { key })).body, { status: 'succeeded' }, 'paid once');
  const intent = (await next.request('GET', `/api/v1/payment-intents/${retried.body.paymentIntentId as string}`, { key })).body;
  t.match(intent, { status: 'succeeded' });
  t.equal(pawapayId(intent.latest_operation as string), depositId, 'by the deposit sent before the crash');
  t.equal(deposits().length, sent + 1, 'and never sent twice');
  conforms(t);
});
