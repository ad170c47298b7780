/**
 * Payment intent throughput: one iteration = POST /api/v1/payment-intents, then
 * POST /api/v1/payment-intents/{id}/confirm with Orange Money SN; 64 clients over 8 merchants,
 * alternating in slices with `GET /healthz` on the same service (the floor its ratio divides by).
 */
import { createMerchant, type CreatedMerchant } from '#packages/families/merchants/merchant/commands.js';
import { fixed, HTTP_CONNECTIONS, percent, progress, round, table } from './common.js';
import { createScratchDatabase } from './database.js';
import { LoadWorker, measureScenarios, type ScenarioResult } from './load.js';
import { outcomesText, SANDBOX_DELAY_MS, SERVICE_POOL_MAX } from './payouts.js';
import { startService } from './service.js';

const MERCHANTS = 8;
const CREATE_BODY = JSON.stringify({ amount: 5000, currency: 'xof', transaction_country: 'SN' });
const CONFIRM_BODY = JSON.stringify({ payment_method: { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } } });

export interface IntentsResult extends ScenarioResult {
  clients: number;
  merchants: number;
  poolMax: number;
  outcomes: Record<string, number>;
  /** Iterations answered 2xx (warm-up included) against intents in read.payment_intents by status. */
  iterations2xx: number;
  stored: Record<string, number>;
  ok: boolean;
  /** GET /healthz in the same alternating slices. */
  healthz: ScenarioResult;
}

export async function benchIntents(serverUrl: string): Promise<IntentsResult> {
  const database = await createScratchDatabase(serverUrl, 'intents');
  const service = await startService(database.url, { poolMax: SERVICE_POOL_MAX, env: { SANDBOX_OPERATOR_DELAY_MS: SANDBOX_DELAY_MS } });
  let worker: LoadWorker | null = null;
  try {
    const merchants: CreatedMerchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) merchants.push(await createMerchant(service.system.store, service.system.clock, `Bench intents ${i}`, 'bench'));
    const keys = Array.from({ length: HTTP_CONNECTIONS }, (_, i) => merchants[i % MERCHANTS]!.api_keys.sandbox);
    worker = new LoadWorker(service.baseUrl, {
      intents: { kind: 'intents', createBody: CREATE_BODY, confirmBody: CONFIRM_BODY, keys },
      healthz: { kind: 'get', path: '/healthz', keys },
    });
    progress(`  create + confirm, ${HTTP_CONNECTIONS} clients over ${MERCHANTS} merchants, alternating with GET /healthz…`);
    const [result, healthz] = await measureScenarios(worker, ['intents', 'healthz'], service.system.knex);
    const totals = await worker.totals('intents');
    const iterations2xx = totals.perKey.reduce((sum, t) => sum + t.ok, 0);
    const rows = await service.system
      .knex('read.payment_intents')
      .select('status')
      .count<{ status: string; n: string }[]>({ n: '*' })
      .whereIn(
        'merchant_id',
        merchants.map((m) => m.id),
      )
      .groupBy('status');
    const stored = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    return {
      ...result!,
      clients: HTTP_CONNECTIONS,
      merchants: MERCHANTS,
      poolMax: service.poolMax,
      outcomes: totals.outcomes,
      iterations2xx,
      stored,
      ok: (stored.processing ?? 0) === iterations2xx,
      healthz: healthz!,
    };
  } finally {
    await worker?.close();
    await service.close();
    await database.drop();
  }
}

export function intentsText(r: IntentsResult): string[] {
  const stored = Object.entries(r.stored)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  return [
    `Payment intents, create + confirm (mobile money SN orange_money; ${r.clients} closed-loop keep-alive clients over ${r.merchants} merchants ` + `in a process of their own; service pool max ${r.poolMax}; latency = the pair)`,
    table(
      ['workload', 'iterations/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'iterations', 'SQL/iteration', 'server loop busy', 'CPUs busy'],
      [
        [
          'create + confirm',
          fixed(r.perSecond, 0),
          fixed(r.p50Ms, 2),
          fixed(r.p99Ms, 2),
          String(r.non2xx),
          String(r.errors),
          String(r.operations),
          fixed(r.statementsPerOperation, 1),
          percent(r.busy.serverEventLoop),
          percent(r.busy.machineCpu),
        ],
        [
          'GET /healthz',
          fixed(r.healthz.perSecond, 0),
          fixed(r.healthz.p50Ms, 2),
          fixed(r.healthz.p99Ms, 2),
          String(r.healthz.non2xx),
          String(r.healthz.errors),
          String(r.healthz.operations),
          fixed(r.healthz.statementsPerOperation, 1),
          percent(r.healthz.busy.serverEventLoop),
          percent(r.healthz.busy.machineCpu),
        ],
      ],
    ),
    `  ${r.iterations2xx} iterations answered 2xx (warm-up included); read.payment_intents: ${stored} → ${r.ok ? 'OK' : 'MISMATCH'} (processing = 2xx iterations)`,
    `    answers: ${outcomesText(r.outcomes)}`,
  ];
}

export function intentsJson(r: IntentsResult) {
  return {
    clients: r.clients,
    merchants: r.merchants,
    pool_max: r.poolMax,
    iterations_per_s: round(r.perSecond, 1),
    p50_ms: round(r.p50Ms, 3),
    p99_ms: round(r.p99Ms, 3),
    non_2xx: r.non2xx,
    errors: r.errors,
    iterations: r.operations,
    sql_statements_per_iteration: round(r.statementsPerOperation, 2),
    server_event_loop_busy: round(r.busy.serverEventLoop, 3),
    machine_cpu_busy: round(r.busy.machineCpu, 3),
    iterations_2xx: r.iterations2xx,
    stored_by_status: r.stored,
    check: r.ok ? 'OK' : 'MISMATCH',
    outcomes: r.outcomes,
    healthz: { req_per_s: round(r.healthz.perSecond, 1), p50_ms: round(r.healthz.p50Ms, 3), p99_ms: round(r.healthz.p99Ms, 3) },
  };
}
