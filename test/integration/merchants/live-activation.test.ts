/**
 * Live is opened by the approval of the merchant's activation application (docs/configuration.md,
 * "Live activation"): until then live payment confirmations and live payouts are refused with 403
 * IKW-PRV-005 before anything is held or recorded, and after a suspension with IKW-ACT-006; what
 * is under way finishes. No shell command or operator credential switches it; each switch is
 * audited on the merchant's stream with the deciding operator. Live money goes to a stand-in
 * operator that takes every collection and payout.
 */
import t from '#tap';
import { unixSeconds } from '#packages/core/clock.js';
import { createAdminKey } from '#packages/families/platform/platform-admin/commands.js';
import { merchantStream } from '#packages/families/merchants/merchant/events.js';
import { paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';
import type { CreatedMerchant } from '#packages/families/merchants/merchant/commands.js';
import type { CollectRequest } from '#packages/connectors/port.js';
import { startProcess } from '../../support/child-process.js';
import { assertError, assertOk, confirm, createIntent, mobileMoney as payWith, retrieve, snNumber } from '../../support/payments.js';
import { balance, fund, mobileMoney, postPayout, retrievePayout } from '../../support/payouts.js';
import { startPaymentsService } from '../../support/system.js';
import { approvedMerchant, liveRailsRecording, REVIEWER, submitApplication } from '../../support/activation.js';

const collects: CollectRequest[] = [];
const svc = await startPaymentsService(t, {
  rails: liveRailsRecording(collects),
});
const admin = await createAdminKey(svc.system.store, svc.clock, 'ops', 'test');
const LIVE = '/api/v1/configuration/live-activation';

const readLive = (key: string, merchantId?: string) => svc.request('GET', `${LIVE}${merchantId ? `?merchantId=${merchantId}` : ''}`, { key });

/** A merchant whose live balance holds 100 000 XOF. */
async function liveMerchant(): Promise<CreatedMerchant> {
  const m = await svc.merchant();
  await fund(svc, m.id, 100_000, 'live');
  return m;
}

let requests = 0;
const livePayout = (m: CreatedMerchant) => postPayout(svc, m.api_keys.live, { amount: 10_000, currency: 'xof', destination: mobileMoney('67') }, { idempotencyKey: `live-activation-${++requests}` });
const liveConfirm = async (m: CreatedMerchant) => {
  const intent = await createIntent(svc, m.api_keys.live);
  return { intent, res: await confirm(svc, m.api_keys.live, intent.id, { payment_method: payWith(snNumber('67')) }) };
};
const livePayouts = async (m: CreatedMerchant) => (await svc.system.knex('read.payouts').where({ merchant_id: m.id, environment: 'live' })).length;
const liveEvents = async (m: CreatedMerchant) => (await svc.system.store.readStream(merchantStream(m.id))).filter((e) => e.type.startsWith('merchant.live_'));

t.test('before the operator activates live: a live confirm and a live payout are IKW-PRV-005, nothing held or recorded; sandbox is unaffected', async (t) => {
  const m = await liveMerchant();
  const before = await balance(svc, m.api_keys.live);

  const { intent, res } = await liveConfirm(m);
  assertError(t, res, 'IKW-PRV-005', 'id');
  t.equal(collects.filter((c) => c.paymentIntentId === intent.id).length, 0, 'no operator asked');
  t.match(await retrieve(svc, m.api_keys.live, intent.id), { status: 'requires_payment_method', latest_operation: null });
  t.same(
    (await svc.system.store.readStream(paymentIntentStream(intent.id))).map((e) => e.type),
    ['payment_intent.created'],
    'nothing appended to the intent',
  );

  assertError(t, await livePayout(m), 'IKW-PRV-005', 'amount');
  t.same(await balance(svc, m.api_keys.live), before, 'nothing held');
  t.equal(await livePayouts(m), 0, 'no live payout');

  await fund(svc, m.id, 50_000);
  assertOk(t, await postPayout(svc, m.api_keys.sandbox, { amount: 10_000, currency: 'xof', destination: mobileMoney('67') }));
  const sandboxIntent = await createIntent(svc, m.api_keys.sandbox);
  assertOk(t, await confirm(svc, m.api_keys.sandbox, sandboxIntent.id, { payment_method: payWith(snNumber('67')) }));

  t.match((await readLive(m.api_keys.live)).body, { object: 'live_activation', merchantId: m.id, status: 'inactive', activated: null, deactivated: null }, 'the merchant reads that live is not activated');
});

t.test('no shell command or operator credential switches live: the old switches are gone', async (t) => {
  const m = await liveMerchant();
  for (const verb of ['activate', 'deactivate']) {
    const res = await svc.request('POST', `${LIVE}/${verb}`, { key: admin.secret, body: { merchantId: m.id } });
    t.equal(res.status, 404, `POST ${LIVE}/${verb} is no route`);
  }
  const run = startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['admin', 'merchants', 'activate-live', m.id]);
  t.equal(await run.exit, 2, 'bin/sika admin merchants activate-live is no command');
  t.same(await liveEvents(m), [], 'nothing recorded');
  assertError(t, await livePayout(m), 'IKW-PRV-005', 'amount');
  t.match((await readLive(admin.secret, m.id)).body, { merchantId: m.id, status: 'inactive', suspended: false }, 'the operator reads any merchant’s');
  assertError(t, await readLive(m.api_keys.live, (await svc.merchant('Other')).id), 'IKW-AUT-009', 'merchantId');
});

t.test('approval opens live, audited with its operator; the checklist and the live-activation view follow', async (t) => {
  const m = await liveMerchant();
  await submitApplication(svc, m.api_keys.live);
  assertError(t, await livePayout(m), 'IKW-PRV-005', 'amount');
  await svc.system.activationApplications.approve(m.id, REVIEWER);
  const now = unixSeconds(svc.clock.now());
  const events = await liveEvents(m);
  t.same(
    events.map((e) => e.type),
    ['merchant.live_activated'],
    'one event',
  );
  t.equal(events[0]!.metadata.actor, REVIEWER.actor, 'audited as the operator who approved');
  t.equal(events[0]!.metadata.merchant_id, m.id, 'in the merchant’s audit trail');
  t.same((await readLive(m.api_keys.sandbox)).body, { object: 'live_activation', merchantId: m.id, status: 'active', activated: now, deactivated: null, suspended: false }, 'the merchant reads it, with either key');
  assertOk(t, await livePayout(m));

  await svc.member(m, 'owner@live-activation.example', 'correct horse battery', 'owner');
  const token = await svc.signIn('owner@live-activation.example', 'correct horse battery');
  const steps = (await svc.request('GET', '/api/v1/onboarding/steps', { key: token })).body.data as { key: string; state: string }[];
  t.equal(steps.find((s) => s.key === 'live_activation')?.state, 'complete', 'the go-live checklist shows it');
});

t.test('approved, live money moves; suspended, new payments and payouts are refused with the suspension while those under way finish', async (t) => {
  const m = await liveMerchant();
  await approvedMerchant(svc, m.api_keys.live, m.id);

  const paying = await liveConfirm(m);
  assertOk(t, paying.res);
  t.equal(paying.res.body.status, 'processing');
  const underWay = await livePayout(m);
  assertOk(t, underWay);
  t.equal(underWay.body.status, 'in_transit', 'with the operator');

  svc.clock.advance(1000);
  await svc.system.activationApplications.suspend(m.id, 'Chargebacks reported by the card acquirer', REVIEWER);
  t.match((await readLive(m.api_keys.live)).body, { status: 'deactivated', deactivated: unixSeconds(svc.clock.now()), suspended: true });
  t.equal((await liveEvents(m)).at(-1)?.metadata.actor, REVIEWER.actor);

  const held = await balance(svc, m.api_keys.live);
  const refused = await liveConfirm(m);
  assertError(t, refused.res, 'IKW-ACT-006', 'id');
  t.match(refused.res.body.message, /suspended/, 'the refusal says the account is suspended');
  t.equal(collects.filter((c) => c.paymentIntentId === refused.intent.id).length, 0, 'no operator asked');
  assertError(t, await livePayout(m), 'IKW-ACT-006', 'amount');
  t.match(
    (await svc.request('GET', '/api/v1/merchant/activation', { key: m.api_keys.live })).body,
    { status: 'suspended', decision: { decision: 'suspended', reason: 'Chargebacks reported by the card acquirer' } },
    'the merchant reads why',
  );
  t.same(await balance(svc, m.api_keys.live), held, 'nothing more held');
  t.equal(await livePayouts(m), 1, 'only the payout under way');

  // What the operator reports of what was under way is applied as before.
  const operation = collects.find((c) => c.paymentIntentId === paying.intent.id)!;
  await svc.system.collectionOutcomes.applyCallback({ paymentIntentId: paying.intent.id, operationId: operation.operationId, merchantId: m.id, environment: 'live', outcome: { status: 'succeeded' }, connector: 'live-stand-in' });
  t.equal((await retrieve(svc, m.api_keys.live, paying.intent.id)).status, 'succeeded', 'the payment under way succeeds');
  await svc.system.payoutOperatorSide.applyCallback({ payoutId: underWay.body.id, merchantId: m.id, environment: 'live', report: { type: 'paid' }, connector: 'live-stand-in' });
  t.equal((await retrievePayout(svc, m.api_keys.live, underWay.body.id)).status, 'paid', 'the payout under way is paid');
  t.equal((await balance(svc, m.api_keys.live)).reserved, 0, 'its hold ended');

  await svc.system.activationApplications.reinstate(m.id, REVIEWER);
  const again = await livePayout(m);
  assertOk(t, again);
  t.equal(again.body.status, 'in_transit', 'reinstated, payouts go again');
});
