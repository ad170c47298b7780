/**
 * The pawaPay connector's tables (docs/connectors.md, "pawaPay"): amounts between Sika's minor
 * units and pawaPay's decimal strings, the operator ↔ provider table against Sika's catalog, the
 * MSISDN format, the failure codes, and the UUIDv4 derived from Sika's ids.
 */
import t from '#tap';
import { listCountries } from '#packages/catalog/index.js';
import { decimalsOf, fromPawapayAmount, toPawapayAmount } from '#packages/connectors/pawapay/amounts.js';
import { failureOf, GENERIC_FAILURE_CODE } from '#packages/connectors/pawapay/failures.js';
import { pawapayId } from '#packages/connectors/pawapay/ids.js';
import { entryOfProvider, listProviders, pawapayMsisdn, providerFor } from '#packages/connectors/pawapay/providers.js';

t.test('minor units → pawaPay amounts: exact, shortest, refused when the provider cannot take the decimals', async (t) => {
  t.same(toPawapayAmount(5_000, 0, 0), { ok: true, value: '5000' }, 'XOF, no decimals');
  t.same(toPawapayAmount(1_050, 2, 2), { ok: true, value: '10.5' }, 'GHS 10.50');
  t.same(toPawapayAmount(1_005, 2, 2), { ok: true, value: '10.05' });
  t.same(toPawapayAmount(50, 2, 2), { ok: true, value: '0.5' }, 'one leading zero below 1');
  t.same(toPawapayAmount(7, 2, 2), { ok: true, value: '0.07' });
  t.same(toPawapayAmount(10_000, 2, 0), { ok: true, value: '100' }, 'KES 100.00 to a provider without decimals');
  const kes = toPawapayAmount(10_050, 2, 0);
  t.equal(kes.ok, false, 'KES 100.50 cannot go to M-Pesa');
  t.match(kes, { reason: /100\.5.*whole units only/ });
  t.equal(toPawapayAmount(0, 0, 0).ok, false);
  t.equal(toPawapayAmount(-5, 0, 0).ok, false);
  t.equal(toPawapayAmount(1.5, 0, 0).ok, false);
  t.same(toPawapayAmount(Number.MAX_SAFE_INTEGER, 2, 2), { ok: true, value: '90071992547409.91' }, 'no float on the way');
  for (let minor = 1; minor < 2_000; minor += 7) {
    const s = toPawapayAmount(minor, 2, 2);
    t.ok(s.ok && /^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/.test(s.value) && fromPawapayAmount(s.value, 2).ok && (fromPawapayAmount(s.value, 2) as { value: number }).value === minor);
  }
});

t.test('pawaPay amounts → minor units: echoed forms read exactly, nothing rounded', async (t) => {
  t.same(fromPawapayAmount('123.00', 0), { ok: true, value: 123 }, 'normalised echo of an XOF amount');
  t.same(fromPawapayAmount('123', 2), { ok: true, value: 12_300 });
  t.same(fromPawapayAmount('10.5', 2), { ok: true, value: 1_050 });
  t.same(fromPawapayAmount('0.07', 2), { ok: true, value: 7 });
  t.same(fromPawapayAmount('0.070', 2), { ok: true, value: 7 });
  t.equal(fromPawapayAmount('123.50', 0).ok, false, 'half a franc is not an XOF amount');
  t.equal(fromPawapayAmount('0.075', 2).ok, false);
  for (const bad of ['5.', '.5', '00.5', '-5', '5e3', ' 5', '', '0x10', 5, null, '99999999999999999999']) {
    t.equal(fromPawapayAmount(bad, 2).ok, false, `${JSON.stringify(bad)} refused`);
  }
  t.equal(decimalsOf('TWO_PLACES'), 2);
  t.equal(decimalsOf('NONE'), 0);
  t.equal(decimalsOf('SOMETHING_NEW'), 0, 'unknown decimals are read as none, the strictest');
});

t.test('the provider table: every pair is an operator of the catalog, and Mali and Togo are not served', async (t) => {
  const catalog = new Map(listCountries().map((c) => [c.code, new Set(c.operators.map((o) => o.code))]));
  for (const entry of listProviders()) {
    t.ok(catalog.get(entry.country)?.has(entry.operator), `${entry.provider} is ${entry.operator} in ${entry.country}`);
    t.equal(listCountries().find((c) => c.code === entry.country)!.callingCode, entry.prefix, `${entry.country} prefix`);
    t.equal(entryOfProvider(entry.provider), entry);
  }
  t.same(new Set(listProviders().map((e) => e.country)), new Set(['SN', 'CI', 'BF', 'BJ', 'CM', 'GH', 'KE', 'UG', 'RW']));
  t.match(providerFor('sn', 'ORANGE_MONEY'), { provider: 'ORANGE_SEN', pawapayCountry: 'SEN' }, 'any case');
  t.equal(providerFor('SN', 'wave')!.provider, 'WAVE_SEN');
  t.equal(providerFor('SN', 'free_money')!.provider, 'FREE_SEN');
  t.equal(providerFor('CI', 'mtn')!.provider, 'MTN_MOMO_CIV');
  t.equal(providerFor('GH', 'telecel')!.provider, 'VODAFONE_GHA');
  t.equal(providerFor('KE', 'mpesa')!.provider, 'MPESA_KEN');
  t.equal(providerFor('UG', 'airtel_money')!.provider, 'AIRTEL_OAPI_UGA');
  t.equal(providerFor('ML', 'orange_money'), undefined, 'Mali is not served');
  t.equal(providerFor('TG', 'tmoney'), undefined, 'Togo is not served');
  t.equal(providerFor('SN', 'e_money'), undefined);
  t.equal(entryOfProvider('MTN_MOMO_ZMB'), undefined);
});

t.test('MSISDNs go to pawaPay as digits with the calling code, no plus', async (t) => {
  const sn = providerFor('SN', 'orange_money')!;
  t.equal(pawapayMsisdn('+221771234567', sn), '221771234567');
  t.equal(pawapayMsisdn('221771234567', sn), '221771234567');
  t.equal(pawapayMsisdn('+225071234567', sn), null, 'another country');
  t.equal(pawapayMsisdn('+221 77 123 45 67', sn), null, 'not normalised');
  t.equal(pawapayMsisdn('+2217', sn), null, 'too short');
});

t.test('failure codes: Sika names where they exist, the raw code kept for unknown ones', async (t) => {
  t.same(failureOf({ failureCode: 'INSUFFICIENT_BALANCE' }), { failureCode: 'insufficient_funds', failureMessage: "The payer's wallet balance is too low" });
  t.same(failureOf({ failureCode: 'RECIPIENT_NOT_FOUND', failureMessage: 'Recipient not found' }), { failureCode: 'recipient_not_found', failureMessage: 'Recipient not found' });
  t.equal(failureOf({ failureCode: 'PAYER_NOT_FOUND' }).failureCode, 'payer_not_found');
  t.equal(failureOf({ failureCode: 'PAYMENT_NOT_APPROVED' }).failureCode, 'payment_not_approved');
  t.equal(failureOf({ failureCode: 'PROVIDER_TEMPORARILY_UNAVAILABLE' }).failureCode, 'operator_unavailable');
  t.same(failureOf({ failureCode: 'OTHER_ERROR', failureMessage: 'Something broke' }), { failureCode: GENERIC_FAILURE_CODE, failureMessage: 'Something broke (pawaPay OTHER_ERROR)' });
  t.same(failureOf({ failureCode: 'BRAND_NEW_CODE' }), { failureCode: GENERIC_FAILURE_CODE, failureMessage: 'The operator failed the transfer (pawaPay BRAND_NEW_CODE)' });
  t.same(failureOf(undefined), { failureCode: GENERIC_FAILURE_CODE, failureMessage: 'The operator failed the transfer (pawaPay UNKNOWN_ERROR)' });
  t.equal(failureOf({ failureCode: 'toString' }).failureCode, GENERIC_FAILURE_CODE, 'no prototype lookups');
});

t.test('pawaPay ids: a UUIDv4 derived from the Sika id, the same every time', async (t) => {
  const id = pawapayId('op_4f9Xq2Lk8PzR1mN0bV7cT3sY');
  t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.equal(pawapayId('op_4f9Xq2Lk8PzR1mN0bV7cT3sY'), id);
  t.not(pawapayId('op_4f9Xq2Lk8PzR1mN0bV7cT3sZ'), id);
});
