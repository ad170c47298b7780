/**
 * Hub2's pure parts (packages/connectors/hub2/): the provider table and msisdn form, the amount
 * rule, failure causes → Sika codes (payer's faults apart from rail faults), request bodies, and
 * answer mappers where anything off the contract is a Hub2ProtocolError, never money.
 */
import t from '#tap';
import { amountRefusal } from '#packages/connectors/hub2/amounts.js';
import { failureOf } from '#packages/connectors/hub2/failures.js';
import {
  authenticationBody,
  bookedIntentOf,
  collectInitiationOf,
  collectStatusOf,
  eventOf,
  Hub2ProtocolError,
  intentBody,
  intentOf,
  paymentBody,
  paymentOf,
  payoutInitiationOf,
  payoutStatusOf,
  transferBody,
  transferOf,
  transfersWithReference,
  transferFloatsOf,
  walletBalancesOf,
  OTP_INSTRUCTIONS,
} from '#packages/connectors/hub2/operations.js';
import { hub2Msisdn, listProviders, providerFor } from '#packages/connectors/hub2/providers.js';
import { RAIL_FAULTS, type CollectRequest, type PayoutRequest } from '#packages/connectors/port.js';

const collect: CollectRequest = {
  operationId: 'op_A1',
  paymentIntentId: 'pi_sika_A1',
  merchantId: 'acct_1',
  environment: 'live',
  amount: 5000,
  currency: 'xof',
  paymentMethod: { type: 'mobile_money', country: 'CI', operator: 'orange_money', msisdn: '+2250712345678' },
  returnUrl: 'https://shop.example/done',
};

const payout: PayoutRequest = {
  payoutId: 'po_B1',
  merchantId: 'acct_1',
  environment: 'live',
  amount: 2500,
  currency: 'XOF',
  destination: { type: 'mobile_money', currency: 'XOF', country: 'SN', operator: 'wave', msisdn: '+221771234567' },
};

const payment = (over: Record<string, unknown> = {}) => ({ id: 'pay_1', intentId: 'pi_1', status: 'pending', amount: 5000, currency: 'XOF', provider: 'orange', country: 'CI', ...over });
const intent = (over: Record<string, unknown> = {}) => ({
  id: 'pi_1',
  token: 'tok',
  status: 'processing',
  payments: [payment()],
  amount: 5000,
  currency: 'XOF',
  purchaseReference: 'op_A1',
  customerReference: 'pi_sika_A1',
  merchantId: 'm_1',
  mode: 'live',
  createdAt: '2026-03-01T10:00:00Z',
  updatedAt: '2026-03-01T10:00:00Z',
  ...over,
});
const transfer = (over: Record<string, unknown> = {}) => ({ id: 'tr_1', reference: 'po_B1', status: 'pending', amount: 2500, currency: 'XOF', description: 'x', fees: [], ...over });

t.test('providers: the table, payouts not to expresso, msisdn "+<calling code><digits>"', async (t) => {
  t.match(providerFor('ci', 'ORANGE_MONEY'), { provider: 'orange', country: 'CI', callingCode: '225', currency: 'XOF', paysOut: true });
  t.match(providerFor('TG', 'flooz'), { provider: 'moov', callingCode: '228' });
  t.match(providerFor('SN', 'e_money'), { provider: 'expresso', paysOut: false });
  t.match(providerFor('CM', 'mtn'), { provider: 'mtn', currency: 'XAF', callingCode: '237' });
  t.equal(providerFor('GH', 'mtn'), undefined);
  t.equal(providerFor('CI', 'free_money'), undefined);
  t.equal(listProviders().length, 19);
  const ci = providerFor('CI', 'mtn')!;
  t.equal(hub2Msisdn('+2250712345678', ci), '+2250712345678');
  t.equal(hub2Msisdn('225 07 12 34 56 78', ci), '+2250712345678');
  t.equal(hub2Msisdn('+221771234567', ci), null, 'another country');
  t.equal(hub2Msisdn('+225123', ci), null, 'too short');
  t.equal(hub2Msisdn('+225abc1234567', ci), null);
});

t.test('amounts: multiples of 5 from 100 to 1,000,000, the nearest named', async (t) => {
  for (const ok of [100, 105, 5000, 999_995, 1_000_000]) t.equal(amountRefusal(ok), null, `${ok}`);
  t.match(amountRefusal(103), /nearest it takes are 100 and 105/);
  t.match(amountRefusal(99), /nearest it takes is 100/);
  t.match(amountRefusal(5), /nearest it takes is 100/);
  t.match(amountRefusal(1_000_001), /nearest it takes is 1,000,000/);
  t.match(amountRefusal(1_000_003), /nearest it takes is 1,000,000/);
  t.match(amountRefusal(102.5), /100 and 105/);
  t.match(amountRefusal(999_998), /999,995 and 1,000,000/);
});

t.test("failures: payer's and recipient's faults keep payer codes; the rest are rail faults", async (t) => {
  const payer = {
    customer_insufficient_funds: 'insufficient_funds',
    customer_account_locked: 'payer_account_locked',
    authentication_failed: 'payment_not_approved',
    authentication_timeout: 'payment_not_approved',
    canceled_by_customer: 'payment_not_approved',
    payer_quota_exceeded: 'payer_limit_reached',
    invalid_msisdn: 'payer_not_found',
  };
  for (const [code, sika] of Object.entries(payer)) {
    const f = failureOf('payment', { code, message: 'm' });
    t.equal(f.failureCode, sika, code);
    t.notOk(RAIL_FAULTS.has(f.failureCode), `${code} is not the rail's`);
  }
  for (const [code, sika] of Object.entries({ invalid_destination: 'recipient_not_found', destination_not_allowed: 'recipient_not_allowed', blacklisted_msisdn: 'recipient_not_allowed' })) {
    t.equal(failureOf('transfer', { code }).failureCode, sika, code);
    t.notOk(RAIL_FAULTS.has(sika));
  }
  t.equal(failureOf('transfer', { code: 'insufficient_funds' }).failureCode, 'provider_balance_insufficient');
  t.equal(failureOf('payment', { code: 'service_unavailable' }).failureCode, 'operator_unavailable');
  t.equal(failureOf('transfer', { code: 'timeout' }).failureCode, 'operator_unavailable');
  for (const code of ['internal_error', 'unknown_reason', 'unknown_reason_orange', 'fraud_suspicion', 'duplicate_request', 'brand_new_code']) {
    const f = failureOf('payment', { code, message: 'Hub2 says no' });
    t.equal(f.failureCode, 'provider_error', code);
    t.ok(RAIL_FAULTS.has(f.failureCode));
    t.match(f.failureMessage, `(Hub2 ${code})`);
  }
  t.same(failureOf('payment', undefined), { failureCode: 'provider_error', failureMessage: 'Hub2 failed the payment (Hub2 unknown_reason)' });
  t.equal(failureOf('payment', { code: 'customer_insufficient_funds', message: '  Solde insuffisant ' }).failureMessage, 'Solde insuffisant', "Hub2's message kept");
});

t.test('request bodies: references are Sika ids, amounts integers, currencies upper case', async (t) => {
  t.same(intentBody(collect), { customerReference: 'pi_sika_A1', purchaseReference: 'op_A1', amount: 5000, currency: 'XOF' });
  t.throws(() => intentBody({ ...collect, operationId: 'op/1' }), /characters Hub2 refuses/);
  const wallet = { country: 'CI', provider: 'orange', msisdn: '+2250712345678' };
  t.same(paymentBody('tok', wallet), { token: 'tok', paymentMethod: 'mobile_money', country: 'CI', provider: 'orange', mobileMoney: { msisdn: '+2250712345678' } });
  t.same(
    paymentBody('tok', wallet, '482913'),
    { token: 'tok', paymentMethod: 'mobile_money', country: 'CI', provider: 'orange', mobileMoney: { msisdn: '+2250712345678', otp: '482913' } },
    'a code given before paying goes as mobileMoney.otp',
  );
  t.same(authenticationBody('482913'), { confirmationCode: '482913' }, 'a code given after: the authentication body, nothing else');
  t.same(transferBody(payout, { country: 'SN', provider: 'wave', msisdn: '+221771234567' }, 'Sika payout'), {
    reference: 'po_B1',
    amount: 2500,
    currency: 'XOF',
    description: 'Sika payout po_B1',
    destination: { type: 'mobile_money', country: 'SN', recipientName: 'Sika payout', msisdn: '+221771234567', provider: 'wave' },
  });
});

t.test('answers off the contract are protocol errors', async (t) => {
  t.throws(() => intentOf([]), Hub2ProtocolError);
  t.throws(() => intentOf(intent({ payments: undefined })), Hub2ProtocolError);
  t.throws(() => intentOf(intent({ status: 'done' })), Hub2ProtocolError);
  t.throws(() => intentOf(intent({ amount: '5000' })), Hub2ProtocolError);
  t.throws(() => intentOf(intent({ purchaseReference: 7 })), Hub2ProtocolError);
  t.throws(() => paymentOf(payment({ status: 'COMPLETED' })), Hub2ProtocolError);
  t.throws(() => paymentOf(payment({ amount: 10.5 })), Hub2ProtocolError);
  t.throws(() => paymentOf(payment({ nextAction: { type: 'redirection', data: {} } })), Hub2ProtocolError);
  t.throws(() => paymentOf(payment({ nextAction: { type: 'redirection', data: { url: 'javascript:alert(1)' } } })), Hub2ProtocolError);
  t.throws(() => transferOf(transfer({ id: undefined })), Hub2ProtocolError);
  t.throws(() => transferOf(transfer({ status: 'paid' })), Hub2ProtocolError);
  t.throws(() => transfersWithReference({ transfers: [] }, 'po_B1'), Hub2ProtocolError);
  t.throws(() => bookedIntentOf('{"id":"pi_1"}'), Hub2ProtocolError);
  t.same(bookedIntentOf('{"id":"pi_1","token":"tok"}'), { id: 'pi_1', token: 'tok' });
});

t.test('collect initiation: pending, redirection, otp, failed', async (t) => {
  const url = 'https://shop.example/done';
  t.same(collectInitiationOf(paymentOf(payment()), url), { status: 'processing' });
  t.same(collectInitiationOf(paymentOf(payment({ status: 'action_required', nextAction: { type: 'redirection', data: { url: 'https://pay.wave.com/c/1', method: 'GET', headers: {}, data: {} } } })), url), {
    status: 'requires_action',
    nextAction: { type: 'redirect_to_url', redirect_to_url: { url: 'https://pay.wave.com/c/1', return_url: url } },
  });
  t.same(
    collectInitiationOf(paymentOf(payment({ status: 'action_required', nextAction: { type: 'otp' } })), url),
    {
      status: 'requires_action',
      nextAction: { type: 'mobile_money_otp', mobile_money_otp: { instructions: OTP_INSTRUCTIONS } },
    },
    'an OTP asks the payer for the code: requires_action, no expiry Hub2 tells',
  );
  t.match(collectInitiationOf(paymentOf(payment({ status: 'failed', failureCause: { code: 'customer_insufficient_funds', message: 'low' } })), url), { status: 'failed', failureCode: 'insufficient_funds' });
});

t.test("collect status: from Hub2's record, reported money always Hub2's", async (t) => {
  t.same(collectStatusOf(intentOf(intent({ status: 'payment_required', payments: [] })), 'op_A1'), { found: false });
  t.same(collectStatusOf(intentOf(intent({ payments: [payment({ amount: 4995 })] })), 'op_A1'), { found: true, final: null, reported: { amount: 4995, currency: 'xof', providerReference: 'pay_1' } });
  t.same(collectStatusOf(intentOf(intent({ status: 'successful', payments: [payment({ status: 'successful' })] })), 'op_A1'), {
    found: true,
    final: { status: 'succeeded', providerReference: 'pay_1' },
    reported: { amount: 5000, currency: 'xof', providerReference: 'pay_1' },
  });
  const failedThenOk = intent({ payments: [payment({ id: 'pay_0', status: 'failed' }), payment({ id: 'pay_2', status: 'successful' })] });
  t.match(collectStatusOf(intentOf(failedThenOk), 'op_A1'), { final: { status: 'succeeded', providerReference: 'pay_2' } });
  t.match(collectStatusOf(intentOf(intent({ status: 'successful', payments: [payment()] })), 'op_A1'), { final: { status: 'succeeded' } }, 'the intent successful');
  t.match(collectStatusOf(intentOf(intent({ payments: [payment({ status: 'failed', failureCause: { code: 'authentication_timeout' } })] })), 'op_A1'), {
    found: true,
    final: { status: 'failed', failureCode: 'payment_not_approved' },
  });
  t.match(collectStatusOf(intentOf(intent({ status: 'action_required', payments: [payment({ status: 'action_required' })] })), 'op_A1'), { found: true, final: null });
  t.throws(() => collectStatusOf(intentOf(intent()), 'op_OTHER'), Hub2ProtocolError);
});

t.test('payout: initiation and status from the Transfer', async (t) => {
  t.same(payoutInitiationOf(transferOf(transfer({ status: 'created' }))), { status: 'accepted' });
  t.match(payoutInitiationOf(transferOf(transfer({ status: 'failed', failureCause: { code: 'insufficient_funds' } }))), { status: 'rejected', failureCode: 'provider_balance_insufficient' });
  t.same(payoutStatusOf(transferOf(transfer()), 'po_B1'), { found: true, final: null, reported: { amount: 2500, currency: 'xof', providerReference: 'tr_1' } });
  t.same(payoutStatusOf(transferOf(transfer({ status: 'successful' })), 'po_B1'), { found: true, final: { type: 'paid', providerReference: 'tr_1' }, reported: { amount: 2500, currency: 'xof', providerReference: 'tr_1' } });
  t.match(payoutStatusOf(transferOf(transfer({ status: 'failed', failureCause: { code: 'invalid_destination' } })), 'po_B1'), { final: { type: 'failed', failureCode: 'recipient_not_found' } });
  t.throws(() => payoutStatusOf(transferOf(transfer({ reference: 'po_OTHER' })), 'po_B1'), Hub2ProtocolError);
  t.same(
    transfersWithReference([transfer(), transfer({ id: 'tr_9', reference: 'po_OTHER' })], 'po_B1').map((x) => x.id),
    ['tr_1'],
  );
});

t.test('balances: one wallet per currency, collection + transfer available + reserved', async (t) => {
  t.same(
    walletBalancesOf({
      balances: [
        { currency: 'XOF', collection: { available: 1000 }, transfer: { available: 200, reserved: 30 } },
        { currency: 'XAF', collection: { available: 0 }, transfer: { available: 5, reserved: 0 } },
      ],
    }),
    [
      { wallet: 'XOF', currency: 'xof', amount: 1230 },
      { wallet: 'XAF', currency: 'xaf', amount: 5 },
    ],
  );
  t.throws(() => walletBalancesOf({ balances: [{ currency: 'XOF', collection: { available: '1000' }, transfer: { available: 0, reserved: 0 } }] }), Hub2ProtocolError);
  t.throws(() => walletBalancesOf({}), Hub2ProtocolError);
});

t.test('the float that pays transfers: the transfer account’s available money only, per currency', async (t) => {
  t.same(
    transferFloatsOf({ balances: [{ currency: 'XOF', collection: { available: 1000 }, transfer: { available: 200, reserved: 30 } }] }),
    [{ wallet: 'XOF/transfer', currency: 'xof', amount: 200 }],
    'collected and reserved money pay no new transfer',
  );
  t.throws(() => transferFloatsOf({ balances: [{ currency: 'XOF', collection: { available: 0 }, transfer: { available: -1, reserved: 0 } }] }), Hub2ProtocolError);
});

t.test('events: what to re-read', async (t) => {
  const ev = (o: unknown) => eventOf(Buffer.from(JSON.stringify(o)));
  t.same(ev({ id: 'evt_1', type: 'payment.succeeded', data: payment() }), { kind: 'collect', hub2IntentId: 'pi_1' });
  t.same(ev({ id: 'evt_2', type: 'payment_intent.succeeded', data: intent() }), { kind: 'collect', hub2IntentId: 'pi_1' });
  t.same(ev({ id: 'evt_3', type: 'transfer.failed', data: transfer() }), { kind: 'payout', payoutId: 'po_B1', hub2TransferId: 'tr_1' });
  t.match(ev({ id: 'evt_4', type: 'webhook.ping', data: {} }), { kind: 'ignored' });
  t.match(ev({ id: 'evt_5', type: 'payment.failed', data: {} }), { kind: 'ignored' });
  t.match(eventOf(Buffer.from('nope')), { kind: 'ignored', reason: 'the body is not JSON' });
  t.same(ev({ id: 'evt_6', type: 'payment.succeeded', mode: 'sandbox', data: payment() }), { kind: 'collect', hub2IntentId: 'pi_1', mode: 'sandbox' }, 'the account it says it is of');
  t.same(ev({ id: 'evt_7', type: 'transfer.failed', mode: 'test', data: transfer() }), { kind: 'payout', payoutId: 'po_B1', hub2TransferId: 'tr_1' }, 'a mode that is neither: none');
});
