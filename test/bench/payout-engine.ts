/**
 * The payout engine: a batch of BENCH_BATCH_ITEMS (default 10 000) mobile money instructions
 * created from CSV (validation items/s: the whole POST), then executed in sandbox (execution
 * items/s: from POST …/execute until the batch is completed, every payout sent and paid by the
 * sandbox operator, its outcome recorded on the batch). Then the check: every item paid by exactly
 * one payout, no other payout, and available = funding − Σ(amount + fee) in the ledger and in
 * GET /api/v1/balance, nothing left reserved.
 */
import { postPayment } from '#packages/families/payments/payment-intent/postings.js';
import { performance } from 'node:perf_hooks';
import { runLedger } from '#packages/families/ledger/commands.js';
import { balanceOf } from '#packages/ledger/decider.js';
import { balanceStream } from '#packages/families/ledger/events.js';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { loadState } from '#packages/eventstore/command-handler.js';
import { payoutBatchItemStatuses } from '#packages/families/payout-engine/read/payout-batch-items.js';
import { fixed, numberFromEnv, progress, round } from './common.js';
import { createScratchDatabase } from './database.js';
import { SERVICE_POOL_MAX } from './payouts.js';
import { callJson, startService } from './service.js';

const ITEMS = Math.round(numberFromEnv('BENCH_BATCH_ITEMS', 10_000, 1));
const FUNDING = 100_000_000_000;
/** Operators the lines alternate between: sends are limited per operator, operators run side by side. */
const OPERATORS = ['orange_money', 'wave', 'free_money'];

export interface PayoutEngineResult {
  items: number;
  csvBytes: number;
  validationSeconds: number;
  executionSeconds: number;
  check: { ok: boolean; paidItems: number; distinctPayouts: number; payoutsStored: number; expectedAvailable: number; ledgerAvailable: number; apiAvailable: number; reserved: number; detail: string | null };
}

function batchCsv(): { csv: string; amounts: number[] } {
  const amounts = Array.from({ length: ITEMS }, (_, i) => 1_000 + (i % 977));
  // MSISDNs ending 10–99: the sandbox operator pays them (01–04 script failures and delays).
  const lines = amounts.map((amount, i) => `${amount},XOF,mobile_money,SN,${OPERATORS[i % OPERATORS.length]},+2217712345${10 + (i % 90)},B-${i}`);
  return { csv: ['amount,currency,destination_type,country,operator,msisdn,reference', ...lines].join('\n'), amounts };
}

export async function benchPayoutEngine(serverUrl: string): Promise<PayoutEngineResult> {
  const database = await createScratchDatabase(serverUrl, 'payout_engine');
  const service = await startService(database.url, { poolMax: SERVICE_POOL_MAX, env: { SANDBOX_OPERATOR_DELAY_MS: '0' } });
  try {
    const { system, baseUrl } = service;
    const merchant = await createMerchant(system.store, system.clock, 'Bench payout engine', 'bench');
    const key = merchant.api_keys.sandbox;
    await runLedger(system, merchant.id, 'sandbox', 'xof', postPayment({ source: 'pi_bench_engine', clearing: 'operator_clearing:wave', amount: FUNDING, fee: 0, availableOn: system.clock.now() }), {
      merchant_id: merchant.id,
      environment: 'sandbox',
      actor: 'bench',
      occurred_at: system.clock.now().toISOString(),
    });
    const { csv } = batchCsv();

    progress(`  creating a batch of ${ITEMS} items from CSV (${Math.round(csv.length / 1024)} KiB)…`);
    const started = performance.now();
    const res = await fetch(`${baseUrl}/api/v1/payout-engine/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-environment': 'sandbox', 'content-type': 'text/csv' },
      body: csv,
    });
    const batch = (await res.json()) as { id: string; status: string; total_amount: number; total_fee: number };
    const validationSeconds = (performance.now() - started) / 1000;
    if (res.status !== 200) throw new Error(`batch refused: ${res.status} ${JSON.stringify(batch).slice(0, 300)}`);

    progress('  executing it in sandbox until every item is paid…');
    await system.startBackground({ schedulerLoop: false });
    const executing = performance.now();
    await callJson(baseUrl, 'POST', `/api/v1/payout-engine/batches/${batch.id}/execute`, key);
    let status = 'executing';
    for (let round = 0; status === 'executing' && round < 1_000; round++) {
      await system.drain();
      status = (await callJson<{ status: string }>(baseUrl, 'GET', `/api/v1/payout-engine/batches/${batch.id}`, key)).status;
    }
    const executionSeconds = (performance.now() - executing) / 1000;

    const statuses = await payoutBatchItemStatuses(system.knex, batch.id);
    const distinct = await system.knex('read.payout_batch_items').where({ batch_id: batch.id }).countDistinct<{ n: string }[]>({ n: 'payout_id' });
    const stored = await system.knex('read.payouts').where({ merchant_id: merchant.id, status: 'paid' }).count<{ n: string }[]>({ n: '*' });
    const expectedAvailable = FUNDING - batch.total_amount - batch.total_fee;
    const { state } = await loadState(system.store, balanceStream(merchant.id, 'sandbox', 'xof'), system.ledger.decider);
    const api = await callJson<{ available: { amount: number }[]; reserved: { amount: number }[] }>(baseUrl, 'GET', '/api/v1/balance', key);
    const check = {
      paidItems: statuses.paid ?? 0,
      distinctPayouts: Number(distinct[0]?.n ?? 0),
      payoutsStored: Number(stored[0]?.n ?? 0),
      expectedAvailable,
      ledgerAvailable: balanceOf(state, 'available'),
      apiAvailable: api.available[0]?.amount ?? 0,
      reserved: api.reserved[0]?.amount ?? 0,
    };
    const ok =
      status === 'completed' &&
      check.paidItems === ITEMS &&
      check.distinctPayouts === ITEMS &&
      check.payoutsStored === ITEMS &&
      check.ledgerAvailable === expectedAvailable &&
      check.apiAvailable === expectedAvailable &&
      check.reserved === 0;
    const detail = ok ? null : `batch ${status}, items ${JSON.stringify(statuses)}, ${JSON.stringify(check)}`;
    return { items: ITEMS, csvBytes: csv.length, validationSeconds, executionSeconds, check: { ok, ...check, detail } };
  } finally {
    await service.close();
    await database.drop();
  }
}

export function payoutEngineText(r: PayoutEngineResult): string[] {
  const c = r.check;
  return [
    `Payout engine (a CSV batch of ${r.items} mobile money items, ${Math.round(r.csvBytes / 1024)} KiB, three SN operators; sandbox operator answering at once; scheduler drained)`,
    `  validation (POST …/batches, text/csv): ${fixed(r.validationSeconds, 2)} s, ${fixed(r.items / r.validationSeconds, 0)} items/s`,
    `  execution (POST …/execute until completed: each item held, sent, paid, recorded): ${fixed(r.executionSeconds, 2)} s, ${fixed(r.items / r.executionSeconds, 0)} items/s`,
    `  check: ${c.paidItems}/${r.items} items paid, ${c.distinctPayouts} distinct payouts, ${c.payoutsStored} paid payouts stored; ` +
      `available = funding − Σ(amount+fee) = ${c.expectedAvailable}: ledger ${c.ledgerAvailable}, GET /api/v1/balance ${c.apiAvailable}; reserved ${c.reserved} → ${c.ok ? 'OK' : 'MISMATCH'}` +
      (c.detail ? `\n    ${c.detail}` : ''),
  ];
}

export function payoutEngineJson(r: PayoutEngineResult) {
  return {
    items: r.items,
    validation_seconds: round(r.validationSeconds, 3),
    validation_items_per_s: round(r.items / r.validationSeconds, 1),
    execution_seconds: round(r.executionSeconds, 3),
    execution_items_per_s: round(r.items / r.executionSeconds, 1),
    check: r.check.ok ? 'OK' : 'MISMATCH',
  };
}
