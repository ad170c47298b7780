/**
 * Payout creation throughput (POST /api/v1/payouts, 64 clients). First against `make start`'s
 * process model (the standalone service in its own processes, API_WORKERS workers, one per CPU by
 * default, with all its background work) on 64 merchants, each with a webhook endpoint on a
 * loopback receiver and the sandbox operator answering at once: after the load stops, the time
 * until every payout is final and every webhook delivered is the background's lag. Then against a
 * service in this process (API only, the operator an hour out) on 64 other merchants, one each, on
 * one merchant whose balance stream every request holds funds on, and `GET /healthz`, alternating.
 * Afterwards each merchant's available balance must equal its funding minus Σ (amount + fee) of the
 * payouts answered 2xx.
 */
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { defaultApiWorkers } from '../../packages/core/config.js';
import { freePort } from '../../packages/core/embedded-postgres.js';
import { loadState } from '../../packages/eventstore/command-handler.js';
import { runLedger } from '../../packages/domain/ledger/commands.js';
import { balanceOf, ledgerDecider } from '../../packages/domain/ledger/decider.js';
import { balanceStream } from '../../packages/domain/ledger/events.js';
import { createMerchant } from '../../packages/domain/merchant/commands.js';
import { DISPATCH_CONSUMER } from '../../packages/webhooks/dispatcher.js';
import { cpuByGroup, fixed, HTTP_CONNECTIONS, numberFromEnv, percent, processCpuSeconds, progress, round, table } from './common.js';
import { createScratchDatabase } from './database.js';
import { LoadWorker, measureScenarios, type ScenarioResult } from './load.js';
import { startReceiver, verifyAll, type Receiver } from './receiver.js';
import { callJson, inParallel, startService, type BenchService } from './service.js';
import { startProcess } from '../support/child-process.js';

/** The service's knex pool in the payout, payment intent and webhook sections (below the 64 clients: they contend for it). */
export const SERVICE_POOL_MAX = 40;
/** The sandbox operator answers an hour later: no callback job is due during the run (and no loop runs jobs). */
export const SANDBOX_DELAY_MS = '3600000';
/** API workers of the standalone run: BENCH_API_WORKERS, else `make start`'s default. */
const API_WORKERS = Math.round(numberFromEnv('BENCH_API_WORKERS', defaultApiWorkers(), 1));
/** Funding of each merchant: 10^11 XOF covers 10^8 payouts of 1 000 plus fee. */
const FUNDING = 100_000_000_000;
const PAYOUT_AMOUNT = 1000;
const PAYOUT_BODY = JSON.stringify({
  amount: PAYOUT_AMOUNT,
  currency: 'xof',
  destination: { type: 'mobile_money', country: 'SN', operator: 'wave', msisdn: '+221771234599' },
});

export interface BalanceCheck {
  merchants: number;
  /** Payouts answered 2xx (warm-up included). */
  payouts2xx: number;
  /** Payouts in read.payouts for these merchants. */
  payoutsStored: number;
  /** Merchants whose ledger (event stream) available balance ≠ funding − Σ(amount + fee). */
  ledgerMismatches: number;
  /** Merchants whose GET /api/v1/balance available ≠ that figure. */
  apiMismatches: number;
  ok: boolean;
  /** The first mismatch, spelled out. */
  detail: string | null;
}

export interface PayoutScenario extends ScenarioResult {
  name: string;
  merchants: number;
  outcomes: Record<string, number>;
  check: BalanceCheck;
}

/** The standalone run's background after the load: how long until it was done, and what it delivered. */
/** CPU seconds by process group (standalone primary, API workers, PostgreSQL, load generator, the bench) and the wall seconds they were summed over. */
export interface CpuShare {
  wallSeconds: number;
  seconds: Record<string, number>;
}

export interface BackgroundLag {
  /** From the end of the load until every payout was final and every webhook delivered; null if not within LAG_LIMIT_S. */
  seconds: number | null;
  payouts: number;
  final: number;
  webhookEvents: number;
  delivered: number;
  received: number;
  verified: number;
  verifyFailures: string[];
  /** Where the CPU went during the load (warm-up included) and during the lag after it. */
  cpuDuringLoad: CpuShare;
  cpuAfterLoad: CpuShare;
}

export interface PayoutsResult {
  clients: number;
  poolMax: number;
  /** The standalone run first, then the in-process runs (64 merchants, one hot merchant). */
  scenarios: PayoutScenario[];
  /** GET /healthz on the in-process service, in the same alternating slices as its payout runs. */
  healthz: ScenarioResult;
  lag: BackgroundLag;
  /** Resident memory of the bench process, where the service runs (its load generator is a child process), at the end of the runs. */
  rssBytes: number;
  /** Resident memory of each standalone process at the end of its run, the primary first (empty where /proc is not readable). */
  standaloneRssBytes: number[];
}

interface Funded {
  id: string;
  key: string;
}

async function fundedMerchant(service: BenchService, n: number): Promise<Funded> {
  const { store, clock } = service.system;
  const merchant = await createMerchant(store, clock, `Bench payouts ${n}`, 'bench');
  const meta = { merchant_id: merchant.id, environment: 'sandbox' as const, actor: 'bench', occurred_at: clock.now().toISOString() };
  await runLedger(
    store,
    clock,
    merchant.id,
    'sandbox',
    'xof',
    { type: 'post_payment', source: `pi_bench_${n}`, clearing: 'operator_clearing:wave', amount: FUNDING, fee: 0, availableOn: clock.now() },
    meta,
  );
  return { id: merchant.id, key: merchant.api_keys.sandbox };
}

interface BalanceBody {
  available: { amount: number; currency: string }[];
}

async function checkBalances(service: BenchService, merchants: Funded[], sums: Map<string, { ok: number; amountPlusFee: number }>): Promise<BalanceCheck> {
  const { store, knex } = service.system;
  let ledgerMismatches = 0;
  let apiMismatches = 0;
  let payouts2xx = 0;
  let detail: string | null = null;
  for (const m of merchants) {
    const sent = sums.get(m.key) ?? { ok: 0, amountPlusFee: 0 };
    payouts2xx += sent.ok;
    const expected = FUNDING - sent.amountPlusFee;
    const { state } = await loadState(store, balanceStream(m.id, 'sandbox', 'xof'), ledgerDecider);
    const ledger = balanceOf(state, 'available');
    const body = await callJson<BalanceBody>(service.baseUrl, 'GET', '/api/v1/balance', m.key);
    const api = body.available.find((a) => a.currency === 'xof')?.amount ?? 0;
    if (ledger !== expected) ledgerMismatches++;
    if (api !== expected) apiMismatches++;
    if ((ledger !== expected || api !== expected) && detail === null) {
      detail = `${m.id}: funded ${FUNDING}, ${sent.ok} payouts answered 2xx for Σ(amount+fee) ${sent.amountPlusFee}, so ${expected} expected; ledger says ${ledger}, GET /api/v1/balance says ${api}`;
    }
  }
  const rows = await knex('read.payouts')
    .whereIn('merchant_id', merchants.map((m) => m.id))
    .count<{ n: string }[]>({ n: '*' });
  const payoutsStored = Number(rows[0]?.n ?? 0);
  if (payoutsStored !== payouts2xx && detail === null) detail = `${payoutsStored} payouts stored but ${payouts2xx} answered 2xx`;
  return { merchants: merchants.length, payouts2xx, payoutsStored, ledgerMismatches, apiMismatches, ok: ledgerMismatches === 0 && apiMismatches === 0 && payoutsStored === payouts2xx, detail };
}

export async function benchPayouts(serverUrl: string): Promise<PayoutsResult> {
  const database = await createScratchDatabase(serverUrl, 'payouts');
  const service = await startService(database.url, { poolMax: SERVICE_POOL_MAX, env: { SANDBOX_OPERATOR_DELAY_MS: SANDBOX_DELAY_MS, WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1' } });
  const receiver = await startReceiver();
  let worker: LoadWorker | null = null;
  try {
    progress(`  creating and funding ${2 * HTTP_CONNECTIONS + 1} merchants…`);
    const merchants: Funded[] = new Array<Funded>(2 * HTTP_CONNECTIONS + 1);
    await inParallel(merchants.length, 8, async (i) => {
      merchants[i] = await fundedMerchant(service, i);
    });
    const separate = merchants.slice(0, HTTP_CONNECTIONS);
    const hot = merchants[HTTP_CONNECTIONS]!;
    // The standalone run goes first, so its background starts on a log of set-up events only.
    const standalone = await standaloneRun(service, database.url, merchants.slice(HTTP_CONNECTIONS + 1), receiver);
    worker = new LoadWorker(service.baseUrl, {
      separate: { kind: 'payouts', body: PAYOUT_BODY, keys: separate.map((m) => m.key) },
      hot: { kind: 'payouts', body: PAYOUT_BODY, keys: separate.map(() => hot.key) },
      healthz: { kind: 'get', path: '/healthz', keys: separate.map((m) => m.key) },
    });
    progress(`  in this process: ${HTTP_CONNECTIONS} merchants vs 1 merchant vs GET /healthz, alternating slices…`);
    const [a, b, healthz] = await measureScenarios(worker, ['separate', 'hot', 'healthz'], service.system.knex);
    const rssBytes = process.memoryUsage().rss;
    const runs = [
      { key: 'separate', name: `${HTTP_CONNECTIONS} merchants, one per client`, result: a!, group: separate },
      { key: 'hot', name: '1 merchant (hot balance stream)', result: b!, group: [hot] },
    ];
    const scenarios: PayoutScenario[] = [standalone.scenario];
    for (const run of runs) {
      const totals = await worker.totals(run.key);
      const sums = new Map(totals.perKey.map((t) => [t.key, t]));
      const check = await checkBalances(service, run.group, sums);
      scenarios.push({ name: run.name, merchants: run.group.length, ...run.result, outcomes: totals.outcomes, check });
    }
    return { clients: HTTP_CONNECTIONS, poolMax: service.poolMax, scenarios, healthz: healthz!, lag: standalone.lag, rssBytes, standaloneRssBytes: standalone.rssBytes };
  } finally {
    await worker?.close();
    await receiver.close();
    await service.close();
    await database.drop();
  }
}

/**
 * Polls the service's readiness (its "serving" line is logged at info, and this run logs warnings
 * only, as the in-process runs log nothing); the warm-up slice covers workers still starting.
 */
async function untilReady(url: string, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (gone) throw new Error('the standalone service exited at start');
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How long the bench waits for the standalone service's background after the load. */
const LAG_LIMIT_S = 120;

/**
 * The load against the standalone service (`make start`) with API_WORKERS workers on the bench's
 * database, on merchants of its own, each with a webhook endpoint (every event) on `receiver`; the
 * sandbox operator answers at once, so the scheduler, the consumers and the dispatcher all work
 * during the run. Its statements and event loops are in other processes: those columns stay empty.
 */
async function standaloneRun(service: BenchService, databaseUrl: string, merchants: Funded[], receiver: Receiver): Promise<{ scenario: PayoutScenario; lag: BackgroundLag; rssBytes: number[] }> {
  const port = await freePort();
  progress(`  the standalone service with API_WORKERS=${API_WORKERS}: a webhook endpoint for each of ${merchants.length} merchants…`);
  const secrets: string[] = [];
  await inParallel(merchants.length, 8, async (i) => {
    const endpoint = await callJson<{ secret: string }>(service.baseUrl, 'POST', '/api/v1/webhook-endpoints', merchants[i]!.key, { url: receiver.url, enabled_events: ['*'] });
    secrets.push(endpoint.secret);
  });
  const standalone = startProcess('services/standalone/main.js', {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    API_WORKERS: String(API_WORKERS),
    SANDBOX_OPERATOR_DELAY_MS: '0',
    WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1',
    SECRETS_KEY: service.system.config.secretsKey!, // the endpoints' secrets were sealed with it
    RATE_LIMIT: 'off',
    RATE_LIMIT_ADDRESS: 'off',
    LOG_LEVEL: 'warn',
  }, [], process.execArgv); // the bench's Node flags are make start's (Makefile)
  let worker: LoadWorker | null = null;
  try {
    await untilReady(`http://127.0.0.1:${port}/readyz`, standalone.exit);
    worker = new LoadWorker(`http://127.0.0.1:${port}`, { standalone: { kind: 'payouts', body: PAYOUT_BODY, keys: merchants.map((m) => m.key) } });
    progress(`  ${merchants.length} merchants against ${API_WORKERS} API workers and the background…`);
    const primary = standalone.child.pid ?? -1;
    const workers = new Set(childrenOf(primary));
    const loadGenerator = worker.pid;
    const group = (pid: number, comm: string): string | null =>
      pid === primary ? 'primary' : workers.has(pid) ? 'API workers' : comm === 'postgres' ? 'PostgreSQL' : pid === loadGenerator ? 'load generator' : pid === process.pid ? 'bench' : null;
    const cpuFrom = processCpuSeconds();
    const loadStarted = performance.now();
    const [result] = await measureScenarios(worker, ['standalone'], service.system.knex);
    const loadEnded = performance.now();
    const cpuAtEnd = processCpuSeconds();
    const totals = await worker.totals('standalone');
    const payouts = totals.perKey.reduce((n, t) => n + t.ok, 0);
    progress(`  waiting for the background: ${payouts} payouts final, their webhooks delivered…`);
    const lag = await backgroundLag(service, merchants, payouts, loadEnded);
    const cpuDuringLoad = { wallSeconds: (loadEnded - loadStarted) / 1000, seconds: cpuByGroup(cpuFrom, cpuAtEnd, group) };
    const cpuAfterLoad = { wallSeconds: (performance.now() - loadEnded) / 1000, seconds: cpuByGroup(cpuAtEnd, processCpuSeconds(), group) };
    const rssBytes = processTreeRss(standalone.child.pid);
    const check = await checkBalances(service, merchants, new Map(totals.perKey.map((t) => [t.key, t])));
    const { verified, failures } = verifyAll(receiver.received, secrets);
    const scenario: PayoutScenario = {
      name: `${merchants.length} merchants, make start's processes (API_WORKERS=${API_WORKERS})`,
      merchants: merchants.length,
      ...result!,
      statementsPerOperation: Number.NaN,
      busy: { ...result!.busy, serverEventLoop: Number.NaN },
      outcomes: totals.outcomes,
      check,
    };
    return { scenario, lag: { ...lag, received: receiver.received.length, verified, verifyFailures: failures, cpuDuringLoad, cpuAfterLoad }, rssBytes };
  } finally {
    await worker?.close();
    standalone.child.kill('SIGTERM');
    await standalone.exit;
  }
}

/**
 * Polls until every payout of `merchants` is final in read.payouts, the webhook dispatcher has read
 * the log up to its head, and no delivery of theirs is pending or retrying.
 */
async function backgroundLag(service: BenchService, merchants: Funded[], payouts: number, since: number): Promise<Pick<BackgroundLag, 'seconds' | 'payouts' | 'final' | 'webhookEvents' | 'delivered'>> {
  const { knex, store } = service.system;
  const ids = merchants.map((m) => m.id);
  for (;;) {
    const head = await store.headPosition();
    const [state] = (
      await knex.raw<{ rows: { final: string; payouts: string; webhook_events: string; delivered: string; open_deliveries: string; dispatched: string | null }[] }>(
        `SELECT
           (SELECT count(*) FROM read.payouts WHERE merchant_id = ANY(?) AND status IN ('paid', 'failed', 'canceled')) AS final,
           (SELECT count(*) FROM read.payouts WHERE merchant_id = ANY(?)) AS payouts,
           (SELECT count(*) FROM webhook_events WHERE merchant_id = ANY(?)) AS webhook_events,
           (SELECT count(*) FROM webhook_deliveries WHERE merchant_id = ANY(?) AND status = 'succeeded') AS delivered,
           (SELECT count(*) FROM webhook_deliveries WHERE merchant_id = ANY(?) AND status IN ('pending', 'retrying')) AS open_deliveries,
           (SELECT position FROM bus_checkpoints WHERE name = ?) AS dispatched`,
        [ids, ids, ids, ids, ids, DISPATCH_CONSUMER],
      )
    ).rows;
    const counts = { payouts: Number(state!.payouts), final: Number(state!.final), webhookEvents: Number(state!.webhook_events), delivered: Number(state!.delivered) };
    const dispatched = head === null || (state!.dispatched !== null && state!.dispatched >= head);
    const done = counts.payouts >= payouts && counts.final === counts.payouts && dispatched && Number(state!.open_deliveries) === 0;
    const seconds = (performance.now() - since) / 1000;
    if (done) return { seconds, ...counts };
    if (seconds > LAG_LIMIT_S) return { seconds: null, ...counts };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The child processes of `pid`, from Linux's /proc; empty elsewhere. */
function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** VmRSS of a process and its descendants, parents first, from Linux's /proc; empty elsewhere. */
function processTreeRss(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return [Number(kb ?? 0) * 1024, ...childrenOf(pid).flatMap((child) => processTreeRss(child))];
  } catch {
    return [];
  }
}

export function payoutsText(r: PayoutsResult): string[] {
  const lag = r.lag;
  return [
    `Payout creation (POST /api/v1/payouts, 1 000 XOF to Wave SN; ${r.clients} closed-loop keep-alive clients in a process of their own). ` +
      `First make start's processes (knex pool 20 each, the scheduler loop on, the sandbox operator answering at once, a webhook endpoint per merchant on a loopback receiver; ` +
      `SQL and event loops in those processes); then a service in this process (API only: operator an hour out, no background; pool max ${r.poolMax}), ` +
      `its two runs and GET /healthz alternating in slices`,
    table(
      ['merchants', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'requests', 'SQL/request', 'server loop busy', 'CPUs busy', 'balance check'],
      [...r.scenarios, { ...r.healthz, name: 'GET /healthz (in this process)', check: null }].map((s) => [
        s.name,
        fixed(s.perSecond, 0),
        fixed(s.p50Ms, 2),
        fixed(s.p99Ms, 2),
        String(s.non2xx),
        String(s.errors),
        String(s.operations),
        Number.isNaN(s.statementsPerOperation) ? 'n/a' : fixed(s.statementsPerOperation, 1),
        Number.isNaN(s.busy.serverEventLoop) ? 'n/a' : percent(s.busy.serverEventLoop),
        percent(s.busy.machineCpu),
        s.check === null ? '' : s.check.ok ? 'OK' : 'MISMATCH',
      ]),
    ),
    `  the standalone service's background after the load: ${lag.seconds === null ? `NOT caught up within ${LAG_LIMIT_S} s` : `caught up ${fixed(lag.seconds, 2)} s after the load stopped`} ` +
      `(${lag.final}/${lag.payouts} payouts final; ${lag.webhookEvents} webhook events, ${lag.delivered} deliveries succeeded, ${lag.received} requests received, ${lag.verified} verified by standardwebhooks)` +
      (lag.verifyFailures.length > 0 ? `\n    verify failures: ${lag.verifyFailures.join('; ')}` : '') +
      `\n    CPU seconds during the load (${fixed(lag.cpuDuringLoad.wallSeconds, 1)} s, warm-up included): ${cpuText(lag.cpuDuringLoad)}` +
      `\n    CPU seconds after it, until caught up (${fixed(lag.cpuAfterLoad.wallSeconds, 1)} s): ${cpuText(lag.cpuAfterLoad)}`,
    ...r.scenarios.map(
      (s) =>
        `  ${s.name}: ${s.check.payouts2xx} payouts answered 2xx (warm-up included), ${s.check.payoutsStored} in read.payouts; ` +
        `available = funding − Σ(amount+fee): ledger ${s.check.merchants - s.check.ledgerMismatches}/${s.check.merchants}, ` +
        `GET /api/v1/balance ${s.check.merchants - s.check.apiMismatches}/${s.check.merchants} merchants → ${s.check.ok ? 'OK' : 'MISMATCH'}` +
        (s.check.detail ? `\n    ${s.check.detail}` : '') +
        `\n    answers: ${outcomesText(s.outcomes)}`,
    ),
    `  memory at the end of the runs: RSS ${fixed(r.rssBytes / 2 ** 20, 0)} MB (the bench process, which runs the service; the load generator is a process of its own)` +
      (r.standaloneRssBytes.length ? `; standalone processes after their background caught up, primary first: ${r.standaloneRssBytes.map((b) => `${fixed(b / 2 ** 20, 0)} MB`).join(', ')}` : ''),
  ];
}

function cpuText(share: CpuShare): string {
  const available = share.wallSeconds * os.availableParallelism();
  return Object.entries(share.seconds)
    .sort((x, y) => y[1] - x[1])
    .map(([name, seconds]) => `${name} ${fixed(seconds, 1)} (${percent(seconds / Math.max(available, 1e-9))})`)
    .join(', ') + ` of ${fixed(available, 1)} available`;
}

export function outcomesText(outcomes: Record<string, number>): string {
  return Object.entries(outcomes)
    .sort((x, y) => y[1] - x[1])
    .map(([label, n]) => `${label} ×${n}`)
    .join(', ');
}

const roundAll = (values: Record<string, number>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, round(v, 2)]));

export function payoutsJson(r: PayoutsResult) {
  return {
    clients: r.clients,
    pool_max: r.poolMax,
    rss_mb: round(r.rssBytes / 2 ** 20, 1),
    standalone_rss_mb: r.standaloneRssBytes.map((b) => round(b / 2 ** 20, 1)),
    healthz: { req_per_s: round(r.healthz.perSecond, 1), p50_ms: round(r.healthz.p50Ms, 3), p99_ms: round(r.healthz.p99Ms, 3), non_2xx: r.healthz.non2xx, errors: r.healthz.errors },
    standalone_background: {
      caught_up_s: r.lag.seconds === null ? null : round(r.lag.seconds, 3),
      payouts: r.lag.payouts,
      final: r.lag.final,
      webhook_events: r.lag.webhookEvents,
      deliveries_succeeded: r.lag.delivered,
      received: r.lag.received,
      verified: r.lag.verified,
      cpu_s_during_load: { wall_s: round(r.lag.cpuDuringLoad.wallSeconds, 2), ...roundAll(r.lag.cpuDuringLoad.seconds) },
      cpu_s_after_load: { wall_s: round(r.lag.cpuAfterLoad.wallSeconds, 2), ...roundAll(r.lag.cpuAfterLoad.seconds) },
    },
    runs: r.scenarios.map((s) => ({
      merchants: s.merchants,
      req_per_s: round(s.perSecond, 1),
      p50_ms: round(s.p50Ms, 3),
      p99_ms: round(s.p99Ms, 3),
      non_2xx: s.non2xx,
      errors: s.errors,
      requests: s.operations,
      sql_statements_per_request: Number.isNaN(s.statementsPerOperation) ? null : round(s.statementsPerOperation, 2),
      server_event_loop_busy: Number.isNaN(s.busy.serverEventLoop) ? null : round(s.busy.serverEventLoop, 3),
      machine_cpu_busy: round(s.busy.machineCpu, 3),
      balance_check: s.check.ok ? 'OK' : 'MISMATCH',
      payouts_2xx: s.check.payouts2xx,
      payouts_stored: s.check.payoutsStored,
      outcomes: s.outcomes,
    })),
  };
}
