/**
 * PAYSTACK_SANDBOX_SECRET_KEY: Sika's sandbox bank payouts and cards go to Paystack's test mode
 * (here the stand-in, keyed with an sk_test_ key) instead of the simulator; mobile money stays on
 * the simulator, and live stays refused without PAYSTACK_SECRET_KEY.
 */
import t from '#tap';
import { paystackReference } from '#packages/connectors/paystack/index.js';
import { assertError, confirm, createIntent, mobileMoney, snNumber } from '../support/payments.js';
import { fund, postPayout } from '../support/payouts.js';
import { startPaystackLive } from '../support/live.js';
import { activateLive } from '../support/system.js';

const { svc, standin } = await startPaystackLive(t, { environment: 'sandbox' });

t.test('sandbox bank payouts and cards through Paystack’s test mode; mobile money on the simulator; live refused', async (t) => {
  const m = await svc.merchant();
  const key = m.api_keys.sandbox;
  await fund(svc, m.id, 1_000_000, 'sandbox', 'ngn');
  standin.accountNames.set('058/0123456789', 'ADAEZE OKAFOR');
  const destination = { type: 'bank', currency: 'ngn', bank_code: '058', account_number: '0123456789', account_name: 'Adaeze Okafor' };
  const res = await postPayout(svc, key, { amount: 50_000, currency: 'ngn', destination }, { idempotencyKey: 'sandbox-bank' });
  t.match(res.body, { status: 'in_transit', livemode: false });
  t.ok(standin.transfer(paystackReference(res.body.id as string)), 'the transfer went to Paystack’s test mode');

  const cardIntent = await createIntent(svc, key, { amount: 500_000, currency: 'ngn', transaction_country: 'NG', customer_email: 'ada@example.com' });
  t.match((await confirm(svc, key, cardIntent.id, { payment_method: { type: 'card', card: {} } })).body, { status: 'requires_action', next_action: { type: 'redirect_to_url' } }, 'a card: Paystack’s test checkout');

  const intent = await createIntent(svc, key);
  t.match((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) })).body, { status: 'processing' }, 'mobile money: the simulator');
  t.equal(standin.requests.filter((r) => r.method === 'POST').length, 3, 'nothing of it reached Paystack (a recipient, a transfer, a transaction only)');

  await activateLive(svc, m.id);
  await fund(svc, m.id, 1_000_000, 'live', 'ngn');
  assertError(t, await postPayout(svc, m.api_keys.live, { amount: 50_000, currency: 'ngn', destination }, { idempotencyKey: 'live-bank' }), 'IKW-PRV-001', 'destination');
  t.same(standin.takeDeviations(), [], 'every request followed Paystack’s contract, keyed with the test key');
});
