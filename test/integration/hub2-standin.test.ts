/**
 * The Hub2 stand-in (test/support/hub2-standin.ts) driven with plain fetch over loopback: every
 * way a request leaves Hub2's contract is refused as Hub2 refuses it and recorded as a deviation;
 * intents, payments and transfers move as the test settles them; faults keep or drop what they
 * say; webhooks are signed as Hub2 signs them (checked here with node:crypto by a loopback
 * receiver), with the old secret's `s0` for 24 h after a rotation.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from '#tap';
import { ManualClock } from '#packages/core/clock.js';
import { DEFAULT_HUB2_PROVIDERS, Hub2Standin, type Hub2PaymentIntent, type Hub2StandinOptions, type Hub2Transfer } from '../support/hub2-standin.js';

const API_KEY = 'hub2-test-key';
const MERCHANT_ID = 'merchant-sika-1';
const SECRET = 'whsec_initial_secret';
const HEADERS = { ApiKey: API_KEY, MerchantId: MERCHANT_ID, Environment: 'sandbox', 'Content-Type': 'application/json' };

interface Delivery {
  body: Buffer;
  signature: string | undefined;
}

interface Stand {
  clock: ManualClock;
  standin: Hub2Standin;
  deliveries: Delivery[];
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
}

async function stand(t: Test, options: Partial<Hub2StandinOptions> = {}): Promise<Stand> {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
  const deliveries: Delivery[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks), signature: req.headers['hub2-signature'] as string | undefined });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/connectors/hub2/events`;
  const standin = await Hub2Standin.start({ apiKey: API_KEY, merchantId: MERCHANT_ID, environment: 'sandbox', clock, webhookUrl, secret: SECRET, ...options });
  t.teardown(async () => {
    await standin.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = HEADERS) => {
    const response = await fetch(`${standin.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return { clock, standin, deliveries, call };
}

const intentBody = (amount = 5000) => ({ customerReference: 'pi_sika_1', purchaseReference: 'op-123', amount, currency: 'XOF' });
const paymentBody = (intent: Hub2PaymentIntent, provider = 'orange', msisdn = '+2250701020304') => ({
  token: intent.token,
  paymentMethod: 'mobile_money',
  country: 'CI',
  provider,
  mobileMoney: { msisdn },
});
const transferBody = (reference = 'po_1', amount = 2000) => ({
  reference,
  amount,
  currency: 'XOF',
  description: 'Payout po_1',
  destination: { type: 'mobile_money', country: 'SN', recipientName: 'Awa Diop', msisdn: '+221771234567', provider: 'orange' },
});

/** Whether a `Hub2-Signature` header holds, under `name`, the HMAC of the body with this secret. */
function signedWith(delivery: Delivery, name: 's1' | 's0', secret: string): boolean {
  const value = delivery.signature
    ?.split(',')
    .find((part) => part.startsWith(`${name}=`))
    ?.slice(3);
  if (!value) return false;
  const expected = createHmac('sha256', secret).update(delivery.body).digest();
  const given = Buffer.from(value, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

t.test('every off-contract request is refused with Hub2 error body and recorded', async (t) => {
  const { standin, call } = await stand(t);
  const refused = async (what: string, status: number, request: Promise<{ status: number; body: any }>) => {
    const answer = await request;
    t.equal(answer.status, status, `${what}: HTTP ${status}`);
    t.match(answer.body, { status, code: String, message: String, request_id: String }, `${what}: Hub2's error body`);
    t.equal(standin.takeDeviations().length, 1, `${what}: one deviation`);
  };
  await refused('wrong ApiKey', 401, call('GET', '/balance', undefined, { ...HEADERS, ApiKey: 'nope' }));
  await refused('no MerchantId', 401, call('GET', '/balance', undefined, { ApiKey: API_KEY, Environment: 'sandbox' }));
  await refused('another MerchantId', 403, call('GET', '/balance', undefined, { ...HEADERS, MerchantId: 'other' }));
  await refused('the other environment', 401, call('GET', '/balance', undefined, { ...HEADERS, Environment: 'live' }));
  await refused('no such environment', 400, call('GET', '/balance', undefined, { ...HEADERS, Environment: 'test' }));
  await refused('no JSON Content-Type', 400, call('POST', '/payment-intents', JSON.stringify(intentBody()), { ...HEADERS, 'Content-Type': 'text/plain' }));
  await refused('a reference with a slash', 400, call('POST', '/payment-intents', { ...intentBody(), purchaseReference: 'op/123' }));
  await refused('an amount as a string', 400, call('POST', '/payment-intents', { ...intentBody(), amount: '5000' }));
  await refused('a decimal amount', 400, call('POST', '/payment-intents', { ...intentBody(), amount: 5000.5 }));
  await refused('a currency Hub2 has not', 400, call('POST', '/payment-intents', { ...intentBody(), currency: 'EUR' }));
  await refused('a field Hub2 has not', 400, call('POST', '/payment-intents', { ...intentBody(), metadata: {} }));
  await refused('no such endpoint', 404, call('GET', '/payments'));

  const intent = (await call('POST', '/payment-intents', intentBody())).body as Hub2PaymentIntent;
  await refused('a provider not of the country', 400, call('POST', `/payment-intents/${intent.id}/payments`, { ...paymentBody(intent), provider: 'free' }));
  await refused('an msisdn of another country', 400, call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent, 'orange', '+2210701020304')));
  await refused('an msisdn without +', 400, call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent, 'orange', '2250701020304')));
  await refused('another intent token', 401, call('POST', `/payment-intents/${intent.id}/payments`, { ...paymentBody(intent), token: 'x.y.z' }));
  await refused('expresso takes no pay-outs', 400, call('POST', '/transfers', { ...transferBody(), destination: { ...transferBody().destination, provider: 'expresso' } }));
  await refused('XAF to Senegal', 400, call('POST', '/transfers', { ...transferBody(), currency: 'XAF' }));
  await refused('a transfer reference with a #', 400, call('POST', '/transfers', transferBody('po#1')));
  await refused('a destination field Hub2 has not', 400, call('POST', '/transfers', { ...transferBody(), destination: { ...transferBody().destination, email: 'a@b.c' } }));
  await refused('a list without reference', 400, call('GET', '/transfers?status=failed'));
  t.equal(intent.payments.length, 0);
  t.same(standin.intent(intent.id)!.payments, [], 'nothing refused was kept');
  t.equal(standin.transfersByReference('po_1').length, 0);
  t.equal(DEFAULT_HUB2_PROVIDERS.find((p) => p.provider === 'expresso')!.directions.join(), 'payin');
});

t.test('an amount off the policy: a deviation, and failed as Hub2 fails it', async (t) => {
  const { standin, call } = await stand(t);
  const transfer = await call('POST', '/transfers', transferBody('po_odd', 2002));
  t.equal(transfer.status, 201);
  t.match(transfer.body, { status: 'failed', failureCause: { code: 'invalid_amount' } });
  t.equal(standin.takeDeviations().length, 1);
  t.equal(standin.balance('XOF').transfer, 10_000_000, 'nothing reserved');

  const intent = (await call('POST', '/payment-intents', intentBody(50))).body as Hub2PaymentIntent;
  t.equal(standin.takeDeviations().length, 1, 'the intent of 50 is a deviation');
  const attempt = await call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent));
  t.equal(attempt.status, 201);
  t.match(attempt.body, { status: 'payment_required', payments: [{ status: 'failed', failureCause: { code: 'bad_parameters' } }] });
  t.equal(standin.takeDeviations().length, 1);
});

t.test('intent, payment by USSD push, settled: the intent reads successful and the money is collected', async (t) => {
  const { standin, call } = await stand(t);
  const created = await call('POST', '/payment-intents', intentBody());
  t.equal(created.status, 201);
  const intent = created.body as Hub2PaymentIntent;
  t.match(intent, {
    id: /^pi_/,
    token: /^[\w-]+\.[\w-]+\.[\w-]+$/,
    status: 'payment_required',
    payments: [],
    amount: 5000,
    currency: 'XOF',
    purchaseReference: 'op-123',
    customerReference: 'pi_sika_1',
    merchantId: MERCHANT_ID,
    mode: 'sandbox',
  });
  t.equal(standin.intentByPurchaseReference('op-123')!.id, intent.id);

  const attempt = await call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent));
  t.equal(attempt.status, 201);
  t.match(attempt.body, { id: intent.id, status: 'processing', payments: [{ id: /^pay_/, intentId: intent.id, status: 'pending', amount: 5000, currency: 'XOF', provider: 'orange', country: 'CI' }] });
  const paymentId = attempt.body.payments[0].id as string;
  t.notOk(attempt.body.payments[0].nextAction, 'USSD push: no next action');
  t.equal((await call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent))).status, 409, 'no second attempt while one is pending');

  standin.settle('payment', paymentId, 'successful');
  const read = await call('GET', `/payment-intents/${intent.id}`);
  t.match(read.body, { status: 'successful', payments: [{ id: paymentId, status: 'successful' }] });
  const balance = await call('GET', '/balance');
  t.match(balance.body, { balances: [{ currency: 'XOF', collection: { available: 5000 }, transfer: { available: 10_000_000, reserved: 0 } }, { currency: 'XAF' }] });
  t.equal((await call('GET', '/payment-intents/pi_unknown')).status, 404);
  t.same(standin.deviations, []);
});

t.test('a failed payment leaves the intent open for another attempt', async (t) => {
  const { standin, call } = await stand(t);
  const intent = (await call('POST', '/payment-intents', intentBody())).body as Hub2PaymentIntent;
  const first = (await call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent))).body.payments[0].id as string;
  standin.settle('payment', first, 'failed', 'customer_insufficient_funds');
  t.match(standin.intent(intent.id), { status: 'payment_required', payments: [{ failureCause: { code: 'customer_insufficient_funds' } }] });
  const second = await call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent, 'mtn', '+2250501020304'));
  t.match(second.body, { status: 'processing', payments: [{ status: 'failed' }, { status: 'pending', provider: 'mtn' }] });
  t.same(standin.deviations, []);
});

t.test('wave redirects, an OTP provider asks for a code', async (t) => {
  const { standin, call } = await stand(t, { otpProviders: ['moov'] });
  const intent = (await call('POST', '/payment-intents', intentBody())).body as Hub2PaymentIntent;
  const wave = await call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent, 'wave'));
  t.match(wave.body, { status: 'action_required', payments: [{ status: 'action_required', nextAction: { type: 'redirection', data: { url: /^https:\/\//, method: 'GET', headers: {}, data: {} } } }] });

  const other = (await call('POST', '/payment-intents', { ...intentBody(), purchaseReference: 'op-124' })).body as Hub2PaymentIntent;
  const moov = await call('POST', `/payment-intents/${other.id}/payments`, paymentBody(other, 'moov'));
  t.match(moov.body, { status: 'action_required', payments: [{ status: 'action_required', nextAction: { type: 'otp' } }] });
  const confirmed = await call('POST', `/payment-intents/${other.id}/authentication`, { confirmationCode: '1234' });
  t.match(confirmed.body, { status: 'processing', payments: [{ status: 'pending' }] });

  const third = (await call('POST', '/payment-intents', { ...intentBody(), purchaseReference: 'op-125' })).body as Hub2PaymentIntent;
  const withOtp = await call('POST', `/payment-intents/${third.id}/payments`, { ...paymentBody(third, 'moov'), mobileMoney: { msisdn: '+2250101020304', otp: '4321' } });
  t.match(withOtp.body, { status: 'processing', payments: [{ status: 'pending' }] });
  t.same(standin.deviations, []);
});

t.test('transfers: created, read, listed by reference at most once per 30 s, settled against the balance', async (t) => {
  const { clock, standin, call } = await stand(t, { transferFee: 50 });
  const created = await call('POST', '/transfers', transferBody('po_1', 2000));
  t.equal(created.status, 201);
  const transfer = created.body as Hub2Transfer;
  t.match(transfer, {
    id: /^tr_/,
    merchantId: MERCHANT_ID,
    reference: 'po_1',
    description: 'Payout po_1',
    status: 'created',
    amount: 2000,
    currency: 'XOF',
    mode: 'sandbox',
    destination: transferBody().destination,
    fees: [{ amount: 50, currency: 'XOF' }],
  });
  t.match(standin.balance('XOF'), { transfer: 10_000_000 - 2050, reserved: 2050 });
  t.match((await call('GET', `/transfers/${transfer.id}`)).body, { id: transfer.id, status: 'created' });

  const listed = await call('GET', '/transfers?reference=po_1');
  t.equal(listed.status, 200);
  t.same(
    listed.body.map((t: Hub2Transfer) => t.id),
    [transfer.id],
  );
  const limited = await call('GET', '/transfers?reference=po_1');
  t.equal(limited.status, 429);
  t.match(limited.body, { status: 429, code: String, request_id: String });
  clock.advance(30_000);
  t.same((await call('GET', '/transfers?reference=po_2')).body, [], 'allowed again after 30 s; none with that reference');
  standin.listRateLimit = false;
  t.equal((await call('GET', '/transfers?reference=po_1')).status, 200, 'the limit switched off');

  standin.settle('transfer', transfer.id, 'successful');
  t.match((await call('GET', `/transfers/${transfer.id}`)).body, { status: 'successful' });
  t.match(standin.balance('XOF'), { transfer: 10_000_000 - 2050, reserved: 0 });

  const failed = (await call('POST', '/transfers', transferBody('po_3', 1000))).body as Hub2Transfer;
  standin.settle('transfer', failed.id, 'failed', 'invalid_destination');
  t.match(standin.transfer(failed.id), { status: 'failed', failureCause: { code: 'invalid_destination' } });
  t.match(standin.balance('XOF'), { transfer: 10_000_000 - 2050, reserved: 0 }, 'a failed transfer gives its reservation back');

  standin.setBalance('XOF', { transfer: 500 });
  t.match((await call('POST', '/transfers', transferBody('po_4', 1000))).body, { status: 'failed', failureCause: { code: 'insufficient_funds' } });
  t.equal((await call('GET', '/transfers/tr_unknown')).status, 404);
  t.same(standin.deviations, []);
});

t.test('faults: a lost answer keeps, a 5xx not taken keeps nothing, a hang, a refusal, an operator down', async (t) => {
  const { standin, call } = await stand(t);
  standin.next({ type: 'lose_answer' });
  await t.rejects(call('POST', '/transfers', transferBody('po_lost')), 'the connection is destroyed');
  t.equal(standin.transfersByReference('po_lost').length, 1, 'the transfer was kept');

  standin.next({ type: 'server_error', taken: false });
  const notTaken = await call('POST', '/transfers', transferBody('po_500'));
  t.match(notTaken, { status: 500, body: { status: 500, code: 'internal_error', request_id: String } });
  t.equal(standin.transfersByReference('po_500').length, 0, 'nothing kept');

  standin.next({ type: 'server_error', taken: true, status: 503 });
  t.equal((await call('POST', '/transfers', transferBody('po_503'))).status, 503);
  t.equal(standin.transfersByReference('po_503').length, 1, 'kept anyway');

  const intent = (await call('POST', '/payment-intents', intentBody())).body as Hub2PaymentIntent;
  standin.next({ type: 'hang' });
  const hung = call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent));
  while (standin.hangingCount === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  t.equal(standin.intent(intent.id)!.payments.length, 1, 'the hung payment was kept');
  standin.dropHanging();
  await t.rejects(hung);

  const other = (await call('POST', '/payment-intents', { ...intentBody(), purchaseReference: 'op-9' })).body as Hub2PaymentIntent;
  standin.next({ type: 'reject', status: 402, code: 'request_failed' });
  t.match(await call('POST', `/payment-intents/${other.id}/payments`, paymentBody(other)), { status: 402, body: { code: 'request_failed' } });
  t.equal(standin.intent(other.id)!.payments.length, 0);

  standin.nextIntent({ type: 'lose_answer' });
  await t.rejects(call('POST', '/payment-intents', { ...intentBody(), purchaseReference: 'op-lost' }));
  t.ok(standin.intentByPurchaseReference('op-lost'), 'the orphan intent was kept');

  standin.operatorDown('orange', 'CI');
  t.match((await call('POST', `/payment-intents/${other.id}/payments`, paymentBody(other))).body, { payments: [{ status: 'failed', failureCause: { code: 'service_unavailable' } }] });
  standin.operatorDown('orange', 'SN');
  t.match((await call('POST', '/transfers', transferBody('po_down'))).body, { status: 'failed', failureCause: { code: 'service_unavailable' } });
  standin.operatorUp('orange', 'SN');
  t.match((await call('POST', '/transfers', transferBody('po_up'))).body, { status: 'created' });
  t.same(standin.deviations, []);
});

t.test('webhooks: signed s1 with the secret, forgeries, s0 for 24 h after a rotation', async (t) => {
  const { clock, standin, deliveries, call } = await stand(t);
  const intent = (await call('POST', '/payment-intents', intentBody())).body as Hub2PaymentIntent;
  const paymentId = (await call('POST', `/payment-intents/${intent.id}/payments`, paymentBody(intent))).body.payments[0].id as string;
  standin.settle('payment', paymentId, 'successful');

  t.equal(await standin.sendWebhook('payment.succeeded', paymentId), 204, "the receiver's status");
  const delivery = deliveries.at(-1)!;
  t.match(delivery.signature, /^s1=[0-9a-f]{64}$/);
  t.ok(signedWith(delivery, 's1', SECRET));
  t.match(JSON.parse(delivery.body.toString()), { id: /^evt_/, type: 'payment.succeeded', createdAt: '2026-03-01T10:00:00.000Z', mode: 'sandbox', data: { id: paymentId, intentId: intent.id, status: 'successful', amount: 5000 } });

  await standin.sendWebhook('payment_intent.succeeded', intent.id, { override: { amount: 1 } });
  t.ok(signedWith(deliveries.at(-1)!, 's1', SECRET), 'an override is signed');
  t.match(JSON.parse(deliveries.at(-1)!.body.toString()).data, { id: intent.id, amount: 1 });

  await standin.sendWebhook('payment.succeeded', paymentId, { forge: 'wrong_secret' });
  t.notOk(signedWith(deliveries.at(-1)!, 's1', SECRET), 'wrong secret');
  await standin.sendWebhook('payment.succeeded', paymentId, { forge: 'tampered' });
  t.notOk(signedWith(deliveries.at(-1)!, 's1', SECRET), 'tampered');
  t.match(JSON.parse(deliveries.at(-1)!.body.toString()).data, { amount: 1 });
  await standin.sendWebhook('payment.succeeded', paymentId, { forge: 'unsigned' });
  t.equal(deliveries.at(-1)!.signature, undefined, 'unsigned');

  const transfer = (await call('POST', '/transfers', transferBody())).body as Hub2Transfer;
  standin.settle('transfer', transfer.id, 'failed', 'insufficient_funds');
  const rotated = standin.rotateSecret();
  t.not(rotated, SECRET);
  clock.advance(23 * 60 * 60 * 1000);
  await standin.sendWebhook('transfer.failed', transfer.id);
  const during = deliveries.at(-1)!;
  t.match(during.signature, /^s1=[0-9a-f]{64},s0=[0-9a-f]{64}$/);
  t.ok(signedWith(during, 's1', rotated), 's1 with the new secret');
  t.ok(signedWith(during, 's0', SECRET), 's0 with the old secret within 24 h');
  t.match(JSON.parse(during.body.toString()).data, { id: transfer.id, status: 'failed', failureCause: { code: 'insufficient_funds' } });

  clock.advance(60 * 60 * 1000);
  await standin.sendWebhook('transfer.failed', transfer.id);
  const after = deliveries.at(-1)!;
  t.match(after.signature, /^s1=[0-9a-f]{64}$/, 'no s0 after 24 h');
  t.ok(signedWith(after, 's1', rotated));
  t.same(standin.deviations, []);
});
