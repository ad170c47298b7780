/**
 * Live cards and bank payouts through Paystack, end to end through the public API (docs/connectors.md,
 * "Paystack"): the real PaystackConnector over HTTP to the Paystack stand-in on loopback, its
 * signed webhooks posted to POST /connectors/paystack/events, status checks run on the manual
 * clock. Every request Sika sends is checked against Paystack's contract by the stand-in; each
 * test ends by asserting that none left it.
 */
import t, { type Test } from '#tap';
import { paystackReference } from '#packages/connectors/paystack/index.js';
import { isBalanced } from '#packages/ledger/entry.js';
import { balanceStream, type LedgerEvent } from '#packages/families/ledger/events.js';
import { assertError, balance, fund, getPayout, payoutFee, postPayout } from '../support/payouts.js';
import { confirm, createIntent, retrieve } from '../support/payments.js';
import { goLive, startPaystackLive } from '../support/live.js';
import { advance } from '../support/system.js';
import { engine } from '../support/payout-engine.js';
import { reconcileRail } from '../../services/reconciliation.js';

const { svc, standin } = await startPaystackLive(t);
const MINUTE = 60_000;
/** The first status check of a transfer with no final answer. */
const FIRST_CHECK = 2 * MINUTE;
const GTB = '058';

/** A Nigerian bank account the stand-in's bank knows under `holder`. */
function account(number: string, holder = 'ADAEZE OKAFOR', given = 'Adaeze Okafor') {
  standin.accountNames.set(`${GTB}/${number}`, holder);
  return { type: 'bank', currency: 'ngn', bank_code: GTB, account_number: number, account_name: given };
}

function conforms(t: Test): void {
  t.same(standin.takeDeviations(), [], 'every request followed Paystack’s contract');
}

const settleJobs = () => svc.system.scheduler.runUntilIdle();
const funds = (key: string) => balance(svc, key, 'ngn');
const fee = payoutFee(50_000, { type: 'bank', country: 'NG' }, 'ngn');

/** Every entry of the merchant's live NGN balance stream balances. */
async function ledgerBalanced(t: Test, merchantId: string): Promise<void> {
  const events = (await svc.system.store.readStream(balanceStream(merchantId, 'live', 'ngn'))) as unknown as LedgerEvent[];
  t.ok(events.length > 0 && events.every((e) => !('lines' in e.data) || isBalanced((e.data as { lines: Parameters<typeof isBalanced>[0] }).lines)), 'every ledger entry balances');
}

async function liveMerchant(name: string, amount = 1_000_000) {
  const { merchant, key } = await goLive(svc, name);
  await fund(svc, merchant.id, amount, 'live', 'ngn');
  let n = 0;
  const payOut = async (destination: Record<string, unknown>, amountOut = 50_000) => {
    const res = await postPayout(svc, key, { amount: amountOut, currency: 'ngn', destination }, { idempotencyKey: `${name.replace(/\W+/g, '-')}-${++n}` });
    return res;
  };
  return { merchant, key, payOut };
}

t.test('a bank payout is paid through Paystack: recipient once, transfer under the payout’s reference, webhooks applied once', async (t) => {
  const { merchant, key, payOut } = await liveMerchant('Bank payouts');
  const destination = account('0123456789');
  const res = await payOut(destination);
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'in_transit', livemode: true, amount: 50_000, fee });
  const reference = paystackReference(res.body.id as string);
  t.match(reference, /^[a-z0-9_-]{16,}$/, 'the reference follows Paystack’s rule');
  t.match(standin.transferRequests.at(-1), { source: 'balance', amount: 50_000, currency: 'NGN', reference }, 'kobo as an integer, the reference derived from the payout id');
  t.same(await funds(key), { available: 1_000_000 - 50_000 - fee, pending: 0, reserved: 50_000 + fee }, 'held while in transit');

  standin.settle(reference, 'success');
  t.equal(await standin.sendWebhook('transfer.success', reference), 200);
  t.equal(await standin.sendWebhook('transfer.success', reference), 200, 'Paystack retries: the same webhook again');
  await settleJobs();
  const paid = (await getPayout(svc, key, res.body.id as string)).body;
  t.match(paid, { status: 'paid', provider_reference: standin.transfer(reference)!.transferCode });
  t.same(await funds(key), { available: 1_000_000 - 50_000 - fee, pending: 0, reserved: 0 }, 'paid once');

  const second = await payOut(destination);
  t.equal(second.status, 200, second.text);
  t.equal(standin.recipientRequests, 1, 'the recipient is created once per merchant and account, then kept');
  await ledgerBalanced(t, merchant.id);
  conforms(t);
});

t.test('a reversed or failed transfer fails the payout with the money back', async (t) => {
  const { merchant, key, payOut } = await liveMerchant('Reversals');
  const destination = account('0223456789');
  const reversed = await payOut(destination);
  const failed = await payOut(destination);
  for (const [res, status] of [
    [reversed, 'reversed'],
    [failed, 'failed'],
  ] as const) {
    const reference = paystackReference(res.body.id as string);
    standin.settle(reference, status);
    t.equal(await standin.sendWebhook(`transfer.${status}`, reference), 200);
  }
  await settleJobs();
  t.match((await getPayout(svc, key, reversed.body.id as string)).body, { status: 'failed', failure_code: 'transfer_reversed' });
  t.match((await getPayout(svc, key, failed.body.id as string)).body, { status: 'failed', failure_code: 'transfer_failed' });
  t.same(await funds(key), { available: 1_000_000, pending: 0, reserved: 0 }, 'both payouts’ money and fees are back');
  await ledgerBalanced(t, merchant.id);
  conforms(t);
});

t.test('a wrong account name is refused with the bank’s name (masked) before any money is held', async (t) => {
  const { key, payOut } = await liveMerchant('Wrong names');
  const before = standin.transferRequests.length;
  const res = await payOut(account('0323456789', 'CHUKWUEMEKA NWOSU', 'Adaeze Okafor'));
  assertError(t, res, 'IKW-PRV-010', 'destination.account_name');
  t.match(res.body.message, /as 'C\*\* N\*\*'/, 'the message gives the name the bank gave, masked for an API key (payout-name-checks.test.ts)');
  const unknown = await payOut({ type: 'bank', currency: 'ngn', bank_code: GTB, account_number: '0999999999', account_name: 'Nobody' });
  assertError(t, unknown, 'IKW-PRV-011', 'destination.account_number');
  const badBank = await payOut({ type: 'bank', currency: 'ngn', bank_code: '999', account_number: '0123456789', account_name: 'Adaeze Okafor' });
  assertError(t, badBank, 'IKW-PRV-012', 'destination.bank_code');
  t.same(await funds(key), { available: 1_000_000, pending: 0, reserved: 0 }, 'nothing held');
  t.equal(standin.transferRequests.length, before, 'no transfer asked for');
  const reordered = await payOut(account('0423456789', 'OKAFOR ADAEZE CHIOMA', 'adaeze okafor'));
  t.equal(reordered.status, 200, 'the same holder in another order, with a middle name the merchant left out, is taken');
  conforms(t);
});

t.test('a payout batch checks each bank account’s name before anything is held, once per account', async (t) => {
  const { key } = await liveMerchant('Batches');
  const good = account('1023456789');
  const wrong = account('1123456789', 'EMEKA OBI', 'Ngozi Eze');
  const line = (a: Record<string, unknown>) => ({ amount: 50_000, destination_type: 'bank', bank_code: a.bank_code, account_number: a.account_number, account_name: a.account_name });
  const resolves = () => standin.requests.filter((r) => r.path === '/bank/resolve').length;
  const before = resolves();
  const res = await engine(svc, key, 'POST', '/batches', { currency: 'ngn', instructions: [line(good), line(wrong), line(good)] }, 'batch-names');
  assertError(t, res, 'IKW-PEN-001', 'instructions');
  t.same(
    res.body.errors.map((e: { index: number; code: string; param?: string }) => [e.index, e.code, e.param]),
    [[1, 'IKW-PRV-010', 'instructions.1.account_name']],
    'the wrong name refused, named by its instruction’s field',
  );
  t.equal(resolves() - before, 2, 'one name check per account of the batch');
  t.same(await funds(key), { available: 1_000_000, pending: 0, reserved: 0 }, 'nothing held');
  conforms(t);
});

t.test('an OTP requirement delays the payout with a reason, never fails it; it goes on once the transfer is final', async (t) => {
  const { key, payOut } = await liveMerchant('OTP');
  standin.next({ type: 'otp' });
  const res = await payOut(account('0523456789'));
  t.equal(res.status, 200, res.text);
  await settleJobs();
  const reference = paystackReference(res.body.id as string);
  t.match((await getPayout(svc, key, res.body.id as string)).body, { status: 'in_transit', delay_state: 'delayed', delay_reason: 'provider_action_required' }, 'delayed, with its reason');
  await advance(svc, FIRST_CHECK);
  t.match((await getPayout(svc, key, res.body.id as string)).body, { status: 'in_transit', delay_reason: 'provider_action_required' }, 'still otp at the status check: not failed');
  standin.settle(reference, 'success');
  await advance(svc, 5 * MINUTE);
  t.match((await getPayout(svc, key, res.body.id as string)).body, { status: 'paid' }, 'the next check finds it paid (a webhook that never came)');
  t.equal(standin.transferRequests.filter((r) => r.reference === reference).length, 1, 'one transfer, never restarted under a new reference');
  conforms(t);
});

t.test('a lost answer never starts a second transfer; a duplicate reference is the transfer taken', async (t) => {
  const { merchant, key, payOut } = await liveMerchant('Lost answers');
  standin.next({ type: 'lose_answer' });
  const lost = await payOut(account('0623456789'));
  t.equal(lost.status, 200, lost.text);
  const reference = paystackReference(lost.body.id as string);
  t.match(lost.body, { status: 'pending' }, 'the answer lost: left pending under the same reference');
  await advance(svc, FIRST_CHECK);
  t.match((await getPayout(svc, key, lost.body.id as string)).body, { status: 'in_transit' }, 'found at the status check: in transit');
  standin.settle(reference, 'success');
  await advance(svc, 5 * MINUTE);
  t.match((await getPayout(svc, key, lost.body.id as string)).body, { status: 'paid' });
  t.equal(standin.transferRequests.filter((r) => r.reference === reference).length, 1, 'the stand-in saw one transfer');

  // A 5xx before Paystack kept it: the status check finds nothing (404) and sends it again, same reference.
  standin.next({ type: 'server_error', taken: false });
  const refused = await payOut(account('0623456789'));
  const again = paystackReference(refused.body.id as string);
  t.notOk(standin.transfer(again), 'Paystack kept nothing');
  await advance(svc, FIRST_CHECK);
  t.match(standin.transfer(again), { status: 'pending' }, 'not found: sent again under the same reference');
  t.same(new Set(standin.transferRequests.filter((r) => r.reference === again).map((r) => r.reference)).size, 1, 'never a new reference');

  standin.next({ type: 'duplicate_reference' });
  const duplicate = await payOut(account('0623456789'));
  t.match(duplicate.body, { status: 'in_transit' }, '“reference already exists”: taken, followed by the status check');
  await ledgerBalanced(t, merchant.id);
  conforms(t);
});

t.test('forged, tampered, unsigned and mismatched webhooks move nothing; unverified ones make Sika do nothing at all', async (t) => {
  const { key, payOut } = await liveMerchant('Forgeries');
  const res = await payOut(account('0723456789'));
  const reference = paystackReference(res.body.id as string);
  standin.settle(reference, 'success');
  const checks = () => svc.system.knex('scheduled_jobs').where({ kind: 'payout.status_check' }).whereRaw("payload->>'payoutId' = ?", [res.body.id]).count<{ n: string }[]>({ n: '*' });
  const before = await checks();
  const asked = standin.requests.length;
  t.equal(await standin.sendWebhook('transfer.success', reference, { forge: 'other_key' }), 401, 'signed with another key: 401');
  t.equal(await standin.sendWebhook('transfer.success', reference, { forge: 'unsigned' }), 401, 'unsigned: 401');
  standin.settle(reference, 'pending');
  t.equal(await standin.sendWebhook('transfer.success', reference, { forge: 'tampered' }), 401, 'changed after signing: 401');
  t.same(await checks(), before, 'no status check asked for');
  await settleJobs();
  t.equal(standin.requests.length, asked, 'Paystack hears nothing from Sika');
  t.equal(await standin.sendWebhook('transfer.success', reference, { override: { status: 'success', amount: 100 } }), 200, 'signed, but not the payout’s amount: taken, not believed');
  t.equal(await standin.sendWebhook('transfer.success', reference, { override: { status: 'success', currency: 'GHS' } }), 200, 'nor its currency');
  await settleJobs();
  t.match((await getPayout(svc, key, res.body.id as string)).body, { status: 'in_transit' }, 'still in transit: Paystack says pending');
  t.same((await funds(key)).reserved, 50_000 + fee, 'the money still held, not paid');
  conforms(t);
});

t.test('another merchant’s payout is a 404; a repeated request is one payout', async (t) => {
  const { key, payOut } = await liveMerchant('Owner');
  const other = await liveMerchant('Other');
  const res = await payOut(account('0823456789'));
  t.equal((await getPayout(svc, other.key, res.body.id as string)).status, 404, 'another merchant’s payout: 404');
  const body = { amount: 50_000, currency: 'ngn', destination: account('0823456789') };
  const [a, b] = await Promise.all([postPayout(svc, key, body, { idempotencyKey: 'same-request' }), postPayout(svc, key, body, { idempotencyKey: 'same-request' })]);
  const ids = new Set([a, b].filter((r) => r.status === 200).map((r) => r.body.id as string));
  t.equal(ids.size, 1, 'one payout for one Idempotency-Key');
  t.equal(standin.transferRequests.filter((r) => r.reference === paystackReference([...ids][0]!)).length, 1, 'one transfer');
  conforms(t);
});

/** A live NGN payment intent of a customer with an e-mail. */
async function ngnIntent(key: string, email = 'ada@example.com', amount = 500_000) {
  return createIntent(svc, key, { amount, currency: 'ngn', transaction_country: 'NG', customer_email: email });
}

const cardFee = (amount: number) => Math.round((amount * 290) / 10_000) + 10_000;

t.test('a first card payment redirects to Paystack, comes back to Sika’s status page, and succeeds once verified; its card is kept', async (t) => {
  const { key } = await goLive(svc, 'Cards');
  const intent = await ngnIntent(key);
  const res = await confirm(svc, key, intent.id, { payment_method: { type: 'card', card: {} } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'requires_action', next_action: { type: 'redirect_to_url', redirect_to_url: { url: new RegExp(`^${standin.url}/checkout/`) } } });
  const operation = res.body.latest_operation as string;
  const reference = paystackReference(operation);
  t.match(
    standin.chargeRequests.at(-1),
    { path: '/transaction/initialize', body: { email: 'ada@example.com', amount: 500_000, currency: 'NGN', reference, callback_url: `${svc.publicUrl}/operations/status/${operation}`, channels: ['card'] } },
    'kobo as an integer; the payer comes back to Sika’s status page',
  );

  standin.checkout(reference);
  t.equal(await standin.sendChargeWebhook(reference, { forge: 'other_key' }), 401, 'a forged charge.success: 401');
  await settleJobs();
  t.equal(await standin.sendChargeWebhook(reference), 200, 'charge.success');
  t.equal(await standin.sendChargeWebhook(reference), 200, 'again (Paystack retries)');
  await settleJobs();
  const paid = await retrieve(svc, key, intent.id);
  t.match(paid, { status: 'succeeded', amount_received: 500_000, provider_reference: String(standin.transaction(reference)!.id) }, 'succeeded once the verification matched amount, currency and reference');
  t.same(await funds(key), { available: 0, pending: 500_000 - cardFee(500_000), reserved: 0 }, 'the payment on the balance once');
  const back = await svc.request('GET', `/operations/status/${operation}?trxref=${reference}&reference=${reference}`);
  t.equal(back.status, 200, back.text);
  t.match(back.body, { status: 'succeeded', payment_intent: intent.id }, 'the payer back from Paystack (its trxref and reference appended) lands on the status page');
  const cards = await svc.request('GET', `/api/v1/merchant/customers/${paid.customer as string}/cards`, { key });
  t.equal(cards.status, 200, cards.text);
  t.match(cards.body.data, [{ object: 'card', brand: 'visa', last4: '4081', exp_month: '12', exp_year: '2030', reusable: true, token: /^card_[0-9a-f]{24}$/ }], 'the card kept on the customer');
  conforms(t);
});

t.test('the payer back from a declined checkout sees it failed at once: the return asks Paystack, no webhook needed', async (t) => {
  const { key } = await goLive(svc, 'Declined return');
  const intent = await ngnIntent(key);
  const res = await confirm(svc, key, intent.id, { payment_method: { type: 'card', card: {} } });
  const operation = res.body.latest_operation as string;
  const reference = paystackReference(operation);
  standin.checkout(reference, { declined: 'Declined' });
  const verifications = () => standin.requests.filter((r) => r.method === 'GET' && r.path === `/transaction/verify/${reference}`).length;
  const before = verifications();
  // Paystack sends no webhook for a decline: before the return, only the schedule (2 min away) would ask.
  await settleJobs();
  t.match(await retrieve(svc, key, intent.id), { status: 'requires_action' }, 'nothing known yet');
  const back = await fetch(`${svc.baseUrl}/operations/status/${operation}?trxref=${reference}&reference=${reference}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
  t.equal(back.status, 303, 'the browser is sent on to the page without Paystack’s parameters');
  t.equal(back.headers.get('location'), `/operations/status/${operation}`, 'whose reloads ask nothing more');
  await settleJobs();
  t.equal(verifications(), before + 1, 'the return asked Paystack once');
  t.match(await retrieve(svc, key, intent.id), { status: 'failed', last_payment_error: { code: 'card_declined' } }, 'failed with the bank’s words');
  const page = await svc.request('GET', `/operations/status/${operation}`, { headers: { accept: 'text/html' } });
  t.equal(page.status, 200);
  await settleJobs();
  t.equal(verifications(), before + 1, 'a visit without the rail’s parameters asks nothing');
  const again = await svc.request('GET', `/operations/status/${operation}?trxref=${reference}&reference=${reference}`);
  t.equal(again.status, 200, 'a final operation: the page itself, nothing asked');
  await settleJobs();
  t.equal(verifications(), before + 1);
  conforms(t);
});

/** A live NGN card payment the payer paid on Paystack's checkout page, no webhook told yet; its transaction's reference. */
async function paidOnCheckout(key: string) {
  const intent = await ngnIntent(key);
  const res = await confirm(svc, key, intent.id, { payment_method: { type: 'card', card: {} } });
  const reference = paystackReference(res.body.latest_operation as string);
  standin.checkout(reference);
  return { intent, reference };
}

t.test('an unverified charge.success makes Sika call nothing', async (t) => {
  const { key } = await goLive(svc, 'Forged charge news');
  const { intent, reference } = await paidOnCheckout(key);
  const asked = standin.requests.length;
  for (const forge of ['unsigned', 'other_key'] as const) t.equal(await standin.sendChargeWebhook(reference, { forge }), 401, `${forge}: 401`);
  await settleJobs();
  t.equal(standin.requests.length, asked, 'no verification asked of Paystack for unverified news');
  t.match(await retrieve(svc, key, intent.id), { status: 'requires_action' }, 'nothing moved');
  conforms(t);
});

t.test('a verified charge.success without Sika’s metadata asks for the status check its reference names', async (t) => {
  const { key } = await goLive(svc, 'Charge news');
  const { intent, reference } = await paidOnCheckout(key);
  const asked = standin.requests.length;
  for (const metadata of [null, '']) t.equal(await standin.sendChargeWebhook(reference, { override: { metadata } }), 200, `signed, metadata ${JSON.stringify(metadata)}: taken`);
  await settleJobs();
  t.ok(
    standin.requests.slice(asked).some((r) => r.method === 'GET' && r.path === `/transaction/verify/${reference}`),
    'the transaction verified by its reference',
  );
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded', amount_received: 500_000 }, 'succeeded once the verification matched');
  t.same(await funds(key), { available: 0, pending: 500_000 - cardFee(500_000), reserved: 0 }, 'once on the balance');
  conforms(t);
});

t.test('a saved card is charged by its token; a decline fails with its code; a single-use card is refused', async (t) => {
  const { key } = await goLive(svc, 'Saved cards');
  const first = await ngnIntent(key, 'bola@example.com');
  const redirect = await confirm(svc, key, first.id, { payment_method: { type: 'card', card: {} } });
  standin.checkout(paystackReference(redirect.body.latest_operation as string));
  await standin.sendChargeWebhook(paystackReference(redirect.body.latest_operation as string));
  await settleJobs();
  const customer = (await retrieve(svc, key, first.id)).customer as string;
  const token = (await svc.request('GET', `/api/v1/merchant/customers/${customer}/cards`, { key })).body.data[0].token as string;

  const again = await ngnIntent(key, 'bola@example.com', 200_000);
  const charged = await confirm(svc, key, again.id, { payment_method: { type: 'card', card: { token } } });
  t.equal(charged.status, 200, charged.text);
  t.match(standin.chargeRequests.at(-1), { path: '/transaction/charge_authorization', body: { email: 'bola@example.com', amount: 200_000, currency: 'NGN', authorization_code: /^AUTH_/ } });
  await settleJobs();
  t.match(await retrieve(svc, key, again.id), { status: 'succeeded', amount_received: 200_000 }, 'charged by its token, verified before money moved');

  standin.nextCharge({ type: 'decline', message: 'Insufficient Funds' });
  const declined = await ngnIntent(key, 'bola@example.com', 200_000);
  const no = await confirm(svc, key, declined.id, { payment_method: { type: 'card', card: { token } } });
  t.match(no.body, { status: 'failed', last_payment_error: { code: 'insufficient_funds' } }, 'a decline fails with its code');

  standin.nextCharge({ type: 'open_url' });
  const secure = await ngnIntent(key, 'bola@example.com', 200_000);
  t.match(
    (await confirm(svc, key, secure.id, { payment_method: { type: 'card', card: { token } } })).body,
    { status: 'requires_action', next_action: { redirect_to_url: { url: new RegExp(`^${standin.url}/3ds/`) } } },
    'open_url: the payer goes to the bank’s page',
  );
  standin.nextCharge({ type: 'send_otp' });
  const otp = await ngnIntent(key, 'bola@example.com', 200_000);
  t.match((await confirm(svc, key, otp.id, { payment_method: { type: 'card', card: { token } } })).body, { status: 'processing' }, 'send_otp: processing, never a success until verified');
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, otp.id), { status: 'processing' }, 'still ongoing at the status check');

  const onPage = await ngnIntent(key, 'bola@example.com', 200_000);
  const page = await confirm(svc, key, onPage.id, { payment_method: { type: 'card', card: {} } });
  standin.checkout(paystackReference(page.body.latest_operation as string), { declined: 'Declined' });
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, onPage.id), { status: 'failed', last_payment_error: { code: 'card_declined', message: 'Declined' } }, 'declined on the checkout page: the status check (no webhook) fails it');

  const single = await ngnIntent(key, 'chidi@example.com');
  const singlePage = await confirm(svc, key, single.id, { payment_method: { type: 'card', card: {} } });
  standin.checkout(paystackReference(singlePage.body.latest_operation as string), { reusable: false, last4: '1111' });
  await advance(svc, FIRST_CHECK);
  const chidi = (await retrieve(svc, key, single.id)).customer as string;
  const singleToken = (await svc.request('GET', `/api/v1/merchant/customers/${chidi}/cards`, { key })).body.data[0];
  t.match(singleToken, { reusable: false, last4: '1111' });
  const reuse = await ngnIntent(key, 'chidi@example.com');
  assertError(t, await confirm(svc, key, reuse.id, { payment_method: { type: 'card', card: { token: singleToken.token } } }), 'IKW-PRV-013', 'payment_method.card.token');

  const other = await goLive(svc, 'Other card merchant');
  const theirs = await ngnIntent(other.key, 'bola@example.com');
  assertError(t, await confirm(svc, other.key, theirs.id, { payment_method: { type: 'card', card: { token } } }), 'IKW-PRV-014', 'payment_method.card.token');
  t.equal((await svc.request('GET', `/api/v1/merchant/customers/${customer}/cards`, { key: other.key })).status, 404, 'another merchant’s customer: 404');
  const anonymous = await createIntent(svc, key, { amount: 500_000, currency: 'ngn', transaction_country: 'NG' });
  assertError(t, await confirm(svc, key, anonymous.id, { payment_method: { type: 'card', card: {} } }), 'IKW-PRV-015', 'customer');
  conforms(t);
});

t.test('the same webhook five times at once, and a success then a late failure: the payout is paid once', async (t) => {
  const { merchant, key, payOut } = await liveMerchant('Racing webhooks');
  const res = await payOut(account('0923456789'));
  const reference = paystackReference(res.body.id as string);
  standin.settle(reference, 'success');
  t.same(await Promise.all([1, 2, 3, 4, 5].map(() => standin.sendWebhook('transfer.success', reference))), [200, 200, 200, 200, 200]);
  await settleJobs();
  standin.settle(reference, 'failed');
  t.equal(await standin.sendWebhook('transfer.failed', reference), 200, 'a late, contradicting webhook is taken');
  await settleJobs();
  t.match((await getPayout(svc, key, res.body.id as string)).body, { status: 'paid' }, 'a final payout stays final');
  t.same(await funds(key), { available: 1_000_000 - 50_000 - fee, pending: 0, reserved: 0 }, 'paid once, never given back on a late failure');
  await ledgerBalanced(t, merchant.id);
  conforms(t);
});

t.test('reconciliation reads Paystack’s balance (GET /balance, kobo) against rail_clearing:paystack', async (t) => {
  const connector = svc.system.connectors.named('live', 'paystack')!;
  t.ok(connector.holdsFunds, 'Paystack keeps Sika’s money: its attempts post to rail_clearing:paystack');
  standin.balances.set('NGN', 0);
  const first = await reconcileRail(svc.system, connector, 'live');
  const expected = first.wallets.find((w) => w.currency === 'ngn')?.expected ?? 0;
  standin.balances.set('NGN', expected);
  const agreed = await reconcileRail(svc.system, connector, 'live');
  t.same(agreed.wallets, [], 'once Paystack holds what the ledger expects, no difference');
  standin.balances.set('NGN', expected + 100);
  t.same((await reconcileRail(svc.system, connector, 'live')).wallets, [{ currency: 'ngn', expected, reported: expected + 100, difference: 100 }], 'a kobo difference is reported exactly');
  conforms(t);
});
