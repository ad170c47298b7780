/**
 * Live is opened by the platform operator (docs/configuration.md, "Live activation"): until the
 * operator activates a merchant's live environment, and again once it deactivates it, live payment
 * confirmations and live payouts are refused with 403 IKW-PRV-005 before anything is held or
 * recorded; what is under way finishes. Only the operator credential (or `bin/sika admin merchants
 * …` on the server) switches it, audited on the merchant's stream. Live money goes to a stand-in
 * operator that takes every collection and payout.
 */
import t from 'tap';
import { unixSeconds } from '../../packages/core/clock.js';
import { createAdminKey } from '../../packages/families/platform/platform-admin/commands.js';
import { merchantStream } from '../../packages/families/merchants/merchant/events.js';
import { paymentIntentStream } from '../../packages/families/payments/payment-intent/events.js';
import type { CreatedMerchant } from '../../packages/families/merchants/merchant/commands.js';
import type { CollectRequest } from '../../packages/connectors/port.js';
import { startProcess } from '../support/child-process.js';
import { assertError, assertOk, confirm, createIntent, mobileMoney as payWith, retrieve, snNumber } from '../support/payment-intents.js';
import { balance, fund, liveOperator, mobileMoney, postPayout, retrievePayout } from '../support/payouts.js';
import { startPaymentsService } from '../support/system.js';

const collects: CollectRequest[] = [];
const payingOut = liveOperator();
const svc = await startPaymentsService(t, {
  rails: (environment, base) => {
    const rails = payingOut(environment, base);
    if (environment !== 'live') return rails;
    rails.assertCanCollect = () => undefined;
    rails.collect = async (request) => {
      collects.push(request);
      return { status: 'processing' };
    };
    return rails;
  },
});
const admin = await createAdminKey(svc.system.store, svc.clock, 'ops', 'test');
const LIVE = '/api/v1/configuration/live-activation';

const switchLive = (key: string, verb: 'activate' | 'deactivate', merchantId: string) => svc.request('POST', `${LIVE}/${verb}`, { key, body: { merchantId } });
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
  t.same((await svc.system.store.readStream(paymentIntentStream(intent.id))).map((e) => e.type), ['payment_intent.created'], 'nothing appended to the intent');

  assertError(t, await livePayout(m), 'IKW-PRV-005', 'amount');
  t.same(await balance(svc, m.api_keys.live), before, 'nothing held');
  t.equal(await livePayouts(m), 0, 'no live payout');

  await fund(svc, m.id, 50_000);
  assertOk(t, await postPayout(svc, m.api_keys.sandbox, { amount: 10_000, currency: 'xof', destination: mobileMoney('67') }));
  const sandboxIntent = await createIntent(svc, m.api_keys.sandbox);
  assertOk(t, await confirm(svc, m.api_keys.sandbox, sandboxIntent.id, { payment_method: payWith(snNumber('67')) }));

  t.match((await readLive(m.api_keys.live)).body, { object: 'live_activation', merchantId: m.id, status: 'inactive', activated: null, deactivated: null }, 'the merchant reads that live is not activated');
});

t.test('only the platform operator switches live; audited with its credential; switching twice (or at once) writes it once', async (t) => {
  const m = await liveMerchant();
  const other = await svc.merchant('Other');

  assertError(t, await switchLive(m.api_keys.live, 'activate', m.id), 'IKW-AUT-009');
  assertError(t, await switchLive(m.api_keys.sandbox, 'activate', m.id), 'IKW-AUT-009');
  assertError(t, await switchLive(other.api_keys.live, 'deactivate', m.id), 'IKW-AUT-009');
  assertError(t, await readLive(other.api_keys.live, m.id), 'IKW-AUT-009', 'merchantId');
  assertError(t, await switchLive(admin.secret, 'activate', 'acct_nobody'), 'IKW-RES-001', 'merchantId');
  t.same(await liveEvents(m), [], 'nothing recorded by the refusals');
  assertError(t, await livePayout(m), 'IKW-PRV-005', 'amount');

  const [first, second] = await Promise.all([switchLive(admin.secret, 'activate', m.id), switchLive(admin.secret, 'activate', m.id)]);
  assertOk(t, first);
  assertOk(t, second);
  const now = unixSeconds(svc.clock.now());
  t.same(first.body, { object: 'live_activation', merchantId: m.id, status: 'active', activated: now, deactivated: null });
  t.same(second.body, first.body, 'the racing switch answers the same');
  svc.clock.advance(60_000);
  t.same((await switchLive(admin.secret, 'activate', m.id)).body, first.body, 'activating again changes nothing');
  const events = await liveEvents(m);
  t.same(events.map((e) => e.type), ['merchant.live_activated'], 'one event');
  t.equal(events[0]!.metadata.actor, `admin:${admin.id}`, 'audited as the operator credential');
  t.equal(events[0]!.metadata.merchant_id, m.id, 'in the merchant’s audit trail');

  t.match((await readLive(m.api_keys.sandbox)).body, { status: 'active', activated: now }, 'the merchant reads it, with either key');
  t.match((await readLive(admin.secret, m.id)).body, { merchantId: m.id, status: 'active' }, 'the operator reads any merchant’s');
  t.match((await readLive(other.api_keys.live)).body, { merchantId: other.id, status: 'inactive' }, 'another merchant is not activated');

  await svc.member(m, 'owner@live-activation.example', 'correct horse battery', 'owner');
  const token = await svc.signIn('owner@live-activation.example', 'correct horse battery');
  const steps = (await svc.request('GET', '/api/v1/onboarding/steps', { key: token })).body.data as { key: string; state: string }[];
  t.equal(steps.find((s) => s.key === 'live_activation')?.state, 'complete', 'the go-live checklist shows it');
});

t.test('activated, live money moves; deactivated, new payments and payouts are refused while those under way finish', async (t) => {
  const m = await liveMerchant();
  assertOk(t, await switchLive(admin.secret, 'activate', m.id));

  const paying = await liveConfirm(m);
  assertOk(t, paying.res);
  t.equal(paying.res.body.status, 'processing');
  const underWay = await livePayout(m);
  assertOk(t, underWay);
  t.equal(underWay.body.status, 'in_transit', 'with the operator');

  svc.clock.advance(1000);
  const off = await switchLive(admin.secret, 'deactivate', m.id);
  assertOk(t, off);
  t.match(off.body, { status: 'deactivated', deactivated: unixSeconds(svc.clock.now()) });
  t.equal((await liveEvents(m)).at(-1)?.metadata.actor, `admin:${admin.id}`);

  const held = await balance(svc, m.api_keys.live);
  const refused = await liveConfirm(m);
  assertError(t, refused.res, 'IKW-PRV-005', 'id');
  t.equal(collects.filter((c) => c.paymentIntentId === refused.intent.id).length, 0, 'no operator asked');
  assertError(t, await livePayout(m), 'IKW-PRV-005', 'amount');
  t.same(await balance(svc, m.api_keys.live), held, 'nothing more held');
  t.equal(await livePayouts(m), 1, 'only the payout under way');

  // What the operator reports of what was under way is applied as before.
  const operation = collects.find((c) => c.paymentIntentId === paying.intent.id)!;
  await svc.system.paymentIntents.applyCallback({ paymentIntentId: paying.intent.id, operationId: operation.operationId, merchantId: m.id, environment: 'live', outcome: { status: 'succeeded' }, connector: 'live-stand-in' });
  t.equal((await retrieve(svc, m.api_keys.live, paying.intent.id)).status, 'succeeded', 'the payment under way succeeds');
  await svc.system.payouts.applyCallback({ payoutId: underWay.body.id, merchantId: m.id, environment: 'live', report: { type: 'paid' }, connector: 'live-stand-in' });
  t.equal((await retrievePayout(svc, m.api_keys.live, underWay.body.id)).status, 'paid', 'the payout under way is paid');
  t.equal((await balance(svc, m.api_keys.live)).reserved, 0, 'its hold ended');

  assertOk(t, await switchLive(admin.secret, 'activate', m.id));
  const again = await livePayout(m);
  assertOk(t, again);
  t.equal(again.body.status, 'in_transit', 'activated again, payouts go again');
});

t.test('bin/sika admin merchants activate-live and deactivate-live', async (t) => {
  const m = await liveMerchant();
  const cli = async (...args: string[]) => {
    const run = startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['admin', 'merchants', ...args]);
    const code = await run.exit;
    // The service learns of another process's switch through the log.
    await svc.system.gates.caughtUp();
    return { code, output: run.output() };
  };

  const on = await cli('activate-live', m.id, '--json');
  t.equal(on.code, 0, on.output);
  t.match(JSON.parse(on.output.trim().split('\n').pop()!), { merchantId: m.id, status: 'active' });
  t.equal((await liveEvents(m)).at(-1)?.metadata.actor, 'cli', 'audited as the command line');
  assertOk(t, await livePayout(m));

  const off = await cli('deactivate-live', m.id);
  t.equal(off.code, 0, off.output);
  t.match(off.output, `live for ${m.id}: deactivated`);
  assertError(t, await livePayout(m), 'IKW-PRV-005', 'amount');

  const unknown = await cli('activate-live', 'acct_nobody');
  t.equal(unknown.code, 1);
  t.match(unknown.output, 'IKW-RES-001');
  const usage = await cli('activate-live');
  t.equal(usage.code, 2, 'no merchant named: usage');
});
