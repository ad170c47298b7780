/**
 * Live mobile money through pawaPay, end to end through the public API (docs/connectors.md,
 * "pawaPay"): the real PawapayConnector over HTTP to the pawaPay stand-in on loopback, its signed
 * callbacks posted to the service's callback routes, status checks run on the manual clock. Every
 * request Sika sends is signed and checked against pawaPay's contract by the stand-in; each test
 * ends by asserting that none left it.
 */
import t, { type Test } from '#tap';
import { pawapayId } from '#packages/connectors/pawapay/index.js';
import { assertError, confirm, createIntent, mobileMoney, retrieve, snNumber } from '../support/payments.js';
import { balance, fund, getPayout, mobileMoney as payoutTo, payoutFee, postPayout } from '../support/payouts.js';
import { goLive, startPawapayLive } from '../support/live.js';
import { attemptsForReview } from '../../services/rails.js';
import type { Kind } from '../support/pawapay-standin.js';
import { advance, dieAfterCommit, loseAnswerInCrash } from '../support/system.js';

const live = await startPawapayLive(t);
const { svc, standin } = live;
const MINUTE = 60_000;
/** PAWAPAY_STATUS_CHECK_AFTER's default: the first status check of an attempt with no final answer. */
const FIRST_CHECK = 2 * MINUTE;

/** The requests that would start a deposit, payout or refund, as the stand-in received them. */
const initiations = (kind: Kind) => standin.requests.filter((r) => r.method === 'POST' && r.path === `/v2/${kind}`);
/** The distinct pawaPay ids of those requests: a lost answer must never make a second one. */
const distinctIds = (kind: Kind, field: string) => new Set(initiations(kind).map((r) => (JSON.parse(r.body) as Record<string, string>)[field]));

/** Ends a test: no request left pawaPay's contract (signatures included). */
function conforms(t: Test): void {
  t.same(standin.takeDeviations(), [], 'every request followed pawaPay’s contract and was signed');
}

/** Runs the jobs due now (callback jobs, status checks set for now). */
const settleJobs = () => svc.system.scheduler.runUntilIdle();

/** A live payment intent confirmed with an Orange Senegal wallet; its deposit's pawaPay id. */
async function confirmedLive(key: string, amount = 10_000) {
  const intent = await createIntent(svc, key, { amount });
  const res = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) });
  return { intent, res, depositId: res.body?.latest_operation ? pawapayId(res.body.latest_operation as string) : '' };
}

/** The merchant's live XOF funds: what a succeeded payment put there (pending until SETTLEMENT_DELAY). */
const liveFunds = (key: string) => balance(svc, key);

/** The fee of a live Orange Senegal payment of `amount` as the intent reports it. */
const feeOf = async (key: string, id: string) => (await retrieve(svc, key, id)).fee as number;

t.test('a live payment succeeds through pawaPay: its money on the balance once, whatever the callbacks', async (t) => {
  const { key } = await goLive(svc, 'Payments');
  const { intent, res, depositId } = await confirmedLive(key);
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'processing', livemode: true });
  t.match(standin.operation('deposits', depositId), { status: 'ACCEPTED' }, 'the deposit reached pawaPay under the UUID derived from the operation id');
  const sent = JSON.parse(initiations('deposits').at(-1)!.body) as Record<string, unknown>;
  t.match(sent, { amount: '10000', currency: 'XOF', clientReferenceId: res.body.latest_operation, payer: { accountDetails: { phoneNumber: '221771234567', provider: 'ORANGE_SEN' } } });

  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId), 200, 'the callback is taken');
  t.equal(await standin.sendCallback('deposits', depositId, { encoding: 'raw', digest: 'sha-256' }), 200, 'the same callback again (raw ECDSA, sha-256 digest) is taken too');
  await settleJobs();
  const paid = await retrieve(svc, key, intent.id);
  t.match(paid, { status: 'succeeded', amount_received: 10_000 });
  t.equal(paid.provider_reference, standin.operation('deposits', depositId)!.providerTransactionId, 'the payer’s receipt, pawaPay’s providerTransactionId, on the object');
  const fee = paid.fee as number;
  t.same(await liveFunds(key), { available: 0, pending: 10_000 - fee, reserved: 0 }, 'the payment on the live balance, pending until the settlement delay');

  t.equal(await standin.sendCallback('deposits', depositId), 200, 'a third, after the success');
  await advance(svc, FIRST_CHECK);
  t.same(await liveFunds(key), { available: 0, pending: 10_000 - fee, reserved: 0 }, 'a repeated callback and the status check pay nothing twice');
  conforms(t);
});

t.test('rejections and failures give their failure_code; an unknown code a generic one, raw code kept', async (t) => {
  const { key } = await goLive(svc, 'Rejections');
  const cases: [string, string][] = [
    ['PAYER_NOT_FOUND', 'payer_not_found'],
    ['PAYMENT_NOT_APPROVED', 'payment_not_approved'],
    ['INSUFFICIENT_BALANCE', 'insufficient_funds'],
    ['PAYER_LIMIT_REACHED', 'payer_limit_reached'],
    ['INVALID_PHONE_NUMBER', 'invalid_phone_number'],
    ['AMOUNT_OUT_OF_BOUNDS', 'amount_out_of_limits'],
    ['PROVIDER_TEMPORARILY_UNAVAILABLE', 'operator_unavailable'],
    ['A_CODE_FROM_TOMORROW', 'provider_error'],
  ];
  for (const [code, failureCode] of cases) {
    // Refused at once: HTTP 200 with status REJECTED, decided on the body.
    standin.next({ type: 'reject', code });
    const rejected = await confirmedLive(key);
    t.equal(rejected.res.status, 200, rejected.res.text);
    t.match(rejected.res.body, { status: 'failed', last_payment_error: { code: failureCode } }, `REJECTED ${code} → ${failureCode}`);
    // Failed later: the callback's failureReason.
    const later = await confirmedLive(key);
    standin.settle('deposits', later.depositId, 'FAILED', code);
    t.equal(await standin.sendCallback('deposits', later.depositId), 200);
    await settleJobs();
    const failed = await retrieve(svc, key, later.intent.id);
    t.match(failed, { status: 'failed', amount_received: 0, last_payment_error: { code: failureCode } }, `FAILED ${code} → ${failureCode}`);
    if (failureCode === 'provider_error') t.match(failed.last_payment_error.message, /A_CODE_FROM_TOMORROW/, 'the raw code is kept in the message');
  }
  t.same(await liveFunds(key), { available: 0, pending: 0, reserved: 0 }, 'no money from any of them');
  conforms(t);
});

t.test('a forged, tampered or mismatched callback moves nothing; the status check decides', async (t) => {
  const { key } = await goLive(svc, 'Forgeries');
  const { intent, depositId } = await confirmedLive(key);
  const before = await svc.system.knex('scheduled_jobs').where({ kind: 'payin.callback' }).count<{ n: string }[]>({ n: '*' });
  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId, { forge: 'other_key' }), 401, 'signed with a key that is not pawaPay’s: 401');
  t.equal(await standin.sendCallback('deposits', depositId, { forge: 'tampered' }), 401, 'body changed after signing: 401');
  t.equal(await standin.sendCallback('deposits', depositId, { forge: 'unsigned' }), 401, 'unsigned where pawaPay signs: 401');
  // Signed by pawaPay, but not the stored attempt's amount: taken (200), not believed.
  standin.settle('deposits', depositId, 'ACCEPTED');
  t.equal(await standin.sendCallback('deposits', depositId, { override: { status: 'COMPLETED', amount: '1.00' } }), 200, 'a mismatched amount: 200');
  t.equal(await standin.sendCallback('deposits', depositId, { override: { status: 'COMPLETED', currency: 'GHS' } }), 200, 'a mismatched currency: 200');
  const after = await svc.system.knex('scheduled_jobs').where({ kind: 'payin.callback' }).count<{ n: string }[]>({ n: '*' });
  t.same(after, before, 'none of them reached a callback job');
  t.ok(await svc.system.knex('scheduled_jobs').where({ kind: 'payin.status_check' }).whereRaw("payload->>'paymentIntentId' = ?", [intent.id]).first(), 'a status check is set instead');
  await settleJobs();
  t.match(await retrieve(svc, key, intent.id), { status: 'processing', amount_received: 0 }, 'pawaPay’s own record (still ACCEPTED) decides: nothing moved');
  t.same(await liveFunds(key), { available: 0, pending: 0, reserved: 0 });

  // Signed by pawaPay, ids that do not derive its UUID: they are not believed; the attempt whose UUID it is is checked.
  const other = await confirmedLive(key);
  standin.settle('deposits', other.depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', other.depositId, { override: { metadata: { sikaId: 'op_nothing', merchantId: 'acct_x', environment: 'live', paymentIntentId: 'pi_nothing' } } }), 200, 'ids that do not derive the UUID: 200');
  await settleJobs();
  t.match(await retrieve(svc, key, other.intent.id), { status: 'succeeded' }, 'the status check of the payment whose deposit it is: pawaPay’s record (COMPLETED) decides');
  conforms(t);
});

/** The status checks asked for outside the schedule (by news), of one payment. */
const promptedChecks = (intentId: string) => svc.system.knex('scheduled_jobs').where({ kind: 'payin.status_check' }).whereRaw("payload->>'paymentIntentId' = ? AND payload->>'prompted' = 'true'", [intentId]);
/** The reads of one deposit pawaPay has seen (GET /v2/deposits/{id}). */
const depositReads = (depositId: string) => standin.requests.filter((r) => r.method === 'GET' && r.path === `/v2/deposits/${depositId}`).length;

t.test('an unverified callback is answered 401 and does nothing else; a verified one without Sika’s ids is checked', async (t) => {
  const { key } = await goLive(svc, 'Unverified news');
  const { intent, depositId } = await confirmedLive(key);
  standin.settle('deposits', depositId, 'COMPLETED');
  const now = svc.clock.now().getTime();
  const send = async (what: string, options: Parameters<typeof standin.sendCallback>[2]) => t.equal(await standin.sendCallback('deposits', depositId, options), 401, `${what}: 401`);
  // What a status check was asked for before: out of its window, malformed, keys that cannot be fetched.
  await send('expired', { created: new Date(now - 2 * MINUTE), expiresInSeconds: 30 });
  await send('created 10 minutes ago', { created: new Date(now - 10 * MINUTE), expiresInSeconds: 3600 });
  await send('a Signature-Input that is not one', { headers: { 'Signature-Input': 'sig-pp=(' } });
  t.same(await promptedChecks(intent.id), [], 'no status check was asked for');
  // What was believed before: a signature over less than the request, its date and its body.
  await send('signed over the body’s digest only', { components: ['content-digest'] });
  await send('signed without @path', { components: ['@method', '@authority', 'signature-date', 'content-digest', 'content-type'] });
  await settleJobs();
  t.same(await promptedChecks(intent.id), [], 'still none');
  t.equal(depositReads(depositId), 0, 'pawaPay was never asked about the deposit');
  t.match(await retrieve(svc, key, intent.id), { status: 'processing', amount_received: 0 }, 'nothing moved');
  t.same(await liveFunds(key), { available: 0, pending: 0, reserved: 0 });

  // Verified, but without metadata: pawaPay's own id finds the payment, whose status check decides.
  const bare = await confirmedLive(key);
  standin.settle('deposits', bare.depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', bare.depositId, { override: { metadata: undefined } }), 200, 'verified without metadata: 200');
  t.equal((await promptedChecks(bare.intent.id)).length, 1, 'a status check is asked for');
  await settleJobs();
  t.match(await retrieve(svc, key, bare.intent.id), { status: 'succeeded', amount_received: 10_000 }, 'pawaPay’s record (COMPLETED) decides');
  t.equal(depositReads(bare.depositId), 1, 'read once, by the status check');
  conforms(t);
});

t.test('a signed callback credits only what pawaPay’s own record of the operation agrees with', async (t) => {
  const { merchant, key } = await goLive(svc, 'Records decide');
  // pawaPay's record: still ACCEPTED; a signed callback says COMPLETED.
  const early = await confirmedLive(key);
  t.equal(await standin.sendCallback('deposits', early.depositId, { override: { status: 'COMPLETED', providerTransactionId: 'PP99999999' } }), 200);
  await settleJobs();
  t.ok(depositReads(early.depositId) >= 1, 'the deposit was read from pawaPay');
  t.match(await retrieve(svc, key, early.intent.id), { status: 'processing', amount_received: 0 }, 'ACCEPTED at pawaPay: nothing credited');
  // pawaPay's record: COMPLETED with another amount; the callback says the payment's.
  const other = await confirmedLive(key);
  standin.settle('deposits', other.depositId, 'COMPLETED');
  standin.misreport('deposits', other.depositId, { amount: '5000.00' });
  t.equal(await standin.sendCallback('deposits', other.depositId), 200);
  await settleJobs();
  t.match(await retrieve(svc, key, other.intent.id), { status: 'processing', amount_received: 0 }, 'another amount at pawaPay: nothing credited, left for review');
  // pawaPay's record: FAILED; the callback says COMPLETED.
  const failed = await confirmedLive(key);
  standin.settle('deposits', failed.depositId, 'FAILED', 'PAYER_NOT_FOUND');
  t.equal(await standin.sendCallback('deposits', failed.depositId, { override: { status: 'COMPLETED', providerTransactionId: 'PP99999998', failureReason: undefined } }), 200);
  await settleJobs();
  t.match(await retrieve(svc, key, failed.intent.id), { status: 'failed', amount_received: 0, last_payment_error: { code: 'payer_not_found' } }, 'FAILED at pawaPay: the payment fails, as its record says');
  t.same(await liveFunds(key), { available: 0, pending: 0, reserved: 0 }, 'no money from any of them');

  // A payout pawaPay paid, a callback saying it failed: the money is not given back.
  await fund(svc, merchant.id, 50_000, 'live');
  const fee = payoutFee(10_000, { type: 'mobile_money', country: 'SN', operator: 'orange_money' });
  const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: payoutTo('67') }, { idempotencyKey: 'records-decide' });
  const payoutId = pawapayId(res.body.id as string);
  standin.settle('payouts', payoutId, 'COMPLETED');
  t.equal(await standin.sendCallback('payouts', payoutId, { override: { status: 'FAILED', providerTransactionId: undefined, failureReason: { failureCode: 'RECIPIENT_NOT_FOUND', failureMessage: 'no such wallet' } } }), 200);
  await settleJobs();
  t.match((await getPayout(svc, key, res.body.id)).body, { status: 'paid' }, 'COMPLETED at pawaPay: paid, not failed');
  t.same(await liveFunds(key), { available: 50_000 - 10_000 - fee, pending: 0, reserved: 0 }, 'the paid money is not given back');
  conforms(t);
});

t.test('a missing callback is resolved by the status check', async (t) => {
  const { key } = await goLive(svc, 'Silent operator');
  const { intent, depositId } = await confirmedLive(key);
  standin.settle('deposits', depositId, 'COMPLETED');
  await advance(svc, FIRST_CHECK - 1);
  t.match(await retrieve(svc, key, intent.id), { status: 'processing' }, 'nothing before PAWAPAY_STATUS_CHECK_AFTER');
  await advance(svc, 1);
  const paid = await retrieve(svc, key, intent.id);
  t.match(paid, { status: 'succeeded', amount_received: 10_000 }, 'the status check found it COMPLETED');
  t.equal(paid.provider_reference, standin.operation('deposits', depositId)!.providerTransactionId, 'with its receipt, from the status check');
  t.same(await liveFunds(key), { available: 0, pending: 10_000 - paid.fee, reserved: 0 });

  // IN_RECONCILIATION is not final: checked again on the schedule, still processing.
  const slow = await confirmedLive(key);
  standin.settle('deposits', slow.depositId, 'IN_RECONCILIATION');
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, slow.intent.id), { status: 'processing' }, 'IN_RECONCILIATION: not final');
  standin.settle('deposits', slow.depositId, 'FAILED', 'PAYER_NOT_FOUND');
  await advance(svc, 5 * MINUTE);
  t.match(await retrieve(svc, key, slow.intent.id), { status: 'failed', last_payment_error: { code: 'payer_not_found' } }, 'the next check (5 min later) finds it final');
  conforms(t);
});

t.test('when the status-check schedule runs out, the attempt stays open and is listed for review', async (t) => {
  const { merchant, key } = await goLive(svc, 'Never answered');
  const { intent } = await confirmedLive(key);
  await fund(svc, merchant.id, 50_000, 'live');
  const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: payoutTo('67') }, { idempotencyKey: 'never-answered' });
  t.match(res.body, { status: 'in_transit' });
  const listed = async () => (await attemptsForReview(svc.system.knex)).map((a) => a.id);
  // 2 min, then 5 min, 15 min, 1 h, 3 h, 6 h, 12 h and 24 h after the check before.
  for (const delay of [FIRST_CHECK, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE, 180 * MINUTE, 360 * MINUTE, 720 * MINUTE]) {
    await advance(svc, delay);
    t.notOk((await listed()).includes(intent.id), 'not listed while a check is still to come');
  }
  await advance(svc, 1440 * MINUTE);
  t.match(await retrieve(svc, key, intent.id), { status: 'processing', last_payment_error: null }, 'never failed by guess');
  t.ok((await listed()).includes(intent.id), 'listed for review (sika rails review)');
  t.match((await getPayout(svc, key, res.body.id)).body, { status: 'in_transit', delay_state: 'delayed', delay_reason: 'operator_timeout' }, 'a payout past every check: in transit, operator_timeout');
  t.ok((await listed()).includes(res.body.id), 'and listed for review');
  t.notOk(await svc.system.knex('scheduled_jobs').where({ kind: 'payin.status_check' }).whereRaw("payload->>'paymentIntentId' = ?", [intent.id]).first(), 'no check left');
  conforms(t);
});

t.test('a lost answer never makes a second deposit: the status check settles it', async (t) => {
  const { key } = await goLive(svc, 'Lost answers');
  // Taken, then the connection dropped: processing under the same id, not an error to retry.
  standin.next({ type: 'lose_answer' });
  const lost = await confirmedLive(key);
  t.equal(lost.res.status, 200, lost.res.text);
  t.match(lost.res.body, { status: 'processing' }, 'a lost answer keeps the payment in flight');
  const again = await confirm(svc, key, lost.intent.id, { payment_method: mobileMoney(snNumber('67')) });
  t.match(again.body, { status: 'processing', latest_operation: lost.res.body.latest_operation }, 'a second confirm sends nothing');
  standin.settle('deposits', lost.depositId, 'COMPLETED');
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, lost.intent.id), { status: 'succeeded' }, 'FOUND: followed');

  // A 5xx before pawaPay kept anything: the status check finds nothing and sends it again, same id.
  standin.next({ type: 'server_error', taken: false });
  const refused = await confirmedLive(key);
  t.match(refused.res.body, { status: 'processing' }, 'a 5xx may have been taken: in flight');
  t.notOk(standin.operation('deposits', refused.depositId), 'pawaPay kept nothing');
  await advance(svc, FIRST_CHECK);
  t.match(standin.operation('deposits', refused.depositId), { status: 'ACCEPTED' }, 'NOT_FOUND: sent again under the same id');
  standin.settle('deposits', refused.depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', refused.depositId), 200);
  await settleJobs();
  t.match(await retrieve(svc, key, refused.intent.id), { status: 'succeeded' });

  // Taken by pawaPay but answered 500: DUPLICATE_IGNORED when asked again would be the same deposit.
  standin.next({ type: 'server_error', taken: true });
  const taken = await confirmedLive(key);
  standin.settle('deposits', taken.depositId, 'COMPLETED');
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, taken.intent.id), { status: 'succeeded' });

  // Answered DUPLICATE_IGNORED (pawaPay had it already): accepted earlier, processing.
  standin.next({ type: 'duplicate' });
  const duplicate = await confirmedLive(key);
  t.match(duplicate.res.body, { status: 'processing' }, 'DUPLICATE_IGNORED: accepted earlier');
  standin.settle('deposits', duplicate.depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', duplicate.depositId), 200);
  await settleJobs();
  t.match(await retrieve(svc, key, duplicate.intent.id), { status: 'succeeded' });
  await advance(svc, FIRST_CHECK);

  t.equal(distinctIds('deposits', 'depositId').size, initiations('deposits').length - 1, 'one deposit request per payment, but the one sent again after NOT_FOUND');
  const ids = [lost, refused, taken].map((x) => x.depositId);
  for (const id of ids) t.equal(initiations('deposits').filter((r) => r.body.includes(id)).length, id === refused.depositId ? 2 : 1, `deposit ${id.slice(0, 8)}…: ${id === refused.depositId ? 'sent again once, same id' : 'sent once'}`);
  const fees = await Promise.all([lost, refused, taken, duplicate].map((x) => feeOf(key, x.intent.id)));
  t.same(await liveFunds(key), { available: 0, pending: 40_000 - fees.reduce((a, b) => a + b, 0), reserved: 0 }, 'each payment once on the balance');
  conforms(t);
});

t.test('live payouts through pawaPay: paid, failed with the money back, operator_down while enqueued, a lost answer sent once', async (t) => {
  const { merchant, key } = await goLive(svc, 'Payouts');
  await fund(svc, merchant.id, 100_000, 'live');
  const fee = payoutFee(10_000, { type: 'mobile_money', country: 'SN', operator: 'orange_money' });
  let n = 0;
  const payOut = async () => {
    const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: payoutTo('67') }, { idempotencyKey: `live-payout-${++n}` });
    t.equal(res.status, 200, res.text);
    return { payout: res.body, payoutId: pawapayId(res.body.id as string) };
  };
  const get = async (id: string) => (await getPayout(svc, key, id)).body;

  const paid = await payOut();
  t.match(paid.payout, { status: 'in_transit', livemode: true });
  t.match(JSON.parse(initiations('payouts').at(-1)!.body), { amount: '10000', currency: 'XOF', recipient: { accountDetails: { phoneNumber: '221771234567', provider: 'ORANGE_SEN' } } });
  standin.settle('payouts', paid.payoutId, 'COMPLETED');
  t.equal(await standin.sendCallback('payouts', paid.payoutId), 200);
  t.equal(await standin.sendCallback('payouts', paid.payoutId), 200, 'repeated');
  await settleJobs();
  t.match(await get(paid.payout.id), { status: 'paid', provider_reference: standin.operation('payouts', paid.payoutId)!.providerTransactionId });
  t.same(await liveFunds(key), { available: 100_000 - 10_000 - fee, pending: 0, reserved: 0 }, 'paid once');

  const failed = await payOut();
  standin.settle('payouts', failed.payoutId, 'FAILED', 'RECIPIENT_NOT_FOUND');
  t.equal(await standin.sendCallback('payouts', failed.payoutId), 200);
  await settleJobs();
  t.match(await get(failed.payout.id), { status: 'failed', failure_code: 'recipient_not_found' });
  t.same(await liveFunds(key), { available: 100_000 - 10_000 - fee, pending: 0, reserved: 0 }, 'the failed payout’s money is back');

  const enqueued = await payOut();
  standin.settle('payouts', enqueued.payoutId, 'ENQUEUED');
  t.equal(await standin.sendCallback('payouts', enqueued.payoutId), 200);
  await settleJobs();
  t.match(await get(enqueued.payout.id), { status: 'in_transit', delay_state: 'delayed', delay_reason: 'operator_down' }, 'ENQUEUED: the operator is down');
  await advance(svc, FIRST_CHECK);
  t.match(await get(enqueued.payout.id), { status: 'in_transit', delay_state: 'delayed', delay_reason: 'operator_down' }, 'still enqueued at the status check: not final, not failed');
  standin.settle('payouts', enqueued.payoutId, 'COMPLETED');
  await advance(svc, 5 * MINUTE);
  t.match(await get(enqueued.payout.id), { status: 'paid', delay_state: null, provider_reference: standin.operation('payouts', enqueued.payoutId)!.providerTransactionId }, 'the next check finds it paid, with its receipt');

  standin.next({ type: 'lose_answer' });
  const lost = await payOut();
  t.match(lost.payout, { status: 'pending' }, 'the answer lost: left pending under the same id');
  await advance(svc, FIRST_CHECK);
  t.match(await get(lost.payout.id), { status: 'in_transit' }, 'FOUND at the status check: in transit');
  standin.settle('payouts', lost.payoutId, 'COMPLETED');
  t.equal(await standin.sendCallback('payouts', lost.payoutId), 200);
  await settleJobs();
  t.match(await get(lost.payout.id), { status: 'paid' });
  t.equal(initiations('payouts').filter((r) => r.body.includes(lost.payoutId)).length, 1, 'one payout request: never a second');

  // A 5xx before pawaPay kept it: pending, and the status check (NOT_FOUND) sends it again under the same id.
  standin.next({ type: 'server_error', taken: false });
  const refused = await payOut();
  t.match(refused.payout, { status: 'pending' });
  await advance(svc, FIRST_CHECK);
  t.match(standin.operation('payouts', refused.payoutId), { status: 'ACCEPTED' }, 'sent again under the same id');
  t.match(await get(refused.payout.id), { status: 'in_transit' });
  standin.settle('payouts', refused.payoutId, 'COMPLETED');
  t.equal(await standin.sendCallback('payouts', refused.payoutId), 200);
  await settleJobs();
  t.match(await get(refused.payout.id), { status: 'paid' });
  t.equal(distinctIds('payouts', 'payoutId').size, initiations('payouts').length - 1, 'one payout request per payout, but the one sent again after NOT_FOUND');
  t.same(await liveFunds(key), { available: 100_000 - 4 * (10_000 + fee), pending: 0, reserved: 0 });
  conforms(t);
});

t.test('Mali and Togo stay refused in live (IKW-PRV-001): pawaPay does not serve them', async (t) => {
  const { key } = await goLive(svc, 'Elsewhere');
  const sent = initiations('deposits').length;
  for (const [country, operator, msisdn] of [
    ['ML', 'orange_money', '+22376123456'],
    ['TG', 'tmoney', '+22890123456'],
  ] as const) {
    const intent = await createIntent(svc, key, { transaction_country: country });
    assertError(t, await confirm(svc, key, intent.id, { payment_method: mobileMoney(msisdn, operator, country) }), 'IKW-PRV-001', 'payment_method');
  }
  t.equal(initiations('deposits').length, sent, 'nothing sent');
  conforms(t);
});

// Last: it restarts the service.
t.test('a crash between the deposit request and its answer: after the restart the payment completes once', async (t) => {
  const { key } = await goLive(svc, 'Crash');
  const intent = await createIntent(svc, key);
  standin.next({ type: 'hang' });
  const sent = initiations('deposits').length;
  const body = { payment_method: mobileMoney(snNumber('67')) };
  const confirmKey = `crash-confirm-${intent.id as string}`;
  const cutOff = svc.request('POST', `/api/v1/payment-intents/${intent.id}/confirm`, { key, body, headers: { 'idempotency-key': confirmKey } }).catch((err: unknown) => err);
  // The deposit has reached pawaPay, which holds its answer: the process dies now.
  while (standin.hangingCount === 0) await new Promise((resolve) => setImmediate(resolve));
  const next = await live.restart();
  standin.dropHanging();
  t.type(await cutOff, Error, 'the client lost its connection with the process');
  t.equal(initiations('deposits').length, sent + 1, 'one deposit request was sent');

  const get = async () => (await next.request('GET', `/api/v1/payment-intents/${intent.id}`, { key })).body;
  const retaken = await next.request('POST', `/api/v1/payment-intents/${intent.id}/confirm`, { key, body });
  assertError(t, retaken, 'IKW-RES-003');
  t.equal(initiations('deposits').length, sent + 1, 'another confirm after the crash does not take it over: nothing sent');
  // The client's retry of the confirm that died, with its key and body (issue 63: found by the simulator).
  await loseAnswerInCrash(next, confirmKey);
  const retried = await next.request('POST', `/api/v1/payment-intents/${intent.id}/confirm`, { key, body, headers: { 'idempotency-key': confirmKey } });
  t.equal(retried.status, 200, `the retry of the confirm that died answers the payment it started, not a 409: ${retried.text}`);
  t.match(retried.body, { id: intent.id, status: 'processing' }, 'processing: the status check set before the call decides');
  t.equal(pawapayId(retried.body.latest_operation as string), (JSON.parse(initiations('deposits').at(-1)!.body) as { depositId: string }).depositId, 'the operation sent before the crash');
  t.equal(initiations('deposits').length, sent + 1, 'the retry sends nothing');

  const depositId = (JSON.parse(initiations('deposits').at(-1)!.body) as { depositId: string }).depositId;
  standin.settle('deposits', depositId, 'COMPLETED');
  next.clock.advance(FIRST_CHECK);
  await next.system.scheduler.runUntilIdle();
  const paid = await get();
  t.match(paid, { status: 'succeeded', amount_received: 10_000 }, 'the status check set before the call found it');
  t.equal(pawapayId(paid.latest_operation as string), depositId, 'the deposit sent before the crash');
  t.equal(await standin.sendCallback('deposits', depositId), 200, 'its callback, late');
  await next.system.scheduler.runUntilIdle();
  t.same(await balance(next, key), { available: 0, pending: 10_000 - paid.fee, reserved: 0 }, 'paid once');
  t.equal(initiations('deposits').length, sent + 1, 'and never sent twice');
  conforms(t);
});

t.test('a confirm that dies right after committing its start is still settled: its status check was set before', async (t) => {
  const running = live.svc; // restarted by the test before
  const { key } = await goLive(running, 'Died after the commit');
  const intent = await createIntent(running, key, { customer_email: 'payer@example.com' });
  const sent = initiations('deposits').length;
  const death = dieAfterCommit(t, running, (events) => events.some((e) => e.type === 'payment_intent.confirmation_started'));
  const cutOff = confirm(running, key, intent.id, { payment_method: mobileMoney(snNumber('67')) }).catch((err: unknown) => err);
  await death.committed;
  const next = await live.restart();
  t.type(await cutOff, Error, 'the client lost its connection with the process');
  t.equal(initiations('deposits').length, sent, 'the process died before calling pawaPay');
  const get = async () => (await next.request('GET', `/api/v1/payment-intents/${intent.id}`, { key })).body;

  // The status check set before the commit asks pawaPay, which has no record of the deposit: it
  // is sent (pawaPay keeps one record per depositId), then settled by its callback.
  next.clock.advance(FIRST_CHECK);
  await next.system.scheduler.runUntilIdle();
  t.equal(initiations('deposits').length, sent + 1, 'the deposit was sent once, by the check');
  const depositId = (JSON.parse(initiations('deposits').at(-1)!.body) as { depositId: string }).depositId;
  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId), 200, 'its callback');
  await next.system.scheduler.runUntilIdle();
  t.match(await get(), { status: 'succeeded', amount_received: 10_000 }, 'the payment completed, not left processing for ever');
  conforms(t);
});
