/**
 * POST /api/v1/payouts and GET /api/v1/payouts/{id} against the real server and database: every
 * parameter and execution rule of the interface, the Payout object as it lists it, inline mobile
 * money and bank destinations, saved destinations (payout_method_id), each bad input with its
 * status, code and param, live mode (Idempotency-Key, no connector), scopes and X-Environment.
 */
import t from '#tap';
import { assertError, assertOk, balance, bank, fund, fundedMerchant, getPayout, MINUTE, mobileMoney, PAYOUT_KEYS, payout, payoutFee, postPayout, retrievePayout, saveDestination } from '../../support/payouts.js';
import { activateLive, startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

const unix = (d: Date) => Math.floor(d.getTime() / 1000);
const iso = (ms: number) => new Date(svc.clock.now().getTime() + ms).toISOString();

async function payoutRows(merchantId: string): Promise<number> {
  const row = await svc.system.knex('read.payouts').where({ merchant_id: merchantId }).count<{ count: string }[]>('* as count');
  return Number(row[0]!.count);
}

t.test('a mobile money payout: the Payout object as the interface lists it', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const quote = await svc.request('POST', '/api/v1/fees/quote', {
    key,
    body: { amount: 10_000, currency: 'XOF', direction: 'payout', method: 'mobile_money', country: 'SN', operator: 'orange_money' },
  });
  assertOk(t, quote);
  const created = svc.clock.now();

  const res = await postPayout(svc, key, {
    amount: 10_000,
    currency: 'XOF',
    destination: { type: 'mobile_money', country: 'sn', operator: 'orange_money', msisdn: '77 123 45 67' },
    metadata: { order_id: 'A-1', source: 'my-shop', environment: 'live' },
  });
  assertOk(t, res);
  const p = res.body;
  t.same(Object.keys(p), PAYOUT_KEYS, 'the fields, in order');
  t.match(p.id, /^po_[0-9A-Za-z]{24}$/);
  t.same(
    { ...p, id: undefined },
    {
      id: undefined,
      object: 'payout',
      amount: 10_000,
      currency: 'xof',
      status: 'in_transit',
      destination: { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
      payout_method_id: null,
      arrival_date_estimate: iso(10 * MINUTE),
      expected_by: iso(10 * MINUTE),
      delay_state: null,
      delay_reason: null,
      delayed_at: null,
      metadata: { order_id: 'A-1', source: 'my-shop', environment: 'live' }, // the merchant's own keys, kept: only the payout engine adds them
      failure_code: null,
      failure_message: null,
      fee: quote.body.fee,
      created: unix(created),
      livemode: false,
    },
    'normalised destination, expected_by = creation + 10 minutes, platform metadata wins',
  );
  t.equal(quote.body.fee, 100, 'the fee is the quote (1 %, at least XOF 100)');
  t.same(Object.keys(p.destination), ['type', 'currency', 'country', 'operator', 'msisdn'], 'destination as returned');

  const got = await getPayout(svc, key, p.id);
  assertOk(t, got);
  t.same(got.body, p, 'GET answers the same object');
  t.same(Object.keys(got.body), PAYOUT_KEYS, 'in the same order');
  t.same(await balance(svc, key), { available: 100_000 - 10_100, pending: 0, reserved: 10_100 }, 'amount + fee held');
});

t.test('destination.currency defaults to the payout currency; given, it must be the same', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const explicit = await payout(svc, key, { currency: 'xof', destination: mobileMoney('67', { currency: 'XOF' }) });
  t.equal(explicit.destination.currency, 'xof');
  const implicit = await payout(svc, key, { currency: 'Xof', destination: mobileMoney('67') });
  t.equal(implicit.destination.currency, 'xof');
  t.equal(implicit.currency, 'xof');

  const other = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: mobileMoney('67', { currency: 'ghs' }) });
  assertError(t, other, 'IKW-VAL-009', 'destination.currency');
  const ghana = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: { type: 'mobile_money', country: 'GH', operator: 'mtn', msisdn: '+233241234567' } });
  assertError(t, ghana, 'IKW-VAL-009', 'destination.currency');
});

t.test('MSISDN spellings are normalised to E.164', async (t) => {
  const { key } = await fundedMerchant(svc, 1_000_000);
  for (const msisdn of ['+221 77 123 45 67', '00221771234567', '221771234567', '77-123-45-67', '(77) 123.45.67']) {
    const p = await payout(svc, key, { destination: mobileMoney('67', { msisdn }) });
    t.equal(p.destination.msisdn, '+221771234567', msisdn);
  }
  const ci = await payout(svc, key, { destination: { type: 'mobile_money', country: 'CI', operator: 'mtn', msisdn: '05 05 12 34 56' } });
  t.same(ci.destination, { type: 'mobile_money', currency: 'xof', country: 'CI', operator: 'mtn', msisdn: '+2250505123456' }, 'another country of the same currency');
});

t.test('a bank payout: inline bank destination, fixed fee', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const res = await postPayout(svc, key, {
    amount: 50_000,
    currency: 'xof',
    destination: { type: 'bank', bank_code: ' SN012 ', account_number: '0123 4567 8967', account_name: 'Awa Diop' },
  });
  assertOk(t, res);
  const p = res.body;
  t.same(Object.keys(p), PAYOUT_KEYS);
  t.same(p.destination, { type: 'bank', currency: 'xof', bank_code: 'SN012', account_number: '012345678967', account_name: 'Awa Diop' });
  t.equal(p.fee, payoutFee(50_000, { type: 'bank' }));
  t.equal(p.fee, 1_000, 'XOF 1,000 fixed');
  t.equal(p.status, 'in_transit');
  t.ok(Date.parse(p.expected_by) > svc.clock.now().getTime(), 'expected_by after creation');
  t.equal(p.arrival_date_estimate, p.expected_by);
  t.same(await balance(svc, key), { available: 100_000 - 51_000, pending: 0, reserved: 51_000 });
  const explicit = await payout(svc, key, { amount: 1_000, destination: bank('67', { currency: 'XOF' }) });
  t.equal(explicit.destination.currency, 'xof');
  const wrong = await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: bank('67', { currency: 'ghs' }) });
  assertError(t, wrong, 'IKW-VAL-009', 'destination.currency');
});

t.test('payout_method_id: a saved destination of the merchant', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const id = await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'wave', msisdn: '771234567' });
  const p = await payout(svc, key, { amount: 5_000, payout_method_id: id, metadata: { k: 'v' } });
  t.equal(p.payout_method_id, id);
  t.same(p.destination, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'wave', msisdn: '+221771234567' });
  t.equal(p.fee, payoutFee(5_000, { type: 'mobile_money', country: 'SN', operator: 'wave' }), 'the Wave Senegal price');
  t.same(p.metadata, { k: 'v' });
  t.equal(p.expected_by, iso(10 * MINUTE));

  const bankId = await saveDestination(svc, key, { type: 'bank', currency: 'xof', bank_code: 'SN012', account_number: '012345678967', account_name: 'Awa Diop' });
  const b = await payout(svc, key, { amount: 5_000, payout_method_id: bankId });
  t.equal(b.destination.type, 'bank');
  t.equal(b.fee, 1_000);

  await t.test('in another currency than the saved one', async (t) => {
    const res = await postPayout(svc, key, { amount: 5_000, currency: 'ghs', payout_method_id: id });
    assertError(t, res, 'IKW-VAL-009', 'currency');
  });
});

t.test('bad input: each refused with its status, code and param, and nothing moves', async (t) => {
  const { merchant: m, key } = await fundedMerchant(svc, 100_000);
  const other = await svc.merchant('Other');
  const before = await balance(svc, key);
  const mm = mobileMoney('67');
  const base = { amount: 10_000, currency: 'xof' };

  const othersMethod = await saveDestination(svc, other.api_keys.sandbox, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' });
  const liveMethod = await saveDestination(svc, m.api_keys.live, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' });
  const deleted = await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' });
  assertOk(t, await svc.request('DELETE', `/api/v1/merchant/settings/payouts/destinations/${deleted}`, { key }));

  const cases: [string, unknown, Parameters<typeof assertError>[2], string][] = [
    ['no destination', { ...base }, 'IKW-PAY-001', 'destination'],
    ['both destinations', { ...base, destination: mm, payout_method_id: othersMethod }, 'IKW-PAY-001', 'payout_method_id'],
    ['a destination of the wrong type', { ...base, destination: { ...mm, type: 'card' } }, 'IKW-VAL-001', 'destination.type'],
    ['a destination without a type', { ...base, destination: { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } }, 'IKW-VAL-001', 'destination.type'],
    ['a destination that is not an object', { ...base, destination: 'orange_money:+221771234567' }, 'IKW-VAL-001', 'destination'],
    ['a destination that is null', { ...base, destination: null }, 'IKW-VAL-001', 'destination'],
    ['missing MSISDN', { ...base, destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money' } }, 'IKW-VAL-001', 'destination.msisdn'],
    ['missing operator', { ...base, destination: { type: 'mobile_money', country: 'SN', msisdn: '+221771234567' } }, 'IKW-VAL-001', 'destination.operator'],
    ['missing country', { ...base, destination: { type: 'mobile_money', operator: 'orange_money', msisdn: '+221771234567' } }, 'IKW-VAL-001', 'destination.country'],
    ['a bank field on mobile money', { ...base, destination: { ...mm, account_number: '123' } }, 'IKW-VAL-002', 'destination.account_number'],
    ['a bank destination without account_name', { ...base, destination: { type: 'bank', bank_code: 'SN012', account_number: '0123' } }, 'IKW-VAL-001', 'destination.account_name'],
    ['a bank destination with an MSISDN', { ...base, destination: { ...bank(), msisdn: '+221771234567' } }, 'IKW-VAL-002', 'destination.msisdn'],
    ['an unknown destination field', { ...base, destination: { ...mm, iban: 'x' } }, 'IKW-VAL-002', 'destination.iban'],
    ['an invalid MSISDN (too short)', { ...base, destination: { ...mm, msisdn: '+2217712' } }, 'IKW-VAL-007', 'destination.msisdn'],
    ['an invalid MSISDN (letters)', { ...base, destination: { ...mm, msisdn: '+22177ABCDEFG' } }, 'IKW-VAL-007', 'destination.msisdn'],
    ['an MSISDN of another country', { ...base, destination: { ...mm, msisdn: '+233241234567' } }, 'IKW-VAL-007', 'destination.msisdn'],
    ['a fixed-line number', { ...base, destination: { ...mm, msisdn: '+221338211234' } }, 'IKW-VAL-007', 'destination.msisdn'],
    ['a payin-only operator', { ...base, destination: { ...mm, operator: 'e_money' } }, 'IKW-VAL-006', 'destination.operator'],
    ['an unknown country + operator pair', { ...base, destination: { ...mm, operator: 'mpesa' } }, 'IKW-VAL-005', 'destination.operator'],
    ['an unknown operator', { ...base, destination: { ...mm, operator: 'nope' } }, 'IKW-VAL-005', 'destination.operator'],
    ['an unknown country', { ...base, destination: { ...mm, country: 'XX' } }, 'IKW-VAL-004', 'destination.country'],
    ['a three-letter country', { ...base, destination: { ...mm, country: 'SEN' } }, 'IKW-VAL-001', 'destination.country'],
    ['destination currency ≠ payout currency', { ...base, destination: { ...mm, currency: 'xaf' } }, 'IKW-VAL-009', 'destination.currency'],
    ['a payout method of another merchant', { ...base, payout_method_id: othersMethod }, 'IKW-PAY-002', 'payout_method_id'],
    ['a payout method of the other environment', { ...base, payout_method_id: liveMethod }, 'IKW-PAY-002', 'payout_method_id'],
    ['an unknown payout method', { ...base, payout_method_id: '0190c6a8-0000-7000-8000-000000000001' }, 'IKW-PAY-002', 'payout_method_id'],
    ['a deleted payout method', { ...base, payout_method_id: deleted }, 'IKW-PAY-003', 'payout_method_id'],
    ['a payout_method_id that is not a UUID', { ...base, payout_method_id: 'pm_123' }, 'IKW-VAL-001', 'payout_method_id'],
    ['zero amount', { ...base, amount: 0, destination: mm }, 'IKW-VAL-001', 'amount'],
    ['negative amount', { ...base, amount: -10_000, destination: mm }, 'IKW-VAL-001', 'amount'],
    ['fractional amount', { ...base, amount: 10_000.5, destination: mm }, 'IKW-VAL-001', 'amount'],
    ['an amount as a string', { ...base, amount: '10000', destination: mm }, 'IKW-VAL-001', 'amount'],
    ['no amount', { currency: 'xof', destination: mm }, 'IKW-VAL-001', 'amount'],
    ['no currency', { amount: 10_000, destination: mm }, 'IKW-VAL-001', 'currency'],
    ['a currency that is not three letters', { ...base, currency: 'xofx', destination: mm }, 'IKW-VAL-001', 'currency'],
    ['an unknown currency', { ...base, currency: 'zzz', destination: mm }, 'IKW-VAL-003', 'currency'],
    ['an unknown currency with a saved destination', { ...base, currency: 'zzz', payout_method_id: deleted }, 'IKW-VAL-003', 'currency'],
    ['below the operator minimum', { ...base, amount: 99, destination: mm }, 'IKW-VAL-008', 'amount'],
    ['above the operator maximum', { ...base, amount: 1_500_001, destination: mm }, 'IKW-VAL-008', 'amount'],
    ['metadata with a non-string value', { ...base, destination: mm, metadata: { n: 1 } }, 'IKW-VAL-001', 'metadata.n'],
    ['an unknown parameter', { ...base, destination: mm, description: 'x' }, 'IKW-VAL-002', 'description'],
  ];
  for (const [name, body, code, param] of cases) {
    await t.test(name, async (t) => assertError(t, await postPayout(svc, key, body), code, param));
  }

  await t.test('missing X-Environment', async (t) => {
    assertError(t, await postPayout(svc, key, { ...base, destination: mm }, { environment: null }), 'IKW-AUT-006', 'X-Environment');
  });
  await t.test('not JSON', async (t) => {
    const res = await svc.request('POST', '/api/v1/payouts', { key, rawBody: '{"amount": 1', headers: { 'content-type': 'application/json', 'x-environment': 'sandbox' } });
    assertError(t, res, 'IKW-REQ-001');
  });

  t.same(await balance(svc, key), before, 'the balance did not move');
  t.equal(await payoutRows(m.id), 0, 'no payout was created');
});

t.test('the balance must cover amount + fee', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const mm = mobileMoney('67');
  const fee = payoutFee(20_000, mm);
  t.equal(fee, 200, '1 % of 20,000');

  assertError(t, await postPayout(svc, key, { amount: 20_000, currency: 'xof', destination: mm }), 'IKW-BAL-001', 'amount');
  await fund(svc, m.id, 20_000 + fee - 1);
  const short = await postPayout(svc, key, { amount: 20_000, currency: 'xof', destination: mm });
  assertError(t, short, 'IKW-BAL-001', 'amount');
  t.match(short.body.message, /20199.*20200/, 'the message names the balance and the total');
  t.same(await balance(svc, key), { available: 20_199, pending: 0, reserved: 0 }, 'nothing held');
  const allButFee = await postPayout(svc, key, { amount: 20_199, currency: 'xof', destination: mm });
  assertError(t, allButFee, 'IKW-BAL-001', 'amount');

  await fund(svc, m.id, 1);
  const exact = await postPayout(svc, key, { amount: 20_000, currency: 'xof', destination: mm });
  assertOk(t, exact);
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 20_200 }, 'exactly amount + fee held');
  assertError(t, await postPayout(svc, key, { amount: 100, currency: 'xof', destination: mm }), 'IKW-BAL-001', 'amount');
  t.equal(await payoutRows(m.id), 1);

  await t.test('another currency is another balance', async (t) => {
    await fund(svc, m.id, 1_000_000, 'sandbox', 'xaf');
    const cm = { type: 'mobile_money', country: 'CM', operator: 'mtn', msisdn: '+237671234567' };
    assertOk(t, await postPayout(svc, key, { amount: 10_000, currency: 'xaf', destination: cm }));
    assertError(t, await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: mm }), 'IKW-BAL-001');
  });
});

t.test('saved destination in its safety delay: refused, then usable once it has passed', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  assertOk(t, await svc.request('PATCH', '/api/v1/merchant/settings/payouts', { key, body: { safety_delay_minutes: 30 } }));
  const id = await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' });
  const usableFrom = iso(30 * MINUTE);

  const early = await postPayout(svc, key, { amount: 10_000, currency: 'xof', payout_method_id: id });
  assertError(t, early, 'IKW-PAY-004', 'payout_method_id');
  t.match(early.body.message, usableFrom, 'the message says from when');
  svc.clock.advance(30 * MINUTE - 1);
  assertError(t, await postPayout(svc, key, { amount: 10_000, currency: 'xof', payout_method_id: id }), 'IKW-PAY-004', 'payout_method_id');
  t.same(await balance(svc, key), { available: 100_000, pending: 0, reserved: 0 }, 'nothing held');
  svc.clock.advance(1);
  const ok = await postPayout(svc, key, { amount: 10_000, currency: 'xof', payout_method_id: id });
  assertOk(t, ok);
  t.equal(ok.body.payout_method_id, id);
});

t.test('live: Idempotency-Key first, then validation, then no connector (IKW-PRV-001)', async (t) => {
  const m = await svc.merchant();
  const key = m.api_keys.live;
  const body = { amount: 10_000, currency: 'xof', destination: mobileMoney('67') };

  await t.test('without Idempotency-Key: IKW-IDM-004 before anything else', async (t) => {
    assertError(t, await postPayout(svc, key, body), 'IKW-IDM-004', 'Idempotency-Key');
    assertError(t, await postPayout(svc, key, { ...body, destination: mobileMoney('67', { operator: 'e_money' }) }), 'IKW-IDM-004', 'Idempotency-Key');
    assertError(t, await postPayout(svc, key, { amount: 10_000, currency: 'xof' }), 'IKW-IDM-004', 'Idempotency-Key');
  });
  await t.test('sandbox does not require it', async (t) => {
    await fund(svc, m.id, 20_000);
    assertOk(t, await postPayout(svc, m.api_keys.sandbox, body));
  });

  await fund(svc, m.id, 100_000, 'live');
  await activateLive(svc, m.id);
  const before = await balance(svc, key);
  t.same(before, { available: 100_000, pending: 0, reserved: 0 }, 'a live balance funded through the ledger');

  await t.test('validation still comes first', async (t) => {
    assertError(t, await postPayout(svc, key, { ...body, destination: mobileMoney('67', { operator: 'e_money' }) }, { idempotencyKey: 'live-1' }), 'IKW-VAL-006', 'destination.operator');
    assertError(t, await postPayout(svc, key, { amount: 10_000, currency: 'xof' }, { idempotencyKey: 'live-2' }), 'IKW-PAY-001', 'destination');
    assertError(t, await postPayout(svc, key, { ...body, amount: 0 }, { idempotencyKey: 'live-3' }), 'IKW-VAL-001', 'amount');
  });
  await t.test('a valid live payout: refused, no connector is configured', async (t) => {
    const res = await postPayout(svc, key, body, { idempotencyKey: 'live-4' });
    assertError(t, res, 'IKW-PRV-001', 'destination');
    assertError(t, await postPayout(svc, key, { ...body, destination: bank() }, { idempotencyKey: 'live-5' }), 'IKW-PRV-001', 'destination');
    assertError(t, await postPayout(svc, key, { ...body, amount: 1_000_000 }, { idempotencyKey: 'live-6' }), 'IKW-PRV-001', 'destination');
    // The dashboard's route asks for no Idempotency-Key (the interface requires it on /api/v1/payouts only).
    assertError(t, await postPayout(svc, key, body, { path: '/api/v1/merchant/payouts' }), 'IKW-PRV-001', 'destination');
    t.same(await balance(svc, key), before, 'nothing held');
    const rows = await svc.system.knex('read.payouts').where({ merchant_id: m.id, environment: 'live' });
    t.equal(rows.length, 0, 'no live payout');
  });
  await t.test('a live saved destination waits a day by default', async (t) => {
    const id = await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' });
    assertError(t, await postPayout(svc, key, { amount: 10_000, currency: 'xof', payout_method_id: id }, { idempotencyKey: 'live-7' }), 'IKW-PAY-004', 'payout_method_id');
  });
});

t.test('GET /api/v1/payouts/{id}: only the merchant\u2019s own payouts of this environment', async (t) => {
  const { merchant: m } = await fundedMerchant(svc, 100_000);
  const other = await svc.merchant('Other');
  const p = await payout(svc, m.api_keys.sandbox, { destination: mobileMoney('67') });
  for (const path of ['/api/v1/payouts', '/api/v1/merchant/payouts']) {
    await t.test(path, async (t) => {
      assertOk(t, await getPayout(svc, m.api_keys.sandbox, p.id, { path }));
      assertError(t, await getPayout(svc, other.api_keys.sandbox, p.id, { path }), 'IKW-RES-001', 'id');
      assertError(t, await getPayout(svc, m.api_keys.live, p.id, { path }), 'IKW-RES-001', 'id');
      assertError(t, await getPayout(svc, m.api_keys.sandbox, 'po_000000000000000000000000', { path }), 'IKW-RES-001', 'id');
      const notFound = await getPayout(svc, other.api_keys.sandbox, p.id, { path });
      const unknown = await getPayout(svc, other.api_keys.sandbox, 'po_000000000000000000000000', { path });
      t.equal(notFound.body.message.replace(p.id, 'X'), unknown.body.message.replace('po_000000000000000000000000', 'X'), 'the same answer as an unknown id');
    });
  }
});

t.test('auth: scopes payouts.read / payouts.write, X-Environment', async (t) => {
  const { merchant: m } = await fundedMerchant(svc, 1_000_000);
  const body = { amount: 10_000, currency: 'xof', destination: mobileMoney('67') };
  const existing = await payout(svc, m.api_keys.sandbox, { destination: mobileMoney('67') });
  const keyWith = (scopes: string[]) => svc.apiKey(m.id, scopes);

  await t.test('payouts.read: can read, cannot create', async (t) => {
    const { secret } = await keyWith(['payouts.read']);
    const res = await postPayout(svc, secret, body);
    assertError(t, res, 'IKW-AUT-004');
    t.match(res.body.message, /payouts\.write/);
    assertError(t, await postPayout(svc, secret, body, { path: '/api/v1/merchant/payouts' }), 'IKW-AUT-004');
    assertOk(t, await getPayout(svc, secret, existing.id));
    assertOk(t, await getPayout(svc, secret, existing.id, { path: '/api/v1/merchant/payouts' }));
    assertOk(t, await svc.request('GET', '/api/v1/merchant/payouts', { key: secret, headers: { 'x-environment': 'sandbox' } }));
  });
  await t.test('payouts.write: can create and read', async (t) => {
    const { secret } = await keyWith(['payouts.write']);
    const res = await postPayout(svc, secret, body);
    assertOk(t, res);
    assertOk(t, await getPayout(svc, secret, res.body.id));
    assertOk(t, await postPayout(svc, secret, body, { path: '/api/v1/merchant/payouts' }));
  });
  await t.test('other scopes: neither', async (t) => {
    const { secret } = await keyWith(['payment_intents.write', 'balance.read']);
    assertError(t, await postPayout(svc, secret, body), 'IKW-AUT-004');
    assertError(t, await getPayout(svc, secret, existing.id), 'IKW-AUT-004');
  });
  await t.test('no credential, a bad credential', async (t) => {
    const res = await svc.request('POST', '/api/v1/payouts', { body, headers: { 'x-environment': 'sandbox' } });
    assertError(t, res, 'IKW-AUT-001');
    assertError(t, await postPayout(svc, 'sk_test_nope', body), 'IKW-AUT-002');
  });
  await t.test('X-Environment is required on /api/v1/payouts, optional on /api/v1/merchant/payouts', async (t) => {
    assertError(t, await postPayout(svc, m.api_keys.sandbox, body, { environment: null }), 'IKW-AUT-006', 'X-Environment');
    assertError(t, await getPayout(svc, m.api_keys.sandbox, existing.id, { environment: null }), 'IKW-AUT-006', 'X-Environment');
    const merchantPath = { path: '/api/v1/merchant/payouts', environment: null };
    assertOk(t, await postPayout(svc, m.api_keys.sandbox, body, merchantPath));
    assertOk(t, await getPayout(svc, m.api_keys.sandbox, existing.id, merchantPath));
    assertOk(t, await svc.request('GET', '/api/v1/merchant/payouts', { key: m.api_keys.sandbox }));
    assertError(t, await getPayout(svc, m.api_keys.sandbox, existing.id, { ...merchantPath, environment: 'live' }), 'IKW-AUT-003', 'X-Environment');
  });
  await t.test('X-Environment of the other environment: 403', async (t) => {
    assertError(t, await postPayout(svc, m.api_keys.sandbox, body, { environment: 'live' }), 'IKW-AUT-003', 'X-Environment');
    assertError(t, await postPayout(svc, m.api_keys.live, body, { environment: 'sandbox', idempotencyKey: 'k' }), 'IKW-AUT-003', 'X-Environment');
    assertError(t, await getPayout(svc, m.api_keys.live, existing.id, { environment: 'sandbox' }), 'IKW-AUT-003', 'X-Environment');
    assertError(t, await getPayout(svc, m.api_keys.sandbox, existing.id, { environment: 'live' }), 'IKW-AUT-003', 'X-Environment');
  });
  await t.test('a bad X-Environment', async (t) => {
    const res = await svc.request('GET', `/api/v1/payouts/${existing.id}`, { key: m.api_keys.sandbox, headers: { 'x-environment': 'test' } });
    assertError(t, res, 'IKW-AUT-005', 'X-Environment');
  });
  await t.test('no public list, no cancel', async (t) => {
    assertError(t, await svc.request('GET', '/api/v1/payouts', { key: m.api_keys.sandbox, headers: { 'x-environment': 'sandbox' } }), 'IKW-RTE-002');
    assertError(t, await svc.request('POST', `/api/v1/payouts/${existing.id}/cancel`, { key: m.api_keys.sandbox, headers: { 'x-environment': 'sandbox' } }), 'IKW-RTE-001');
  });
});

t.test('Idempotency-Key in sandbox: the same key replays the same payout', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const body = { amount: 10_000, currency: 'xof', destination: mobileMoney('67') };
  const first = await postPayout(svc, key, body, { idempotencyKey: 'order-1' });
  assertOk(t, first);
  const second = await postPayout(svc, key, body, { idempotencyKey: 'order-1' });
  assertOk(t, second);
  t.equal(second.headers.get('idempotent-replayed'), 'true');
  t.equal(second.text, first.text, 'byte for byte');
  t.same(await balance(svc, key), { available: 100_000 - 10_100, pending: 0, reserved: 10_100 }, 'held once');
  assertError(t, await postPayout(svc, key, { ...body, amount: 20_000 }, { idempotencyKey: 'order-1' }), 'IKW-IDM-002');
  const third = await postPayout(svc, key, body, { idempotencyKey: 'order-2' });
  assertOk(t, third);
  t.not(third.body.id, first.body.id, 'another key, another payout');
  t.equal((await retrievePayout(svc, key, first.body.id)).id, first.body.id);
});
