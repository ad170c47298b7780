/**
 * Commands decide first on the state this process remembers, without reading the stream
 * (docs/performance.md). Another process's writes make that state stale: the append's expected
 * version catches it, and a refusal or a conflict on the remembered state is decided again on
 * the stream's own, never answered as it stands.
 */
import { postPayment } from '#packages/families/payments/payment-intent/postings.js';
import t from '#tap';
import type { Test } from 'tap';
import { runLedger } from '#packages/families/ledger/commands.js';
import { createApiKey } from '#packages/families/merchants/merchant/commands.js';
import { balanceStream } from '#packages/families/ledger/events.js';
import { handleCommand } from '#packages/eventstore/command-handler.js';
import { paymentIntentAggregate } from '#packages/families/payments/payment-intent/render.js';
import { paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { ALL_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { inlineProjections } from '#packages/read-models/runner.js';
import { fund, fundedMerchant, mobileMoney, postPayout } from '../support/payouts.js';
import { startService, type TestService } from '../support/system.js';

/** A second store on the same database: another process, whose commits this one never sees directly. */
function otherProcess(t: Test, svc: TestService): PostgresEventStore {
  const store = new PostgresEventStore(svc.system.knex, { inline: inlineProjections(ALL_PROJECTIONS) });
  t.teardown(() => store.close());
  return store;
}

function creditFrom(store: PostgresEventStore, svc: TestService, merchantId: string, amount: number) {
  const meta = { merchant_id: merchantId, environment: 'sandbox' as const, actor: 'test', occurred_at: svc.clock.now().toISOString() };
  return runLedger({ ledger: svc.system.ledger, store, clock: svc.clock }, merchantId, 'sandbox', 'xof', postPayment({ source: `pi_other_${amount}`, clearing: 'operator_clearing:wave', amount, fee: 0, availableOn: svc.clock.now() }), meta);
}

t.test('funds another process credited are spent here: the stale refusal is decided again on the stream', async (t) => {
  const svc = await startService(t);
  const { merchant, key } = await fundedMerchant(svc, 10_000);
  // This process pays out once: its remembered balance is now 10 000 − 5 000 − fee.
  const first = await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination: mobileMoney('11') });
  t.equal(first.status, 200);
  await creditFrom(otherProcess(t, svc), svc, merchant.id, 1_000_000);
  const big = await postPayout(svc, key, { amount: 500_000, currency: 'xof', destination: mobileMoney('12') });
  t.equal(big.status, 200, `a payout the credit covers succeeds (${big.text.slice(0, 200)})`);
});

t.test('a write by another process makes no client command answer 409: the conflict on the remembered state is decided again', async (t) => {
  const svc = await startService(t);
  const merchant = await svc.merchant();
  const other = otherProcess(t, svc);
  // API keys are created on the merchant's stream with no retry on conflict (a real race answers 409).
  await createApiKey(svc.system.store, svc.clock, merchant.id, 'sandbox', ['*'], 'test');
  for (let i = 0; i < 3; i++) {
    await createApiKey(other, svc.clock, merchant.id, 'sandbox', ['*'], 'test');
    await t.resolves(createApiKey(svc.system.store, svc.clock, merchant.id, 'sandbox', ['*'], 'test'), `key ${i} after another process wrote`);
  }
  const keys = await svc.system.knex('read.api_keys').where({ merchant_id: merchant.id });
  t.equal(keys.length, 2 + 1 + 6, 'every key was created');
});

t.test('a command on a stream this process remembers reads nothing of it', async (t) => {
  const svc = await startService(t);
  const { merchant, key } = await fundedMerchant(svc, 1_000_000);
  await fund(svc, merchant.id, 1);
  const stream = balanceStream(merchant.id, 'sandbox', 'xof');
  const reads: unknown[] = [];
  const watch = (q: { sql: string; bindings?: unknown[] }) => {
    if (/FROM events WHERE stream_id/.test(q.sql) && q.bindings?.includes(stream)) reads.push(q.bindings);
  };
  svc.system.knex.on('query', watch);
  t.teardown(() => void svc.system.knex.off('query', watch));
  for (let i = 0; i < 3; i++) t.equal((await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney('13') })).status, 200);
  t.same(reads, [], 'no read of the balance stream');
});

t.test('a confirm on a remembered intent that another process canceled is refused as the stream says', async (t) => {
  const svc = await startService(t);
  const merchant = await svc.merchant();
  const key = merchant.api_keys.sandbox;
  const wallet = { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } };
  const canceledHere = await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 5_000, currency: 'xof', transaction_country: 'SN' } });
  t.equal((await svc.request('POST', `/api/v1/payment-intents/${canceledHere.body.id}/cancel`, { key, body: {} })).status, 200);
  const expected = await svc.request('POST', `/api/v1/payment-intents/${canceledHere.body.id}/confirm`, { key, body: { payment_method: wallet } });
  t.not(expected.status, 200, 'a canceled intent is not confirmed');

  const intent = await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 5_000, currency: 'xof', transaction_country: 'SN' } });
  const owner = { merchantId: merchant.id, environment: 'sandbox' as const };
  const meta = { merchant_id: merchant.id, environment: 'sandbox' as const, actor: 'test', occurred_at: svc.clock.now().toISOString() };
  await handleCommand(otherProcess(t, svc), paymentIntentStream(intent.body.id), paymentIntentAggregate, { type: 'cancel', owner, at: svc.clock.now(), reason: null }, meta);
  const confirmed = await svc.request('POST', `/api/v1/payment-intents/${intent.body.id}/confirm`, { key, body: { payment_method: wallet } });
  t.equal(confirmed.status, expected.status, `answered as a confirm of a canceled intent (${confirmed.text.slice(0, 200)})`);
  t.equal(confirmed.body.code, expected.body.code);
  t.equal((await svc.request('GET', `/api/v1/payment-intents/${intent.body.id}`, { key })).body.status, 'canceled', 'still canceled');
});
