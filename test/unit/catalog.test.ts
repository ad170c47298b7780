/**
 * The operator catalog (docs/catalog.md): currencies, countries and operators, and MSISDN
 * normalisation with libphonenumber's metadata.
 */
import { getCountryCallingCode } from 'libphonenumber-js/max';
import t from '#tap';
import { DEFAULT_PAYOUT_EXPECTED_MINUTES, getCountry, getCurrency, getOperator, listCountries, listCurrencies, normalizeMsisdn } from '#packages/catalog/index.js';

const REQUIRED_COUNTRIES = ['SN', 'CI', 'ML', 'BF', 'BJ', 'TG', 'CM', 'GH', 'KE', 'UG', 'RW'];

t.test('currencies', async (t) => {
  const expected: [string, number][] = [
    ['XOF', 0],
    ['XAF', 0],
    ['UGX', 0],
    ['RWF', 0],
    ['GNF', 0],
    ['GHS', 2],
    ['KES', 2],
    ['NGN', 2],
    ['ZAR', 2],
    ['USD', 2],
    ['EUR', 2],
    ['GBP', 2],
    ['TZS', 2],
  ];
  for (const [code, minor] of expected) {
    t.equal(getCurrency(code)?.minorUnits, minor, `${code} has ${minor} minor units`);
    t.equal(getCurrency(code)?.code, code, `${code} is stored upper case`);
  }
  t.equal(getCurrency('xof')?.code, 'XOF', 'lower case is accepted');
  t.equal(getCurrency('Ghs')?.code, 'GHS', 'mixed case is accepted');
  for (const unknown of ['ABC', 'XO', 'XOFF', '', ' XOF', '__proto__', 'constructor', 'toString']) {
    t.equal(getCurrency(unknown), undefined, `${JSON.stringify(unknown)} is unknown`);
  }
  t.equal(getCurrency(undefined as unknown as string), undefined, 'a non-string is unknown, not a crash');
  const all = listCurrencies();
  t.same(
    all.map((c) => c.code),
    [...all.map((c) => c.code)].sort(),
    'listed by code',
  );
  t.ok(
    all.every((c) => c.name.length > 0),
    'every currency has a name',
  );
});

t.test('countries', async (t) => {
  const expected: Record<string, [string, string]> = {
    SN: ['XOF', '221'],
    CI: ['XOF', '225'],
    ML: ['XOF', '223'],
    BF: ['XOF', '226'],
    BJ: ['XOF', '229'],
    TG: ['XOF', '228'],
    CM: ['XAF', '237'],
    GH: ['GHS', '233'],
    KE: ['KES', '254'],
    UG: ['UGX', '256'],
    RW: ['RWF', '250'],
  };
  for (const code of REQUIRED_COUNTRIES) {
    const c = getCountry(code);
    t.ok(c, `${code} is in the catalog`);
    if (!c) continue;
    t.equal(c.code, code);
    t.same([c.currency, c.callingCode], expected[code], `${code}: currency and calling code`);
    t.equal(c.callingCode, getCountryCallingCode(code as 'SN'), `${code}: calling code agrees with libphonenumber`);
    t.ok(c.name.length > 0, `${code} has a name`);
    t.ok(c.operators.length >= 2, `${code} has operators`);
  }
  t.equal(getCountry('sn')?.code, 'SN', 'lower case');
  t.equal(getCountry('Ke')?.code, 'KE', 'mixed case');
  for (const unknown of ['XX', 'SEN', 'S', '', '__proto__', 'hasOwnProperty']) t.equal(getCountry(unknown), undefined, `${JSON.stringify(unknown)} is unknown`);
  t.equal(getCountry(42 as unknown as string), undefined, 'a non-string is unknown');

  const list = listCountries();
  t.same(
    list.map((c) => c.code),
    [...list.map((c) => c.code)].sort(),
    'listed by code',
  );
  t.ok(
    REQUIRED_COUNTRIES.every((c) => list.some((x) => x.code === c)),
    'every required country is listed',
  );
  list.pop();
  t.equal(listCountries().length, list.length + 1, 'listCountries returns a copy');
});

t.test('operators', async (t) => {
  const expected: Record<string, string[]> = {
    SN: ['orange_money', 'wave', 'free_money', 'e_money'],
    CI: ['orange_money', 'mtn', 'moov', 'wave'],
    ML: ['orange_money', 'moov', 'wave'],
    BF: ['orange_money', 'moov'],
    BJ: ['mtn', 'moov'],
    TG: ['tmoney', 'flooz'],
    CM: ['mtn', 'orange_money'],
    GH: ['mtn', 'telecel', 'airteltigo'],
    KE: ['mpesa', 'airtel_money'],
    UG: ['mtn', 'airtel_money'],
    RW: ['mtn', 'airtel_money'],
  };
  for (const [country, codes] of Object.entries(expected)) {
    t.same(
      getCountry(country)?.operators.map((o) => o.code),
      codes,
      `${country}: ${codes.join(', ')}`,
    );
  }

  await t.test('every operator is well formed', async (t) => {
    for (const c of listCountries()) {
      const currency = getCurrency(c.currency);
      t.ok(currency, `${c.code}: its currency ${c.currency} is known`);
      for (const o of c.operators) {
        const where = `${c.code}/${o.code}`;
        t.match(o.code, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, `${where}: lower snake case`);
        t.equal(o.country, c.code, `${where}: country`);
        t.equal(o.currency, c.currency, `${where}: currency`);
        t.ok(o.name.length > 0, `${where}: name`);
        t.ok(o.directions.length > 0, `${where}: serves something`);
        t.same(Object.keys(o.limits).sort(), [...o.directions].sort(), `${where}: limits for exactly the directions served`);
        for (const d of o.directions) {
          const l = o.limits[d]!;
          t.ok(Number.isSafeInteger(l.min) && Number.isSafeInteger(l.max) && l.min >= 1 && l.min <= l.max, `${where} ${d}: 1 <= min <= max`);
          const step = 10 ** ((currency?.minorUnits ?? 0) - o.decimals);
          t.equal(l.min % step, 0, `${where} ${d}: min is an amount the operator accepts`);
          t.equal(l.max % step, 0, `${where} ${d}: max is an amount the operator accepts`);
        }
        t.ok(o.decimals >= 0 && o.decimals <= (currency?.minorUnits ?? 0), `${where}: decimals within the currency's`);
        t.equal(o.payoutExpectedMinutes, DEFAULT_PAYOUT_EXPECTED_MINUTES, `${where}: payouts expected within 10 minutes`);
      }
    }
  });

  await t.test('realistic limits', async (t) => {
    t.same(getOperator('SN', 'orange_money')?.limits.payin, { min: 100, max: 2_000_000 }, 'XOF payin 100..2,000,000');
    t.same(getOperator('GH', 'mtn')?.limits.payin, { min: 100, max: 1_000_000 }, 'GHS 1.00..10,000.00');
    t.same(getOperator('KE', 'mpesa')?.limits.payin, { min: 100, max: 25_000_000 }, 'M-Pesa up to KES 250,000');
    t.equal(getOperator('KE', 'mpesa')?.decimals, 0, 'M-Pesa takes whole shillings');
    t.equal(getOperator('GH', 'mtn')?.decimals, 2, 'MTN Ghana takes pesewas');
    t.equal(getOperator('SN', 'wave')?.decimals, 0, 'XOF has no decimals');
  });

  await t.test('a payin-only operator', async (t) => {
    const e = getOperator('SN', 'e_money');
    t.same(e?.directions, ['payin']);
    t.equal(e?.limits.payout, undefined, 'no payout limits');
    t.ok(
      listCountries().some((c) => c.operators.some((o) => !o.directions.includes('payout'))),
      'the catalog has at least one',
    );
  });

  await t.test('lookups', async (t) => {
    t.equal(getOperator('SN', 'wave')?.name, 'Wave');
    t.equal(getOperator('sn', 'WAVE')?.code, 'wave', 'any case for both');
    t.equal(getOperator('CI', 'mtn')?.country, 'CI', 'the same code in two countries gives each its own');
    t.equal(getOperator('CM', 'mtn')?.currency, 'XAF');
    t.equal(getOperator('SN', 'mpesa'), undefined, 'an operator of another country');
    t.equal(getOperator('XX', 'wave'), undefined, 'an unknown country');
    t.equal(getOperator('SN', ''), undefined, 'empty');
    t.equal(getOperator('SN', '__proto__'), undefined, 'no prototype keys');
  });

  await t.test('the catalog cannot be changed through a lookup', async (t) => {
    const sn = getCountry('SN')!;
    t.throws(() => {
      (sn as { name: string }).name = 'Changed';
    }, TypeError);
    t.throws(() => {
      sn.operators.push(sn.operators[0]!);
    }, TypeError);
    t.throws(() => {
      sn.operators[0]!.limits.payin!.max = 1;
    }, TypeError);
    t.equal(getCountry('SN')?.name, 'Senegal');
  });
});

t.test('MSISDN normalisation', async (t) => {
  /** Per country: a real-looking mobile number in E.164, and the same number in national format. */
  const mobiles: [string, string, string][] = [
    ['SN', '+221771234567', '77 123 45 67'],
    ['CI', '+2250701234567', '07 01 23 45 67'],
    ['ML', '+22376123456', '76 12 34 56'],
    ['BF', '+22670123456', '70 12 34 56'],
    ['BJ', '+2290197123456', '01 97 12 34 56'],
    ['TG', '+22890123456', '90 12 34 56'],
    ['CM', '+237671234567', '6 71 23 45 67'],
    ['GH', '+233241234567', '024 123 4567'],
    ['KE', '+254712345678', '0712 345 678'],
    ['UG', '+256772345678', '0772 345678'],
    ['RW', '+250781234567', '0781 234 567'],
  ];
  t.same(mobiles.map((m) => m[0]).sort(), [...REQUIRED_COUNTRIES].sort(), 'one for every country');

  for (const [country, e164, national] of mobiles) {
    await t.test(country, async (t) => {
      const digits = e164.slice(1);
      const cc = getCountry(country)!.callingCode;
      const spaced = `+${cc} ${digits.slice(cc.length).replace(/(\d{2})(?=\d)/g, '$1 ')}`;
      t.equal(normalizeMsisdn(e164, country), e164, 'E.164');
      t.equal(normalizeMsisdn(spaced, country), e164, `international with spaces (${spaced})`);
      t.equal(normalizeMsisdn(`00${digits}`, country), e164, '00 prefix');
      t.equal(normalizeMsisdn(digits, country), e164, 'calling code without +');
      t.equal(normalizeMsisdn(national, country), e164, `national format (${national})`);
      t.equal(normalizeMsisdn(e164, country.toLowerCase()), e164, 'country in lower case');
      t.equal(normalizeMsisdn(`(+${cc}) ${digits.slice(cc.length)}`, country), e164, 'parentheses');
      t.equal(normalizeMsisdn(`+${cc}-${digits.slice(cc.length)}`, country), e164, 'dashes');
      for (const end of ['01', '02', '03', '04']) {
        const sandbox = `${e164.slice(0, -2)}${end}`;
        t.equal(normalizeMsisdn(sandbox, country), sandbox, `the sandbox number ending in ${end} is valid`);
      }
      const elsewhere = country === 'SN' ? 'KE' : 'SN';
      t.equal(normalizeMsisdn(e164, elsewhere), null, `a valid ${country} number is not a ${elsewhere} number`);
      t.equal(normalizeMsisdn(e164.slice(0, -3), country), null, 'too short');
      t.equal(normalizeMsisdn(`${e164}123`, country), null, 'too long');
    });
  }

  await t.test('Benin: 10-digit numbers starting 01', async (t) => {
    t.equal(normalizeMsisdn('+22997123456', 'BJ'), null, 'the old 8-digit numbering is gone');
    t.equal(normalizeMsisdn('+2290161234567', 'BJ'), '+2290161234567');
    t.equal(normalizeMsisdn('0151234567', 'BJ'), '+2290151234567');
  });

  await t.test('Côte d\u2019Ivoire: 10-digit numbers of each mobile network', async (t) => {
    for (const prefix of ['01', '05', '07']) t.equal(normalizeMsisdn(`+225${prefix}01234567`, 'CI'), `+225${prefix}01234567`, prefix);
  });

  await t.test('refused', async (t) => {
    const refused: [string, string, string][] = [
      ['a fixed-line number', '+221338231234', 'SN'],
      ['a number of another country', '+254712345678', 'SN'],
      ['a Gambian number under Senegal', '+2207712345', 'SN'],
      ['letters', 'abc', 'SN'],
      ['letters inside', '+22177ABC4567', 'SN'],
      ['an extension', '+221 77 123 45 67 ext 5', 'SN'],
      ['surrounding text', 'call +221771234567 now', 'SN'],
      ['a plus in the middle', '77+1234567', 'SN'],
      ['two plus signs', '++221771234567', 'SN'],
      ['too short', '+22177', 'SN'],
      ['a national number too short', '7712345', 'SN'],
      ['empty', '', 'SN'],
      ['only spaces', '   ', 'SN'],
      ['only a plus', '+', 'SN'],
      ['an unknown country', '+221771234567', 'XX'],
      ['a country that is not alpha-2', '+221771234567', 'SEN'],
      ['very long input', `+221${'7'.repeat(200)}`, 'SN'],
      ['000 prefix', '000221771234567', 'SN'],
      ['a letter after a newline', '+22177\n1234567x', 'SN'],
    ];
    for (const [name, input, country] of refused) t.equal(normalizeMsisdn(input, country), null, name);
    t.equal(normalizeMsisdn(null as unknown as string, 'SN'), null, 'null input');
    t.equal(normalizeMsisdn(221771234567 as unknown as string, 'SN'), null, 'a number instead of a string');
    t.equal(normalizeMsisdn('+221771234567', undefined as unknown as string), null, 'no country');
  });
});
