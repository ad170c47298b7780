/**
 * The fee schedule and quoteFee (docs/fees.md): rule precedence, integer rounding half
 * up, min and max, the payin cap, and every validation error with its param.
 */
import t from '#tap';
import { FEE_SCHEDULE, MAX_AMOUNT, getCountry, listCountries, quoteFee, ruleSpecificity } from '#packages/catalog/index.js';
import type { FeeQuoteInput } from '#packages/catalog/index.js';
import { ApiError, type ErrorCode } from '#packages/core/errors.js';

const snOrange = (amount: number, direction: 'payin' | 'payout' = 'payin'): FeeQuoteInput => ({
  amount,
  currency: 'XOF',
  direction,
  method: 'mobile_money',
  country: 'SN',
  operator: 'orange_money',
});

/** The ApiError quoteFee throws for `input` (fails the test when it does not throw one). */
function errorOf(input: FeeQuoteInput): ApiError | undefined {
  try {
    quoteFee(input);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  return undefined;
}

t.test('each level of the schedule', async (t) => {
  await t.test('default: payin mobile money 1.5%', async (t) => {
    const q = quoteFee(snOrange(10_000));
    t.same({ fee: q.fee, net: q.net, total: q.total }, { fee: 150, net: 9_850, total: 10_000 });
    t.equal(ruleSpecificity(q.rule), 0, 'the default rule');
    t.same([q.rule.country, q.rule.operator, q.rule.currency], [undefined, undefined, undefined]);
  });
  await t.test('default: card 2.9% (plus the currency fixed part)', async (t) => {
    const q = quoteFee({ amount: 100_000, currency: 'GHS', direction: 'payin', method: 'card', country: 'GH' });
    t.equal(q.fee, 2_900 + 100, '2.9% + GHS 1.00');
    t.equal(q.operator, null);
  });
  await t.test('currency: payout mobile money 1% with a per-currency minimum', async (t) => {
    const big = quoteFee({ ...snOrange(100_000, 'payout'), country: 'CI' });
    t.equal(big.fee, 1_000, '1% of 100,000');
    t.equal(big.rule.currency, 'XOF');
    t.equal(ruleSpecificity(big.rule), 1);
    const small = quoteFee({ ...snOrange(5_000, 'payout'), country: 'CI' });
    t.equal(small.fee, 100, '1% of 5,000 is 50, the XOF minimum is 100');
    const ug = quoteFee({ amount: 10_000, currency: 'UGX', direction: 'payout', method: 'mobile_money', country: 'UG', operator: 'mtn' });
    t.equal(ug.fee, 500, 'the UGX minimum is 500');
  });
  await t.test('currency: bank payouts a fixed fee', async (t) => {
    const xof = quoteFee({ amount: 1_000_000, currency: 'XOF', direction: 'payout', method: 'bank', country: 'SN' });
    t.same({ fee: xof.fee, net: xof.net, total: xof.total }, { fee: 1_000, net: 1_000_000, total: 1_001_000 });
    const kes = quoteFee({ amount: 1_000_000, currency: 'KES', direction: 'payout', method: 'bank', country: 'KE' });
    t.equal(kes.fee, 10_000, 'KES 100.00');
  });
  await t.test('country: Cameroon payins 2%', async (t) => {
    const q = quoteFee({ amount: 10_000, currency: 'XAF', direction: 'payin', method: 'mobile_money', country: 'CM', operator: 'mtn' });
    t.equal(q.fee, 200);
    t.equal(q.rule.country, 'CM');
    t.equal(ruleSpecificity(q.rule), 2);
  });
  await t.test('country beats currency: Ghana payouts capped at GHS 20', async (t) => {
    const q = quoteFee({ amount: 1_000_000, currency: 'GHS', direction: 'payout', method: 'mobile_money', country: 'GH', operator: 'mtn' });
    t.equal(q.fee, 2_000, '1% of GHS 10,000 is GHS 100, capped at GHS 20.00');
    t.equal(q.total, 1_002_000);
  });
  await t.test('operator: Wave Senegal payins 1%', async (t) => {
    const q = quoteFee({ ...snOrange(10_000), operator: 'wave' });
    t.equal(q.fee, 100);
    t.same([q.rule.country, q.rule.operator], ['SN', 'wave']);
    t.equal(ruleSpecificity(q.rule), 3);
    t.equal(quoteFee({ ...snOrange(10_000), country: 'ML', operator: 'wave' }).fee, 150, 'Wave in Mali has no override: the default');
  });
  await t.test('operator beats currency: Wave Senegal payouts have a lower minimum', async (t) => {
    t.equal(quoteFee({ ...snOrange(1_000, 'payout'), operator: 'wave' }).fee, 50);
    t.equal(quoteFee(snOrange(1_000, 'payout')).fee, 100, 'Orange Money in Senegal: the XOF minimum');
  });
  await t.test('operator: M-Pesa payins capped at KES 200', async (t) => {
    const ke = (amount: number): FeeQuoteInput => ({ amount, currency: 'KES', direction: 'payin', method: 'mobile_money', country: 'KE', operator: 'mpesa' });
    t.equal(quoteFee(ke(100_000)).fee, 1_500, '1.5% of KES 1,000');
    t.equal(quoteFee(ke(2_000_000)).fee, 20_000, '1.5% of KES 20,000 is KES 300: capped at KES 200');
    t.equal(quoteFee(ke(25_000_000)).fee, 20_000, 'at the operator maximum');
    const airtel = quoteFee({ ...ke(2_000_000), operator: 'airtel_money' });
    t.equal(airtel.fee, 30_000, 'Airtel Money in Kenya has no cap');
  });
});

t.test('rounding: half up to a whole minor unit', async (t) => {
  const wave = (amount: number) => quoteFee({ ...snOrange(amount), operator: 'wave' }).fee; // 1%
  t.equal(wave(149), 1, '1.49 → 1');
  t.equal(wave(150), 2, '1.50 → 2');
  t.equal(wave(250), 3, '2.50 → 3 (half up, not half to even)');
  t.equal(wave(251), 3, '2.51 → 3');
  t.equal(wave(349), 3, '3.49 → 3');
  const orange = (amount: number) => quoteFee(snOrange(amount)).fee; // 1.5%
  t.equal(orange(100), 2, '1.5 → 2');
  t.equal(orange(166), 2, '2.49 → 2');
  t.equal(orange(167), 3, '2.505 → 3');
  t.equal(orange(2_000_000), 30_000, 'at the operator maximum');
  await t.test('large amounts stay exact', async (t) => {
    const q = quoteFee({ amount: MAX_AMOUNT, currency: 'XOF', direction: 'payin', method: 'card', country: 'SN' });
    // 999,999,999,999 × 290 / 10,000 = 28,999,999,999.971 → 29,000,000,000; + 100 fixed.
    t.equal(q.fee, 29_000_000_100);
    t.equal(q.net, MAX_AMOUNT - 29_000_000_100);
    const payout = quoteFee({ amount: MAX_AMOUNT, currency: 'XOF', direction: 'payout', method: 'bank', country: 'SN' });
    t.equal(payout.total, MAX_AMOUNT + 1_000);
    t.ok(Number.isSafeInteger(payout.total), 'total is a safe integer');
    // 999,999,999,950 × 100 / 10,000 = 9,999,999,999.5 → half up → 10,000,000,000 (bank payin, 1%).
    const half = quoteFee({ amount: 999_999_999_950, currency: 'XOF', direction: 'payin', method: 'bank', country: 'SN' });
    t.equal(half.fee, 10_000_000_000, 'half up on a large amount');
  });
});

t.test('min, max and the payin cap', async (t) => {
  await t.test('the minimum applies to small payouts', async (t) => {
    t.equal(quoteFee(snOrange(100, 'payout')).fee, 100, 'fee 100 on a payout of 100: the merchant pays 200');
    t.equal(quoteFee(snOrange(100, 'payout')).total, 200);
  });
  await t.test('a payin fee never exceeds the amount', async (t) => {
    const q = quoteFee({ amount: 50, currency: 'XOF', direction: 'payin', method: 'card', country: 'SN' });
    t.same({ fee: q.fee, net: q.net, total: q.total }, { fee: 50, net: 0, total: 50 }, '2.9% + XOF 100 on XOF 50: capped at 50');
    const one = quoteFee({ amount: 1, currency: 'GHS', direction: 'payin', method: 'card', country: 'GH' });
    t.same({ fee: one.fee, net: one.net }, { fee: 1, net: 0 });
  });
  await t.test('for every operator and direction, at its limits and between', async (t) => {
    let checked = 0;
    for (const c of listCountries()) {
      for (const o of c.operators) {
        for (const direction of o.directions) {
          const { min, max } = o.limits[direction]!;
          const step = o.decimals === 0 && c.currency === 'KES' ? 100 : 1;
          for (const amount of [min, min + step, Math.round((min + max) / 2 / step) * step, max - step, max]) {
            const q = quoteFee({ amount, currency: c.currency.toLowerCase(), direction, method: 'mobile_money', country: c.code.toLowerCase(), operator: o.code });
            t.ok(Number.isSafeInteger(q.fee) && q.fee >= 0, 'a non-negative integer fee');
            if (direction === 'payin') t.ok(q.fee <= q.amount && q.net === q.amount - q.fee && q.total === q.amount, `${c.code}/${o.code} payin ${amount}`);
            else t.ok(q.net === q.amount && q.total === q.amount + q.fee, `${c.code}/${o.code} payout ${amount}`);
            checked++;
          }
        }
      }
    }
    t.ok(checked > 100, `${checked} quotes`);
  });
});

t.test('the quote echoes its input, normalised', async (t) => {
  const q = quoteFee({ amount: 5_000, currency: 'xof', direction: 'payin', method: 'mobile_money', country: 'sn', operator: 'ORANGE_MONEY' });
  t.same(
    { amount: q.amount, currency: q.currency, direction: q.direction, method: q.method, country: q.country, operator: q.operator },
    { amount: 5_000, currency: 'XOF', direction: 'payin', method: 'mobile_money', country: 'SN', operator: 'orange_money' },
  );
  t.equal(quoteFee({ amount: 5_000, currency: 'XOF', direction: 'payin', method: 'card', country: 'SN', operator: null as unknown as undefined }).operator, null, 'null operator = none');
});

t.test('pure: the same input gives the same quote and is not changed', async (t) => {
  const input = snOrange(12_345);
  const copy = { ...input };
  t.same(quoteFee(input), quoteFee(input));
  t.same(input, copy);
});

t.test('errors, each with its code and param', async (t) => {
  const cases: [string, FeeQuoteInput, ErrorCode, string][] = [
    ['amount 0', snOrange(0), 'IKW-VAL-001', 'amount'],
    ['a negative amount', snOrange(-100), 'IKW-VAL-001', 'amount'],
    ['a fractional amount', snOrange(100.5), 'IKW-VAL-001', 'amount'],
    ['NaN', snOrange(Number.NaN), 'IKW-VAL-001', 'amount'],
    ['Infinity', snOrange(Number.POSITIVE_INFINITY), 'IKW-VAL-001', 'amount'],
    ['above MAX_AMOUNT', { ...snOrange(MAX_AMOUNT + 1), method: 'card', operator: undefined }, 'IKW-VAL-001', 'amount'],
    ['a string amount', snOrange('100' as unknown as number), 'IKW-VAL-001', 'amount'],
    ['an unknown direction', { ...snOrange(1_000), direction: 'sideways' as 'payin' }, 'IKW-VAL-001', 'direction'],
    ['an unknown method', { ...snOrange(1_000), method: 'cash' as 'card' }, 'IKW-VAL-001', 'method'],
    ['an unknown currency', { ...snOrange(1_000), currency: 'ABC' }, 'IKW-VAL-003', 'currency'],
    ['a malformed currency', { ...snOrange(1_000), currency: 'XO' }, 'IKW-VAL-003', 'currency'],
    ['an unknown country', { ...snOrange(1_000), country: 'XX' }, 'IKW-VAL-004', 'country'],
    ['a known currency, not the country\u2019s', { ...snOrange(1_000), currency: 'GHS' }, 'IKW-VAL-009', 'currency'],
    ['USD in Senegal', { ...snOrange(1_000), currency: 'usd', method: 'card', operator: undefined }, 'IKW-VAL-009', 'currency'],
    ['mobile money without an operator', { ...snOrange(1_000), operator: undefined }, 'IKW-VAL-001', 'operator'],
    ['mobile money with an empty operator', { ...snOrange(1_000), operator: '' }, 'IKW-VAL-001', 'operator'],
    ['mobile money with a null operator', { ...snOrange(1_000), operator: null as unknown as undefined }, 'IKW-VAL-001', 'operator'],
    ['an operator of another country', { ...snOrange(1_000), operator: 'mpesa' }, 'IKW-VAL-005', 'operator'],
    ['an unknown operator', { ...snOrange(1_000), operator: 'paypal' }, 'IKW-VAL-005', 'operator'],
    ['a payout to a payin-only operator', { ...snOrange(1_000, 'payout'), operator: 'e_money' }, 'IKW-VAL-006', 'operator'],
    ['below the operator minimum', snOrange(99), 'IKW-VAL-008', 'amount'],
    ['above the operator maximum', snOrange(2_000_001), 'IKW-VAL-008', 'amount'],
    ['a payout above the operator payout maximum', snOrange(1_500_001, 'payout'), 'IKW-VAL-008', 'amount'],
    ['cents to M-Pesa', { amount: 10_050, currency: 'KES', direction: 'payin', method: 'mobile_money', country: 'KE', operator: 'mpesa' }, 'IKW-VAL-008', 'amount'],
    ['an operator with a card', { ...snOrange(1_000), method: 'card' }, 'IKW-VAL-002', 'operator'],
    ['an operator with a bank payout', { ...snOrange(1_000, 'payout'), method: 'bank' }, 'IKW-VAL-002', 'operator'],
    ['a payout to a card', { ...snOrange(1_000, 'payout'), method: 'card', operator: undefined }, 'IKW-VAL-001', 'method'],
  ];
  for (const [name, input, code, param] of cases) {
    const err = errorOf(input);
    t.ok(err, `${name}: throws an ApiError`);
    t.same({ code: err?.code, param: err?.param }, { code, param }, `${name}: ${code} ${param}`);
    t.ok((err?.message.length ?? 0) > 0, `${name}: says why`);
  }
  const limits = errorOf(snOrange(99));
  t.match(limits?.message, /100.*2000000/, 'a limits error names the limits');
  const unknown = errorOf({ ...snOrange(1_000), operator: 'mpesa' });
  t.match(unknown?.message, /orange_money/, 'an unknown operator error lists the known ones');
  t.equal(errorOf({ ...snOrange(1_000), currency: 'gbp', country: 'xx' })?.code, 'IKW-VAL-004', 'the country is checked before the currency match');
});

t.test('the schedule itself', async (t) => {
  const keys = FEE_SCHEDULE.map((r) => [r.direction, r.method, r.country ?? '*', r.operator ?? '*', r.currency ?? '*'].join('|'));
  t.equal(new Set(keys).size, keys.length, 'no two rules have the same key');
  for (const direction of ['payin', 'payout'] as const) {
    for (const method of direction === 'payin' ? (['mobile_money', 'card', 'bank'] as const) : (['mobile_money', 'bank'] as const)) {
      t.ok(
        FEE_SCHEDULE.some((r) => r.direction === direction && r.method === method && ruleSpecificity(r) === 0),
        `a default for ${direction} ${method}`,
      );
    }
  }
  for (const r of FEE_SCHEDULE) {
    const where = `${r.direction} ${r.method} ${r.country ?? '*'}/${r.operator ?? '*'}/${r.currency ?? '*'}`;
    t.ok(Number.isInteger(r.basisPoints) && r.basisPoints >= 0 && r.basisPoints <= 10_000, `${where}: basis points`);
    t.ok(Number.isInteger(r.fixed) && r.fixed >= 0 && Number.isInteger(r.min) && r.min >= 0, `${where}: fixed and min`);
    t.ok(r.max === null || (Number.isInteger(r.max) && r.max >= r.min), `${where}: max`);
    if (r.country !== undefined) t.ok(getCountry(r.country), `${where}: a known country`);
    if (r.operator !== undefined) {
      t.ok(r.country !== undefined, `${where}: an operator rule names its country`);
      t.equal(r.method, 'mobile_money', `${where}: operators are mobile money`);
      const operator = getCountry(r.country ?? '')?.operators.find((o) => o.code === r.operator);
      t.ok(operator?.directions.includes(r.direction), `${where}: the operator serves the direction`);
    }
    if (r.currency !== undefined)
      t.ok(
        listCountries().some((c) => c.currency === r.currency),
        `${where}: a currency of the catalog`,
      );
  }
  t.throws(
    () => {
      (FEE_SCHEDULE as unknown as unknown[]).push({});
    },
    TypeError,
    'the schedule is frozen',
  );
  t.throws(
    () => {
      (FEE_SCHEDULE[0] as { basisPoints: number }).basisPoints = 0;
    },
    TypeError,
    'its rules are frozen',
  );
});

t.test('fast enough to call on every payout', async (t) => {
  const started = process.hrtime.bigint();
  for (let i = 0; i < 100_000; i++) quoteFee(snOrange(100 + (i % 1_000_000)));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  t.ok(ms < 2_000, `100,000 quotes in ${ms.toFixed(0)} ms`);
});
