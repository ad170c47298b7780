/**
 * GET /api/v1/geography/countries and POST /api/v1/fees/quote against the real server and database:
 * authentication and scopes, filters, response shapes (lower-case currencies), and every bad input
 * with its code and param.
 */
import t from '#tap';
import type { ErrorCode } from '#packages/core/errors.js';
import { assertError } from '../support/assertions.js';
import { startService } from '../support/system.js';

const svc = await startService(t);
const merchant = await svc.merchant('Catalog merchant');
const key = merchant.api_keys.sandbox;
const COUNTRIES = '/api/v1/geography/countries';
const QUOTE = '/api/v1/fees/quote';

interface OperatorBody {
  id: string;
  name: string;
  directions: string[];
  limits: Record<string, { min: number; max: number }>;
  decimals: number;
  payout_expected_minutes: number | null;
}
interface CountryBody {
  object: string;
  id: string;
  name: string;
  currency: string;
  calling_code: string;
  operators: OperatorBody[];
}

const list = (query = '', k: string = key) => svc.request('GET', `${COUNTRIES}${query}`, { key: k });
const quote = (body: unknown, k: string = key, headers?: Record<string, string>) => svc.request('POST', QUOTE, { key: k, body, ...(headers ? { headers } : {}) });

const payin = { amount: 10_000, currency: 'XOF', direction: 'payin', method: 'mobile_money', country: 'SN', operator: 'orange_money' };

t.test('authentication', async (t) => {
  await t.test('no credential', async (t) => {
    assertError(t, await svc.request('GET', COUNTRIES), 'IKW-AUT-001');
    assertError(t, await svc.request('POST', QUOTE, { body: payin }), 'IKW-AUT-001');
  });
  await t.test('an unknown key', async (t) => {
    assertError(t, await list('', `sk_test_${'a'.repeat(43)}`), 'IKW-AUT-002');
    assertError(t, await quote(payin, `sk_test_${'a'.repeat(43)}`), 'IKW-AUT-002');
  });
  await t.test('scopes', async (t) => {
    const other = await svc.apiKey(merchant.id, ['payouts.read']);
    assertError(t, await list('', other.secret), 'IKW-AUT-004');
    assertError(t, await quote(payin, other.secret), 'IKW-AUT-004');
    const catalog = await svc.apiKey(merchant.id, ['catalog.read']);
    t.equal((await list('', catalog.secret)).status, 200, 'catalog.read lists countries');
    assertError(t, await quote(payin, catalog.secret), 'IKW-AUT-004');
    const fees = await svc.apiKey(merchant.id, ['fees.read']);
    t.equal((await quote(payin, fees.secret)).status, 200, 'fees.read quotes');
    assertError(t, await list('', fees.secret), 'IKW-AUT-004');
  });
  await t.test('X-Environment must match the key', async (t) => {
    const res = await svc.request('GET', COUNTRIES, { key, headers: { 'x-environment': 'live' } });
    assertError(t, res, 'IKW-AUT-003', 'X-Environment');
  });
});

t.test('GET /api/v1/geography/countries', async (t) => {
  const res = await list();
  t.equal(res.status, 200);
  t.equal(res.body.object, 'list');
  t.equal(res.body.has_more, false);
  t.equal(res.body.url, COUNTRIES);
  const data = res.body.data as CountryBody[];
  const ids = data.map((c) => c.id);
  for (const code of ['SN', 'CI', 'ML', 'BF', 'BJ', 'TG', 'CM', 'GH', 'KE', 'UG', 'RW']) t.ok(ids.includes(code), `${code} is listed`);
  t.same(ids, [...ids].sort(), 'ordered by id');

  const sn = data.find((c) => c.id === 'SN')!;
  t.same({ object: sn.object, id: sn.id, name: sn.name, currency: sn.currency, calling_code: sn.calling_code }, { object: 'country', id: 'SN', name: 'Senegal', currency: 'xof', calling_code: '+221' });
  t.same(
    sn.operators.find((o) => o.id === 'orange_money'),
    {
      id: 'orange_money',
      name: 'Orange Money',
      directions: ['payin', 'payout'],
      limits: { payin: { min: 100, max: 2_000_000 }, payout: { min: 100, max: 1_500_000 } },
      decimals: 0,
      payout_expected_minutes: 10,
    },
  );
  t.same(
    sn.operators.find((o) => o.id === 'e_money'),
    {
      id: 'e_money',
      name: 'Expresso E-Money',
      directions: ['payin'],
      limits: { payin: { min: 100, max: 1_000_000 } },
      decimals: 0,
      payout_expected_minutes: null,
    },
    'a payin-only operator',
  );
  for (const c of data) {
    t.match(c.currency, /^[a-z]{3}$/, `${c.id}: currency in lower case`);
    t.match(c.calling_code, /^\+\d{1,3}$/, `${c.id}: calling code with +`);
  }
  t.equal(data.find((c) => c.id === 'GH')?.currency, 'ghs');
  t.equal(data.find((c) => c.id === 'KE')?.operators.find((o) => o.id === 'mpesa')?.limits.payin?.max, 25_000_000);

  await t.test('direction=payout: only operators that pay out', async (t) => {
    const res = await list('?direction=payout');
    t.equal(res.status, 200);
    const data = res.body.data as CountryBody[];
    t.ok(data.length >= 11, 'every country pays out somewhere');
    t.ok(
      data.every((c) => c.operators.length > 0 && c.operators.every((o) => o.directions.includes('payout'))),
      'each operator listed pays out',
    );
    t.notOk(
      data.find((c) => c.id === 'SN')?.operators.some((o) => o.id === 'e_money'),
      'e_money is left out',
    );
  });
  await t.test('direction=payin', async (t) => {
    const res = await list('?direction=payin');
    t.equal(res.status, 200);
    t.ok(
      (res.body.data as CountryBody[]).find((c) => c.id === 'SN')?.operators.some((o) => o.id === 'e_money'),
      'e_money is listed',
    );
  });
  await t.test('country, in any case', async (t) => {
    for (const q of ['?country=sn', '?country=SN', '?country=Sn']) {
      const res = await list(q);
      t.equal(res.status, 200, q);
      t.same(
        (res.body.data as CountryBody[]).map((c) => c.id),
        ['SN'],
        `${q}: only Senegal`,
      );
    }
  });
  await t.test('country and direction together', async (t) => {
    const res = await list('?country=sn&direction=payout');
    t.equal(res.status, 200);
    t.same(
      (res.body.data as CountryBody[])[0]?.operators.map((o) => o.id),
      ['orange_money', 'wave', 'free_money'],
    );
  });
  await t.test('bad filters', async (t) => {
    assertError(t, await list('?country=XX'), 'IKW-VAL-004', 'country');
    assertError(t, await list('?country=SEN'), 'IKW-VAL-001', 'country');
    assertError(t, await list('?country='), 'IKW-VAL-001', 'country');
    assertError(t, await list('?direction=sideways'), 'IKW-VAL-001', 'direction');
    assertError(t, await list('?direction=PAYIN'), 'IKW-VAL-001', 'direction');
    assertError(t, await list('?country=SN&country=CI'), 'IKW-VAL-001', 'country');
    assertError(t, await list('?limit=5'), 'IKW-VAL-002', 'limit');
    assertError(t, await list('?currency=xof'), 'IKW-VAL-002', 'currency');
  });
  await t.test('other methods are refused', async (t) => {
    assertError(t, await svc.request('POST', COUNTRIES, { key, body: {} }), 'IKW-RTE-002');
  });
});

t.test('POST /api/v1/fees/quote', async (t) => {
  await t.test('a mobile money payin', async (t) => {
    const res = await quote({ ...payin, currency: 'XOF', country: 'sn' });
    t.equal(res.status, 200);
    t.same(res.body, {
      object: 'fee_quote',
      amount: 10_000,
      currency: 'xof',
      direction: 'payin',
      method: 'mobile_money',
      country: 'SN',
      operator: 'orange_money',
      fee: 150,
      net: 9_850,
      total: 10_000,
      livemode: false,
    });
  });
  await t.test('a mobile money payout: total is what leaves the balance', async (t) => {
    const res = await quote({ amount: 5_000, currency: 'ghs', direction: 'payout', method: 'mobile_money', country: 'GH', operator: 'MTN' });
    t.equal(res.status, 200);
    t.match(res.body, { currency: 'ghs', operator: 'mtn', fee: 100, net: 5_000, total: 5_100 });
  });
  await t.test('an operator override', async (t) => {
    const res = await quote({ ...payin, operator: 'wave' });
    t.equal(res.body.fee, 100, 'Wave Senegal: 1%');
  });
  await t.test('a card payin has no operator', async (t) => {
    const res = await quote({ amount: 10_000, currency: 'xof', direction: 'payin', method: 'card', country: 'CI' });
    t.equal(res.status, 200);
    t.match(res.body, { method: 'card', operator: null, fee: 390, net: 9_610 });
    const withNull = await quote({ amount: 10_000, currency: 'xof', direction: 'payin', method: 'card', country: 'CI', operator: null });
    t.equal(withNull.status, 200, 'operator: null is the same as none');
  });
  await t.test('a bank payout', async (t) => {
    const res = await quote({ amount: 1_000_000, currency: 'KES', direction: 'payout', method: 'bank', country: 'KE' });
    t.match(res.body, { currency: 'kes', fee: 10_000, total: 1_010_000 });
  });
  await t.test('livemode follows the key', async (t) => {
    const res = await quote(payin, merchant.api_keys.live);
    t.equal(res.status, 200);
    t.equal(res.body.livemode, true);
  });
  await t.test('the same quote twice', async (t) => {
    const a = await quote(payin);
    const b = await quote(payin);
    t.same(a.body, b.body);
  });

  await t.test('bad input', async (t) => {
    const cases: [string, unknown, ErrorCode, string | undefined][] = [
      ['no amount', { ...payin, amount: undefined }, 'IKW-VAL-001', 'amount'],
      ['amount 0', { ...payin, amount: 0 }, 'IKW-VAL-001', 'amount'],
      ['a negative amount', { ...payin, amount: -5 }, 'IKW-VAL-001', 'amount'],
      ['a fractional amount', { ...payin, amount: 100.5 }, 'IKW-VAL-001', 'amount'],
      ['an amount as a string', { ...payin, amount: '10000' }, 'IKW-VAL-001', 'amount'],
      ['a huge amount', { ...payin, amount: 1e20 }, 'IKW-VAL-001', 'amount'],
      ['no currency', { ...payin, currency: undefined }, 'IKW-VAL-001', 'currency'],
      ['a currency of 2 letters', { ...payin, currency: 'XO' }, 'IKW-VAL-001', 'currency'],
      ['a currency with digits', { ...payin, currency: 'X0F' }, 'IKW-VAL-001', 'currency'],
      ['an unknown currency', { ...payin, currency: 'abc' }, 'IKW-VAL-003', 'currency'],
      ['a currency not the country\u2019s', { ...payin, currency: 'ghs' }, 'IKW-VAL-009', 'currency'],
      ['no country', { ...payin, country: undefined }, 'IKW-VAL-001', 'country'],
      ['a 3-letter country', { ...payin, country: 'SEN' }, 'IKW-VAL-001', 'country'],
      ['an unknown country', { ...payin, country: 'xx' }, 'IKW-VAL-004', 'country'],
      ['no direction', { ...payin, direction: undefined }, 'IKW-VAL-001', 'direction'],
      ['an unknown direction', { ...payin, direction: 'refund' }, 'IKW-VAL-001', 'direction'],
      ['no method', { ...payin, method: undefined }, 'IKW-VAL-001', 'method'],
      ['an unknown method', { ...payin, method: 'cash' }, 'IKW-VAL-001', 'method'],
      ['a payout to a card', { ...payin, direction: 'payout', method: 'card', operator: undefined }, 'IKW-VAL-001', 'method'],
      ['mobile money without an operator', { ...payin, operator: undefined }, 'IKW-VAL-001', 'operator'],
      ['mobile money with operator null', { ...payin, operator: null }, 'IKW-VAL-001', 'operator'],
      ['an empty operator', { ...payin, operator: '' }, 'IKW-VAL-001', 'operator'],
      ['an operator that is not a string', { ...payin, operator: 7 }, 'IKW-VAL-001', 'operator'],
      ['an operator of another country', { ...payin, operator: 'mpesa' }, 'IKW-VAL-005', 'operator'],
      ['a payout to a payin-only operator', { ...payin, direction: 'payout', operator: 'e_money' }, 'IKW-VAL-006', 'operator'],
      ['below the operator minimum', { ...payin, amount: 50 }, 'IKW-VAL-008', 'amount'],
      ['above the operator maximum', { ...payin, amount: 2_000_001 }, 'IKW-VAL-008', 'amount'],
      ['an operator with a card', { ...payin, method: 'card' }, 'IKW-VAL-002', 'operator'],
      ['an unknown field', { ...payin, fee_mode: 'inclusive' }, 'IKW-VAL-002', 'fee_mode'],
      ['metadata (not accepted here)', { ...payin, metadata: {} }, 'IKW-VAL-002', 'metadata'],
      ['an array body', [payin], 'IKW-VAL-001', undefined],
    ];
    for (const [name, body, code, param] of cases) {
      await t.test(name, async (t) => assertError(t, await quote(body), code, param));
    }
    await t.test('no body', async (t) => {
      assertError(t, await svc.request('POST', QUOTE, { key }), 'IKW-VAL-001', 'amount');
    });
    await t.test('malformed JSON', async (t) => {
      const res = await svc.request('POST', QUOTE, { key, rawBody: '{"amount": 1', headers: { 'content-type': 'application/json' } });
      assertError(t, res, 'IKW-REQ-001');
    });
    await t.test('GET is not a quote', async (t) => {
      assertError(t, await svc.request('GET', QUOTE, { key }), 'IKW-RTE-002');
    });
  });
});
