/**
 * Webhook deliveries per second: N payment intents are created for a merchant whose endpoint (a
 * node http server on loopback answering 200 at once) takes every event; then `system.drain()`
 * runs the dispatcher (events → deliveries) and the scheduler's due `webhook.first_attempts` jobs until
 * all are delivered. Every request the receiver got is verified with `standardwebhooks`. The
 * drain also waits for the log's other followers (the intelligence projector, the other bus
 * consumers) to catch up on the N events before the scheduler runs, so the figure includes their
 * backlog; the dispatcher's own share is reported beside it.
 */
import { performance } from 'node:perf_hooks';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { DISPATCH_CONSUMER } from '#packages/families/webhooks/consumer.js';
import { BusyMeter, fixed, MEASURE_SECONDS, numberFromEnv, percent, progress, QueryMeter, round, type Busy } from './common.js';
import { createScratchDatabase } from './database.js';
import { SANDBOX_DELAY_MS, SERVICE_POOL_MAX } from './payouts.js';
import { startReceiver, verifyAll } from './receiver.js';
import { callJson, inParallel, startService } from './service.js';

/**
 * Deliveries to queue: BENCH_WEBHOOKS, else 400 per measured second (2 000 by default: deliveries
 * are claimed 500 at a time, so fewer would measure little more than one batch and the drain's
 * fixed costs).
 */
const DELIVERIES = Math.round(numberFromEnv('BENCH_WEBHOOKS', Math.max(50, Math.round(400 * MEASURE_SECONDS)), 1));

export interface WebhooksResult {
  queued: number;
  poolMax: number;
  setupSeconds: number;
  /** From startBackground + drain() to drain() returning: dispatch and delivery. */
  drainSeconds: number;
  deliveriesPerSecond: number;
  /** Start of the drain to the first request at the receiver: the log's followers catching up, the dispatcher among them. */
  dispatchSeconds: number;
  /** Time spent in the dispatcher's own batches (events → webhook events, deliveries and jobs), within dispatchSeconds. */
  dispatcherSeconds: number;
  /** First to last request at the receiver. */
  deliverySeconds: number;
  deliveryPhasePerSecond: number;
  received: number;
  uniqueIds: number;
  verified: number;
  verifyFailures: string[];
  statuses: Record<string, number>;
  attemptMsAvg: number;
  attemptMsP99: number;
  busy: Busy;
  /** SQL statements sent during the drain (dispatch and delivery; BEGIN and COMMIT not counted), and their summed answer time. */
  statements: number;
  statementMs: number;
  ok: boolean;
}

export async function benchWebhooks(serverUrl: string): Promise<WebhooksResult> {
  const database = await createScratchDatabase(serverUrl, 'webhooks');
  const service = await startService(database.url, {
    poolMax: SERVICE_POOL_MAX,
    env: { SANDBOX_OPERATOR_DELAY_MS: SANDBOX_DELAY_MS, WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1' },
  });
  const receiver = await startReceiver();
  try {
    const { system } = service;
    const setupFrom = performance.now();
    const merchant = await createMerchant(system.store, system.clock, 'Bench webhooks', 'bench');
    const key = merchant.api_keys.sandbox;
    const endpoint = await callJson<{ id: string; secret: string }>(service.baseUrl, 'POST', '/api/v1/webhook-endpoints', key, { url: receiver.url, enabled_events: ['*'] });
    progress(`  queueing ${DELIVERIES} events (payment intents created over HTTP, 16 at a time)…`);
    await inParallel(DELIVERIES, 16, async () => {
      await callJson(service.baseUrl, 'POST', '/api/v1/payment-intents', key, { amount: 5000, currency: 'xof', transaction_country: 'SN' });
    });
    const setupSeconds = (performance.now() - setupFrom) / 1000;

    progress("  drain: the log's followers (the dispatcher among them), then the scheduler delivering in batches…");
    // The dispatcher's own share of the drain: its handler timed around each batch.
    const dispatcher = system.busConsumers.find((c) => c.name === DISPATCH_CONSUMER)!;
    const handle = dispatcher.handle.bind(dispatcher);
    let dispatcherMs = 0;
    dispatcher.handle = async (trx, events) => {
      const started = performance.now();
      try {
        await handle(trx, events);
      } finally {
        dispatcherMs += performance.now() - started;
      }
    };
    const busy = new BusyMeter();
    const sql = new QueryMeter(system.knex);
    const from = performance.now();
    await busy.around(() =>
      sql.around(async () => {
        await system.startBackground({ schedulerLoop: false });
        await system.drain();
      }),
    );
    const drainSeconds = (performance.now() - from) / 1000;

    const got = receiver.received;
    const first = got[0]?.atMs ?? from;
    const last = got[got.length - 1]?.atMs ?? from;
    const { verified, failures: verifyFailures } = verifyAll(got, [endpoint.secret]);
    const uniqueIds = new Set(got.map((r) => r.headers['webhook-id'])).size;
    const statusRows = await system.knex('webhook_deliveries').select('status').count<{ status: string; n: string }[]>({ n: '*' }).groupBy('status');
    const statuses = Object.fromEntries(statusRows.map((r) => [r.status, Number(r.n)]));
    const attempts = await system.knex.raw<{ rows: { avg: string | null; p99: string | null }[] }>(`SELECT avg(duration_ms) AS avg, percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms) AS p99 FROM webhook_attempts`);
    const attemptRow = attempts.rows[0];
    return {
      queued: DELIVERIES,
      poolMax: service.poolMax,
      setupSeconds,
      drainSeconds,
      deliveriesPerSecond: got.length / drainSeconds,
      dispatchSeconds: (first - from) / 1000,
      dispatcherSeconds: dispatcherMs / 1000,
      deliverySeconds: (last - first) / 1000,
      deliveryPhasePerSecond: got.length > 1 ? (got.length - 1) / ((last - first) / 1000) : 0,
      received: got.length,
      uniqueIds,
      verified,
      verifyFailures,
      statuses,
      attemptMsAvg: Number(attemptRow?.avg ?? 0),
      attemptMsP99: Number(attemptRow?.p99 ?? 0),
      busy: busy.result(),
      statements: sql.statements,
      statementMs: sql.totalMs,
      ok: got.length === DELIVERIES && uniqueIds === DELIVERIES && verified === got.length && statuses.succeeded === DELIVERIES,
    };
  } finally {
    await receiver.close();
    await service.close();
    await database.drop();
  }
}

export function webhooksText(r: WebhooksResult): string[] {
  const statuses = Object.entries(r.statuses)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  const perDeliveryMs = r.deliveryPhasePerSecond > 0 ? 1000 / r.deliveryPhasePerSecond : 0;
  const each = (total: number) => fixed(total / Math.max(1, r.received), 2);
  return [
    `Webhook deliveries (${r.queued} payment_intent.created events → 1 endpoint on loopback answering 200 at once, in this process; ` +
      `system.drain() without the scheduler loop; service pool max ${r.poolMax}; queueing the events took ${fixed(r.setupSeconds, 1)} s, not counted)`,
    `  drain: ${r.received} deliveries in ${fixed(r.drainSeconds, 2)} s = ${fixed(r.deliveriesPerSecond, 0)} deliveries/s, signing included`,
    `    until the first request: ${fixed(r.dispatchSeconds, 2)} s (the log's followers catching up on the events; the dispatcher's own batches ${fixed(r.dispatcherSeconds, 2)} s of it); ` +
      `then ${fixed(r.deliverySeconds, 2)} s of deliveries = ${fixed(r.deliveryPhasePerSecond, 0)}/s, ${fixed(perDeliveryMs, 2)} ms each (wall time per delivery; batches of up to 2,000: 20 first-attempts jobs of up to 100; up to 16 requests in flight to the endpoint)`,
    `    per delivery: HTTP attempt (new connection, POST, answer; whole ms as recorded) avg ${fixed(r.attemptMsAvg, 2)} ms, p99 ${fixed(r.attemptMsP99, 0)} ms; ` +
      `${fixed(r.statements / Math.max(1, r.received), 1)} SQL statements (dispatch share included, BEGIN/COMMIT not counted) answering in ${each(r.statementMs)} ms`,
    `    server event loop ${percent(r.busy.serverEventLoop)} busy, CPUs ${percent(r.busy.machineCpu)} busy during the drain`,
    `  receiver: ${r.received} requests, ${r.uniqueIds} distinct webhook-id, ${r.verified} verified by standardwebhooks; deliveries: ${statuses} → ${r.ok ? 'OK' : 'MISMATCH'}` +
      (r.verifyFailures.length > 0 ? `\n    verify failures: ${r.verifyFailures.join('; ')}` : ''),
  ];
}

export function webhooksJson(r: WebhooksResult) {
  return {
    queued: r.queued,
    pool_max: r.poolMax,
    drain_s: round(r.drainSeconds, 3),
    deliveries_per_s: round(r.deliveriesPerSecond, 1),
    dispatch_s: round(r.dispatchSeconds, 3),
    dispatcher_s: round(r.dispatcherSeconds, 3),
    delivery_phase_s: round(r.deliverySeconds, 3),
    delivery_phase_per_s: round(r.deliveryPhasePerSecond, 1),
    attempt_ms_avg: round(r.attemptMsAvg, 2),
    attempt_ms_p99: round(r.attemptMsP99, 1),
    sql_statements: r.statements,
    sql_ms: round(r.statementMs, 1),
    server_event_loop_busy: round(r.busy.serverEventLoop, 3),
    machine_cpu_busy: round(r.busy.machineCpu, 3),
    received: r.received,
    unique_ids: r.uniqueIds,
    verified: r.verified,
    statuses: r.statuses,
    check: r.ok ? 'OK' : 'MISMATCH',
  };
}
