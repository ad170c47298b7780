/**
 * Cards paid with on funding contributions (docs/funding.md): the contributor types the e-mail, so
 * a card is kept only on a customer the contribution created, never on one the address matched (a
 * stranger typing a customer's address must not put their card on that customer). Live NGN cards
 * through the real Paystack connector and its stand-in on loopback.
 */
import t from '#tap';
import { paystackReference } from '#packages/connectors/paystack/index.js';
import { activeCampaign, contribute } from '../../support/funding.js';
import { createIntent, confirm, retrieve } from '../../support/payments.js';
import { goLive, startPaystackLive } from '../../support/live.js';

const { svc, standin } = await startPaystackLive(t);
const card = { type: 'card', card: {} };

/** Pays an intent through Paystack's checkout page, its success told by a signed webhook. */
async function payByCard(key: string, intentId: string, last4: string): Promise<void> {
  const operation = (await retrieve(svc, key, intentId)).latest_operation as string;
  const reference = paystackReference(operation);
  standin.checkout(reference, { last4 });
  if ((await standin.sendChargeWebhook(reference)) !== 200) throw new Error('charge webhook refused');
  await svc.system.scheduler.runUntilIdle();
}

async function contributeByCard(key: string, campaignId: string, email: string, idempotencyKey: string, last4: string) {
  const res = await contribute(svc, key, campaignId, { amountMinor: 500_000, currency: 'NGN', contributorEmail: email, paymentMethod: card, idempotencyKey });
  if (res.status !== 200) throw new Error(`contribute: ${res.status} ${res.text}`);
  await payByCard(key, res.body.paymentIntentId as string, last4);
  const intent = await retrieve(svc, key, res.body.paymentIntentId as string);
  if (intent.status !== 'succeeded') throw new Error(`not paid: ${JSON.stringify(intent)}`);
  return intent.customer as string;
}

const cardsOf = async (key: string, customer: string) => {
  const res = await svc.request('GET', `/api/v1/merchant/customers/${customer}/cards`, { key });
  if (res.status !== 200) throw new Error(res.text);
  return (res.body.data as { last4: string }[]).map((c) => c.last4);
};

t.test('a contributor typing a known customer’s e-mail pays, but the card is not kept on that customer', async (t) => {
  const { key } = await goLive(svc, 'Campaign cards');
  const campaign = await activeCampaign(svc, key, { currency: 'NGN', country: 'NG', targetAmountMinor: 10_000_000 });
  // The merchant's own customer, who paid by card before: their card is kept (the merchant named them).
  const own = await createIntent(svc, key, { amount: 300_000, currency: 'ngn', transaction_country: 'NG', customer_email: 'ada@example.com' });
  const redirect = await confirm(svc, key, own.id, { payment_method: { type: 'card', card: {} } });
  t.equal(redirect.status, 200, redirect.text);
  await payByCard(key, own.id, '1111');
  const ada = (await retrieve(svc, key, own.id)).customer as string;
  t.same(await cardsOf(key, ada), ['1111'], 'the merchant’s customer keeps the card they paid with');

  const stranger = await contributeByCard(key, campaign.id, 'ADA@example.com', 'stranger-1', '6666');
  t.equal(stranger, ada, 'the contribution names the customer the address matched');
  t.same(await cardsOf(key, ada), ['1111'], 'the stranger’s card is not kept on it');

  const fresh = await contributeByCard(key, campaign.id, 'bola@example.com', 'fresh-1', '2222');
  t.same(await cardsOf(key, fresh), ['2222'], 'a customer the contribution created keeps its card');
  await contributeByCard(key, campaign.id, 'bola@example.com', 'fresh-2', '7777');
  t.same(await cardsOf(key, fresh), ['2222'], 'a second contribution typing that address matches it: nothing more kept');

  // Another merchant: the same address is their own customer, created by their contribution.
  const other = await goLive(svc, 'Campaign cards elsewhere');
  const theirs = await activeCampaign(svc, other.key, { currency: 'NGN', country: 'NG', targetAmountMinor: 10_000_000 });
  const elsewhere = await contributeByCard(other.key, theirs.id, 'ada@example.com', 'elsewhere-1', '3333');
  t.not(elsewhere, ada);
  t.same(await cardsOf(other.key, elsewhere), ['3333'], 'created by this contribution at that merchant: kept there');
  t.equal((await svc.request('GET', `/api/v1/merchant/customers/${ada}/cards`, { key: other.key })).status, 404, 'another merchant’s customer: 404');
  t.same(await cardsOf(key, ada), ['1111']);
});
