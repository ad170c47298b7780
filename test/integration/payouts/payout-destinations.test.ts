/**
 * The merchant payout routes against the real server and database: the page-based payout list
 * with its status filter, retrieve and create from the dashboard (recorded with source
 * merchant_portal), the payout settings (default return URL for payments, safety delay, defaults)
 * and the saved destinations (payout methods): UUID ids, a safety delay, deletion that deactivates.
 */
import t from '#tap';
import { advance, assertError, assertOk, bank, fund, fundedMerchant, getPayout, MINUTE, mobileMoney, PAYOUT_KEYS, payout, postPayout, saveDestination } from '../../support/payouts.js';
import { startPaymentsService, type TestResponse } from '../../support/system.js';

const svc = await startPaymentsService(t, { env: { PUBLIC_URL: 'https://pay.sika.test' } });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/; // v7 (docs/architecture.md, "HTTP conventions")
const SETTINGS = '/api/v1/merchant/settings/payouts';
const DESTINATIONS = `${SETTINGS}/destinations`;
const sandbox = { 'x-environment': 'sandbox' };

const listPayouts = (key: string, query = '', headers: Record<string, string> = sandbox) => svc.request('GET', `/api/v1/merchant/payouts${query}`, { key, headers });
const settings = (key: string) => svc.request('GET', SETTINGS, { key });
const patch = (key: string, body: unknown) => svc.request('PATCH', SETTINGS, { key, body });
const save = (key: string, body: unknown) => svc.request('POST', DESTINATIONS, { key, body });
const remove = (key: string, id: string) => svc.request('DELETE', `${DESTINATIONS}/${id}`, { key });

const saved = (key: string, body: Record<string, unknown> = { ...mobileMoney('67'), currency: 'xof' }) => saveDestination(svc, key, body);

t.test('GET /api/v1/merchant/payouts: newest first, page by page, with a status filter', async (t) => {
  const { merchant: m, key } = await fundedMerchant(svc, 1_000_000);
  const other = await svc.merchant('Other');
  await fund(svc, other.id, 100_000);
  await fund(svc, m.id, 100_000, 'live');
  const ids: string[] = [];
  for (const lastTwo of ['67', '01', '67', '04', '01', '67', '03']) {
    ids.push((await payout(svc, key, { amount: 1_000, destination: mobileMoney(lastTwo) })).id);
    svc.clock.advance(1_000);
  }
  await payout(svc, other.api_keys.sandbox, { amount: 1_000, destination: mobileMoney('67') });
  await advance(svc);
  const newest = [...ids].reverse();

  const all = await listPayouts(key);
  assertOk(t, all);
  t.same(Object.keys(all.body), ['object', 'data', 'page', 'limit', 'total', 'has_more']);
  t.match(all.body, { object: 'list', page: 1, limit: 20, total: 7, has_more: false });
  t.same(
    all.body.data.map((p: { id: string }) => p.id),
    newest,
    'newest first, only this merchant\u2019s sandbox payouts',
  );
  t.same(Object.keys(all.body.data[0]), PAYOUT_KEYS, 'each item is the Payout object');
  t.same(all.body.data[0], (await getPayout(svc, key, newest[0]!)).body);

  const page1 = await listPayouts(key, '?limit=3');
  t.match(page1.body, { page: 1, limit: 3, total: 7, has_more: true });
  t.same(
    page1.body.data.map((p: { id: string }) => p.id),
    newest.slice(0, 3),
  );
  const page3 = await listPayouts(key, '?limit=3&page=3');
  t.match(page3.body, { page: 3, limit: 3, total: 7, has_more: false });
  t.same(
    page3.body.data.map((p: { id: string }) => p.id),
    newest.slice(6),
  );
  const beyond = await listPayouts(key, '?limit=3&page=4');
  t.match(beyond.body, { page: 4, total: 7, has_more: false, data: [] });

  const failed = await listPayouts(key, '?status=failed');
  t.match(failed.body, { total: 2, has_more: false });
  t.same(
    failed.body.data.map((p: { id: string }) => p.id),
    [ids[4], ids[1]],
  );
  t.ok(failed.body.data.every((p: { status: string }) => p.status === 'failed'));
  t.equal((await listPayouts(key, '?status=paid')).body.total, 3);
  const inTransit = await listPayouts(key, '?status=in_transit');
  t.same(
    inTransit.body.data.map((p: { id: string }) => p.id),
    [ids[6], ids[3]],
    '03 (delayed) and 04 still in transit',
  );
  t.equal((await listPayouts(key, '?status=canceled')).body.total, 0);
  const paidPaged = await listPayouts(key, '?status=paid&limit=2');
  t.match(paidPaged.body, { total: 3, has_more: true, limit: 2 });

  t.equal((await listPayouts(m.api_keys.live, '', { 'x-environment': 'live' })).body.total, 0, 'live lists live payouts only');
  t.equal((await listPayouts(other.api_keys.sandbox)).body.total, 1);

  for (const [query, param] of [
    ['?status=done', 'status'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?page=0', 'page'],
    ['?page=x', 'page'],
    ['?starting_after=po_x', 'starting_after'],
  ] as const) {
    const code = param === 'starting_after' ? 'IKW-VAL-002' : 'IKW-VAL-001';
    await t.test(query, async (t) => assertError(t, await listPayouts(key, query), code, param));
  }
  await t.test('X-Environment is optional; when sent it must match the key', async (t) => {
    const without = await listPayouts(key, '', {});
    assertOk(t, without);
    t.same(without.body, (await listPayouts(key)).body, 'the key\u2019s environment');
    assertError(t, await listPayouts(key, '', { 'x-environment': 'live' }), 'IKW-AUT-003', 'X-Environment');
  });
});

t.test('GET and POST /api/v1/merchant/payouts: the same payouts, metadata as the merchant sent it', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const res = await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination: mobileMoney('67'), metadata: { source: 'x', note: 'rent' } }, { path: '/api/v1/merchant/payouts' });
  assertOk(t, res);
  t.same(Object.keys(res.body), PAYOUT_KEYS);
  t.same(res.body.metadata, { source: 'x', note: 'rent' }, 'only the payout engine adds source and environment');
  t.same((await getPayout(svc, key, res.body.id, { path: '/api/v1/merchant/payouts' })).body, res.body);
  t.same((await getPayout(svc, key, res.body.id)).body, res.body, 'the public route shows it too');
  const api = await payout(svc, key, { amount: 5_000, destination: mobileMoney('67') });
  t.same((await getPayout(svc, key, api.id, { path: '/api/v1/merchant/payouts' })).body, api, 'and the other way round');
  t.same(api.metadata, {});
  const created = async (id: string) => (await svc.system.store.readStream(`payout-${id}`))[0]!.data as { source: string };
  t.equal((await created(res.body.id)).source, 'merchant_portal', 'where a payout came from is in its created event');
  t.equal((await created(api.id)).source, 'api');
  assertError(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof' }, { path: '/api/v1/merchant/payouts' }), 'IKW-PAY-001', 'destination');
  assertError(t, await postPayout(svc, key, { amount: 1_000_000, currency: 'xof', destination: mobileMoney('67') }, { path: '/api/v1/merchant/payouts' }), 'IKW-BAL-001', 'amount');
});

t.test('POST /api/v1/merchant/payouts without a destination uses the default saved destination', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const merchantPayout = (body: Record<string, unknown>) => postPayout(svc, key, { amount: 5_000, currency: 'xof', ...body }, { path: '/api/v1/merchant/payouts' });
  assertError(t, await merchantPayout({}), 'IKW-PAY-001', 'destination');

  const id = await saved(key, { ...mobileMoney('89'), currency: 'xof' });
  assertOk(t, await patch(key, { default_payout_method_id: id }));
  const res = await merchantPayout({});
  assertOk(t, res);
  t.equal(res.body.payout_method_id, id);
  t.equal(res.body.destination.msisdn, '+221771234589');
  t.same(res.body.metadata, {});

  const inline = await merchantPayout({ destination: mobileMoney('67') });
  t.equal(inline.body.destination.msisdn, '+221771234567', 'a destination given wins');
  t.equal(inline.body.payout_method_id, null);
  assertError(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof' }), 'IKW-PAY-001', 'destination'); // the public API: none given is an error (interface)

  assertOk(t, await remove(key, id));
  assertError(t, await merchantPayout({}), 'IKW-PAY-003', 'payout_method_id');
});

t.test('payout settings: defaults, PATCH and its validation', async (t) => {
  const m = await svc.merchant();
  const other = await svc.merchant('Other');
  const key = m.api_keys.sandbox;

  const initial = await settings(key);
  assertOk(t, initial);
  t.same(initial.body, {
    object: 'payout_settings',
    livemode: false,
    default_return_url: null,
    safety_delay_minutes: 0,
    default_currency: null,
    default_payout_method_id: null,
    inline_destinations_for_api_keys: true,
    destinations: [],
    updated: null,
  });
  t.match((await settings(m.api_keys.live)).body, { livemode: true, safety_delay_minutes: 1440 }, 'a day in live');

  const changed = await patch(key, { default_return_url: 'https://shop.example/back?x=1', safety_delay_minutes: 15, default_currency: 'XOF' });
  assertOk(t, changed);
  t.match(changed.body, { default_return_url: 'https://shop.example/back?x=1', safety_delay_minutes: 15, default_currency: 'xof', default_payout_method_id: null, updated: Math.floor(svc.clock.now().getTime() / 1000) });
  t.same((await settings(key)).body, changed.body, 'GET shows what PATCH answered');
  t.match((await settings(m.api_keys.live)).body, { default_return_url: null, safety_delay_minutes: 1440, default_currency: null }, 'live is separate');
  t.match((await settings(other.api_keys.sandbox)).body, { default_return_url: null, safety_delay_minutes: 0 }, 'another merchant is separate');

  const cleared = await patch(key, { default_return_url: null, default_currency: null });
  t.match(cleared.body, { default_return_url: null, default_currency: null, safety_delay_minutes: 15 }, 'null clears; the rest stays');

  await t.test('default_payout_method_id', async (t) => {
    const own = await saved(key);
    const ok = await patch(key, { default_payout_method_id: own });
    assertOk(t, ok);
    t.equal(ok.body.default_payout_method_id, own);
    const othersMethod = await saved(other.api_keys.sandbox);
    assertError(t, await patch(key, { default_payout_method_id: othersMethod }), 'IKW-PAY-002', 'default_payout_method_id');
    const liveMethod = await saved(m.api_keys.live);
    assertError(t, await patch(key, { default_payout_method_id: liveMethod }), 'IKW-PAY-002', 'default_payout_method_id');
    assertError(t, await patch(key, { default_payout_method_id: '0190c6a8-0000-7000-8000-000000000001' }), 'IKW-PAY-002', 'default_payout_method_id');
    const deleted = await saved(key);
    assertOk(t, await remove(key, deleted));
    assertError(t, await patch(key, { default_payout_method_id: deleted }), 'IKW-PAY-003', 'default_payout_method_id');
    assertError(t, await patch(key, { default_payout_method_id: 'pm_1' }), 'IKW-VAL-001', 'default_payout_method_id');
    t.equal((await settings(key)).body.default_payout_method_id, own, 'unchanged by the refused ones');
    t.equal((await patch(key, { default_payout_method_id: null })).body.default_payout_method_id, null);
  });

  const bad: [string, unknown, Parameters<typeof assertError>[2], string | undefined][] = [
    ['an empty body', {}, 'IKW-VAL-001', undefined],
    ['an unknown field', { webhook_url: 'https://x.example' }, 'IKW-VAL-002', 'webhook_url'],
    ['a return URL that is not http(s)', { default_return_url: 'javascript:alert(1)' }, 'IKW-VAL-001', 'default_return_url'],
    ['a relative return URL', { default_return_url: '/back' }, 'IKW-VAL-001', 'default_return_url'],
    ['a negative safety delay', { safety_delay_minutes: -1 }, 'IKW-VAL-001', 'safety_delay_minutes'],
    ['a fractional safety delay', { safety_delay_minutes: 1.5 }, 'IKW-VAL-001', 'safety_delay_minutes'],
    ['a safety delay over 30 days', { safety_delay_minutes: 43_201 }, 'IKW-VAL-001', 'safety_delay_minutes'],
    ['a safety delay as a string', { safety_delay_minutes: '10' }, 'IKW-VAL-001', 'safety_delay_minutes'],
    ['an unknown currency', { default_currency: 'zzz' }, 'IKW-VAL-003', 'default_currency'],
    ['a currency that is not three letters', { default_currency: 'xo' }, 'IKW-VAL-001', 'default_currency'],
  ];
  for (const [name, body, code, param] of bad) {
    await t.test(name, async (t) => assertError(t, await patch(key, body), code, param));
  }
  t.equal((await settings(key)).body.safety_delay_minutes, 15, 'nothing changed');
});

t.test('default_return_url is where a payment confirmed without return_url returns', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const threeDs = async (returnUrl?: string): Promise<TestResponse> => {
    const created = await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 10_000, currency: 'xof', transaction_country: 'SN' } });
    assertOk(t, created);
    return svc.request('POST', `/api/v1/payment-intents/${created.body.id}/confirm`, {
      key,
      body: { payment_method: { type: 'card', card: { token: 'tok_3ds_required' } }, ...(returnUrl ? { return_url: returnUrl } : {}) },
    });
  };
  const before = await threeDs();
  assertOk(t, before);
  t.match(before.body.next_action.redirect_to_url.return_url, /^https:\/\/pay\.sika\.test\/operations\/status\//, 'without a default: the platform status page');

  assertOk(t, await patch(key, { default_return_url: 'https://shop.example/thanks' }));
  const after = await threeDs();
  assertOk(t, after);
  t.equal(after.body.next_action.redirect_to_url.return_url, 'https://shop.example/thanks', 'the merchant default');
  const explicit = await threeDs('https://shop.example/order/7');
  t.equal(explicit.body.next_action.redirect_to_url.return_url, 'https://shop.example/order/7', 'an explicit return_url wins');

  const live = await svc.request('GET', SETTINGS, { key: m.api_keys.live });
  t.equal(live.body.default_return_url, null, 'the sandbox default is not live\u2019s');
});

t.test('saved destinations: create, list, delete', async (t) => {
  const { merchant: m, key } = await fundedMerchant(svc, 1_000_000);
  const other = await svc.merchant('Other');

  const res = await save(key, { type: 'mobile_money', currency: 'XOF', country: 'sn', operator: 'orange_money', msisdn: '77 123 45 67' });
  assertOk(t, res);
  t.match(res.body.id, UUID, 'a UUID');
  t.same(
    res.body,
    {
      id: res.body.id,
      object: 'payout_method',
      type: 'mobile_money',
      destination: { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
      status: 'active',
      usable_from: svc.clock.now().toISOString(),
      created: Math.floor(svc.clock.now().getTime() / 1000),
      livemode: false,
    },
    'normalised; usable at once with the sandbox default delay of 0',
  );
  const mm = res.body.id;
  svc.clock.advance(1_000);
  const bankRes = await save(key, { ...bank('67'), currency: 'xof' });
  assertOk(t, bankRes);
  t.same(bankRes.body.destination, { type: 'bank', currency: 'xof', bank_code: 'SN012', account_number: '0123456789067', account_name: 'Awa Diop' });
  t.not(bankRes.body.id, mm);

  const listed = await settings(key);
  t.same(
    listed.body.destinations.map((d: { id: string }) => d.id),
    [bankRes.body.id, mm],
    'listed, newest first',
  );
  t.same(listed.body.destinations[1], res.body, 'as created');
  t.same((await settings(other.api_keys.sandbox)).body.destinations, [], 'not another merchant\u2019s');
  t.same((await settings(m.api_keys.live)).body.destinations, [], 'not live\u2019s');

  await t.test('usable with payout_method_id', async (t) => {
    const p = await payout(svc, key, { amount: 5_000, payout_method_id: mm });
    t.equal(p.payout_method_id, mm);
    t.same(p.destination, res.body.destination);
  });

  await t.test('DELETE deactivates; a second DELETE is fine', async (t) => {
    const gone = await remove(key, bankRes.body.id);
    assertOk(t, gone);
    t.match(gone.body, { id: bankRes.body.id, object: 'payout_method', status: 'inactive' });
    const again = await remove(key, bankRes.body.id);
    assertOk(t, again);
    t.equal(again.body.status, 'inactive');
    t.same(
      (await settings(key)).body.destinations.map((d: { id: string }) => d.id),
      [mm],
      'no longer listed',
    );
    const row = await svc.system.knex('read.payout_methods').where({ id: bankRes.body.id }).first();
    t.equal(row.status, 'inactive', 'kept, deactivated');
    assertError(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof', payout_method_id: bankRes.body.id }), 'IKW-PAY-003', 'payout_method_id');
  });

  await t.test('another merchant\u2019s, the other environment\u2019s or an unknown id: 404', async (t) => {
    assertError(t, await remove(other.api_keys.sandbox, mm), 'IKW-RES-001', 'id');
    assertError(t, await remove(m.api_keys.live, mm), 'IKW-RES-001', 'id');
    assertError(t, await remove(key, '0190c6a8-0000-7000-8000-000000000001'), 'IKW-RES-001', 'id');
    assertError(t, await remove(key, 'not-a-uuid'), 'IKW-VAL-001', 'id');
    t.equal((await settings(key)).body.destinations[0].status, 'active', 'untouched');
    assertOk(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof', payout_method_id: mm }));
  });

  const bad: [string, unknown, Parameters<typeof assertError>[2], string | undefined][] = [
    ['no currency', mobileMoney('67'), 'IKW-VAL-001', 'currency'],
    ['no type', { currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' }, 'IKW-VAL-001', 'type'],
    ['a wrong type', { ...mobileMoney('67'), currency: 'xof', type: 'card' }, 'IKW-VAL-001', 'type'],
    ['missing MSISDN', { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money' }, 'IKW-VAL-001', 'msisdn'],
    ['an invalid MSISDN', { ...mobileMoney('67'), currency: 'xof', msisdn: '+2217712' }, 'IKW-VAL-007', 'msisdn'],
    ['a payin-only operator', { ...mobileMoney('67'), currency: 'xof', operator: 'e_money' }, 'IKW-VAL-006', 'operator'],
    ['an unknown pair', { ...mobileMoney('67'), currency: 'xof', operator: 'mpesa' }, 'IKW-VAL-005', 'operator'],
    ['an unknown country', { ...mobileMoney('67'), currency: 'xof', country: 'XX' }, 'IKW-VAL-004', 'country'],
    ['a currency not the country\u2019s', { ...mobileMoney('67'), currency: 'ghs' }, 'IKW-VAL-009', 'currency'],
    ['an unknown currency', { ...mobileMoney('67'), currency: 'zzz' }, 'IKW-VAL-003', 'currency'],
    ['a bank destination without account_number', { type: 'bank', currency: 'xof', bank_code: 'SN012', account_name: 'Awa' }, 'IKW-VAL-001', 'account_number'],
    ['mixed fields', { ...bank('67'), currency: 'xof', msisdn: '+221771234567' }, 'IKW-VAL-002', 'msisdn'],
  ];
  for (const [name, body, code, param] of bad) {
    await t.test(`refused: ${name}`, async (t) => assertError(t, await save(key, body), code, param));
  }
  t.equal((await settings(key)).body.destinations.length, 1, 'none of those was saved');
});

t.test('the safety delay of new destinations', async (t) => {
  const { merchant: m, key } = await fundedMerchant(svc, 1_000_000);
  const early = await saved(key);
  assertOk(t, await patch(key, { safety_delay_minutes: 45 }));
  const res = await save(key, { ...mobileMoney('67'), currency: 'xof' });
  assertOk(t, res);
  const usableFrom = new Date(svc.clock.now().getTime() + 45 * MINUTE).toISOString();
  t.equal(res.body.usable_from, usableFrom, 'usable_from = now + safety delay');
  const id = res.body.id;

  const body = { amount: 5_000, currency: 'xof', payout_method_id: id };
  const refused = await postPayout(svc, key, body);
  assertError(t, refused, 'IKW-PAY-004', 'payout_method_id');
  t.match(refused.body.message, usableFrom);
  assertError(t, await postPayout(svc, key, body, { path: '/api/v1/merchant/payouts' }), 'IKW-PAY-004', 'payout_method_id');
  assertOk(t, await postPayout(svc, key, { ...body, payout_method_id: early })); // saved before the change: not affected
  svc.clock.advance(45 * MINUTE - 1);
  assertError(t, await postPayout(svc, key, body), 'IKW-PAY-004', 'payout_method_id');
  svc.clock.advance(1);
  const ok = await postPayout(svc, key, body);
  assertOk(t, ok);
  t.equal(ok.body.payout_method_id, id);

  await t.test('live: a day by default', async (t) => {
    const live = await save(m.api_keys.live, { ...mobileMoney('67'), currency: 'xof' });
    assertOk(t, live);
    t.equal(live.body.usable_from, new Date(svc.clock.now().getTime() + 1440 * MINUTE).toISOString());
    t.equal(live.body.livemode, true);
  });
});

t.test('scopes on the merchant routes', async (t) => {
  const { merchant: m } = await fundedMerchant(svc, 100_000);
  const keyWith = (scopes: string[]) => svc.apiKey(m.id, scopes);
  const id = await saved(m.api_keys.sandbox);
  const read = (await keyWith(['payouts.read'])).secret;
  const write = (await keyWith(['payouts.write'])).secret;
  const none = (await keyWith(['balance.read'])).secret;

  assertOk(t, await settings(read));
  assertOk(t, await listPayouts(read));
  assertError(t, await patch(read, { safety_delay_minutes: 5 }), 'IKW-AUT-004');
  assertError(t, await save(read, { ...mobileMoney('67'), currency: 'xof' }), 'IKW-AUT-004');
  assertError(t, await remove(read, id), 'IKW-AUT-004');

  assertOk(t, await settings(write));
  assertOk(t, await patch(write, { safety_delay_minutes: 5 }));
  assertOk(t, await save(write, { ...mobileMoney('67'), currency: 'xof' }));
  assertOk(t, await remove(write, id));

  assertError(t, await settings(none), 'IKW-AUT-004');
  assertError(t, await listPayouts(none), 'IKW-AUT-004');
  assertError(t, await svc.request('GET', SETTINGS, { key: m.api_keys.sandbox, headers: { 'x-environment': 'live' } }), 'IKW-AUT-003', 'X-Environment');
  assertError(t, await svc.request('GET', SETTINGS, {}), 'IKW-AUT-001');
});
