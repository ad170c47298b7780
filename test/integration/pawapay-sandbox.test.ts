/**
 * PAWAPAY_SANDBOX_API_TOKEN: Sika's sandbox mobile money goes through pawaPay's sandbox (here the
 * stand-in) instead of the simulator, cards still to the simulator; live stays refused without
 * PAWAPAY_API_TOKEN. With PAWAPAY_CALLBACK_SIGNATURES=off an unsigned callback is not refused but
 * never believed either: a status check decides.
 */
import t from '#tap';
import { pawapayId } from '#packages/connectors/pawapay/index.js';
import { assertError, card, confirm, createIntent, mobileMoney, retrieve, snNumber } from '../support/payments.js';
import { startPawapayLive } from '../support/live.js';
import { activateLive } from '../support/system.js';

const { svc, standin } = await startPawapayLive(t, { environment: 'sandbox', service: { env: { PAWAPAY_CALLBACK_SIGNATURES: 'off' } } });
const deposits = () => standin.requests.filter((r) => r.method === 'POST' && r.path === '/v2/deposits').length;

t.test('sandbox mobile money through pawaPay’s sandbox; cards on the simulator; live refused', async (t) => {
  const m = await svc.merchant();
  const key = m.api_keys.sandbox;
  const intent = await createIntent(svc, key);
  const res = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) });
  t.match(res.body, { status: 'processing', livemode: false });
  t.equal(deposits(), 1, 'the deposit went to pawaPay’s sandbox');
  const depositId = pawapayId(res.body.latest_operation as string);

  const cardIntent = await createIntent(svc, key);
  t.match((await confirm(svc, key, cardIntent.id, { payment_method: card('tok_visa') })).body, { status: 'processing' });
  t.equal(deposits(), 1, 'a card goes to the simulator');

  await activateLive(svc, m.id);
  const live = await createIntent(svc, m.api_keys.live);
  assertError(t, await confirm(svc, m.api_keys.live, live.id, { payment_method: mobileMoney(snNumber('67')) }), 'IKW-PRV-001', 'payment_method');

  // Unsigned, with PAWAPAY_CALLBACK_SIGNATURES=off: taken (200), not believed; the status check reads pawaPay's record.
  standin.settle('deposits', depositId, 'ACCEPTED');
  t.equal(await standin.sendCallback('deposits', depositId, { forge: 'unsigned', override: { status: 'COMPLETED' } }), 200, 'unsigned: 200, not 401');
  await svc.system.scheduler.runUntilIdle();
  t.match(await retrieve(svc, key, intent.id), { status: 'processing' }, 'its COMPLETED is not believed: pawaPay says ACCEPTED');
  standin.settle('deposits', depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', depositId, { forge: 'unsigned' }), 200);
  await svc.system.scheduler.runUntilIdle();
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded' }, 'once pawaPay’s record says COMPLETED, the status check applies it');
  t.equal(await standin.sendCallback('deposits', depositId, { forge: 'other_key' }), 401, 'a forged signature is still refused');
  t.same(standin.takeDeviations(), [], 'every request followed pawaPay’s contract');
});

t.test('Hub2’s webhook on a service without a Hub2 account: 404 IKW-PRV-004, nothing read', async (t) => {
  const res = await svc.request('POST', '/connectors/hub2/events', { body: { id: 'evt_1', type: 'transfer.succeeded', data: { id: 'tr_1', reference: 'po_1' } }, headers: { 'hub2-signature': `s1=${'ab'.repeat(32)}` } });
  assertError(t, res, 'IKW-PRV-004');
});

t.test('Paystack’s webhook on a service without a Paystack key: 404 IKW-PRV-004, nothing read', async (t) => {
  const res = await svc.request('POST', '/connectors/paystack/events', { body: { event: 'transfer.success', data: { reference: 'sika-706f5f78' } }, headers: { 'x-paystack-signature': 'ab'.repeat(64) } });
  assertError(t, res, 'IKW-PRV-004');
});
