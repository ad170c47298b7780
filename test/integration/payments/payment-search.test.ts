/**
 * The dashboard's payment search (GET /api/v1/payment-intents?q=, docs/payments.md) finds a
 * payment by what its payer holds: the receipt's references (the payment's id, the operation's id,
 * the operator's transaction id), the last digits of the number that paid or of the customer's
 * number, the payer's e-mail in any case. Another merchant's payment with the same number and
 * e-mail, and the other environment's, are never found.
 */
import t from '#tap';
import { confirm, createIntent, mobileMoney, operatorAnswers, retrieve, snNumber } from '../../support/payments.js';
import { pawapayId } from '#packages/connectors/pawapay/index.js';
import { goLive, startPawapayLive } from '../../support/live.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const { merchant, key } = await svc.sandboxMerchant('Boutique Awa');
const { key: otherKey } = await svc.sandboxMerchant('Other shop');
const { secret: liveKey } = await svc.apiKey(merchant.id, ['*'], 'live');

const search = async (q: string, withKey = key) => {
  const res = await svc.request('GET', `/api/v1/payment-intents?q=${encodeURIComponent(q)}`, { key: withKey });
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return (res.body.data as { id: string }[]).map((p) => p.id);
};

// Fatou pays from …45 00 with her e-mail; Moussa is a customer whose own number ends 3389 and pays from …45 67;
// another merchant's payer has Fatou's number and e-mail. Made first, then paid.
const fatou = await createIntent(svc, key, { customer_email: 'fatou@example.com' });
const moussa = await createIntent(svc, key, { customer_phone: '+221765553389' });
const elsewhere = await createIntent(svc, otherKey, { customer_email: 'fatou@example.com' });
for (const [intent, withKey, msisdn] of [
  [fatou, key, snNumber('00')],
  [moussa, key, snNumber('67')],
  [elsewhere, otherKey, snNumber('00')],
] as const) {
  const confirmed = await confirm(svc, withKey, intent.id, { payment_method: mobileMoney(msisdn) });
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.text}`);
}
await operatorAnswers(svc);
const receipt = await retrieve(svc, key, fatou.id);

t.test('the receipt’s references find the payment', async (t) => {
  t.equal(receipt.status, 'succeeded');
  t.same(await search(fatou.id), [fatou.id], 'the payment’s id');
  t.same(await search(receipt.latest_operation), [fatou.id], 'the operation’s id');
});

t.test('the operator’s transaction id (pawaPay’s providerTransactionId, live), and only the merchant’s own', async (t) => {
  const { svc: live, standin } = await startPawapayLive(t);
  const [{ key: liveKey }, { key: otherLiveKey }] = [await goLive(live, 'Boutique Awa'), await goLive(live, 'Other shop')];
  const intent = await createIntent(live, liveKey);
  const confirmed = await confirm(live, liveKey, intent.id, { payment_method: mobileMoney(snNumber('67')) });
  const depositId = pawapayId(confirmed.body.latest_operation as string);
  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId), 200);
  await live.system.scheduler.runUntilIdle();
  const paid = await retrieve(live, liveKey, intent.id);
  t.equal(paid.status, 'succeeded');
  t.equal(paid.provider_reference, standin.operation('deposits', depositId)!.providerTransactionId);
  const found = await live.request('GET', `/api/v1/payment-intents?q=${encodeURIComponent(paid.provider_reference)}`, { key: liveKey });
  t.same(
    found.body.data.map((p: { id: string }) => p.id),
    [intent.id],
  );
  const other = await live.request('GET', `/api/v1/payment-intents?q=${encodeURIComponent(paid.provider_reference)}`, { key: otherLiveKey });
  t.same(other.body.data, [], 'another merchant finds nothing by it');
});

t.test('the number that paid, by its last digits, typed any way', async (t) => {
  t.same(await search('4500'), [fatou.id]);
  t.same(await search('500'), [fatou.id], 'three digits');
  t.same(await search('+221 77 123 45 00'), [fatou.id], 'the whole number, spaced');
  t.same(await search('4567'), [moussa.id]);
  t.same(await search('45'), [], 'two digits are too few to mean a number');
});

t.test('the customer’s own number', async (t) => {
  t.same(await search('3389'), [moussa.id]);
  t.same(await search('765553389'), [moussa.id], 'more than four digits: the whole number ends with them');
  t.same(await search('1115553389'), [], 'digits the number does not end with');
});

t.test('the payer’s e-mail, in any case', async (t) => {
  t.same(await search('fatou@example.com'), [fatou.id]);
  t.same(await search('FATOU@Example.com'), [fatou.id]);
  t.same(await search('nobody@example.com'), []);
});

t.test('another merchant’s and the other environment’s payments are never found', async (t) => {
  t.same(await search(fatou.id, otherKey), [], 'an id of another merchant');
  t.same(await search(receipt.latest_operation, otherKey), [], 'an operation of another merchant');
  t.same(await search('4500', otherKey), [elsewhere.id], 'the other merchant finds only its own');
  t.same(await search('fatou@example.com', otherKey), [elsewhere.id]);
  t.same(await search('3389', otherKey), []);
  t.same(await search('fatou@example.com', liveKey), [], 'live has its own');
  t.same(await search(fatou.id, liveKey), []);
});
