/**
 * Confirm and cancel against the real server: the sandbox operator's test numbers and card tokens
 * (answers only after SANDBOX_OPERATOR_DELAY_MS of the manual clock and a scheduler run), 3-D
 * Secure on the hosted test page, confirm validation, the confirmation lock under 20 parallel
 * requests, cancel rules, return URLs and the operation status page.
 */
import t, { type Test } from '#tap';
import { assertError, assertOk, card, confirm, createIntent, mobileMoney, OPERATOR_DELAY_MS, operatorAnswers, ProviderProbe, rawRequest, retrieve, snNumber } from '../../support/payments.js';
import { balanceObject } from '../../support/payouts.js';
import { activateLive, startPaymentsService, type TestResponse } from '../../support/system.js';

const probe = new ProviderProbe();
const svc = await startPaymentsService(t, { rails: probe.wrap });
const publicUrl = svc.system.config.publicUrl;

const cancel = (key: string, id: string, body?: unknown) => svc.request('POST', `/api/v1/payment-intents/${id}/cancel`, { key, ...(body !== undefined ? { body } : {}) });

/** Confirms and checks the first answer; returns the object. */
async function confirmOk(t: Test, key: string, id: string, body: Record<string, unknown>) {
  const res = await confirm(svc, key, id, body);
  assertOk(t, res);
  return res.body;
}

/** The intent's status just before and right at the operator's delay. */
async function statusAround(key: string, id: string): Promise<{ before: string; after: string }> {
  await svc.system.scheduler.runUntilIdle();
  svc.clock.advance(OPERATOR_DELAY_MS - 1);
  await svc.system.scheduler.runUntilIdle();
  const before = (await retrieve(svc, key, id)).status;
  await operatorAnswers(svc, 1);
  return { before, after: (await retrieve(svc, key, id)).status };
}

t.test('sandbox mobile money: the last two digits of the MSISDN choose the outcome', async (t) => {
  const { key } = await svc.sandboxMerchant();

  await t.test('01: processing, then failed with insufficient_funds', async (t) => {
    const o = await createIntent(svc, key);
    const first = await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('01')) });
    t.match(first, { status: 'processing', next_action: null, latest_operation: /^op_/ });
    t.same(first.payment_method, { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'orange_money', msisdn: '••••4501' } });
    t.same(await statusAround(key, o.id), { before: 'processing', after: 'failed' });
    const done = await retrieve(svc, key, o.id);
    t.match(done, { status: 'failed', amount_received: 0, next_action: null, last_payment_error: { code: 'insufficient_funds', message: /./ } });
    t.notOk('FailureReason' in done.metadata, 'the platform\u2019s FailureReason is not shown');
  });

  await t.test('02: requires_action (mobile money authorization), then succeeded', async (t) => {
    const o = await createIntent(svc, key);
    const first = await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('02')) });
    t.equal(first.status, 'requires_action');
    t.equal(first.next_action.type, 'mobile_money_authorization');
    t.type(first.next_action.mobile_money_authorization.instructions, 'string');
    t.ok(new Date(first.next_action.mobile_money_authorization.expires_at).getTime() > svc.clock.now().getTime(), 'expires in the future');
    t.same(Object.keys(first.next_action).sort(), ['mobile_money_authorization', 'type']);
    t.same(await statusAround(key, o.id), { before: 'requires_action', after: 'succeeded' });
    t.match(await retrieve(svc, key, o.id), { status: 'succeeded', next_action: null, amount_received: 10_000, last_payment_error: null });
  });

  await t.test('03: stays processing (the operator never calls back)', async (t) => {
    const o = await createIntent(svc, key);
    t.equal((await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('03')) })).status, 'processing');
    t.same(await statusAround(key, o.id), { before: 'processing', after: 'processing' });
    await operatorAnswers(svc, 24 * 3_600_000);
    t.equal((await retrieve(svc, key, o.id)).status, 'processing', 'still processing a day later');
  });

  await t.test('04: processing, then failed with operator_unavailable', async (t) => {
    const o = await createIntent(svc, key);
    t.equal((await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('04')) })).status, 'processing');
    t.same(await statusAround(key, o.id), { before: 'processing', after: 'failed' });
    t.equal((await retrieve(svc, key, o.id)).last_payment_error.code, 'operator_unavailable');
  });

  for (const ending of ['00', '05', '10', '67', '99']) {
    await t.test(`${ending}: processing, then succeeded`, async (t) => {
      const o = await createIntent(svc, key);
      t.equal((await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber(ending)) })).status, 'processing');
      t.same(await statusAround(key, o.id), { before: 'processing', after: 'succeeded' });
      t.match(await retrieve(svc, key, o.id), { amount_received: 10_000, fee: 150 });
    });
  }

  await t.test('other countries and operators follow the same table', async (t) => {
    const gh = await createIntent(svc, key, { amount: 5_000, currency: 'ghs', transaction_country: 'GH' });
    await confirmOk(t, key, gh.id, { payment_method: mobileMoney('+233241234501', 'mtn', 'GH') });
    const ke = await createIntent(svc, key, { amount: 10_000, currency: 'kes', transaction_country: 'KE' });
    await confirmOk(t, key, ke.id, { payment_method: mobileMoney('0712 345 678', 'mpesa', 'KE') });
    const ci = await createIntent(svc, key, { transaction_country: 'CI' });
    await confirmOk(t, key, ci.id, { payment_method: mobileMoney('+2250707123402', 'wave', 'ci') });
    await operatorAnswers(svc);
    t.equal((await retrieve(svc, key, gh.id)).status, 'failed');
    t.equal((await retrieve(svc, key, ke.id)).status, 'succeeded');
    t.equal((await retrieve(svc, key, ci.id)).status, 'succeeded', '02 in CI: requires_action, then succeeded');
  });
});

t.test('sandbox cards', async (t) => {
  const { key } = await svc.sandboxMerchant();

  await t.test('tok_visa succeeds', async (t) => {
    const o = await createIntent(svc, key);
    const first = await confirmOk(t, key, o.id, { payment_method: card('tok_visa') });
    t.equal(first.status, 'processing');
    t.same(first.payment_method, { type: 'card', card: { brand: 'visa', last4: '4242' } });
    t.same(await statusAround(key, o.id), { before: 'processing', after: 'succeeded' });
  });

  await t.test('tok_visa_declined fails with card_declined', async (t) => {
    const o = await createIntent(svc, key);
    t.equal((await confirmOk(t, key, o.id, { payment_method: card('tok_visa_declined') })).status, 'processing');
    t.same(await statusAround(key, o.id), { before: 'processing', after: 'failed' });
    t.equal((await retrieve(svc, key, o.id)).last_payment_error.code, 'card_declined');
  });

  await t.test('tok_3ds_required: redirect to the hosted test page, which completes it', async (t) => {
    const o = await createIntent(svc, key);
    const returnUrl = 'https://shop.example/checkout/return?order=42';
    const first = await confirmOk(t, key, o.id, { payment_method: card('tok_3ds_required'), return_url: returnUrl });
    t.equal(first.status, 'requires_action');
    t.equal(first.next_action.type, 'redirect_to_url');
    t.equal(first.next_action.redirect_to_url.return_url, returnUrl);
    const url = new URL(first.next_action.redirect_to_url.url);
    t.equal(`${url.protocol}//${url.host}`, publicUrl, 'on this service');
    t.equal(url.pathname, `/sandbox/3ds/${first.latest_operation}`);

    await operatorAnswers(svc);
    t.equal((await retrieve(svc, key, o.id)).status, 'requires_action', 'no timer completes 3-D Secure');

    const page = await rawRequest(svc, 'GET', url.pathname, { accept: 'text/html' });
    t.equal(page.status, 200);
    t.match(page.headers.get('content-type') ?? '', /^text\/html/);
    t.match(page.text, /3-D Secure/);
    t.match(page.text, new RegExp(`action="/sandbox/3ds/${first.latest_operation}/complete"`));

    const done = await rawRequest(svc, 'POST', `${url.pathname}/complete`);
    t.equal(done.status, 303, 'redirects with 303 See Other');
    const location = new URL(done.headers.get('location') ?? '');
    t.equal(`${location.origin}${location.pathname}`, 'https://shop.example/checkout/return');
    t.equal(location.searchParams.get('order'), '42', 'the merchant\u2019s own query is kept');
    t.equal(location.searchParams.get('status'), 'succeeded');
    t.equal(location.searchParams.get('payment_intent'), o.id);
    t.equal(location.searchParams.get('operation_id'), first.latest_operation);
    t.match(await retrieve(svc, key, o.id), { status: 'succeeded', next_action: null, amount_received: 10_000 });

    const again = await rawRequest(svc, 'POST', `${url.pathname}/complete`);
    t.equal(again.status, 404, 'the page is gone once used');
    t.equal((await rawRequest(svc, 'GET', url.pathname)).status, 404);
  });

  await t.test('tok_3ds_required: failing the authentication fails the payment', async (t) => {
    const o = await createIntent(svc, key);
    const first = await confirmOk(t, key, o.id, { payment_method: card('tok_3ds_required') });
    const path = new URL(first.next_action.redirect_to_url.url).pathname;
    const res = await rawRequest(svc, 'POST', `${path}/fail`);
    t.equal(res.status, 303);
    const location = new URL(res.headers.get('location') ?? '');
    t.equal(location.pathname, `/operations/status/${first.latest_operation}`, 'no return_url: the hosted status page');
    t.equal(location.searchParams.get('status'), 'failed');
    t.equal(location.searchParams.get('payment_intent'), o.id);
    t.equal(location.searchParams.get('operation_id'), first.latest_operation);
    t.match(await retrieve(svc, key, o.id), { status: 'failed', last_payment_error: { code: 'authentication_failed' } });
    const landing = await rawRequest(svc, 'GET', `${location.pathname}${location.search}`);
    t.equal(landing.status, 200, 'the status page takes the parameters Sika appended on the way back');
  });

  await t.test('the test page of an unknown operation is 404', async (t) => {
    t.equal((await rawRequest(svc, 'GET', '/sandbox/3ds/op_000000000000000000000000')).status, 404);
    t.equal((await rawRequest(svc, 'POST', '/sandbox/3ds/op_000000000000000000000000/complete')).status, 404);
  });
});

t.test('confirm validation', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key);
  const mm = (fields: Record<string, unknown>) => ({ payment_method: { type: 'mobile_money', mobile_money: { ...mobileMoney(snNumber('67')).mobile_money, ...fields } } });
  const cases: [string, Record<string, unknown>, Parameters<typeof assertError>[2], string][] = [
    ['no payment_method', {}, 'IKW-VAL-001', 'payment_method'],
    ['payment_method not an object', { payment_method: 'pm_card_visa' }, 'IKW-VAL-001', 'payment_method'],
    ['an unknown type', { payment_method: { type: 'bank' } }, 'IKW-VAL-001', 'payment_method.type'],
    ['no type', { payment_method: { card: { token: 'tok_visa' } } }, 'IKW-VAL-001', 'payment_method.type'],
    ['mobile money country \u2260 transaction_country', mm({ country: 'CI', msisdn: '+2250707123456' }), 'IKW-VAL-010', 'payment_method.mobile_money.country'],
    ['mobile money country not alpha-2', mm({ country: 'SEN' }), 'IKW-VAL-001', 'payment_method.mobile_money.country'],
    ['an unknown operator', mm({ operator: 'paypal' }), 'IKW-VAL-005', 'payment_method.mobile_money.operator'],
    ['an operator of another country', mm({ operator: 'mtn' }), 'IKW-VAL-005', 'payment_method.mobile_money.operator'],
    ['an MSISDN that is no number', mm({ msisdn: 'call-me-maybe' }), 'IKW-VAL-007', 'payment_method.mobile_money.msisdn'],
    ['an MSISDN too short for SN', mm({ msisdn: '+2217712345' }), 'IKW-VAL-007', 'payment_method.mobile_money.msisdn'],
    ['an MSISDN of another country', mm({ msisdn: '+2250707123456' }), 'IKW-VAL-007', 'payment_method.mobile_money.msisdn'],
    ['a fixed-line number', mm({ msisdn: '+221331234567' }), 'IKW-VAL-007', 'payment_method.mobile_money.msisdn'],
    ['no msisdn', { payment_method: { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'wave' } } }, 'IKW-VAL-001', 'payment_method.mobile_money.msisdn'],
    ['mobile_money type without details', { payment_method: { type: 'mobile_money' } }, 'IKW-VAL-001', 'payment_method.mobile_money'],
    ['card type without card', { payment_method: { type: 'card' } }, 'IKW-VAL-001', 'payment_method.card'],
    ['card with an empty token', { payment_method: card('') }, 'IKW-VAL-001', 'payment_method.card.token'],
    ['an unknown sandbox token', { payment_method: card('tok_mastercard') }, 'IKW-VAL-001', 'payment_method.card.token'],
    // card: {} is a card entered on the acquirer's page (live, Paystack): a raw number is a field Sika never takes.
    ['a raw card number', { payment_method: { type: 'card', card: { number: '4242424242424242' } } }, 'IKW-VAL-002', 'payment_method.card.number'],
    ['card details on a mobile money method', { payment_method: { ...mobileMoney(snNumber('67')), card: { token: 'tok_visa' } } }, 'IKW-VAL-002', 'payment_method.card'],
    ['an unknown field in payment_method', { payment_method: { ...card('tok_visa'), save: true } }, 'IKW-VAL-002', 'payment_method.save'],
    ['an unknown top-level field', { payment_method: card('tok_visa'), capture_method: 'manual' }, 'IKW-VAL-002', 'capture_method'],
    ['a return_url that is not http(s)', { payment_method: card('tok_visa'), return_url: 'javascript:alert(1)' }, 'IKW-VAL-001', 'return_url'],
    ['a return_url that is not a URL', { payment_method: card('tok_visa'), return_url: 'shop/return' }, 'IKW-VAL-001', 'return_url'],
  ];
  for (const [name, body, code, param] of cases) {
    await t.test(name, async (t) => assertError(t, await confirm(svc, key, o.id, body), code, param));
  }
  await t.test('none of them started anything', async (t) => {
    t.equal(probe.callsFor(o.id), 0, 'no provider call');
    t.match(await retrieve(svc, key, o.id), { status: 'requires_payment_method', latest_operation: null });
    t.equal((await svc.system.store.readStream(`payment_intent-${o.id}`)).length, 1, 'no event but created');
  });
  await t.test('spellings that are fine: operator and country in any case, national MSISDN, preferred_flow', async (t) => {
    const res = await confirm(svc, key, o.id, {
      payment_method: { type: 'mobile_money', mobile_money: { country: 'sn', operator: 'Orange_Money', msisdn: '77 123 45 67', preferred_flow: 'ussd_push' } },
    });
    assertOk(t, res);
    t.same(res.body.payment_method.mobile_money, { country: 'SN', operator: 'orange_money', msisdn: '••••4567' });
    const call = probe.calls.find((c) => c.paymentIntentId === o.id);
    t.same(call?.paymentMethod, { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567', preferred_flow: 'ussd_push' }, 'the provider gets E.164');
  });
  await t.test('a payin-only operator collects payments', async (t) => {
    const p = await createIntent(svc, key);
    const res = await confirm(svc, key, p.id, { payment_method: mobileMoney(snNumber('67'), 'e_money') });
    assertOk(t, res);
    await operatorAnswers(svc);
    t.equal((await retrieve(svc, key, p.id)).status, 'succeeded');
  });
  // The catalog has no payout-only operator, so "operator does not collect" (IKW-VAL-006) cannot be reached here.
  await t.test('the amount must be within the chosen operator\u2019s payin limits', async (t) => {
    const big = await createIntent(svc, key, { amount: 1_500_000 });
    assertError(t, await confirm(svc, key, big.id, { payment_method: mobileMoney(snNumber('67'), 'e_money') }), 'IKW-VAL-008', 'amount');
    const small = await createIntent(svc, key, { amount: 99 });
    assertError(t, await confirm(svc, key, small.id, { payment_method: mobileMoney(snNumber('67')) }), 'IKW-VAL-008', 'amount');
    const cents = await createIntent(svc, key, { amount: 10_050, currency: 'kes', transaction_country: 'KE' });
    assertError(t, await confirm(svc, key, cents.id, { payment_method: mobileMoney('+254712345678', 'mpesa', 'KE') }), 'IKW-VAL-008', 'amount');
    t.equal(probe.callsFor(big.id) + probe.callsFor(small.id) + probe.callsFor(cents.id), 0, 'no provider call');
    assertOk(t, await confirm(svc, key, big.id, { payment_method: mobileMoney(snNumber('67'), 'orange_money') }));
  });
  await t.test('live, once the operator activated it: no connector is configured', async (t) => {
    await activateLive(svc, m.id);
    const live = await createIntent(svc, m.api_keys.live);
    assertError(t, await confirm(svc, m.api_keys.live, live.id, { payment_method: mobileMoney(snNumber('67')) }), 'IKW-PRV-001', 'payment_method');
    assertError(t, await confirm(svc, m.api_keys.live, live.id, { payment_method: card('tok_visa') }), 'IKW-PRV-001', 'payment_method');
    assertError(t, await confirm(svc, m.api_keys.live, live.id, { payment_method: mobileMoney('12345') }), 'IKW-VAL-007', 'payment_method.mobile_money.msisdn');
    t.equal(probe.callsFor(live.id), 0);
    t.match(await retrieve(svc, m.api_keys.live, live.id), { status: 'requires_payment_method', livemode: true });
  });
});

t.test('confirm on an intent that is past requires_payment_method returns it and calls no provider', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const again = async (t: Test, id: string) => {
    const before = await retrieve(svc, key, id);
    const calls = probe.callsFor(id);
    // Whatever the payment method says, a wrong one included (another country, an unknown operator, a number that is no number).
    for (const payment_method of [mobileMoney(snNumber('67')), card('tok_visa'), mobileMoney(snNumber('67'), 'orange_money', 'CI'), mobileMoney('12345', 'no_such_operator')]) {
      const res = await confirm(svc, key, id, { payment_method });
      assertOk(t, res);
      t.same(res.body, before, 'the current object, unchanged');
    }
    t.equal(probe.callsFor(id), calls, 'no provider call');
    t.same(await retrieve(svc, key, id), before);
  };
  const processing = await createIntent(svc, key);
  await confirmOk(t, key, processing.id, { payment_method: mobileMoney(snNumber('03')) });
  const action = await createIntent(svc, key);
  await confirmOk(t, key, action.id, { payment_method: mobileMoney(snNumber('02')) });
  await t.test('processing', (t) => again(t, processing.id));
  await t.test('requires_action', (t) => again(t, action.id));
  const succeeded = await createIntent(svc, key);
  await confirmOk(t, key, succeeded.id, { payment_method: mobileMoney(snNumber('67')) });
  const failed = await createIntent(svc, key);
  await confirmOk(t, key, failed.id, { payment_method: card('tok_visa_declined') });
  await operatorAnswers(svc);
  await t.test('succeeded', (t) => again(t, succeeded.id));
  await t.test('failed', (t) => again(t, failed.id));
  await t.test('canceled: 409 IKW-RES-002', async (t) => {
    const c = await createIntent(svc, key);
    assertOk(t, await cancel(key, c.id));
    assertError(t, await confirm(svc, key, c.id, { payment_method: mobileMoney(snNumber('67')) }), 'IKW-RES-002');
    assertError(t, await confirm(svc, key, c.id, { payment_method: card('tok_visa') }), 'IKW-RES-002');
    t.equal(probe.callsFor(c.id), 0);
    t.equal((await retrieve(svc, key, c.id)).status, 'canceled');
  });
  await t.test('a 404 for an unknown intent', async (t) => {
    assertError(t, await confirm(svc, key, 'pi_doesnotexist000000000000', { payment_method: card('tok_visa') }), 'IKW-RES-001', 'id');
  });
});

t.test('20 parallel confirms: one provider call, 19 × 409 IKW-RES-003', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key);
  probe.hold();
  const arrived: TestResponse[] = [];
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('67')) }).then((res) => {
        arrived.push(res);
        if (arrived.length === 19) probe.release();
        return res;
      }),
    ),
  );
  probe.release();
  t.equal(probe.callsFor(o.id), 1, 'exactly one provider call');
  const ok = results.filter((r) => r.status === 200);
  const conflicts = results.filter((r) => r.status === 409);
  t.equal(ok.length, 1, 'one confirmation went through');
  t.equal(conflicts.length, 19, 'every other got 409');
  for (const res of conflicts) {
    assertError(t, res, 'IKW-RES-003', null);
    t.equal(res.body.message, 'Payment intent confirmation is already in progress');
  }
  t.equal(arrived[19]?.status, 200, 'the 409s came while the winner was still with the provider');
  t.equal(ok[0]?.body.status, 'processing');
  const events = await svc.system.store.readStream(`payment_intent-${o.id}`);
  t.same(
    events.map((e) => e.type),
    ['payment_intent.created', 'payment_intent.confirmation_started', 'payment_intent.processing'],
    'one confirmation recorded',
  );
  await operatorAnswers(svc);
  t.equal((await retrieve(svc, key, o.id)).status, 'succeeded');
  t.same((await balanceObject(svc, key)).available, [{ amount: 10_000 - 150, currency: 'xof' }], 'credited once');
});

t.test('parallel confirms of different intents do not block each other', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const intents = await Promise.all(Array.from({ length: 5 }, () => createIntent(svc, key)));
  const results = await Promise.all(intents.map((o) => confirm(svc, key, o.id, { payment_method: card('tok_visa') })));
  t.same(
    results.map((r) => r.status),
    [200, 200, 200, 200, 200],
  );
});

t.test('a provider error releases the lock: the intent can be confirmed again', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key);
  probe.failNext = new Error('connection reset by the operator');
  const res = await confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('67')) });
  t.ok(res.status >= 400, `an error (${res.status})`);
  t.equal(res.body?.retryable, true, 'worth retrying');
  t.notMatch(res.text, /connection reset|at .*\.js/, 'no internals leak');
  t.equal((await retrieve(svc, key, o.id)).status, 'requires_payment_method');
  const retry = await confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('67')) });
  assertOk(t, retry);
  t.equal(probe.callsFor(o.id), 2);
  await operatorAnswers(svc);
  t.equal((await retrieve(svc, key, o.id)).status, 'succeeded');
});

t.test('cancel', async (t) => {
  const { key } = await svc.sandboxMerchant();

  await t.test('from requires_payment_method, with a reason', async (t) => {
    const o = await createIntent(svc, key);
    const res = await cancel(key, o.id, { cancellation_reason: 'requested_by_customer' });
    assertOk(t, res);
    t.match(res.body, { status: 'canceled', cancellation_reason: 'requested_by_customer', canceled_at: Math.floor(svc.clock.now().getTime() / 1000), next_action: null });
    t.same(await retrieve(svc, key, o.id), res.body);
  });

  await t.test('from requires_payment_method, without a body', async (t) => {
    const o = await createIntent(svc, key);
    const res = await cancel(key, o.id);
    assertOk(t, res);
    t.match(res.body, { status: 'canceled', cancellation_reason: null });
  });

  await t.test('from requires_action (mobile money): the late operator answer changes nothing', async (t) => {
    const o = await createIntent(svc, key);
    await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('02')) });
    const res = await cancel(key, o.id, { cancellation_reason: 'abandoned' });
    assertOk(t, res);
    t.match(res.body, { status: 'canceled', cancellation_reason: 'abandoned', next_action: null });
    await operatorAnswers(svc);
    t.match(await retrieve(svc, key, o.id), { status: 'canceled', amount_received: 0 });
    t.same((await balanceObject(svc, key)).available, [], 'no money moved');
  });

  await t.test('from requires_action (3-D Secure): the test page is gone, the status page says canceled', async (t) => {
    const o = await createIntent(svc, key);
    const first = await confirmOk(t, key, o.id, { payment_method: card('tok_3ds_required'), return_url: 'https://shop.example/r' });
    assertOk(t, await cancel(key, o.id, { cancellation_reason: 'duplicate' }));
    const path = new URL(first.next_action.redirect_to_url.url).pathname;
    t.equal((await rawRequest(svc, 'POST', `${path}/complete`)).status, 404);
    t.equal((await retrieve(svc, key, o.id)).status, 'canceled');
    const op = await svc.request('GET', `/operations/status/${first.latest_operation}`);
    t.equal(op.body.status, 'canceled');
    const redirect = new URL(op.body.redirect_url);
    t.equal(redirect.searchParams.get('status'), 'canceled');
  });

  await t.test('from processing, succeeded, failed or canceled: 409 IKW-RES-002', async (t) => {
    const processing = await createIntent(svc, key);
    await confirmOk(t, key, processing.id, { payment_method: mobileMoney(snNumber('03')) });
    const succeeded = await createIntent(svc, key);
    await confirmOk(t, key, succeeded.id, { payment_method: card('tok_visa') });
    const pending = await createIntent(svc, key);
    await confirmOk(t, key, pending.id, { payment_method: card('tok_visa') });
    assertError(t, await cancel(key, pending.id), 'IKW-RES-002', null);
    const failed = await createIntent(svc, key);
    await confirmOk(t, key, failed.id, { payment_method: mobileMoney(snNumber('01')) });
    await operatorAnswers(svc);
    const canceled = await createIntent(svc, key);
    assertOk(t, await cancel(key, canceled.id));
    for (const [name, id, status] of [
      ['processing', processing.id, 'processing'],
      ['succeeded', succeeded.id, 'succeeded'],
      ['failed', failed.id, 'failed'],
      ['canceled', canceled.id, 'canceled'],
    ] as const) {
      const res = await cancel(key, id, { cancellation_reason: 'requested_by_customer' });
      assertError(t, res, 'IKW-RES-002', null);
      t.equal((await retrieve(svc, key, id)).status, status, `${name} is left as it was`);
    }
  });

  await t.test('while a confirmation is with the provider: 409 IKW-RES-003', async (t) => {
    const o = await createIntent(svc, key);
    probe.hold();
    const pending = confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('02')) });
    await probe.called(o.id);
    const res = await cancel(key, o.id);
    probe.release();
    assertError(t, res, 'IKW-RES-003');
    t.equal((await pending).body.status, 'requires_action');
    assertOk(t, await cancel(key, o.id));
    t.equal((await retrieve(svc, key, o.id)).status, 'canceled', 'once the provider has answered, cancel works');
  });

  await t.test('bad input', async (t) => {
    const o = await createIntent(svc, key);
    assertError(t, await cancel(key, o.id, { cancellation_reason: 'changed_my_mind' }), 'IKW-VAL-001', 'cancellation_reason');
    assertError(t, await cancel(key, o.id, { reason: 'duplicate' }), 'IKW-VAL-002', 'reason');
    assertError(t, await cancel(key, 'pi_doesnotexist000000000000'), 'IKW-RES-001');
    t.equal((await retrieve(svc, key, o.id)).status, 'requires_payment_method');
  });
});

t.test('return URLs and the operation status page', async (t) => {
  const { key } = await svc.sandboxMerchant();

  await t.test('without return_url: the hosted status page', async (t) => {
    const o = await createIntent(svc, key);
    const first = await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('67')) });
    t.match(first.latest_operation, /^op_[0-9A-Za-z]{24}$/);
    t.equal(first.return_url, `${publicUrl}/operations/status/${first.latest_operation}`);

    const path = `/operations/status/${first.latest_operation}`;
    const pending = await svc.request('GET', path);
    assertOk(t, pending);
    t.match(pending.headers.get('content-type') ?? '', /^application\/json/, 'JSON by default');
    t.same(pending.body, {
      id: first.latest_operation,
      object: 'operation',
      status: 'processing',
      payment_intent: o.id,
      amount: 10_000,
      currency: 'xof',
      livemode: false,
      return_url: first.return_url,
      redirect_url: null,
    });
    const pendingHtml = await svc.request('GET', path, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    t.equal(pendingHtml.status, 200);
    t.match(pendingHtml.headers.get('content-type') ?? '', /^text\/html/, 'HTML for browsers');
    t.match(pendingHtml.text, /being processed/);
    t.match(pendingHtml.text, /http-equiv="refresh"/, 'refreshes itself until final');

    await operatorAnswers(svc);
    const final = await svc.request('GET', path, { headers: { accept: 'application/json' } });
    t.equal(final.body.status, 'succeeded');
    const redirect = new URL(final.body.redirect_url);
    t.equal(`${redirect.origin}${redirect.pathname}`, first.return_url);
    t.equal(redirect.searchParams.get('status'), 'succeeded');
    t.equal(redirect.searchParams.get('payment_intent'), o.id);
    t.equal(redirect.searchParams.get('operation_id'), first.latest_operation);
    const finalHtml = await svc.request('GET', path, { headers: { accept: 'text/html' } });
    t.match(finalHtml.text, /Payment received/);
    t.notMatch(finalHtml.text, /http-equiv="refresh"/);
    t.notMatch(finalHtml.text, /Return to the merchant/, 'no link back to itself');
  });

  await t.test('with return_url: kept, and the redirect carries status, payment_intent and operation_id', async (t) => {
    const o = await createIntent(svc, key);
    const returnUrl = 'https://shop.example/thanks?cart=7';
    const first = await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('01')), return_url: returnUrl });
    t.equal(first.return_url, returnUrl);
    const path = `/operations/status/${first.latest_operation}`;
    t.equal((await svc.request('GET', path)).body.return_url, returnUrl);
    await operatorAnswers(svc);
    const final = await svc.request('GET', path);
    t.equal(final.body.status, 'failed');
    const redirect = new URL(final.body.redirect_url);
    t.equal(redirect.origin, 'https://shop.example');
    t.equal(redirect.pathname, '/thanks');
    t.same(Object.fromEntries(redirect.searchParams), { cart: '7', status: 'failed', payment_intent: o.id, operation_id: first.latest_operation });
    const html = await svc.request('GET', path, { headers: { accept: 'text/html' } });
    t.match(html.text, /did not go through/);
    t.match(html.text, /Return to the merchant/);
    t.match(html.text, /https:\/\/shop\.example\/thanks/);
  });

  await t.test('the merchant\u2019s default return URL (settings) comes before the status page', async (t) => {
    const other = await svc.merchant('With a default');
    const k = other.api_keys.sandbox;
    const set = await svc.request('PATCH', '/api/v1/merchant/settings/payouts', { key: k, body: { default_return_url: 'https://shop.example/default' } });
    assertOk(t, set);
    const a = await createIntent(svc, k);
    t.equal((await confirmOk(t, k, a.id, { payment_method: mobileMoney(snNumber('67')) })).return_url, 'https://shop.example/default');
    const b = await createIntent(svc, k);
    t.equal((await confirmOk(t, k, b.id, { payment_method: card('tok_visa'), return_url: 'https://shop.example/given' })).return_url, 'https://shop.example/given', 'a given return_url wins');
    const c = await createIntent(svc, k);
    const threeDs = await confirmOk(t, k, c.id, { payment_method: card('tok_3ds_required') });
    t.equal(threeDs.next_action.redirect_to_url.return_url, 'https://shop.example/default');
    const done = await rawRequest(svc, 'POST', `${new URL(threeDs.next_action.redirect_to_url.url).pathname}/complete`);
    t.match(done.headers.get('location') ?? '', /^https:\/\/shop\.example\/default\?status=succeeded&/);
    const mine = await createIntent(svc, key);
    const first = await confirmOk(t, key, mine.id, { payment_method: mobileMoney(snNumber('67')) });
    t.equal(first.return_url, `${publicUrl}/operations/status/${first.latest_operation}`, 'another merchant\u2019s default does not apply');
    await operatorAnswers(svc);
  });

  await t.test('the HTML page escapes what the merchant gave', async (t) => {
    const o = await createIntent(svc, key);
    const returnUrl = 'https://shop.example/r?x="><script>alert(1)</script>&y=<b>';
    const first = await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('67')), return_url: returnUrl });
    t.equal(first.return_url, returnUrl, 'kept as given');
    await operatorAnswers(svc);
    const html = await svc.request('GET', `/operations/status/${first.latest_operation}`, { headers: { accept: 'text/html' } });
    t.equal(html.status, 200);
    t.notMatch(html.text, /<script>|<b>|"><script/, 'no markup of the merchant’s in the page');
    const json = await svc.request('GET', `/operations/status/${first.latest_operation}`);
    t.equal(new URL(json.body.redirect_url).searchParams.get('x'), '"><script>alert(1)</script>', 'the redirect keeps the value, encoded');
  });

  await t.test('requires_action shows on the status page', async (t) => {
    const o = await createIntent(svc, key);
    const first = await confirmOk(t, key, o.id, { payment_method: mobileMoney(snNumber('02')) });
    const op = await svc.request('GET', `/operations/status/${first.latest_operation}`);
    t.match(op.body, { status: 'requires_action', redirect_url: null });
  });

  await t.test('unknown or malformed operation ids', async (t) => {
    assertError(t, await svc.request('GET', '/operations/status/op_000000000000000000000000'), 'IKW-RES-001');
    const html = await svc.request('GET', '/operations/status/op_000000000000000000000000', { headers: { accept: 'text/html' } });
    t.equal(html.status, 404);
    t.equal((await svc.request('GET', '/operations/status/pi_123')).status, 400);
  });
});
