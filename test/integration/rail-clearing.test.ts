/**
 * A clearing account per rail (docs/ledger.md, "Clearing accounts"): attempts carried by a
 * connector that keeps Sika's money in a wallet (pawaPay) record it, and their money goes through
 * `rail_clearing:<connector>`: a live collection credits the merchant from it, a paid payout and a
 * refund go back out through it, so that its opposite is what the rail should hold for Sika
 * (`bin/sika ledger balance --rail`). Attempts without a connector recorded (the sandbox, those
 * from before) post to the operator's clearing as they always did. The live connector here is a
 * stand-in named `pawapay` that takes every collection and payout.
 */
import t from '#tap';
import type { CollectRequest } from '#packages/connectors/port.js';
import { balanceStream, type EntryPosted } from '#packages/families/ledger/events.js';
import type { CreatedMerchant } from '#packages/families/merchants/merchant/commands.js';
import { paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';
import { payoutStream } from '#packages/families/payouts/payout/events.js';
import { railHoldings } from '#packages/families/ledger/read/balances.js';
import { assertError } from '../support/assertions.js';
import { startProcess } from '../support/child-process.js';
import { assertOk, confirm, createIntent, mobileMoney as payWith, operatorAnswers, snNumber } from '../support/payments.js';
import { fund, liveOperator, mobileMoney, postPayout } from '../support/payouts.js';
import { activateLive, startPaymentsService, type TestService } from '../support/system.js';
import type { Environment } from '#packages/core/owner.js';

const collects: CollectRequest[] = [];
const payingOut = liveOperator();
const svc = await startPaymentsService(t, {
  rails: (environment, base) => {
    const rails = payingOut(environment, base);
    if (environment !== 'live') return rails;
    rails.choose = () => ({ clearingRail: 'pawapay', passedOver: [] });
    rails.assertCanCollect = () => undefined;
    rails.collect = async (request) => {
      collects.push(request);
      return { status: 'processing' };
    };
    return rails;
  },
});

/** The lines of the entries posted for `source` on the merchant's balance, by entry kind. */
async function postings(s: TestService, m: CreatedMerchant, environment: Environment, source: string) {
  const events = await s.system.store.readStream(balanceStream(m.id, environment, 'xof'));
  return events
    .map((e) => e.data as EntryPosted)
    .filter((e) => e.source === source)
    .map((e) => ({ kind: e.kind, lines: e.lines }));
}
const clearingLine = (entry: { lines: { account: string; amount: number }[] } | undefined) => entry?.lines.find((l) => l.account.includes('clearing'));

let requests = 0;
async function livePayment(m: CreatedMerchant, amount: number) {
  const intent = await createIntent(svc, m.api_keys.live, { amount });
  const res = await confirm(svc, m.api_keys.live, intent.id, { payment_method: payWith(snNumber('67')) });
  if (res.status !== 200) throw new Error(res.text);
  const { operationId } = collects.find((c) => c.paymentIntentId === intent.id)!;
  await svc.system.collectionOutcomes.applyCallback({ paymentIntentId: intent.id, operationId, merchantId: m.id, environment: 'live', outcome: { status: 'succeeded' }, connector: 'pawapay' });
  return intent.id as string;
}
async function livePaidPayout(m: CreatedMerchant, amount: number) {
  const res = await postPayout(svc, m.api_keys.live, { amount, currency: 'xof', destination: mobileMoney('67') }, { idempotencyKey: `rail-clearing-${++requests}` });
  if (res.status !== 200) throw new Error(res.text);
  await svc.system.payoutOperatorSide.applyCallback({ payoutId: res.body.id, merchantId: m.id, environment: 'live', report: { type: 'paid' }, connector: 'pawapay' });
  return res.body.id as string;
}

t.test('live money carried by pawaPay goes through its clearing account; the ledger says what pawaPay should hold', async (t) => {
  const m = await svc.merchant();
  await activateLive(svc, m.id);
  await fund(svc, m.id, 100_000, 'live');
  const before = await railHoldings(svc.system.knex, 'pawapay', 'live');

  const paid = await livePayment(m, 40_000);
  const started = (await svc.system.store.readStream(paymentIntentStream(paid))).find((e) => e.type === 'payment_intent.confirmation_started')!;
  t.equal((started.data as { connector?: string }).connector, 'pawapay', 'the confirmation records the connector carrying it');
  const [payment] = await postings(svc, m, 'live', paid);
  t.equal(payment?.kind, 'payment');
  t.same(clearingLine(payment), { account: 'rail_clearing:pawapay', amount: -40_000 }, "the payment came in from pawaPay's clearing account, gross");

  const payoutId = await livePaidPayout(m, 10_000);
  const created = (await svc.system.store.readStream(payoutStream(payoutId)))[0]!;
  t.equal((created.data as { connector?: string }).connector, 'pawapay', 'the payout records the connector sending it');
  const paidOut = (await postings(svc, m, 'live', payoutId)).find((e) => e.kind === 'payout_paid');
  t.same(clearingLine(paidOut), { account: 'rail_clearing:pawapay', amount: 10_000 }, 'the payout went out through it (its fee is Sika’s)');

  // No connector named pawapay is configured here (the wrapper only says the rail carried it): nothing can carry its refund, and a refund on the ledger alone would leave the payer with nothing.
  const refund = await svc.request('POST', `/api/v1/merchant/payments/${paid}/refund`, { key: m.api_keys.live, body: { amount: 5_000 } });
  assertError(t, refund, 'IKW-PRV-006', 'id');

  const after = await railHoldings(svc.system.knex, 'pawapay', 'live');
  const had = before.find((h) => h.currency === 'xof')?.amount ?? 0;
  t.same(after, [{ currency: 'xof', amount: had + 40_000 - 10_000 }], 'collections in, less payouts out; the refused refund took nothing');

  const cli = startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['ledger', 'balance', '--rail', 'pawapay', '--json']);
  t.equal(await cli.exit, 0, cli.output());
  t.same(JSON.parse(cli.output().trim().split('\n').pop()!), { rail: 'pawapay', environment: 'live', holdings: after }, 'bin/sika ledger balance --rail pawapay says the same');
});

t.test('attempts that record no connector post to the operator’s clearing as before (sandbox, and what was recorded before connectors were)', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const intent = await createIntent(svc, key, { amount: 20_000 });
  assertOk(t, await confirm(svc, key, intent.id, { payment_method: payWith(snNumber('67')) }));
  await operatorAnswers(svc);
  const started = (await svc.system.store.readStream(paymentIntentStream(intent.id))).find((e) => e.type === 'payment_intent.confirmation_started')!;
  t.notOk('connector' in (started.data as object), 'the sandbox simulator holds no money: nothing recorded');
  const [payment] = await postings(svc, m, 'sandbox', intent.id);
  t.same(clearingLine(payment), { account: 'operator_clearing:orange_money', amount: -20_000 });
  const res = await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination: mobileMoney('67') });
  assertOk(t, res);
  await operatorAnswers(svc);
  const paidOut = (await postings(svc, m, 'sandbox', res.body.id)).find((e) => e.kind === 'payout_paid');
  t.same(clearingLine(paidOut), { account: 'operator_clearing:orange_money', amount: 5_000 });
  t.same(await railHoldings(svc.system.knex, 'pawapay', 'sandbox'), [], 'nothing on a rail clearing account in sandbox');
});
