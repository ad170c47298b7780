/**
 * Payment intents against the real server and database: create (every field and rule), customers
 * found or created, retrieve, update, list, and isolation between merchants and environments.
 * Confirm and cancel: payment-intents-confirm.test.ts; money, events and rebuild:
 * payment-intents-money.test.ts.
 */
import t from '#tap';
import { paymentIntentStream, type Created } from '#packages/families/payments/payment-intent/events.js';
import type { CustomerRow } from '#packages/families/billing/read/customers.js';
import { assertError, assertOk, card, confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

const post = (key: string, body: unknown) => svc.request('POST', '/api/v1/payment-intents', { key, body });
const valid = { amount: 10_000, currency: 'xof', transaction_country: 'SN' };

/** The event data of an intent's `created` event: what the platform stored, reserved keys included. */
async function storedCreation(id: string): Promise<Created> {
  const events = await svc.system.store.readStream(paymentIntentStream(id));
  return events[0]!.data as Created;
}

t.test('create: the object with every field', async (t) => {
  const m = await svc.merchant();
  const res = await post(m.api_keys.sandbox, {
    amount: 25_000,
    currency: 'XOF',
    transaction_country: 'sn',
    payer_country: 'ci',
    rail_country: 'SN',
    description: 'Order #42',
    metadata: { order_id: '42', channel: 'web' },
  });
  assertOk(t, res);
  const o = res.body;
  t.match(o.id, /^pi_[0-9A-Za-z]{24}$/);
  t.match(o, {
    object: 'payment_intent',
    livemode: false,
    amount: 25_000,
    currency: 'xof',
    status: 'requires_payment_method',
    description: 'Order #42',
    next_action: null,
    customer: null,
    transaction_country: 'SN',
    payer_country: 'CI',
    rail_country: 'SN',
    payment_method: null,
    last_payment_error: null,
    latest_operation: null,
    return_url: null,
    amount_received: 0,
    cancellation_reason: null,
    canceled_at: null,
  });
  t.same(o.metadata, { order_id: '42', channel: 'web' });
  t.equal(o.created, Math.floor(svc.clock.now().getTime() / 1000), 'created is the clock\u2019s Unix seconds');
  const got = await svc.request('GET', `/api/v1/payment-intents/${o.id}`, { key: m.api_keys.sandbox });
  assertOk(t, got);
  t.same(got.body, o, 'retrieve returns what create returned');
});

t.test('create: minimal body; optional fields are null and metadata {}', async (t) => {
  const m = await svc.merchant();
  const o = await createIntent(svc, m.api_keys.sandbox);
  t.match(o, { description: null, payer_country: null, rail_country: null, customer: null });
  t.same(o.metadata, {});
});

t.test('create: currency in any case is returned lower case', async (t) => {
  const m = await svc.merchant();
  for (const [currency, country] of [
    ['XOF', 'SN'],
    ['xof', 'CI'],
    ['XoF', 'ML'],
    ['ghs', 'GH'],
    ['KES', 'KE'],
    ['xaf', 'CM'],
  ]) {
    const res = await post(m.api_keys.sandbox, { amount: 1_000, currency, transaction_country: country });
    assertOk(t, res);
    t.equal(res.body.currency, currency!.toLowerCase(), `${currency} → ${currency!.toLowerCase()}`);
    t.equal(res.body.transaction_country, country);
  }
});

t.test('create: metadata rules', async (t) => {
  const { key } = await svc.sandboxMerchant();

  await t.test('non-string values are accepted and not returned', async (t) => {
    const res = await post(key, { ...valid, metadata: { kept: 'yes', n: 1, b: true, nul: null, arr: ['x'], obj: { a: 'b' }, empty: '' } });
    assertOk(t, res);
    t.same(res.body.metadata, { kept: 'yes', empty: '' });
    t.same((await storedCreation(res.body.id)).metadata.n, undefined, 'nor stored');
  });

  await t.test('reserved keys and prefixes are never returned; the platform stores Environment', async (t) => {
    const res = await post(key, {
      ...valid,
      metadata: {
        Description: 'mine',
        FailureReason: 'mine',
        Environment: 'production',
        'country_context.x': 'mine',
        'internal.flag': 'mine',
        'technical.trace': 'mine',
        mine: 'yes',
        description: 'lower-case keys are not reserved',
        internal_x: 'no dot, not the prefix',
      },
    });
    assertOk(t, res);
    t.same(res.body.metadata, { mine: 'yes', description: 'lower-case keys are not reserved', internal_x: 'no dot, not the prefix' });
    const stored = (await storedCreation(res.body.id)).metadata;
    t.equal(stored.Environment, 'sandbox', 'Environment is the platform\u2019s, not the merchant\u2019s');
    t.equal(stored['country_context.transaction_country'], 'SN');
    for (const k of ['Description', 'FailureReason', 'internal.flag', 'technical.trace', 'country_context.x']) {
      t.notOk(k in stored, `the merchant cannot set ${k}`);
    }
    const got = await svc.request('GET', `/api/v1/payment-intents/${res.body.id}`, { key });
    t.same(got.body.metadata, res.body.metadata, 'retrieve filters them too');
  });

  await t.test('limits: 50 keys, 40-character keys, 500-character values', async (t) => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `v${i}`]));
    const ok = await post(key, { ...valid, metadata: fifty });
    assertOk(t, ok);
    t.equal(Object.keys(ok.body.metadata).length, 50);
    assertError(t, await post(key, { ...valid, metadata: { ...fifty, k50: 'v' } }), 'IKW-VAL-001', 'metadata');
    assertOk(t, await post(key, { ...valid, metadata: { ['k'.repeat(40)]: 'v', v: 'x'.repeat(500) } }));
    assertError(t, await post(key, { ...valid, metadata: { ['k'.repeat(41)]: 'v' } }), 'IKW-VAL-001', 'metadata');
    assertError(t, await post(key, { ...valid, metadata: { '': 'v' } }), 'IKW-VAL-001', 'metadata');
    assertError(t, await post(key, { ...valid, metadata: { long: 'x'.repeat(501) } }), 'IKW-VAL-001', 'metadata.long');
  });

  await t.test('keys that look like JavaScript internals are plain keys', async (t) => {
    const res = await svc.request('POST', '/api/v1/payment-intents', {
      key,
      rawBody: '{"amount":100,"currency":"xof","transaction_country":"SN","metadata":{"__proto__":"p","constructor":"c","toString":"s","hasOwnProperty":"h"}}',
      headers: { 'content-type': 'application/json' },
    });
    assertOk(t, res);
    t.equal(res.body.metadata.constructor, 'c');
    t.equal(res.body.metadata.toString, 's');
    t.equal(res.body.metadata.hasOwnProperty, 'h');
    t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    const got = await svc.request('GET', `/api/v1/payment-intents/${res.body.id}`, { key });
    t.same(got.body.metadata, res.body.metadata, 'stored and read back the same');
    const patched = await svc.request('PATCH', `/api/v1/payment-intents/${res.body.id}`, { key, body: { metadata: { constructor: 'c2' } } });
    assertOk(t, patched);
    t.equal(patched.body.metadata.constructor, 'c2');
  });

  await t.test('metadata must be an object', async (t) => {
    for (const metadata of ['a=b', 42, ['a'], null]) {
      assertError(t, await post(key, { ...valid, metadata }), 'IKW-VAL-001', 'metadata');
    }
  });
});

t.test('create: description', async (t) => {
  const m = await svc.merchant();
  assertOk(t, await post(m.api_keys.sandbox, { ...valid, description: 'd'.repeat(1000) }));
  assertError(t, await post(m.api_keys.sandbox, { ...valid, description: 'd'.repeat(1001) }), 'IKW-VAL-001', 'description');
  assertError(t, await post(m.api_keys.sandbox, { ...valid, description: 42 }), 'IKW-VAL-001', 'description');
});

t.test('create: bad input, each with its code and param', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const cases: [string, Record<string, unknown>, Parameters<typeof assertError>[2], string][] = [
    ['amount missing', { currency: 'xof', transaction_country: 'SN' }, 'IKW-VAL-001', 'amount'],
    ['amount 0', { ...valid, amount: 0 }, 'IKW-VAL-001', 'amount'],
    ['amount negative', { ...valid, amount: -100 }, 'IKW-VAL-001', 'amount'],
    ['amount fractional', { ...valid, amount: 100.5 }, 'IKW-VAL-001', 'amount'],
    ['amount as a string', { ...valid, amount: '10000' }, 'IKW-VAL-001', 'amount'],
    ['amount above every SN operator\u2019s limit', { ...valid, amount: 2_000_001 }, 'IKW-VAL-008', 'amount'],
    ['amount far beyond any limit', { ...valid, amount: 1e15 }, 'IKW-VAL-001', 'amount'],
    ['currency missing', { amount: 100, transaction_country: 'SN' }, 'IKW-VAL-001', 'currency'],
    ['currency of 2 letters', { ...valid, currency: 'XO' }, 'IKW-VAL-001', 'currency'],
    ['currency of 4 letters', { ...valid, currency: 'XOFF' }, 'IKW-VAL-001', 'currency'],
    ['currency with digits', { ...valid, currency: 'X0F' }, 'IKW-VAL-001', 'currency'],
    ['currency unknown', { ...valid, currency: 'ABC' }, 'IKW-VAL-003', 'currency'],
    ['currency not the country\u2019s', { ...valid, currency: 'GHS' }, 'IKW-VAL-009', 'currency'],
    ['currency known but of another country', { ...valid, currency: 'usd' }, 'IKW-VAL-009', 'currency'],
    ['transaction_country missing', { amount: 100, currency: 'xof' }, 'IKW-VAL-001', 'transaction_country'],
    ['transaction_country alpha-3', { ...valid, transaction_country: 'SEN' }, 'IKW-VAL-001', 'transaction_country'],
    ['transaction_country of 1 letter', { ...valid, transaction_country: 'S' }, 'IKW-VAL-001', 'transaction_country'],
    ['transaction_country numeric', { ...valid, transaction_country: '68' }, 'IKW-VAL-001', 'transaction_country'],
    ['transaction_country unsupported', { ...valid, transaction_country: 'FR', currency: 'eur' }, 'IKW-VAL-004', 'transaction_country'],
    ['transaction_country not a country', { ...valid, transaction_country: 'ZZ' }, 'IKW-VAL-004', 'transaction_country'],
    ['payer_country alpha-3', { ...valid, payer_country: 'CIV' }, 'IKW-VAL-001', 'payer_country'],
    ['payer_country not a country', { ...valid, payer_country: 'ZZ' }, 'IKW-VAL-004', 'payer_country'],
    ['rail_country alpha-3', { ...valid, rail_country: 'SEN' }, 'IKW-VAL-001', 'rail_country'],
    ['rail_country not a country', { ...valid, rail_country: 'QQ' }, 'IKW-VAL-004', 'rail_country'],
    ['an unknown field', { ...valid, amount_capturable: 5 }, 'IKW-VAL-002', 'amount_capturable'],
    ['a camelCase field', { ...valid, transactionCountry: 'SN' }, 'IKW-VAL-002', 'transactionCountry'],
    ['status cannot be set', { ...valid, status: 'succeeded' }, 'IKW-VAL-002', 'status'],
    ['customer_email not an e-mail', { ...valid, customer_email: 'not-an-email' }, 'IKW-VAL-001', 'customer_email'],
    ['customer_phone not a number', { ...valid, customer_phone: 'call me' }, 'IKW-VAL-007', 'customer_phone'],
    ['customer_phone too short to be a number', { ...valid, customer_phone: '+2217712' }, 'IKW-VAL-007', 'customer_phone'],
  ];
  for (const [name, body, code, param] of cases) {
    await t.test(name, async (t) => assertError(t, await post(key, body), code, param));
  }
  await t.test('a body that is not an object', async (t) => {
    assertError(t, await post(key, [valid]), 'IKW-VAL-001');
  });
  await t.test('nothing was created by the bad requests', async (t) => {
    const list = await svc.request('GET', '/api/v1/payment-intents', { key });
    t.same(list.body.data, []);
  });
});

t.test('create: limits follow the country (GHS has decimals, XAF another ceiling)', async (t) => {
  const m = await svc.merchant();
  assertOk(t, await post(m.api_keys.sandbox, { amount: 1_000_000, currency: 'ghs', transaction_country: 'GH' }));
  assertError(t, await post(m.api_keys.sandbox, { amount: 1_000_001, currency: 'ghs', transaction_country: 'GH' }), 'IKW-VAL-008', 'amount');
  assertOk(t, await post(m.api_keys.sandbox, { amount: 1_000_000, currency: 'xaf', transaction_country: 'CM' }));
  assertError(t, await post(m.api_keys.sandbox, { amount: 1_000_001, currency: 'xaf', transaction_country: 'CM' }), 'IKW-VAL-008', 'amount');
  assertOk(t, await post(m.api_keys.sandbox, { amount: 2_000_000, currency: 'xof', transaction_country: 'SN' }));
});

t.test('customers: found or created by e-mail or phone', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const customerRow = (id: string) => svc.system.knex('read.customers').where({ id }).first<CustomerRow & { merchant_id: string }>();

  await t.test('the same e-mail twice is the same customer, whatever its case', async (t) => {
    const a = await createIntent(svc, key, { customer_email: 'ada@example.com' });
    const b = await createIntent(svc, key, { customer_email: 'Ada@Example.COM' });
    t.match(a.customer, /^cus_[0-9A-Za-z]+$/);
    t.equal(b.customer, a.customer);
    const row = await customerRow(a.customer);
    t.match(row, { merchant_id: m.id, environment: 'sandbox', email: 'ada@example.com' });
  });

  await t.test('10 parallel creates with one new e-mail: one customer', async (t) => {
    const all = await Promise.all(Array.from({ length: 10 }, () => post(key, { ...valid, customer_email: 'race@example.com' })));
    t.same(
      all.map((r) => r.status),
      Array(10).fill(200),
      'every create succeeds',
    );
    const ids = new Set(all.map((r) => r.body.customer));
    t.equal(ids.size, 1, 'one customer for all');
    const rows = await svc.system.knex('read.customers').where({ merchant_id: m.id, email: 'race@example.com' });
    t.equal(rows.length, 1, 'created once');
    const stream = await svc.system.store.readStream(`customer-${[...ids][0]}`);
    t.equal(stream.length, 1, 'one customer.created event');
  });

  await t.test('the phone is normalised to E.164, and finds the same customer in any spelling', async (t) => {
    const a = await createIntent(svc, key, { customer_phone: '77 123 45 67' });
    const b = await createIntent(svc, key, { customer_phone: '+221 77-123-45-67' });
    const c = await createIntent(svc, key, { customer_phone: '00221771234567' });
    t.ok(a.customer);
    t.equal(b.customer, a.customer);
    t.equal(c.customer, a.customer);
    t.equal((await customerRow(a.customer)).phone, '+221771234567');
  });

  await t.test('any valid number is a contact number: another country, a fixed line (only an MSISDN must be a mobile)', async (t) => {
    const ivorian = await createIntent(svc, key, { customer_phone: '+225 07 07 12 34 56' });
    t.equal((await customerRow(ivorian.customer)).phone, '+2250707123456');
    const fixed = await createIntent(svc, key, { customer_phone: '33 823 45 67' });
    t.equal((await customerRow(fixed.customer)).phone, '+221338234567', 'a Senegalese fixed line, read in the transaction country');
    const french = await createIntent(svc, key, { customer_phone: '+33 1 42 68 53 00' });
    t.equal((await customerRow(french.customer)).phone, '+33142685300');
  });

  await t.test('the payer and the rail may be anywhere; only the transaction country must be served', async (t) => {
    const o = await createIntent(svc, key, { payer_country: 'fr', rail_country: 'US' });
    t.match(o, { payer_country: 'FR', rail_country: 'US', transaction_country: 'SN' });
  });

  await t.test('e-mail and phone together: the e-mail finds the customer, the phone is recorded', async (t) => {
    const a = await createIntent(svc, key, { customer_email: 'both@example.com', customer_phone: '771112233' });
    t.match(await customerRow(a.customer), { email: 'both@example.com', phone: '+221771112233' });
    const b = await createIntent(svc, key, { customer_email: 'both@example.com' });
    t.equal(b.customer, a.customer);
  });

  await t.test('an explicit customer must exist for this merchant and environment', async (t) => {
    const a = await createIntent(svc, key, { customer_email: 'known@example.com' });
    const b = await createIntent(svc, key, { customer: a.customer });
    t.equal(b.customer, a.customer);
    assertError(t, await post(key, { ...valid, customer: 'cus_doesnotexist0000000000' }), 'IKW-VAL-001', 'customer');
    const other = await svc.merchant('Other');
    assertError(t, await post(other.api_keys.sandbox, { ...valid, customer: a.customer }), 'IKW-VAL-001', 'customer');
    assertError(t, await post(m.api_keys.live, { ...valid, customer: a.customer }), 'IKW-VAL-001', 'customer');
    assertError(t, await post(key, { ...valid, customer: '' }), 'IKW-VAL-001', 'customer');
  });

  await t.test('the same e-mail at another merchant or in live is another customer', async (t) => {
    const a = await createIntent(svc, key, { customer_email: 'shared@example.com' });
    const other = await svc.merchant('Other');
    const b = await createIntent(svc, other.api_keys.sandbox, { customer_email: 'shared@example.com' });
    const c = await createIntent(svc, m.api_keys.live, { customer_email: 'shared@example.com' });
    t.not(b.customer, a.customer);
    t.not(c.customer, a.customer);
    t.not(c.customer, b.customer);
    t.equal((await customerRow(c.customer)).environment, 'live');
  });

  await t.test('list by customer', async (t) => {
    const a = await createIntent(svc, key, { customer_email: 'filter@example.com' });
    const b = await createIntent(svc, key, { customer_email: 'filter@example.com' });
    await createIntent(svc, key);
    const res = await svc.request('GET', `/api/v1/payment-intents?customer=${a.customer}`, { key });
    assertOk(t, res);
    t.same(
      res.body.data.map((o: { id: string }) => o.id),
      [b.id, a.id],
    );
  });
});

t.test('retrieve', async (t) => {
  const m = await svc.merchant();
  const o = await createIntent(svc, m.api_keys.sandbox);
  const res = await svc.request('GET', `/api/v1/payment-intents/${o.id}`, { key: m.api_keys.sandbox });
  assertOk(t, res);
  t.same(res.body, o);
  assertError(t, await svc.request('GET', '/api/v1/payment-intents/pi_doesnotexist000000000000', { key: m.api_keys.sandbox }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', '/api/v1/payment-intents/po_1', { key: m.api_keys.sandbox }), 'IKW-RES-001');
  assertError(t, await svc.request('GET', `/api/v1/payment-intents/${o.id}`), 'IKW-AUT-001');
});

t.test('update: description and metadata', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key, { description: 'first', metadata: { a: '1', b: '2' } });
  const patch = (body: unknown) => svc.request('PATCH', `/api/v1/payment-intents/${o.id}`, { key, body });

  const r1 = await patch({ description: 'second', metadata: { b: 'two', c: '3' } });
  assertOk(t, r1);
  t.equal(r1.body.description, 'second');
  t.same(r1.body.metadata, { a: '1', b: 'two', c: '3' }, 'keys are added or replaced, others kept');

  const r2 = await patch({ metadata: { Environment: 'live', 'internal.x': 'y', FailureReason: 'no', 'technical.t': 'z', 'country_context.c': 'x', n: 5, d: 'new' } });
  assertOk(t, r2);
  t.same(r2.body.metadata, { a: '1', b: 'two', c: '3', d: 'new' }, 'reserved keys and non-strings are ignored');
  t.equal(r2.body.description, 'second', 'description untouched when absent');
  const events = await svc.system.store.readStream(paymentIntentStream(o.id));
  const stored = events.filter((e) => e.type === 'payment_intent.updated').map((e) => (e.data as { metadata?: Record<string, string> }).metadata);
  t.notOk(
    stored.some((md) => md && ('Environment' in md || 'internal.x' in md)),
    'the merchant cannot overwrite platform keys',
  );

  const r3 = await patch({ description: null });
  assertOk(t, r3);
  t.equal(r3.body.description, null, 'null clears the description');

  const got = await svc.request('GET', `/api/v1/payment-intents/${o.id}`, { key });
  t.same(got.body, r3.body, 'retrieve sees the update');

  assertError(t, await patch({ amount: 5 }), 'IKW-VAL-002', 'amount');
  assertError(t, await patch({ currency: 'ghs' }), 'IKW-VAL-002', 'currency');
  assertError(t, await patch({ description: 7 }), 'IKW-VAL-001', 'description');
  assertError(t, await patch({ metadata: 'x' }), 'IKW-VAL-001', 'metadata');
  assertError(t, await patch({ metadata: { v: 'x'.repeat(501) } }), 'IKW-VAL-001', 'metadata.v');
  const many = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`k${i}`, 'v']));
  assertError(t, await patch({ metadata: many }), 'IKW-VAL-001', 'metadata');
  assertError(t, await svc.request('PATCH', '/api/v1/payment-intents/pi_doesnotexist000000000000', { key, body: { description: 'x' } }), 'IKW-RES-001');
});

t.test('update works in every state, and the update is kept through the lifecycle', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key);
  await svc.request('PATCH', `/api/v1/payment-intents/${o.id}`, { key, body: { metadata: { order: '1' } } });
  assertOk(t, await confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('67')) }));
  await operatorAnswers(svc);
  const done = await svc.request('PATCH', `/api/v1/payment-intents/${o.id}`, { key, body: { description: 'after success' } });
  assertOk(t, done);
  t.match(done.body, { status: 'succeeded', description: 'after success', metadata: { order: '1' } });
});

t.test('list: cursor paging, newest first', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const made: string[] = [];
  for (let i = 0; i < 7; i++) {
    made.push((await createIntent(svc, key, { amount: 1_000 + i })).id);
    svc.clock.advance(1000);
  }
  const newest = [...made].reverse();
  const list = (query: string) => svc.request('GET', `/api/v1/payment-intents${query}`, { key });

  const all = await list('');
  assertOk(t, all);
  t.match(all.body, { object: 'list', has_more: false, url: '/api/v1/payment-intents' });
  t.same(
    all.body.data.map((o: { id: string }) => o.id),
    newest,
    'default limit 10 holds all 7, newest first',
  );
  t.equal(all.body.data[0].object, 'payment_intent');

  const p1 = await list('?limit=3');
  t.same(
    p1.body.data.map((o: { id: string }) => o.id),
    newest.slice(0, 3),
  );
  t.equal(p1.body.has_more, true);
  const p2 = await list(`?limit=3&starting_after=${newest[2]}`);
  t.same(
    p2.body.data.map((o: { id: string }) => o.id),
    newest.slice(3, 6),
  );
  t.equal(p2.body.has_more, true);
  const p3 = await list(`?limit=3&starting_after=${newest[5]}`);
  t.same(
    p3.body.data.map((o: { id: string }) => o.id),
    newest.slice(6),
  );
  t.equal(p3.body.has_more, false);

  const back = await list(`?limit=3&ending_before=${newest[3]}`);
  t.same(
    back.body.data.map((o: { id: string }) => o.id),
    newest.slice(0, 3),
    'ending_before pages back, still newest first',
  );
  t.equal(back.body.has_more, false);
  const back2 = await list(`?limit=2&ending_before=${newest[3]}`);
  t.same(
    back2.body.data.map((o: { id: string }) => o.id),
    newest.slice(1, 3),
  );
  t.equal(back2.body.has_more, true);

  for (let i = 0; i < 5; i++) made.push((await createIntent(svc, key)).id);
  const byDefault = await list('');
  t.equal(byDefault.body.data.length, 10, 'the default page holds 10');
  t.equal(byDefault.body.has_more, true);
  t.same(
    byDefault.body.data.map((o: { id: string }) => o.id),
    [...made].reverse().slice(0, 10),
  );

  const one = await list('?limit=1');
  t.equal(one.body.data.length, 1);
  t.equal((await list('?limit=100')).body.data.length, 12);

  assertError(t, await list(`?starting_after=${newest[1]}&ending_before=${newest[3]}`), 'IKW-VAL-001', 'ending_before');
  assertError(t, await list('?limit=0'), 'IKW-VAL-001', 'limit');
  assertError(t, await list('?limit=101'), 'IKW-VAL-001', 'limit');
  assertError(t, await list('?limit=abc'), 'IKW-VAL-001', 'limit');
  assertError(t, await list('?starting_after=pi_doesnotexist000000000000'), 'IKW-VAL-001', 'starting_after');
  assertError(t, await list('?page=2'), 'IKW-VAL-002', 'page');

  const other = await svc.merchant('Other');
  const foreign = await createIntent(svc, other.api_keys.sandbox);
  assertError(t, await list(`?starting_after=${foreign.id}`), 'IKW-VAL-001', 'starting_after');
  assertError(t, await list(`?ending_before=${foreign.id}`), 'IKW-VAL-001', 'ending_before');
  const live = await createIntent(svc, m.api_keys.live);
  assertError(t, await list(`?starting_after=${live.id}`), 'IKW-VAL-001', 'starting_after');
  t.same(
    (await list('?limit=7&starting_after=' + newest[0])).body.data.map((o: { id: string }) => o.id),
    newest.slice(1),
    'neither the other merchant\u2019s nor live intents are listed',
  );

  const liveList = await svc.request('GET', '/api/v1/payment-intents', { key: m.api_keys.live });
  t.same(
    liveList.body.data.map((o: { id: string }) => o.id),
    [live.id],
    'live lists live only',
  );
  t.equal(liveList.body.data[0].livemode, true);
});

t.test('list shows the current state of each intent', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key);
  await svc.request('POST', `/api/v1/payment-intents/${o.id}/cancel`, { key });
  const res = await svc.request('GET', '/api/v1/payment-intents', { key });
  t.equal(res.body.data[0].status, 'canceled');
});

t.test('isolation: another merchant\u2019s intent and the other environment\u2019s intent are 404 everywhere', async (t) => {
  const m = await svc.merchant();
  const other = await svc.merchant('Other');
  const sandboxIntent = await createIntent(svc, m.api_keys.sandbox);
  const liveIntent = await createIntent(svc, m.api_keys.live);
  t.equal(liveIntent.livemode, true);

  const attempts: [string, string, string][] = [
    ['another merchant (sandbox)', other.api_keys.sandbox, sandboxIntent.id],
    ['another merchant (live)', other.api_keys.live, liveIntent.id],
    ['live key, sandbox intent', m.api_keys.live, sandboxIntent.id],
    ['sandbox key, live intent', m.api_keys.sandbox, liveIntent.id],
  ];
  for (const [name, key, id] of attempts) {
    await t.test(name, async (t) => {
      assertError(t, await svc.request('GET', `/api/v1/payment-intents/${id}`, { key }), 'IKW-RES-001');
      assertError(t, await svc.request('PATCH', `/api/v1/payment-intents/${id}`, { key, body: { description: 'hijack' } }), 'IKW-RES-001');
      assertError(t, await confirm(svc, key, id, { payment_method: mobileMoney(snNumber('67')) }), 'IKW-RES-001');
      assertError(t, await confirm(svc, key, id, { payment_method: card('tok_visa') }), 'IKW-RES-001');
      assertError(t, await svc.request('POST', `/api/v1/payment-intents/${id}/cancel`, { key }), 'IKW-RES-001');
    });
  }
  await t.test('and nothing changed', async (t) => {
    const s = await svc.request('GET', `/api/v1/payment-intents/${sandboxIntent.id}`, { key: m.api_keys.sandbox });
    t.same(s.body, sandboxIntent);
    const l = await svc.request('GET', `/api/v1/payment-intents/${liveIntent.id}`, { key: m.api_keys.live });
    t.same(l.body, liveIntent);
    const events = await svc.system.store.readStream(paymentIntentStream(sandboxIntent.id));
    t.same(
      events.map((e) => e.type),
      ['payment_intent.created'],
    );
  });
});

t.test('scopes: payment_intents.read cannot write', async (t) => {
  const m = await svc.merchant();
  const readOnly = await svc.apiKey(m.id, ['payment_intents.read']);
  const o = await createIntent(svc, m.api_keys.sandbox);
  assertOk(t, await svc.request('GET', `/api/v1/payment-intents/${o.id}`, { key: readOnly.secret }));
  assertOk(t, await svc.request('GET', '/api/v1/payment-intents', { key: readOnly.secret }));
  assertError(t, await post(readOnly.secret, valid), 'IKW-AUT-004');
  assertError(t, await svc.request('PATCH', `/api/v1/payment-intents/${o.id}`, { key: readOnly.secret, body: {} }), 'IKW-AUT-004');
  assertError(t, await confirm(svc, readOnly.secret, o.id, { payment_method: card('tok_visa') }), 'IKW-AUT-004');
  assertError(t, await svc.request('POST', `/api/v1/payment-intents/${o.id}/cancel`, { key: readOnly.secret }), 'IKW-AUT-004');
});
