/**
 * Intelligence on BENCH_INTEL_PAYMENTS (default 100 000) payments of one merchant over the last 90
 * days (5 operators in 3 countries, 2 methods, 80 % succeeded, 5 % with a refund, 20 000
 * customers, a routing decision each): each intelligence operation over HTTP, BENCH_INTEL_REQUESTS
 * times (default 20) one after the other; its median against the 100 ms target, and its worst
 * (which a busy shared machine inflates).
 *
 * The read models are seeded in SQL with the rows the projection folds from such payments (one
 * row per payment, their sums per day × dimension, each customer's first and last payment): folding
 * 100 000 payments' events would take minutes and measure the projection, not the queries. The
 * check: the KPIs the API answers equal the sums over the seeded payments.
 */
import { performance } from 'node:perf_hooks';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { fixed, numberFromEnv, progress, round } from './common.js';
import { createScratchDatabase } from './database.js';
import { callJson, startService } from './service.js';

const PAYMENTS = Math.round(numberFromEnv('BENCH_INTEL_PAYMENTS', 100_000, 1));
const REQUESTS = Math.round(numberFromEnv('BENCH_INTEL_REQUESTS', 20, 1));
const TARGET_MS = 100;

export interface IntelligenceResult {
  payments: number;
  seedSeconds: number;
  operations: { path: string; medianMs: number; maxMs: number }[];
  check: { ok: boolean; detail: string | null };
}

const OPERATIONS = [
  '/api/v1/intelligence/kpis?from={from}&to={to}',
  '/api/v1/intelligence/kpis/breakdown?dimension=day&from={from}&to={to}',
  '/api/v1/intelligence/kpis/breakdown?dimension=operator&from={from}&to={to}',
  '/api/v1/intelligence/decisions?limit=100',
  '/api/v1/intelligence/lifecycle',
  '/api/v1/intelligence/lifecycle/customers?stage=at_risk&limit=100',
  '/api/v1/intelligence/recommendations',
  '/api/v1/intelligence/operators',
  '/api/v1/context-intelligence/suggestions?page=home',
];

export async function benchIntelligence(serverUrl: string): Promise<IntelligenceResult> {
  const database = await createScratchDatabase(serverUrl, 'intelligence');
  const service = await startService(database.url, { poolMax: 8 });
  try {
    const { system, baseUrl } = service;
    const knex = system.knex;
    const merchant = await createMerchant(system.store, system.clock, 'Bench intelligence', 'bench');
    const key = merchant.api_keys.sandbox;
    progress(`  seeding ${PAYMENTS} payments…`);
    const seeding = performance.now();
    await knex.raw(
      `INSERT INTO read.intel_payments (id, merchant_id, environment, day, currency, country, operator, method, customer, amount, status, fee, refunded)
       SELECT 'pi_bench_' || i, ?, 'sandbox', (now() AT TIME ZONE 'UTC')::date - (i % 90),
              (ARRAY['XOF','XOF','GHS'])[i % 3 + 1], (ARRAY['SN','CI','GH'])[i % 3 + 1],
              (ARRAY['orange_money','wave','mtn','moov','free_money'])[i % 5 + 1], (ARRAY['mobile_money','card'])[(i / 7) % 2 + 1],
              'cus_bench_' || (i % 20000), 1000 + (i % 5000),
              CASE WHEN i % 10 < 8 THEN 'succeeded' WHEN i % 10 = 8 THEN 'failed' ELSE 'open' END,
              CASE WHEN i % 10 < 8 THEN 20 + (i % 50) ELSE 0 END,
              CASE WHEN i % 20 = 0 THEN 500 ELSE 0 END
       FROM generate_series(1, ?) AS i`,
      [merchant.id, PAYMENTS],
    );
    await knex.raw(
      `INSERT INTO read.intel_daily
       SELECT merchant_id, environment, day, currency, country, operator, method, count(*),
              count(*) FILTER (WHERE status = 'succeeded'), count(*) FILTER (WHERE status = 'failed'),
              COALESCE(sum(amount) FILTER (WHERE status = 'succeeded'), 0), COALESCE(sum(fee) FILTER (WHERE status = 'succeeded'), 0), sum(refunded)
       FROM read.intel_payments WHERE merchant_id = ? GROUP BY 1, 2, 3, 4, 5, 6, 7`,
      [merchant.id],
    );
    await knex.raw(
      `INSERT INTO read.intel_customers
       SELECT merchant_id, environment, customer, min(id), min(day)::timestamptz, max(day)::timestamptz, count(*)
       FROM read.intel_payments WHERE merchant_id = ? AND status = 'succeeded' GROUP BY 1, 2, 3`,
      [merchant.id],
    );
    await knex.raw(
      `INSERT INTO read.intel_decisions
       SELECT 'dec_bench_' || id, lpad(substr(id, 10), 12, '0'), merchant_id, environment, 'payment_routing', id,
              json_build_object('id', 'dec_bench_' || id, 'object', 'intelligence.decision', 'kind', 'payment_routing', 'subject', id,
                                'outcome', json_build_object('method', method, 'operator', operator, 'rail_country', country), 'reason', 'bench', 'decidedAt', day::timestamptz)
       FROM read.intel_payments WHERE merchant_id = ?`,
      [merchant.id],
    );
    await knex.raw('ANALYZE read.intel_payments, read.intel_daily, read.intel_customers, read.intel_decisions');
    const seedSeconds = (performance.now() - seeding) / 1000;

    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
    const operations: IntelligenceResult['operations'] = [];
    for (const template of OPERATIONS) {
      const path = template.replace('{from}', from).replace('{to}', to);
      await callJson(baseUrl, 'GET', path, key);
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const started = performance.now();
        await callJson(baseUrl, 'GET', path, key);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      operations.push({ path: template.replace(/[?&](from|to)=\{\w+\}/g, '').replace(/&limit=100|\?limit=100/, ''), medianMs: times[Math.floor(times.length / 2)]!, maxMs: times[times.length - 1]! });
    }

    const api = await callJson<{ data: { currency: string; count: number; volume: number; refunds: number }[] }>(baseUrl, 'GET', `/api/v1/intelligence/kpis?from=${from}&to=${to}`, key);
    const sums = (await knex('read.intel_payments')
      .where({ merchant_id: merchant.id })
      .select('currency', knex.raw('count(*)::bigint AS count'), knex.raw("COALESCE(sum(amount) FILTER (WHERE status = 'succeeded'), 0)::bigint AS volume"), knex.raw('sum(refunded)::bigint AS refunds'))
      .groupBy('currency')
      .orderBy('currency')) as { currency: string; count: string; volume: string; refunds: string }[];
    const expected = sums.map((s) => ({ currency: s.currency, count: Number(s.count), volume: Number(s.volume), refunds: Number(s.refunds) }));
    const answered = api.data.map((d) => ({ currency: d.currency, count: d.count, volume: d.volume, refunds: d.refunds }));
    const ok = JSON.stringify(expected) === JSON.stringify(answered);
    return { payments: PAYMENTS, seedSeconds, operations, check: { ok, detail: ok ? null : `API ${JSON.stringify(answered)} vs payments ${JSON.stringify(expected)}` } };
  } finally {
    await service.close();
    await database.drop();
  }
}

export function intelligenceText(r: IntelligenceResult): string[] {
  const slowest = Math.max(...r.operations.map((o) => o.medianMs));
  return [
    `Intelligence (${r.payments} payments of one merchant over 90 days, read models seeded in ${fixed(r.seedSeconds, 1)} s; ${REQUESTS} sequential requests per operation; target < ${TARGET_MS} ms)`,
    ...r.operations.map((o) => `  ${o.path.padEnd(66)} median ${fixed(o.medianMs, 1).padStart(6)} ms, max ${fixed(o.maxMs, 1).padStart(6)} ms${o.medianMs < TARGET_MS ? '' : '  OVER TARGET'}`),
    `  slowest median ${fixed(slowest, 1)} ms → ${slowest < TARGET_MS ? 'within' : 'OVER'} the target; check: KPIs = sums over the payments → ${r.check.ok ? 'OK' : 'MISMATCH'}${r.check.detail ? `\n    ${r.check.detail}` : ''}`,
  ];
}

export function intelligenceJson(r: IntelligenceResult) {
  return {
    payments: r.payments,
    operations: Object.fromEntries(r.operations.map((o) => [o.path, { median_ms: round(o.medianMs, 2), max_ms: round(o.maxMs, 2) }])),
    within_target: r.operations.every((o) => o.medianMs < TARGET_MS),
    check: r.check.ok ? 'OK' : 'MISMATCH',
  };
}
