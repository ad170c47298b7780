/**
 * Live Ghana and Kenya mobile money payouts through Paystack (docs/connectors.md, "Paystack",
 * "Mobile money payouts"), end to end through the public API: the real PaystackConnector over HTTP
 * to the Paystack stand-in, which checks every `mobile_money` recipient and transfer against
 * Paystack's contract. Here pawaPay is not configured, so Paystack carries the mobile money it
 * lists; which rail carries what when both are configured is paystack-routing.test.ts's.
 */
import t, { type Test } from '#tap';
import { paystackReference } from '#packages/connectors/paystack/index.js';
import { isBalanced } from '#packages/ledger/entry.js';
import { balanceStream, type LedgerEvent } from '#packages/families/ledger/events.js';
import { assertError, balance, fund, getPayout, payoutFee, postPayout } from '../support/payouts.js';
import { goLive, startPaystackLive } from '../support/live.js';
import { advance } from '../support/system.js';

const { svc, standin } = await startPaystackLive(t);
const MINUTE = 60_000;
const FIRST_CHECK = 2 * MINUTE;
const AMOUNT = 50_000;

/** A Ghana MTN wallet (`+233 24…`) and a Kenya M-Pesa one (`+254 7…`), as merchants give them. */
const ghWallet = (last = '67', operator = 'mtn') => ({ type: 'mobile_money', country: 'GH', operator, msisdn: `+23324412${last.padStart(4, '3')}` });
const keWallet = (last = '67', operator = 'mpesa') => ({ type: 'mobile_money', country: 'KE', operator, msisdn: `+2547123${last.padStart(5, '4')}` });
const currencyOf = (destination: { country: string }) => (destination.country === 'GH' ? 'ghs' : 'kes');

function conforms(t: Test): void {
  t.same(standin.takeDeviations(), [], 'every request followed Paystack’s contract');
}

const settleJobs = () => svc.system.scheduler.runUntilIdle();

async function liveMerchant(name: string) {
  const { merchant, key } = await goLive(svc, name);
  for (const currency of ['ghs', 'kes']) await fund(svc, merchant.id, 1_000_000, 'live', currency);
  let n = 0;
  const payOut = (destination: { country: string } & Record<string, unknown>, idempotencyKey = `${name.replace(/\W+/g, '-')}-${++n}`) =>
    postPayout(svc, key, { amount: AMOUNT, currency: currencyOf(destination), destination }, { idempotencyKey });
  const funds = (currency: string) => balance(svc, key, currency);
  return { merchant, key, payOut, funds };
}

async function ledgerBalanced(t: Test, merchantId: string, currency: string): Promise<void> {
  const events = (await svc.system.store.readStream(balanceStream(merchantId, 'live', currency))) as unknown as LedgerEvent[];
  t.ok(events.length > 0 && events.every((e) => !('lines' in e.data) || isBalanced((e.data as { lines: Parameters<typeof isBalanced>[0] }).lines)), `every ${currency} ledger entry balances`);
}

t.test('a Ghana and a Kenya mobile money payout are paid through Paystack: a mobile_money recipient once, the transfer under the payout’s reference', async (t) => {
  const { merchant, key, payOut, funds } = await liveMerchant('Wallet payouts');
  for (const [destination, bankCode] of [
    [ghWallet('01'), 'MTN'],
    [keWallet('02'), 'MPESA'],
  ] as const) {
    const number = `0${destination.msisdn.slice(4)}`;
    const currency = currencyOf(destination);
    const fee = payoutFee(AMOUNT, { type: 'mobile_money', country: destination.country, operator: destination.operator }, currency);
    const res = await payOut(destination);
    t.equal(res.status, 200, res.text);
    t.match(res.body, { status: 'in_transit', livemode: true, amount: AMOUNT, fee });
    const recipient = standin.requests
      .filter((r) => r.path === '/transferrecipient')
      .map((r) => JSON.parse(r.body) as Record<string, unknown>)
      .at(-1);
    t.same(recipient, { type: 'mobile_money', name: number, account_number: number, bank_code: bankCode, currency: currency.toUpperCase() }, `${destination.country}: the wallet by its national number, the operator by Paystack’s code`);
    const reference = paystackReference(res.body.id as string);
    t.match(standin.transferRequests.at(-1), { source: 'balance', amount: AMOUNT, currency: currency.toUpperCase(), reference }, 'the subunit as an integer, the reference derived from the payout id');
    t.same(await funds(currency), { available: 1_000_000 - AMOUNT - fee, pending: 0, reserved: AMOUNT + fee }, 'held while in transit');

    standin.settle(reference, 'success');
    t.equal(await standin.sendWebhook('transfer.success', reference), 200);
    t.equal(await standin.sendWebhook('transfer.success', reference), 200, 'Paystack retries: the same webhook again');
    await settleJobs();
    t.match((await getPayout(svc, key, res.body.id as string)).body, { status: 'paid', provider_reference: standin.transfer(reference)!.transferCode });
    t.same(await funds(currency), { available: 1_000_000 - AMOUNT - fee, pending: 0, reserved: 0 }, 'paid once');
    await ledgerBalanced(t, merchant.id, currency);
  }
  const before = standin.recipientRequests;
  t.equal((await payOut(ghWallet('01'))).status, 200);
  t.equal(standin.recipientRequests, before, 'the same wallet again: its recipient is kept, not created again');
  conforms(t);
});

t.test('a failed or reversed wallet transfer fails the payout with the money back', async (t) => {
  const { merchant, key, payOut, funds } = await liveMerchant('Wallet reversals');
  const reversed = await payOut(ghWallet('11', 'telecel'));
  const failed = await payOut(keWallet('12'));
  for (const [res, status] of [
    [reversed, 'reversed'],
    [failed, 'failed'],
  ] as const) {
    t.equal(res.status, 200, res.text);
    const reference = paystackReference(res.body.id as string);
    standin.settle(reference, status);
    t.equal(await standin.sendWebhook(`transfer.${status}`, reference), 200);
  }
  await settleJobs();
  t.match((await getPayout(svc, key, reversed.body.id as string)).body, { status: 'failed', failure_code: 'transfer_reversed' });
  t.match((await getPayout(svc, key, failed.body.id as string)).body, { status: 'failed', failure_code: 'transfer_failed' });
  t.same(await funds('ghs'), { available: 1_000_000, pending: 0, reserved: 0 }, 'the Ghana payout’s money and fee back');
  t.same(await funds('kes'), { available: 1_000_000, pending: 0, reserved: 0 }, 'the Kenya payout’s too');
  await ledgerBalanced(t, merchant.id, 'ghs');
  conforms(t);
});

t.test('an OTP requirement delays a wallet payout with its reason; a lost answer never starts a second transfer', async (t) => {
  const { key, payOut } = await liveMerchant('Wallet OTP');
  standin.next({ type: 'otp' });
  const otp = await payOut(ghWallet('21'));
  await settleJobs();
  t.match((await getPayout(svc, key, otp.body.id as string)).body, { status: 'in_transit', delay_state: 'delayed', delay_reason: 'provider_action_required' }, 'delayed, never failed');

  standin.next({ type: 'lose_answer' });
  const lost = await payOut(keWallet('22'));
  t.equal(lost.status, 200, lost.text);
  t.match(lost.body, { status: 'pending' }, 'the answer lost: pending under the same reference');
  const reference = paystackReference(lost.body.id as string);
  await advance(svc, FIRST_CHECK);
  t.match((await getPayout(svc, key, lost.body.id as string)).body, { status: 'in_transit' }, 'found by the status check');
  standin.settle(reference, 'success');
  standin.settle(paystackReference(otp.body.id as string), 'success');
  await advance(svc, 5 * MINUTE);
  t.match((await getPayout(svc, key, lost.body.id as string)).body, { status: 'paid' }, 'paid at the next check (no webhook came)');
  t.match((await getPayout(svc, key, otp.body.id as string)).body, { status: 'paid' }, 'the OTP one too, once Paystack says success');
  t.equal(standin.transferRequests.filter((r) => r.reference === reference).length, 1, 'one transfer, never a second');
  conforms(t);
});

t.test('another merchant’s wallet payout is a 404 and its recipient is its own; parallel requests are one payout', async (t) => {
  const owner = await liveMerchant('Wallet owner');
  const other = await liveMerchant('Wallet other');
  const res = await owner.payOut(ghWallet('31'));
  t.equal((await getPayout(svc, other.key, res.body.id as string)).status, 404, 'another merchant’s payout: 404');
  const before = standin.recipientRequests;
  t.equal((await other.payOut(ghWallet('31'))).status, 200);
  t.equal(standin.recipientRequests, before + 1, 'the same wallet for another merchant: a recipient kept for that merchant');

  const body = { amount: AMOUNT, currency: 'ghs', destination: ghWallet('32') };
  const answers = await Promise.all([1, 2, 3].map(() => postPayout(svc, owner.key, body, { idempotencyKey: 'wallet-same-request' })));
  const ids = new Set(answers.filter((r) => r.status === 200).map((r) => r.body.id as string));
  t.equal(ids.size, 1, 'one payout for one Idempotency-Key');
  t.equal(standin.transferRequests.filter((r) => r.reference === paystackReference([...ids][0]!)).length, 1, 'one transfer');
  const parallel = await Promise.all(['33', '34', '35'].map((last) => owner.payOut(ghWallet(last))));
  t.same(
    parallel.map((r) => r.status),
    [200, 200, 200],
    'three wallets at once',
  );
  t.equal(new Set(parallel.map((r) => paystackReference(r.body.id as string))).size, 3, 'three transfers, each under its payout’s reference');
  conforms(t);
});

t.test('an operator Paystack does not list is refused with IKW-PRV-001 before anything is held', async (t) => {
  const { payOut, funds } = await liveMerchant('Wallet refusals');
  const before = standin.requests.length;
  assertError(t, await payOut(keWallet('41', 'airtel_money')), 'IKW-PRV-001', 'destination');
  t.same(await funds('kes'), { available: 1_000_000, pending: 0, reserved: 0 }, 'nothing held');
  t.equal(standin.requests.length, before, 'nothing asked of Paystack');
  conforms(t);
});
