/**
 * A scripted money scenario across every family that posts to the ledger (payments and their
 * refunds, payouts, payout batches, escrow funded from the balance and by a payment, its releases
 * to the balance and to payouts, refunds, a campaign's contributions, refund, release and payout, a
 * marketplace's orders, refunds, settlements and seller payouts), run one step at a time so its
 * log is the same on every run but for ids. test/support/make-ledger-log.ts ran it once on the
 * code before the open ledger to write test/fixtures/ledger-log.json; test/integration/ledger-log.test.ts
 * opens that log with today's code and runs the scenario again to compare the entries it posts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { escrow, ok } from './escrow.js';
import { activeCampaign, orangeMoney } from './funding.js';
import { createOrder, createRule, createSeller, mkt, payOrder } from './marketplace.js';
import { confirm, mobileMoney as payerWallet, snNumber } from './payments.js';
import { engine, walletInstruction } from './payout-engine.js';
import { fund, mobileMoney, postPayout, saveDestination } from './payouts.js';
import { advance, type TestResponse, type TestService } from './system.js';

export const LEDGER_LOG = path.resolve(import.meta.dirname, '../../../test/fixtures/ledger-log.json');

/** One row of the `events` table as the fixture keeps it: every column the store writes but the position and timestamps. */
export interface LoggedEvent {
  stream_id: string;
  version: string;
  event_id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  hash: string;
}

export interface LedgerLog {
  /** The merchant whose money the scenario moved. */
  merchantId: string;
  /** Its sandbox API key (a test key of a test database). */
  key: string;
  /** Every event of the log, in commit order. */
  events: LoggedEvent[];
  /** Each balance stream of the merchant folded by the code that wrote the log: account → amount. */
  balances: Record<string, Record<string, number>>;
}

export const readLedgerLog = (): LedgerLog => JSON.parse(fs.readFileSync(LEDGER_LOG, 'utf8')) as LedgerLog;

const DAY = 86_400_000;

function expect(what: string, res: TestResponse): TestResponse {
  if (res.status < 200 || res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

/** Runs the scenario on a service started with startPaymentsService; returns the merchant. */
export async function runLedgerScenario(svc: TestService): Promise<{ merchantId: string; key: string }> {
  const { merchant, key } = await svc.sandboxMerchant('Ledger log');
  const step = async () => {
    await advance(svc);
    await svc.system.drain();
  };
  const wallet = await saveDestination(svc, key, { ...mobileMoney('67', { currency: 'XOF' }) });
  const failingWallet = await saveDestination(svc, key, { ...mobileMoney('01', { currency: 'XOF' }) });
  await advance(svc, 2 * DAY); // past the new payout methods' safety delay
  await fund(svc, merchant.id, 200_000);

  // Payments: one succeeds, one fails; a partial refund, then the rest.
  const paid = expect('payment', await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 30_000, currency: 'xof', transaction_country: 'SN' } })).body;
  expect('confirm', await confirm(svc, key, paid.id, { payment_method: payerWallet(snNumber('67')) }));
  const failed = expect('payment', await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 5_000, currency: 'xof', transaction_country: 'SN' } })).body;
  expect('confirm', await confirm(svc, key, failed.id, { payment_method: payerWallet(snNumber('01')) }));
  await step();
  expect('refund', await svc.request('POST', `/api/v1/merchant/payments/${paid.id}/refund`, { key, body: { amount: 4_000 } }));
  expect('refund', await svc.request('POST', `/api/v1/merchant/payments/${paid.id}/refund`, { key, body: {} }));
  await step();

  // Payouts: one paid, one that fails.
  expect('payout', await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: mobileMoney('67') }));
  expect('payout', await postPayout(svc, key, { amount: 7_000, currency: 'xof', destination: mobileMoney('01') }));
  await step();

  // A payout batch of three, one failing.
  const batch = expect('batch', await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(3_000), walletInstruction(4_000, '01'), walletInstruction(5_000)] })).body;
  expect('execute', await engine(svc, key, 'POST', `/batches/${batch.id}/execute`));
  for (let i = 0; i < 4; i++) await step();

  // Escrow: a contract funded from the balance (releases to the balance, to a payout, to a failing
  // payout, a refund), one funded by a payer's payment (refunded by cancel).
  const contract = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'XOF', amountMinor: 40_000, fundingSourceType: 'merchant_balance' }));
  for (const to of [{}, { payoutMethodId: wallet }, { payoutMethodId: failingWallet }]) {
    const release = await ok(await escrow(svc, key, 'POST', `/releases/contract/${contract.id}`, { amountMinor: 8_000 }));
    await ok(await escrow(svc, key, 'POST', `/releases/${release.id}/execute`, to));
    await step();
  }
  await ok(await escrow(svc, key, 'POST', `/contracts/${contract.id}/refund`, { amountMinor: 3_000 }));
  const payerContract = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 12_000 }));
  const intent = expect('payment', await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 12_000, currency: 'xof', transaction_country: 'SN' } })).body;
  await ok(await escrow(svc, key, 'POST', `/contracts/${payerContract.id}/submit-for-funding`, { paymentIntentId: intent.id }));
  expect('confirm', await confirm(svc, key, intent.id, { payment_method: payerWallet(snNumber('67')) }));
  await step();
  await ok(await escrow(svc, key, 'POST', `/contracts/${payerContract.id}/cancel`));
  await step();

  // Funding: contributions (one fails), one refunded, the campaign closed and its funds paid out.
  const campaign = await activeCampaign(svc, key);
  const contributions: string[] = [];
  for (const [amount, lastTwo] of [
    [20_000, '67'],
    [6_000, '67'],
    [3_000, '01'],
  ] as const) {
    const res = expect('contribution', await svc.request('POST', '/api/v1/funding/contributions', { key, body: { campaignId: campaign.id, amountMinor: amount, currency: 'XOF', paymentMethod: orangeMoney(lastTwo) } }));
    contributions.push(res.body.id);
  }
  await step();
  expect('contribution refund', await svc.request('POST', `/api/v1/funding/contributions/${contributions[1]}/refund`, { key }));
  await step();
  expect('close', await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/close`, { key }));
  await step();
  expect('campaign payout', await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key, body: { payoutMethodId: wallet, amountMinor: 5_000 } }));
  await step();

  // Marketplace: two sellers, an order paid and partly refunded, settlements, seller payouts (one fails).
  const rule = await createRule(svc, key, { percentBasisPoints: 1250, fixedFeeMinor: 10 });
  const sa = await createSeller(svc, key, 'sa', { settlementDelayDays: 0 });
  await createSeller(svc, key, 'sb', { settlementDelayDays: 1 });
  const order = await createOrder(svc, key, [
    { sellerId: 'sa', amountMinor: 20_000, commissionRuleId: rule.id },
    { sellerId: 'sb', amountMinor: 9_000 },
  ]);
  await payOrder(svc, key, order);
  await svc.system.drain();
  expect('order refund', await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 5_000 }));
  expect('settle', await mkt(svc, key, 'POST', '/settlements/process-due', {}));
  await advance(svc, DAY);
  expect('settle', await mkt(svc, key, 'POST', '/settlements/process-due', {}));
  expect('order refund', await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 2_000 }));
  expect('seller payout', await mkt(svc, key, 'POST', `/sellers/${sa.id}/payouts`, { amountMinor: 6_000, currency: 'xof', destination: mobileMoney('67') }));
  expect('seller payout', await mkt(svc, key, 'POST', `/sellers/${sa.id}/payouts`, { amountMinor: 2_000, currency: 'xof', destination: mobileMoney('01') }));
  await step();

  // Pending payments settle.
  await advance(svc, 3 * DAY);
  await svc.system.drain();
  return { merchantId: merchant.id, key };
}

/** Every event of the log in commit order, as LoggedEvent rows. */
export async function loggedEvents(svc: TestService): Promise<LoggedEvent[]> {
  const res = await svc.system.knex.raw<{ rows: LoggedEvent[] }>('SELECT stream_id, version::text AS version, event_id, type, data, metadata, hash FROM events ORDER BY transaction_id, global_position');
  return res.rows;
}

/**
 * The ledger entries of a log with every id replaced by `<id>`, sorted: two runs of the scenario
 * then post the same text whatever ids they drew and in whatever order a batch's items ran.
 */
export function normalizedEntries(events: readonly LoggedEvent[]): string[] {
  const id = /\b(?:[a-z]+_(?:test_)?[0-9A-Za-z]{24,32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/g;
  return events
    .filter((e) => e.type === 'ledger.entry_posted')
    .map((e) => JSON.stringify({ stream: e.stream_id, data: e.data }).replace(id, '<id>'))
    .sort();
}
