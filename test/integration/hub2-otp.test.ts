/**
 * The operators' one-time codes through Hub2, end to end through the public API (docs/payments.md,
 * "Next actions"; docs/connectors.md, "One-time codes"): a code given before paying goes with the attempt
 * (`mobileMoney.otp`); a payment that asks for one after is `requires_action` with
 * `mobile_money_otp` until `POST /api/v1/payment-intents/{id}/submit_otp` brings it. The real
 * Hub2Connector talks to the Hub2 stand-in on loopback; every request is checked against Hub2's
 * contract, and no code is ever found in the intent's events or its read model.
 */
import t, { type Test } from '#tap';
import { assertError, confirm, createIntent, mobileMoney, retrieve } from '../support/payments.js';
import { goLive, startHub2Live } from '../support/live.js';
import { advance } from '../support/system.js';
import { paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';

/** The code the stand-in's operator sends payers; anything else is refused. */
const CODE = '482913';
const WRONG = '111111';
const live = await startHub2Live(t, { standin: { otpProviders: ['orange', 'moov'], payerOtp: CODE } });
const { svc, standin } = live;
const FIRST_CHECK = 2 * 60_000;
const CI_ORANGE = '+2250701020304';
const CI_MOOV = '+2250101020304';
const CI_MTN = '+2250501020304';

const attemptsOn = (hub2IntentId: string) => standin.requests.filter((r) => r.method === 'POST' && r.path === `/payment-intents/${hub2IntentId}/payments`);
const authenticationsOn = (hub2IntentId: string) => standin.requests.filter((r) => r.method === 'POST' && r.path === `/payment-intents/${hub2IntentId}/authentication`);

function conforms(t: Test): void {
  t.same(standin.deviations.splice(0), [], 'every request followed Hub2’s contract');
}

function hub2Of(operationId: string) {
  const intent = standin.intentByPurchaseReference(operationId);
  if (!intent) throw new Error(`no Hub2 intent for ${operationId}`);
  return { intent, payment: intent.payments.at(-1)! };
}

const submitOtp = (key: string, id: string, code: string, idempotencyKey?: string) =>
  svc.request('POST', `/api/v1/payment-intents/${id}/submit_otp`, { key, body: { code }, ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}) });

/** No code anywhere Sika keeps the payment: its events (data and metadata) and its read model row. */
async function keptNowhere(t: Test, id: string, codes: string[]): Promise<void> {
  const events = JSON.stringify(await svc.system.store.readStream(paymentIntentStream(id)));
  const row = JSON.stringify(await svc.system.knex('read.payment_intents').where({ id }).first());
  t.ok(events.length > 0 && row.length > 0, 'the events and the row are there');
  for (const code of codes) {
    t.notOk(events.includes(code), `the code ${code} is in none of the intent's events`);
    t.notOk(row.includes(code), `the code ${code} is not in its read model`);
  }
}

async function confirmedCi(key: string, msisdn: string, operator: string, otp?: string) {
  const intent = await createIntent(svc, key, { amount: 10_000, transaction_country: 'CI' });
  const method = mobileMoney(msisdn, operator, 'CI');
  const res = await confirm(svc, key, intent.id as string, { payment_method: { ...method, mobile_money: { ...method.mobile_money, ...(otp !== undefined ? { otp } : {}) } } });
  return { id: intent.id as string, res, operationId: res.body?.latest_operation as string };
}

t.test('a code given before paying (Orange CI) goes with the attempt as mobileMoney.otp, and is kept nowhere', async (t) => {
  const { key } = await goLive(svc, 'Abidjan shop');
  const { id, res, operationId } = await confirmedCi(key, CI_ORANGE, 'orange_money', CODE);
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'processing', next_action: null });
  t.notOk(JSON.stringify(res.body).includes(CODE), 'not in the answer');
  const { intent, payment } = hub2Of(operationId);
  t.match(JSON.parse(attemptsOn(intent.id)[0]!.body), { provider: 'orange', country: 'CI', mobileMoney: { msisdn: CI_ORANGE, otp: CODE } }, 'Hub2 got the code with the attempt');
  t.equal(payment.status, 'pending', 'and asked for none after');
  standin.settle('payment', payment.id, 'successful');
  t.equal(await standin.sendWebhook('payment.succeeded', payment.id), 200);
  await svc.system.scheduler.runUntilIdle();
  t.match(await retrieve(svc, key, id), { status: 'succeeded', amount_received: 10_000 });
  await keptNowhere(t, id, [CODE]);
  conforms(t);
});

t.test('a wrong code given before paying fails the payment; a code that is not 4 to 8 digits is refused before anything', async (t) => {
  const { key } = await goLive(svc, 'Abidjan typos');
  const { id, res } = await confirmedCi(key, CI_ORANGE, 'orange_money', WRONG);
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'failed', last_payment_error: { code: 'payment_not_approved' } });
  await keptNowhere(t, id, [WRONG]);
  const asked = standin.requests.length;
  for (const otp of ['12a4', '123', '123456789']) {
    const bad = await confirmedCi(key, CI_ORANGE, 'orange_money', otp);
    assertError(t, bad.res, 'IKW-VAL-001');
  }
  t.equal(standin.requests.length, asked, 'Hub2 was asked nothing');
  conforms(t);
});

t.test('a code asked after the attempt: requires_action mobile_money_otp, submit_otp, processing, then succeeded by the status check', async (t) => {
  const { key } = await goLive(svc, 'Yamoussoukro shop');
  const other = await goLive(svc, 'Someone else');
  const { id, res, operationId } = await confirmedCi(key, CI_MOOV, 'moov');
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'requires_action', next_action: { type: 'mobile_money_otp', mobile_money_otp: { instructions: /code/ } } });
  const { intent, payment } = hub2Of(operationId);
  t.notOk('otp' in JSON.parse(attemptsOn(intent.id)[0]!.body).mobileMoney, 'no code went with the attempt');

  assertError(t, await submitOtp(other.key, id, CODE), 'IKW-RES-001');
  assertError(t, await submitOtp(key, id, 'abc'), 'IKW-VAL-001');
  t.equal(authenticationsOn(intent.id).length, 0, 'neither reached Hub2');

  assertError(t, await submitOtp(key, id, WRONG), 'IKW-PRV-017');
  t.match(await retrieve(svc, key, id), { status: 'requires_action', next_action: { type: 'mobile_money_otp' } }, 'a refused code: the payment still waits');

  const taken = await submitOtp(key, id, CODE, 'otp-once');
  t.equal(taken.status, 200, taken.text);
  t.match(taken.body, { status: 'processing', next_action: null });
  const again = await submitOtp(key, id, CODE, 'otp-once');
  t.equal(again.status, 200, 'the same request again');
  t.same(again.body, taken.body, 'answers the same');
  t.same(
    authenticationsOn(intent.id).map((r) => JSON.parse(r.body)),
    [{ confirmationCode: WRONG }, { confirmationCode: CODE }],
    'one authentication per code, none for the retry',
  );
  assertError(t, await submitOtp(key, id, CODE), 'IKW-RES-002');

  standin.settle('payment', payment.id, 'successful');
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, id), { status: 'succeeded', amount_received: 10_000 }, 'the status check settled it');
  await keptNowhere(t, id, [CODE, WRONG]);
  conforms(t);
});

t.test('submit_otp after the code: the webhook settles it; a payer who fails the code fails the payment', async (t) => {
  const { key } = await goLive(svc, 'Bouaké shop');
  const first = await confirmedCi(key, CI_MOOV, 'moov');
  t.equal((await submitOtp(key, first.id, CODE)).status, 200);
  const { payment } = hub2Of(first.operationId);
  standin.settle('payment', payment.id, 'successful');
  t.equal(await standin.sendWebhook('payment.succeeded', payment.id), 200);
  await svc.system.scheduler.runUntilIdle();
  t.match(await retrieve(svc, key, first.id), { status: 'succeeded' });

  const second = await confirmedCi(key, CI_MOOV, 'moov');
  t.equal((await submitOtp(key, second.id, CODE)).status, 200);
  const failed = hub2Of(second.operationId).payment;
  standin.settle('payment', failed.id, 'failed', 'authentication_timeout');
  t.equal(await standin.sendWebhook('payment.failed', failed.id), 200);
  await svc.system.scheduler.runUntilIdle();
  t.match(await retrieve(svc, key, second.id), { status: 'failed' });
  conforms(t);
});

t.test('submit_otp on an intent that waits for no code is 409, and Hub2 is not asked', async (t) => {
  const { key } = await goLive(svc, 'San-Pédro shop');
  const authentications = () => standin.requests.filter((r) => r.path.endsWith('/authentication')).length;
  const before = authentications();
  const unconfirmed = await createIntent(svc, key, { amount: 10_000, transaction_country: 'CI' });
  assertError(t, await submitOtp(key, unconfirmed.id as string, CODE), 'IKW-RES-002');
  const ussd = await confirmedCi(key, CI_MTN, 'mtn');
  t.match(ussd.res.body, { status: 'processing' });
  assertError(t, await submitOtp(key, ussd.id, CODE), 'IKW-RES-002');
  const wave = await confirmedCi(key, '+2250701020399', 'wave');
  t.match(wave.res.body, { status: 'requires_action', next_action: { type: 'redirect_to_url' } });
  assertError(t, await submitOtp(key, wave.id, CODE), 'IKW-RES-002');
  t.equal(authentications(), before, 'no authentication for any of them');
  conforms(t);
});
