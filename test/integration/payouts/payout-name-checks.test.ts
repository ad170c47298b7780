/**
 * The bank's check of an account holder's name (docs/payouts.md, "Holder names"), through the
 * real Paystack connector and its stand-in on loopback: asked only once nothing else would refuse
 * the payout (the balance, the limits), so a merchant with nothing to pay out learns no name; each
 * check that did not find the name as given counts against the merchant's credential
 * (RATE_LIMIT_NAME_CHECK: 429 with Retry-After when over); and the bank's name shows whole only to
 * a signed-in user with payouts rights, masked for API keys (`C** N**`). Payout batches alike.
 */
import t from '#tap';
import { assertError, fund } from '../../support/payouts.js';
import { engine } from '../../support/payout-engine.js';
import { goLive, startPaystackLive } from '../../support/live.js';
import { mailedCode, startSmtp } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const GTB = '058';
const smtp = await startSmtp(t);
const { svc, standin } = await startPaystackLive(t, { service: { env: { SMTP_URL: smtp.url, RATE_LIMIT_NAME_CHECK: '3/1h' } } });

/** A Nigerian bank account the stand-in's bank knows under `holder`, as a payout names it with `given`. */
function account(number: string, holder = 'CHUKWUEMEKA NWOSU', given = 'Adaeze Okafor') {
  standin.accountNames.set(`${GTB}/${number}`, holder);
  return { type: 'bank', currency: 'ngn', bank_code: GTB, account_number: number, account_name: given };
}
const resolves = () => standin.requests.filter((r) => r.path === '/bank/resolve').length;

let keys = 0;
const pay = (token: string, destination: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  svc.request('POST', '/api/v1/payouts', {
    key: token,
    body: { amount: 50_000, currency: 'ngn', destination, ...extra },
    headers: { 'x-environment': 'live', 'idempotency-key': `name-checks-${++keys}` },
  });

async function verifiedChallenge(token: string, email: string): Promise<string> {
  const asked = await svc.request('POST', '/api/v1/auth/mfa/challenge', { key: token, body: { purpose: 'payouts/new-destination' } });
  if (asked.status !== 200) throw new Error(asked.text);
  const verified = await svc.request('POST', '/api/v1/auth/mfa/verify', { body: { challengeId: asked.body.challengeId, code: mailedCode(smtp.mails, email) } });
  if (verified.status !== 200) throw new Error(verified.text);
  return asked.body.challengeId as string;
}

async function liveMerchant(name: string, amount: number) {
  const { merchant, key } = await goLive(svc, name);
  if (amount > 0) await fund(svc, merchant.id, amount, 'live', 'ngn');
  return { merchant, key };
}

t.test('a merchant whose balance does not cover the payout learns no name: refused for its balance, the bank never asked', async (t) => {
  const { key } = await liveMerchant('Empty', 0);
  const before = resolves();
  assertError(t, await pay(key, account('0111111111', 'ADA OBI')), 'IKW-BAL-001');
  t.equal(resolves(), before, 'no name check');
  const batch = await engine(svc, key, 'POST', '/batches', { currency: 'ngn', instructions: [{ amount: 50_000, destination_type: 'bank', bank_code: GTB, account_number: '0111111111', account_name: 'Adaeze Okafor' }] }, 'empty-batch');
  assertError(t, batch, 'IKW-BAL-001', 'instructions');
  t.equal(resolves(), before, 'a batch the balance does not cover checks no name either');
  t.notMatch(JSON.stringify(batch.body), /ADA|OBI/);
});

t.test('an API key sees the bank’s name masked; checks that did not find the name count per merchant and credential, 429 with Retry-After', async (t) => {
  const { merchant, key } = await liveMerchant('Masked', 10_000_000);
  const wrong = await pay(key, account('0222222221'));
  assertError(t, wrong, 'IKW-PRV-010', 'destination.account_name');
  t.match(wrong.body.message, /as 'C\*\* N\*\*', not 'Adaeze Okafor'/, 'initials only');
  t.notMatch(wrong.body.message, /CHUKWUEMEKA|NWOSU/);
  assertError(t, await pay(key, { type: 'bank', currency: 'ngn', bank_code: GTB, account_number: '0999999999', account_name: 'Nobody' }), 'IKW-PRV-011', 'destination.account_number');
  const right = await pay(key, account('0222222222', 'ADAEZE OKAFOR'));
  t.equal(right.status, 200, 'a name found as given is paid and not counted');
  assertError(t, await pay(key, account('0222222223')), 'IKW-PRV-010', 'destination.account_name');
  const before = resolves();
  const over = await pay(key, account('0222222224', 'ADAEZE OKAFOR'));
  assertError(t, over, 'IKW-LIM-001');
  t.ok(Number(over.headers.get('retry-after')) > 0, 'Retry-After');
  t.equal(resolves(), before, 'over the limit: the bank is not asked');

  // Another merchant's key, and this merchant's signed-in user, have their own counts.
  const other = await liveMerchant('Masked neighbour', 10_000_000);
  assertError(t, await pay(other.key, account('0222222225')), 'IKW-PRV-010', 'destination.account_name');
  const email = 'finance-masked@shop.example';
  await svc.member(merchant, email, PASSWORD, 'finance');
  const finance = await svc.signIn(email, PASSWORD);
  const challengeId = await verifiedChallenge(finance, email);
  const shown = await pay(finance, account('0222222227'), { challenge_id: challengeId });
  assertError(t, shown, 'IKW-PRV-010', 'destination.account_name');
  t.match(shown.body.message, /as 'CHUKWUEMEKA NWOSU', not 'Adaeze Okafor'/, 'a signed-in user with payouts rights reads the bank’s name');
  t.equal((await pay(finance, account('0222222228', 'ADAEZE OKAFOR'), { challenge_id: challengeId })).status, 200, 'the key’s count is not the user’s');

  svc.clock.advance(3_600_000);
  t.equal((await pay(key, account('0222222226', 'ADAEZE OKAFOR'))).status, 200, 'the next window');
});

t.test('a payout batch by an API key: the bank’s name masked in its instruction’s error', async (t) => {
  const { key } = await liveMerchant('Masked batch', 10_000_000);
  const line = (a: Record<string, unknown>) => ({ amount: 50_000, destination_type: 'bank', bank_code: a.bank_code, account_number: a.account_number, account_name: a.account_name });
  const res = await engine(svc, key, 'POST', '/batches', { currency: 'ngn', instructions: [line(account('0333333331', 'ADAEZE OKAFOR')), line(account('0333333332', 'EMEKA OBI', 'Ngozi Eze'))] }, 'masked-batch');
  assertError(t, res, 'IKW-PEN-001', 'instructions');
  t.match(res.body.errors, [{ index: 1, code: 'IKW-PRV-010', param: 'instructions.1.account_name', message: /as 'E\*\* O\*\*', not 'Ngozi Eze'/ }]);
  t.notMatch(JSON.stringify(res.body), /EMEKA|OBI/);
});
