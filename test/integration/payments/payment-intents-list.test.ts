/**
 * GET /api/v1/payment-intents with its filters (docs/payments.md): status (one or several),
 * created[gt|gte|lt|lte], amount[gte|lte], and q (an intent or customer id, or words of the
 * description); each refusal of a malformed filter; another merchant's and the other environment's
 * intents never listed; the filters and the cursor together.
 */
import t from '#tap';
import { assertError, confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const { merchant, key } = await svc.sandboxMerchant('Boutique Liste');
const { key: otherKey } = await svc.sandboxMerchant('Other shop');
const { secret: liveKey } = await svc.apiKey(merchant.id, ['*'], 'live');
const list = async (query: string, withKey = key) => {
  const res = await svc.request('GET', `/api/v1/payment-intents?${query}`, { key: withKey });
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return (res.body.data as { id: string }[]).map((p) => p.id);
};

// Day 1: a basket paid (succeeded) and shoes refused (failed); day 2: a hat never confirmed, paid by a customer.
const basket = await createIntent(svc, key, { amount: 5_000, description: 'Basket of mangoes' });
const shoes = await createIntent(svc, key, { amount: 20_000, description: 'Red shoes 100%_off' });
for (const [intent, ending] of [
  [basket, '00'],
  [shoes, '01'],
] as const) {
  const confirmed = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber(ending)) });
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.text}`);
}
await operatorAnswers(svc);
svc.clock.advance(86_400_000);
const dayTwo = Math.floor(svc.clock.now().getTime() / 1000);
const hat = await createIntent(svc, key, { amount: 12_000, description: 'Straw hat', customer_email: 'fatou@example.com' });
const customer = hat.customer as string;
await createIntent(svc, otherKey, { amount: 5_000, description: 'Basket of mangoes' });

t.test('no filter: every intent of the merchant and environment, newest first', async (t) => {
  t.same(await list(''), [hat.id, shoes.id, basket.id]);
  t.same(await list('', liveKey), [], 'live has its own');
});

t.test('status: one or several', async (t) => {
  t.same(await list('status=succeeded'), [basket.id]);
  t.same(await list('status=failed,requires_payment_method'), [hat.id, shoes.id]);
  assertError(t, await svc.request('GET', '/api/v1/payment-intents?status=paid', { key }), 'IKW-VAL-001');
  assertError(t, await svc.request('GET', '/api/v1/payment-intents?status=succeeded,', { key }), 'IKW-VAL-001');
});

t.test('created: bounds in Unix seconds, inclusive or not', async (t) => {
  t.same(await list(`created[gte]=${dayTwo}`), [hat.id]);
  t.same(await list(`created[lt]=${dayTwo}`), [shoes.id, basket.id]);
  t.same(await list(`created[gt]=${dayTwo}`), [], 'after the second the hat was made in');
  t.same(await list(`created[lte]=${dayTwo}`), [hat.id, shoes.id, basket.id]);
  assertError(t, await svc.request('GET', '/api/v1/payment-intents?created[gte]=yesterday', { key }), 'IKW-VAL-001');
});

t.test('amount: bounds in minor units, inclusive', async (t) => {
  t.same(await list('amount[gte]=12000'), [hat.id, shoes.id]);
  t.same(await list('amount[lte]=12000'), [hat.id, basket.id]);
  t.same(await list('amount[gte]=5000&amount[lte]=5000'), [basket.id]);
  assertError(t, await svc.request('GET', '/api/v1/payment-intents?amount[gte]=-1', { key }), 'IKW-VAL-001');
  assertError(t, await svc.request('GET', '/api/v1/payment-intents?amount[lte]=12.5', { key }), 'IKW-VAL-001');
});

t.test('q: an intent id or a customer id exactly, or words of the description', async (t) => {
  t.same(await list(`q=${shoes.id}`), [shoes.id]);
  t.same(await list(`q=${customer}`), [hat.id]);
  t.same(await list('q=MANGOES'), [basket.id], 'case-insensitive words');
  t.same(await list('q=100%25_'), [shoes.id], '% and _ are the characters themselves');
  t.same(await list('q=%25'), [shoes.id]);
  t.same(await list('q=nothing'), []);
  t.same(await list(`q=${basket.id}`, otherKey), [], "another merchant's id finds nothing");
  assertError(t, await svc.request('GET', '/api/v1/payment-intents?q=', { key }), 'IKW-VAL-001');
});

t.test('filters and the cursor together', async (t) => {
  const first = await svc.request('GET', '/api/v1/payment-intents?status=failed,succeeded,requires_payment_method&limit=2', { key });
  t.same(
    first.body.data.map((p: { id: string }) => p.id),
    [hat.id, shoes.id],
  );
  t.equal(first.body.has_more, true);
  t.same(await list(`status=failed,succeeded,requires_payment_method&limit=2&starting_after=${shoes.id}`), [basket.id]);
  t.same(await list(`amount[gte]=10000&ending_before=${shoes.id}`), [hat.id]);
});
