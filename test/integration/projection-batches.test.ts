/**
 * Issue 19: projections that apply a batch of events with set-based statements (`applyBatch`) leave
 * exactly the rows that applying each event in turn leaves. A real, varied log (payouts paid, failed
 * and delayed; payments succeeded, failed, awaiting an action and canceled; refunds; an API key
 * revoked) is applied once event by event and once cut into batches of every size fast-check
 * thinks of, each into a schema of its own; every read model's tables must be equal row for row.
 * Balance transactions also meet the one case their batch leaves to one event at a time.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Knex } from 'knex';
import t, { type Test } from '#tap';
import { createKnex } from '#packages/core/database.js';
import { revokeApiKey, setLiveActivation } from '#packages/families/merchants/merchant/commands.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import type { Projection } from '#packages/read-models/projection.js';
import { balanceTransactionsProjection } from '#packages/families/ledger/read/balance-transactions.js';
import { ALL_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { applyEvents, rebuildInline } from '#packages/read-models/runner.js';
import { failedPayment, succeededPayment } from '../support/billing.js';
import { assertOk, confirm, createIntent, mobileMoney as payerNumber, snNumber } from '../support/payments.js';
import { engine, walletInstruction } from '../support/payout-engine.js';
import { advance, fundedMerchant, mobileMoney, payout } from '../support/payouts.js';
import { projectionSpec, type GivenEvent } from '../support/projection-spec.js';
import { activateLive, startPaymentsService, type TestService } from '../support/system.js';

async function workload(t: Test, svc: TestService): Promise<void> {
  const a = await fundedMerchant(svc, 1_000_000);
  const b = await fundedMerchant(svc, 500_000);
  // Paid, failed (funds released), delayed then paid, delayed then failed.
  for (const [key, ending] of [
    [a.key, '67'],
    [a.key, '01'],
    [a.key, '02'],
    [b.key, '03'],
    [b.key, '68'],
  ] as const) {
    await payout(svc, key, { amount: 10_000 + Number(ending), destination: mobileMoney(ending) });
  }
  const paid = [await succeededPayment(svc, a.key, 20_000), await succeededPayment(svc, b.key, 30_000), await succeededPayment(svc, a.key, 25_000)];
  await failedPayment(svc, b.key, 5_000);
  const awaiting = await createIntent(svc, a.key, { amount: 7_000 });
  assertOk(t, await confirm(svc, a.key, awaiting.id, { payment_method: payerNumber(snNumber('02')) }));
  const canceled = await createIntent(svc, b.key, { amount: 8_000 });
  assertOk(t, await svc.request('POST', `/api/v1/payment-intents/${canceled.id}/cancel`, { key: b.key, body: {} }));
  // Refunds draw on the oldest available funds, as payouts do.
  assertOk(t, await svc.request('POST', `/api/v1/merchant/payments/${paid[0].id}/refund`, { key: a.key, body: { amount: 4_000 } }));
  assertOk(t, await svc.request('POST', `/api/v1/merchant/payments/${paid[1].id}/refund`, { key: b.key, body: {} }));
  await payout(svc, a.key, { amount: 15_000, destination: mobileMoney('69') });
  // A payout engine batch: one item paid, one failed; and a batch canceled before its execution.
  const batch = await engine(svc, a.key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(5_000, '67'), walletInstruction(6_000, '01'), walletInstruction(7_000, '68')] });
  assertOk(t, await engine(svc, a.key, 'POST', `/batches/${batch.body.id}/execute`));
  const dropped = await engine(svc, b.key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(5_000, '67')] });
  assertOk(t, await engine(svc, b.key, 'POST', `/batches/${dropped.body.id}/cancel`));
  await advance(svc);
  await advance(svc);
  await advance(svc);
  const revoked = await svc.apiKey(a.merchant.id, ['payouts.read']);
  await revokeApiKey(svc.system.store, svc.clock, a.merchant.id, revoked.id, 'test');
  // Merchants with and without a live activation in one batch (issue 69: the rebuild refused a
  // merchant created without one beside one created and activated, NOT NULL live_status).
  await activateLive(svc, a.merchant.id);
  const closed = await svc.merchant('Activated, then deactivated');
  await activateLive(svc, closed.id);
  await setLiveActivation(svc.system.store, svc.clock, closed.id, false, { actor: 'test' });
  await svc.merchant('Never activated');
}

/** A schema shaped like `read`, named `read` for the query builder of the knex it comes with. */
async function shadowSchema(url: string, projections: readonly Projection[]): Promise<{ knex: Knex; name: string }> {
  const name = `batch_${randomBytes(5).toString('hex')}`;
  const knex = createKnex(url, 2, { schemaAliases: { read: name } });
  await knex.raw(`CREATE SCHEMA ${name}`);
  for (const table of projections.flatMap((p) => p.tables)) await knex.raw(`CREATE TABLE ${name}.${table.split('.')[1]} (LIKE ${table} INCLUDING ALL)`);
  return { knex, name };
}

/** Every table's rows as text (json columns as written), sorted. */
async function contents(knex: Knex, schema: string, projections: readonly Projection[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of projections.flatMap((p) => p.tables)) {
    const res = await knex.raw<{ rows: { r: string }[] }>(`SELECT row_to_json(t)::text AS r FROM ${schema}.${table.split('.')[1]} t ORDER BY 1`);
    out[table] = res.rows.map((row) => row.r);
  }
  return out;
}

t.test('a varied log: batches and rebuilds in pages leave the event-by-event rows', async (t) => {
  const svc = await startPaymentsService(t);
  await workload(t, svc);
  const store = new PostgresEventStore(svc.system.knex);
  const read = (trx: Knex.Transaction, after: string | null, limit: number) => store.readCommitted(trx, after, limit);
  const log = await svc.system.knex.transaction(async (trx) => {
    const all: RecordedEvent[] = [];
    for (let page = await read(trx, null, 1000); page.length > 0; page = await read(trx, page[page.length - 1]!.position, 1000)) all.push(...page);
    return all;
  });
  const types = new Set(log.map((e) => e.type));
  t.ok(types.size >= 15, `a varied log: ${log.length} events of ${types.size} types`);
  const kinds = new Set(log.filter((e) => e.type === 'ledger.entry_posted').map((e) => (e.data as { kind: string }).kind));
  t.same([...kinds].sort(), ['batch_allocation', 'batch_hold', 'payment', 'payment_settlement', 'payout_hold', 'payout_paid', 'payout_release', 'refund'], 'entries that insert, settle, add and draw on funds');
  const batched = ALL_PROJECTIONS.filter((p) => p.applyBatch);
  t.ok(batched.some((p) => p.name === 'balance_transactions') && batched.some((p) => p.name === 'payouts'), `${batched.length} read models apply batches`);

  const oneByOne = await shadowSchema(svc.databaseUrl, ALL_PROJECTIONS);
  const cut = await shadowSchema(svc.databaseUrl, ALL_PROJECTIONS);
  t.teardown(async () => {
    for (const s of [oneByOne, cut]) {
      await s.knex.raw(`DROP SCHEMA IF EXISTS ${s.name} CASCADE`);
      await s.knex.destroy();
    }
  });
  await oneByOne.knex.transaction(async (trx) => {
    for (const event of log) for (const p of ALL_PROJECTIONS) if (p.handles.includes(event.type)) await p.apply(trx, event);
  });
  const expected = await contents(svc.system.knex, oneByOne.name, ALL_PROJECTIONS);
  t.ok((expected['read.balance_transactions'] ?? []).length > 10 && (expected['read.payout_settlements'] ?? []).length > 0, 'the log fills the read models');
  t.same(await contents(svc.system.knex, 'read', ALL_PROJECTIONS), expected, 'the live read models are the event-by-event ones');

  await t.test('batch-applied read models equal event-by-event ones, however the log is cut into batches', async (t) => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: log.length }), { minLength: 1, maxLength: 12 }), async (sizes) => {
        await cut.knex.raw(
          `TRUNCATE ${ALL_PROJECTIONS.flatMap((p) => p.tables)
            .map((table) => `${cut.name}.${table.split('.')[1]}`)
            .join(', ')}`,
        );
        await cut.knex.transaction(async (trx) => {
          // Batches of the given sizes in turn, the last size repeated until the log ends.
          for (let at = 0, i = 0; at < log.length; i++) {
            const size = sizes[Math.min(i, sizes.length - 1)]!;
            await applyEvents(trx, ALL_PROJECTIONS, log.slice(at, at + size));
            at += size;
          }
        });
        t.same(await contents(svc.system.knex, cut.name, ALL_PROJECTIONS), expected, `batches of ${sizes.join(', ')}`);
      }),
      { numRuns: 12, examples: [[[log.length]], [[1]], [[2]], [[7, 3]]] },
    );
  });

  await t.test('a rebuild in pages, several under way on a pipelined connection, leaves the event-by-event rows; a failure leaves the tables as they were', async (t) => {
    const rebuilt = await shadowSchema(svc.databaseUrl, ALL_PROJECTIONS);
    await rebuilt.knex.raw(`CREATE TABLE ${rebuilt.name}.projection_checkpoints (LIKE read.projection_checkpoints INCLUDING ALL)`);
    // The rebuild's tables and checkpoints are named through the query builder, so this pool writes the shadow.
    const writer = createKnex(svc.databaseUrl, 1, { schemaAliases: { read: rebuilt.name }, pipeline: true });
    t.teardown(async () => {
      await writer.destroy();
      await rebuilt.knex.raw(`DROP SCHEMA IF EXISTS ${rebuilt.name} CASCADE`);
      await rebuilt.knex.destroy();
    });

    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: log.length }), fc.integer({ min: 1, max: 4 }), async (pageSize, pagesInFlight) => {
        t.equal(await rebuildInline(writer, svc.system.knex, ALL_PROJECTIONS, read, { pageSize, pagesInFlight }), log.length);
        t.same(await contents(svc.system.knex, rebuilt.name, ALL_PROJECTIONS), expected, `pages of ${pageSize}, ${pagesInFlight} under way`);
      }),
      {
        numRuns: 5,
        examples: [
          [1, 3],
          [7, 3],
          [log.length, 3],
          [2, 1],
        ],
      },
    );

    // A read model that fails on the log's last payout event, with four pages of three events under way.
    const payoutEvents = log.filter((e) => e.type.startsWith('payout.'));
    const failingEvent = payoutEvents[payoutEvents.length - 1]!.eventId;
    const failing: Projection = {
      name: 'failing',
      tables: [],
      migrations: [],
      handles: [...new Set(payoutEvents.map((e) => e.type))],
      apply: async (_trx, event) => {
        if (event.eventId === failingEvent) throw new Error('this read model cannot apply that event');
      },
    };
    await t.rejects(rebuildInline(writer, svc.system.knex, [...ALL_PROJECTIONS, failing], read, { pageSize: 3, pagesInFlight: 4 }), /cannot apply that event/);
    t.same(await contents(svc.system.knex, rebuilt.name, ALL_PROJECTIONS), expected, 'the truncated tables are back, no page of the failed rebuild kept');
    t.equal(await rebuildInline(writer, svc.system.knex, ALL_PROJECTIONS, read, { pageSize: 5 }), log.length, 'the pipelined connection rebuilds again after the failure');
    t.same(await contents(svc.system.knex, rebuilt.name, ALL_PROJECTIONS), expected);
  });
});

t.test('two lots of one settlement drawn on in the same batch: the batch leaves their order to the database, as one event at a time does', async (t) => {
  const at = '2026-01-01T00:00:00.000Z';
  const entry = (id: string, kind: string, source: string, moves: Record<string, number>, net: number): GivenEvent => ({
    type: 'ledger.entry_posted',
    data: {
      entryId: id,
      kind,
      source,
      merchantId: 'acct_1',
      environment: 'sandbox',
      currency: 'xof',
      amount: Math.abs(net),
      fee: 0,
      net,
      availableOn: at,
      postedAt: at,
      lines: Object.entries(moves).map(([account, amount]) => ({ account, amount })),
    },
  });
  // Two payment rows of one source: its settlement makes both available at one position.
  const log = [
    entry('txn_a', 'payment', 'pi_1', { pending: 2_000, 'operator_clearing:wave': -2_000 }, 2_000),
    entry('txn_b', 'payment', 'pi_1', { pending: 3_000, 'operator_clearing:wave': -3_000 }, 3_000),
    entry('txn_s', 'payment_settlement', 'pi_1', { available: 5_000, pending: -5_000 }, 5_000),
    entry('txn_h', 'payout_hold', 'po_1', { reserved: 2_500, available: -2_500 }, -2_500),
  ];
  const batched = await projectionSpec(t, balanceTransactionsProjection);
  await batched.given(log);
  const oneByOne = await projectionSpec(t, balanceTransactionsProjection);
  for (const event of log) await oneByOne.given([event]);
  for (const table of balanceTransactionsProjection.tables) t.same(await batched.rows(table), await oneByOne.rows(table), table);
  await batched.thenRows(
    t,
    'read.payout_settlements',
    [
      { balance_transaction_id: 'txn_a', amount: '2000' },
      { balance_transaction_id: 'txn_b', amount: '500' },
    ],
    'equal positions are drawn in id order',
  );
});
