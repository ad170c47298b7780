/**
 * Bank accounts as payout destinations (docs/payouts.md, "Bank accounts"): the banks of a currency
 * and the bank's name for an account's holder, in sandbox (the sandbox's list and test holder) and
 * in live through the real Paystack connector and its stand-in on loopback. A lookup tells a name:
 * it counts against the credential with the name checks (429 when over), masked for an API key,
 * whole for a signed-in user who may pay out; a live lookup waits for the live gate.
 */
import t from '#tap';
import { assertError } from '../../support/payouts.js';
import { goLive, startPaystackLive } from '../../support/live.js';

const PASSWORD = 'correct horse battery';
const GTB = '058';
const { svc, standin } = await startPaystackLive(t, { service: { env: { RATE_LIMIT_NAME_CHECK: '3/1h' } } });

const banks = (key: string, currency: string, environment = 'live') => svc.request('GET', `/api/v1/banks?currency=${currency}`, { key, headers: { 'x-environment': environment } });
const holder = (key: string, body: Record<string, unknown>, environment = 'live') => svc.request('POST', '/api/v1/banks/account-holder', { key, body, headers: { 'x-environment': environment } });
const resolves = () => standin.requests.filter((r) => r.path === '/bank/resolve').length;

t.test('sandbox: its banks by currency, the test holder masked for an API key and whole for a signed-in user, an account ending in 01 unknown', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Sandbox banks');
  const ngn = await banks(key, 'NGN', 'sandbox');
  t.equal(ngn.status, 200, ngn.text);
  t.match(ngn.body, { object: 'list', currency: 'ngn' });
  t.same(
    ngn.body.data.map((b: { code: string }) => b.code),
    ['044', '011', '058', '033', '057'],
    "Nigeria's banks by live's codes",
  );
  t.match((await banks(key, 'xof', 'sandbox')).body.data, [{ object: 'bank', code: 'sandbox', name: 'Sika Sandbox Bank' }], 'one test bank elsewhere');

  const masked = await holder(key, { currency: 'ngn', bank_code: GTB, account_number: '01234 56789' }, 'sandbox');
  t.equal(masked.status, 200, masked.text);
  t.same(masked.body, { object: 'bank_account_holder', currency: 'ngn', bank_code: GTB, account_number: '0123456789', account_name: 'T** A** H**', masked: true }, 'an API key reads initials');
  const email = 'owner-sandbox-banks@shop.example';
  await svc.member(merchant, email, PASSWORD, 'finance');
  const user = await svc.signIn(email, PASSWORD);
  t.match((await holder(user, { currency: 'ngn', bank_code: GTB, account_number: '0123456789' }, 'sandbox')).body, { account_name: 'TEST ACCOUNT HOLDER', masked: false }, 'a signed-in user who may pay out reads it whole');
  assertError(t, await holder(key, { currency: 'ngn', bank_code: GTB, account_number: '0123456701' }, 'sandbox'), 'IKW-PRV-011', 'account_number');
  assertError(t, await holder(key, { currency: 'ngn', bank_code: GTB }, 'sandbox'), 'IKW-VAL-001', 'account_number');
  assertError(t, await banks(key, 'naira', 'sandbox'), 'IKW-VAL-001', 'currency');
});

t.test("live: Paystack's banks of a currency by name, none where it pays no bank", async (t) => {
  const { key } = await goLive(svc, 'Live banks');
  const ngn = await banks(key, 'ngn');
  t.equal(ngn.status, 200, ngn.text);
  t.same(
    ngn.body.data,
    [
      { object: 'bank', code: '044', name: 'Access Bank' },
      { object: 'bank', code: '058', name: 'Guaranty Trust Bank' },
      { object: 'bank', code: '033', name: 'United Bank For Africa' },
    ],
    "the stand-in's Nigerian banks, by name",
  );
  t.same(
    (await banks(key, 'GHS')).body.data.map((b: { name: string }) => b.name),
    ['GCB Bank'],
    "Ghana's banks, not its mobile money operators",
  );
  assertError(t, await banks(key, 'xof'), 'IKW-PRV-001');
});

t.test("live: the bank's name for a holder, masked for an API key; refusals; each lookup counted, 429 over the allowance; the live gate", async (t) => {
  const { merchant, key } = await goLive(svc, 'Live lookups');
  standin.accountNames.set(`${GTB}/0444444441`, 'CHUKWUEMEKA NWOSU');
  const before = resolves();
  const found = await holder(key, { currency: 'ngn', bank_code: GTB, account_number: '0444444441' });
  t.equal(found.status, 200, found.text);
  t.match(found.body, { account_name: 'C** N**', masked: true });
  t.equal(resolves(), before + 1, 'the bank was asked once');
  assertError(t, await holder(key, { currency: 'ngn', bank_code: '999', account_number: '0444444441' }), 'IKW-PRV-012', 'bank_code');
  assertError(t, await holder(key, { currency: 'ngn', bank_code: GTB, account_number: '044444444' }), 'IKW-VAL-001', 'account_number');
  t.equal(resolves(), before + 1, 'a bank Paystack does not list, or a number no bank takes, is refused without asking');
  assertError(t, await holder(key, { currency: 'ngn', bank_code: GTB, account_number: '0444444449' }), 'IKW-PRV-011', 'account_number');

  // Two lookups told something (a name, an unknown account); the third is the last of 3 an hour.
  t.equal((await holder(key, { currency: 'ngn', bank_code: GTB, account_number: '0444444441' })).status, 200);
  const over = await holder(key, { currency: 'ngn', bank_code: GTB, account_number: '0444444441' });
  assertError(t, over, 'IKW-LIM-001');
  t.ok(Number(over.headers.get('retry-after')) > 0, 'Retry-After');

  const email = 'finance-lookups@shop.example';
  await svc.member(merchant, email, PASSWORD, 'finance');
  const finance = await svc.signIn(email, PASSWORD);
  t.match((await holder(finance, { currency: 'ngn', bank_code: GTB, account_number: '0444444441' })).body, { account_name: 'CHUKWUEMEKA NWOSU', masked: false }, "the user's count is not the key's, and the name shows whole");

  const closed = await svc.merchant('Not live yet');
  const count = resolves();
  assertError(t, await holder(closed.api_keys.live, { currency: 'ngn', bank_code: GTB, account_number: '0444444441' }), 'IKW-PRV-005');
  t.equal(resolves(), count, 'a merchant live is not open for learns no name');
});

t.test('a key without payouts.write may list banks but not look up a holder', async (t) => {
  const { merchant } = await goLive(svc, 'Read-only');
  const { secret } = await svc.apiKey(merchant.id, ['payouts.read'], 'live');
  t.equal((await banks(secret, 'ngn')).status, 200);
  assertError(t, await holder(secret, { currency: 'ngn', bank_code: GTB, account_number: '0444444441' }), 'IKW-AUT-004');
});
