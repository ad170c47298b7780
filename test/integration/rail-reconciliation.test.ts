/**
 * Reconciliation of a rail that keeps Sika's money (docs/reconciliation.md, "Rails"): live
 * payments and payouts go through the real PawapayConnector to the pawaPay stand-in over loopback,
 * their news is applied as the connector's, and the reconciliation compares pawaPay's wallet
 * balances with what the ledger expects it to hold, and every attempt with pawaPay's record. The
 * stand-in is told to make differences; the report lists exactly those.
 */
import t from '#tap';
import { getCurrency } from '#packages/catalog/index.js';
import { pawapayId, PawapayConnector } from '#packages/connectors/pawapay/index.js';
import type { CollectRequest, Rails } from '#packages/connectors/port.js';
import type { CreatedMerchant } from '#packages/families/merchants/merchant/commands.js';
import { reconcileRail, runReconciliation } from '../../services/reconciliation.js';
import { findReconciliationRun, listReconciliationRuns } from '#packages/families/ledger/read/index.js';
import { startProcess } from '../support/child-process.js';
import { PawapayStandin } from '../support/pawapay-standin.js';
import { confirm, createIntent, mobileMoney as payWith, snNumber } from '../support/payments.js';
import { fund, mobileMoney, postPayout } from '../support/payouts.js';
import { activateLive, startPaymentsService } from '../support/system.js';

const TOKEN = 'pawapay-reconciliation-token';
let connector: PawapayConnector;
const collects: CollectRequest[] = [];
const svc = await startPaymentsService(t, {
  rails: (environment, base) => {
    if (environment !== 'live') return base;
    const rails = Object.create(base) as Rails;
    rails.assertCanCollect = (method) => connector.assertCanCollect(method);
    rails.collect = async (request) => {
      collects.push(request);
      return connector.collect(request);
    };
    rails.assertCanPayOut = (destination) => connector.assertCanPayOut(destination);
    rails.verifyDestination = async () => undefined;
    rails.payout = (request) => connector.payout(request);
    rails.choose = () => ({ clearingRail: connector.name, passedOver: [] });
    return rails;
  },
});
const standin = await PawapayStandin.start({ token: TOKEN, clock: svc.clock });
t.teardown(() => standin.close());
connector = new PawapayConnector({ baseUrl: standin.url, apiToken: TOKEN, clock: svc.clock, minorUnits: (currency) => getCurrency(currency)?.minorUnits, publicUrl: svc.publicUrl, timeoutMs: 5_000 });
await connector.refresh();
/** Only Senegal's wallet holds anything unless a test says otherwise. */
for (const country of ['GHA', 'KEN', 'BFA']) standin.wallets.set(country, '0');

/** A live payment pawaPay settles as `atPawapay`, and whose outcome Sika applies as `atSika`. */
async function payment(m: CreatedMerchant, amount: number, atPawapay: 'COMPLETED' | 'FAILED', atSika: 'succeeded' | 'failed' = atPawapay === 'COMPLETED' ? 'succeeded' : 'failed') {
  const intent = await createIntent(svc, m.api_keys.live, { amount });
  const res = await confirm(svc, m.api_keys.live, intent.id, { payment_method: payWith(snNumber('67')) });
  if (res.status !== 200) throw new Error(res.text);
  const { operationId } = collects.find((c) => c.paymentIntentId === intent.id)!;
  standin.settle('deposits', pawapayId(operationId), atPawapay, atPawapay === 'FAILED' ? 'PAYER_NOT_FOUND' : undefined);
  const outcome = atSika === 'succeeded' ? ({ status: 'succeeded' } as const) : ({ status: 'failed', failureCode: 'payer_not_found', failureMessage: 'No such wallet' } as const);
  await svc.system.collectionOutcomes.applyCallback({ paymentIntentId: intent.id, operationId, merchantId: m.id, environment: 'live', outcome, connector: 'pawapay' });
  return intent.id as string;
}

let requests = 0;
async function paidPayout(m: CreatedMerchant, amount: number) {
  const res = await postPayout(svc, m.api_keys.live, { amount, currency: 'xof', destination: mobileMoney('67') }, { idempotencyKey: `reconciliation-${++requests}` });
  if (res.status !== 200) throw new Error(res.text);
  standin.settle('payouts', pawapayId(res.body.id), 'COMPLETED');
  await svc.system.payoutOperatorSide.applyCallback({ payoutId: res.body.id, merchantId: m.id, environment: 'live', report: { type: 'paid' }, connector: 'pawapay' });
  return res.body.id as string;
}

t.test('the ledger and pawaPay agree: no difference; then the stand-in is told to differ and the report lists exactly that', async (t) => {
  const m = await svc.merchant();
  await activateLive(svc, m.id);
  await fund(svc, m.id, 100_000, 'live');
  await payment(m, 30_000, 'COMPLETED');
  await payment(m, 5_000, 'FAILED'); // refused by the payer: failed on both sides
  await paidPayout(m, 10_000);
  standin.wallets.set('SEN', '20000');

  const agreed = await reconcileRail(svc.system, connector, 'live');
  t.match(agreed, { rail: 'pawapay', environment: 'live', wallets: [], attempts: [], checked: 3 }, 'every attempt as pawaPay has it, the wallet as the ledger expects');
  t.same(
    agreed.holdings?.find((h) => h.currency === 'xof'),
    { currency: 'xof', expected: 20_000, reported: 20_000 },
  );
  t.same(
    agreed.holdings?.find((h) => h.currency === 'ghs'),
    { currency: 'ghs', expected: 0, reported: 0 },
    'every currency is kept, differing or not',
  );
  t.same(
    agreed.periods,
    [
      {
        currency: 'xof',
        since: null,
        lines: [
          { kind: 'payment', amount: 30_000, count: 1 },
          { kind: 'payout_paid', amount: -10_000, count: 1 },
        ],
        expectedMoved: 20_000,
        reportedMoved: 20_000,
        unexplained: 0,
      },
    ],
    "no run before: the rail's statement from the start; currencies where nothing moved are left out",
  );

  // pawaPay says this deposit failed; Sika holds it as succeeded (its money is on the balance).
  const disputed = await payment(m, 20_000, 'FAILED', 'succeeded');
  standin.wallets.set('SEN', '39000');
  const report = await reconcileRail(svc.system, connector, 'live');
  t.same(report.wallets, [{ currency: 'xof', expected: 40_000, reported: 39_000, difference: -1_000 }], 'the wallet: what the ledger expects (30 000 + 20 000 − 10 000) against what pawaPay holds');
  t.same(report.attempts, [{ kind: 'payment', id: disputed, merchantId: m.id, sika: 'succeeded', rail: 'failed' }], 'the one attempt pawaPay has otherwise');
  t.equal(report.checked, 4);
  t.same(standin.deviations, [], 'every request followed pawaPay’s contract');
});

t.test('a run is recorded with its report and who ran it; the history lists runs newest first', async (t) => {
  const first = await runReconciliation(svc.system, connector, 'live', 'operator:op_first');
  const second = await runReconciliation(svc.system, connector, 'live', 'cli');
  t.match(first, { rail: 'pawapay', environment: 'live', actor: 'operator:op_first', ranAt: svc.clock.now().toISOString() });
  t.same(await findReconciliationRun(svc.system.knex, first.runId), first, 'the report is kept whole');
  const listed = await listReconciliationRuns(svc.system.knex, { rail: 'pawapay', environment: 'live' }, { limit: 10 }, '/runs');
  t.same(
    listed.data.map((r) => r.runId),
    [second.runId, first.runId],
    'newest first',
  );
  const page = await listReconciliationRuns(svc.system.knex, {}, { limit: 1, starting_after: second.runId }, '/runs');
  t.same(
    page.data.map((r) => r.runId),
    [first.runId],
    'and paged',
  );
  t.same((await listReconciliationRuns(svc.system.knex, { environment: 'sandbox' }, { limit: 10 }, '/runs')).data, [], 'sandbox had none');
});

t.test("each run states the rail's movements since the previous run, and a difference that appeared meanwhile", async (t) => {
  const m = await svc.merchant();
  await activateLive(svc, m.id);
  await fund(svc, m.id, 50_000, 'live');
  svc.clock.advance(1_000);
  const before = await runReconciliation(svc.system, connector, 'live', 'cli');
  const wallet = before.holdings!.find((h) => h.currency === 'xof')!.reported;
  svc.clock.advance(1_000);
  await payment(m, 7_000, 'COMPLETED');
  await paidPayout(m, 2_000);
  // pawaPay took 100 of its own fee from the wallet meanwhile: not in Sika's ledger.
  standin.wallets.set('SEN', String(wallet + 5_000 - 100));
  svc.clock.advance(1_000);
  const after = await runReconciliation(svc.system, connector, 'live', 'cli');
  t.same(after.periods, [
    {
      currency: 'xof',
      since: before.ranAt,
      lines: [
        { kind: 'payment', amount: 7_000, count: 1 },
        { kind: 'payout_paid', amount: -2_000, count: 1 },
      ],
      expectedMoved: 5_000,
      reportedMoved: 4_900,
      unexplained: -100,
    },
  ]);

  // The same statement over whole days from the command line: every merchant together.
  const day = svc.clock.now().toISOString().slice(0, 10);
  const cli = startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['ledger', 'statement', '--rail', 'pawapay', '--currency', 'XOF', '--from', day, '--to', day, '--json']);
  t.equal(await cli.exit, 0, cli.output());
  const statement = JSON.parse(cli.output());
  t.match(statement, { rail: 'pawapay', environment: 'live', currency: 'xof', from: `${day}T00:00:00.000Z` });
  t.equal(statement.closing, after.holdings!.find((h) => h.currency === 'xof')!.expected, 'its closing is what the ledger expects the rail to hold now');
  t.equal(statement.opening + statement.lines.reduce((sum: number, l: { amount: number }) => sum + l.amount, 0), statement.closing);
  const usage = startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['ledger', 'statement', '--rail', 'pawapay', '--currency', 'xof', '--from', day, '--to', '2020-01-01']);
  t.equal(await usage.exit, 2, 'a period ending before it starts is a usage error');
});

t.test('the command line names a rail that is not configured', async (t) => {
  const cli = startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['reconcile', 'pawapay']);
  t.equal(await cli.exit, 2, 'a usage error');
  t.match(cli.output(), "no connector pawapay is configured for live in this shell's environment: no service has recorded its configuration");
});
