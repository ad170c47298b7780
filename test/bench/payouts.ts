/**
 * Payout creation throughput (POST /api/v1/payouts, 64 clients). First against `make start`'s
 * process model (the standalone service in its own processes, API_WORKERS workers, one per CPU by
 * default, with all its background work) on 64 merchants, each with a webhook endpoint on a
 * loopback receiver and the sandbox operator answering at once: after the load stops, the time
 * until every payout is final and every webhook delivered is the background's lag. Then against a
 * service in this process (API only, the operator an hour out) on 64 other merchants, one each, on
 * one merchant whose balance stream every request holds funds on, and `GET /healthz`, alternating.
 * Afterwards each merchant's available balance must equal its funding minus Σ (amount + fee) of the
 * payouts answered 2xx. Then `make start` again on the first run's merchants: payouts arriving at
 * fixed rates (60 %, then 90 % of the process model's closed-loop maximum of this run) for 30 s
 * each, and five consecutive closed-loop slices of 10 s whose last ÷ first shows a cost that grows
 * with history. BENCH_PAYOUT_ROWS picks rows.
 */
import { postPayment } from '#packages/families/payments/payment-intent/postings.js';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { defaultApiWorkers } from '#packages/core/config.js';
import { freePort } from '#packages/core/embedded-postgres.js';
import { loadState } from '#packages/eventstore/command-handler.js';
import { runLedger } from '#packages/families/ledger/commands.js';
import { balanceOf } from '#packages/ledger/decider.js';
import { balanceStream } from '#packages/families/ledger/events.js';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { DISPATCH_CONSUMER } from '#packages/families/webhooks/consumer.js';
import { cpuByGroup, fixed, HTTP_CONNECTIONS, Measurement, numberFromEnv, percent, processCpuSeconds, progress, round, selectedNames, table, type ProcessCpu } from './common.js';
import { newestProfile, summarize, summaryText, type CpuProfile, type ProfileWindow } from './cpuprofile.js';
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
/** The rows of the section; BENCH_PAYOUT_ROWS=process-model,open-loop runs those only (open-loop without process-model needs BENCH_OPEN_LOOP_RATE). */
export const PAYOUT_ROWS = ['process-model', 'in-process', 'open-loop', 'decay'] as const;
export type PayoutRow = (typeof PAYOUT_ROWS)[number];
/**
 * The open loops' arrival rates, in the order they run: shares of the process model's closed-loop
 * maximum in the same run, or of BENCH_OPEN_LOOP_RATE payouts/s. A share of what `make start`
 * completes keeps arrivals below its saturation, so the rows measure latency, not a queue (issue 70).
 */
export const OPEN_LOOP_SHARES = [0.6, 0.9] as const;
export type OpenLoopShare = (typeof OPEN_LOOP_SHARES)[number];
const OPEN_LOOP_SECONDS = numberFromEnv('BENCH_OPEN_LOOP_SECONDS', 30, 1);
/** The decay row: this many consecutive closed-loop slices of BENCH_DECAY_SLICE_SECONDS each. */
const DECAY_SLICES = 5;
const DECAY_SLICE_SECONDS = numberFromEnv('BENCH_DECAY_SLICE_SECONDS', 10, 0.5);
/**
 * Payouts against a freshly started `make start` (and the in-process service) before their rows
 * measure anything, and its background caught up after them: V8 compiles the hot code on its own
 * threads for the first tens of seconds, a cost a server pays once, not per payout
 * (docs/performance.md, step 37).
 */
const SERVICE_WARMUP_SECONDS = numberFromEnv('BENCH_SERVICE_WARMUP_SECONDS', 20, 0);
/** Where the process-model run's primary writes its CPU profile (--cpu-prof) and the window it measured; unset, no profile. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR || null;
/** The process groups whose CPU a complete payout costs (the load generator and the bench are the client's). */
const SERVICE_GROUPS = ['primary', 'API workers', 'PostgreSQL'];
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

/** The process model's run: its closed-loop load, the background's lag after it, where the CPU went. */
export interface ProcessModelResult {
  scenario: PayoutScenario;
  lag: BackgroundLag;
  /** Payouts made final from the start of the measured load until the background caught up (the warm-up's not counted). */
  madeFinal: number;
  /** CPU seconds of the service's processes (primary, API workers, PostgreSQL) per complete payout, load and lag. */
  cpuPerPayoutMs: number;
  /** Statements the primary sent per complete payout (BEGIN and COMMIT included), load and lag (statement-counter.ts). */
  primaryStatementsPerPayout: number;
  /** Those statements by kind (their first words), most frequent first, per complete payout. */
  primaryStatementKinds: { kind: string; perPayout: number }[];
  /** Resident memory of each standalone process at the end of its run, the primary first (empty where /proc is not readable). */
  rssBytes: number[];
  /** The primary's CPU profile reduced to its top frames (BENCH_PROFILE_DIR), or null. */
  profile: string[] | null;
}

/** Payouts arriving at a fixed rate against `make start`, whatever the answers. */
export interface OpenLoopResult {
  /** The share of the reference rate (the process model's maximum, or BENCH_OPEN_LOOP_RATE) asked. */
  share: OpenLoopShare;
  perSecondAsked: number;
  /** How the rate was chosen. */
  rateFrom: string;
  result: LoadSliceResult;
  lagSeconds: number | null;
  /** Where the CPU went during the loop (its lag not included). */
  cpu: CpuShare;
  /** CPU seconds of the service's processes (primary, API workers, PostgreSQL) per payout answered during the loop. */
  cpuPerPayoutMs: number;
  /** Statements the primary sent during the loop per payout answered, in all and by kind (most frequent first). */
  primaryStatementsPerPayout: number;
  primaryStatementKinds: { kind: string; perPayout: number }[];
}

/**
 * Consecutive closed-loop slices on the same merchants against `make start`, after the open loops:
 * each client sends its next payout when the last is answered, so no arrival rate is asked.
 */
export interface DecayResult {
  sliceSeconds: number;
  /** Payouts answered 2xx per second in each slice, in order. */
  perSecond: number[];
  /** The last slice ÷ the first. */
  ratio: number;
  lagSeconds: number | null;
  /** The standalone processes' RSS after the open loops and these slices, the primary first. */
  rssBytes: number[];
}

export interface LoadSliceResult {
  operations: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface InProcessResult {
  /** 64 merchants, one per client. */
  separate: PayoutScenario;
  /** One merchant for every client. */
  hot: PayoutScenario;
  /** GET /healthz on the in-process service, in the same alternating slices as its payout runs. */
  healthz: ScenarioResult;
  /** Resident memory of the bench process, where the service runs (its load generator is a child process), at the end of the runs. */
  rssBytes: number;
}

export interface PayoutsResult {
  clients: number;
  poolMax: number;
  /** Each row is null when BENCH_PAYOUT_ROWS left it out. */
  processModel: ProcessModelResult | null;
  inProcess: InProcessResult | null;
  /** One per share of OPEN_LOOP_SHARES, in that order; empty when BENCH_PAYOUT_ROWS left the row out. */
  openLoops: OpenLoopResult[];
  decay: DecayResult | null;
  /** The balances of the process model's merchants after the open loops and the decay slices (every payout of theirs counted). */
  laterCheck: BalanceCheck | null;
}

interface Funded {
  id: string;
  key: string;
}

async function fundedMerchant(service: BenchService, n: number): Promise<Funded> {
  const { store, clock } = service.system;
  const merchant = await createMerchant(store, clock, `Bench payouts ${n}`, 'bench');
  const meta = { merchant_id: merchant.id, environment: 'sandbox' as const, actor: 'bench', occurred_at: clock.now().toISOString() };
  await runLedger(service.system, merchant.id, 'sandbox', 'xof', postPayment({ source: `pi_bench_${n}`, clearing: 'operator_clearing:wave', amount: FUNDING, fee: 0, availableOn: clock.now() }), meta);
  return { id: merchant.id, key: merchant.api_keys.sandbox };
}

interface BalanceBody {
  available: { amount: number; currency: string }[];
}

async function checkBalances(service: BenchService, merchants: Funded[], sums: Map<string, { ok: number; amountPlusFee: number }>): Promise<BalanceCheck> {
  const { store, ledger: balances, knex } = service.system;
  let ledgerMismatches = 0;
  let apiMismatches = 0;
  let payouts2xx = 0;
  let detail: string | null = null;
  for (const m of merchants) {
    const sent = sums.get(m.key) ?? { ok: 0, amountPlusFee: 0 };
    payouts2xx += sent.ok;
    const expected = FUNDING - sent.amountPlusFee;
    const { state } = await loadState(store, balanceStream(m.id, 'sandbox', 'xof'), balances.decider);
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
    .whereIn(
      'merchant_id',
      merchants.map((m) => m.id),
    )
    .count<{ n: string }[]>({ n: '*' });
  const payoutsStored = Number(rows[0]?.n ?? 0);
  if (payoutsStored !== payouts2xx && detail === null) detail = `${payoutsStored} payouts stored but ${payouts2xx} answered 2xx`;
  return { merchants: merchants.length, payouts2xx, payoutsStored, ledgerMismatches, apiMismatches, ok: ledgerMismatches === 0 && apiMismatches === 0 && payoutsStored === payouts2xx, detail };
}

export async function benchPayouts(serverUrl: string): Promise<PayoutsResult> {
  const rows = selectedNames('BENCH_PAYOUT_ROWS', PAYOUT_ROWS);
  const askedRate = process.env.BENCH_OPEN_LOOP_RATE ? numberFromEnv('BENCH_OPEN_LOOP_RATE', 1, 1) : null;
  // Before any run: without the process model's row the open loops have no rate to take shares of.
  if (rows.has('open-loop') && !rows.has('process-model') && askedRate === null) {
    throw new Error(`BENCH_PAYOUT_ROWS: the open loop needs the process-model row (its rates are ${OPEN_LOOP_SHARES.map(percent).join(' and ')} of that maximum) or BENCH_OPEN_LOOP_RATE`);
  }
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
    const standaloneMerchants = merchants.slice(HTTP_CONNECTIONS + 1);
    const endpoints = rows.has('process-model') || rows.has('open-loop') || rows.has('decay') ? await webhookEndpoints(service, standaloneMerchants, receiver) : null;
    // Payouts answered 2xx per standalone merchant over every run, for the balance check.
    const standaloneSums = new Map<string, { ok: number; amountPlusFee: number }>();
    // The process model goes first, so its background starts on a log of set-up events only.
    const processModel = rows.has('process-model') ? await processModelRun(service, database.url, standaloneMerchants, receiver, endpoints!, standaloneSums) : null;
    let inProcess: InProcessResult | null = null;
    if (rows.has('in-process')) {
      worker = new LoadWorker(service.baseUrl, {
        separate: { kind: 'payouts', body: PAYOUT_BODY, keys: separate.map((m) => m.key) },
        hot: { kind: 'payouts', body: PAYOUT_BODY, keys: separate.map(() => hot.key) },
        healthz: { kind: 'get', path: '/healthz', keys: separate.map((m) => m.key) },
      });
      // Warmed as make start is, so both rows compare compiled code (SERVICE_WARMUP_SECONDS).
      if (SERVICE_WARMUP_SECONDS > 0) {
        progress(`  warming this process's service up: ${SERVICE_WARMUP_SECONDS} s of payouts…`);
        await worker.slice('separate', SERVICE_WARMUP_SECONDS);
      }
      progress(`  in this process: ${HTTP_CONNECTIONS} merchants vs 1 merchant vs GET /healthz, alternating slices…`);
      const [a, b, healthz] = await measureScenarios(worker, ['separate', 'hot', 'healthz'], service.system.knex);
      const rssBytes = process.memoryUsage().rss;
      const scenario = async (key: string, name: string, result: ScenarioResult, group: Funded[]): Promise<PayoutScenario> => {
        const totals = await worker!.totals(key);
        const check = await checkBalances(service, group, new Map(totals.perKey.map((t) => [t.key, t])));
        return { name, merchants: group.length, ...result, outcomes: totals.outcomes, check };
      };
      inProcess = {
        separate: await scenario('separate', `${HTTP_CONNECTIONS} merchants, one per client`, a!, separate),
        hot: await scenario('hot', '1 merchant (hot balance stream)', b!, [hot]),
        healthz: healthz!,
        rssBytes,
      };
    }
    let openLoops: OpenLoopResult[] = [];
    let decay: DecayResult | null = null;
    let laterCheck: BalanceCheck | null = null;
    if (rows.has('open-loop') || rows.has('decay')) {
      // The 100 % the open loops take their shares of: what make start completed in this run, unless asked.
      const reference =
        askedRate !== null
          ? { perSecond: askedRate, from: `BENCH_OPEN_LOOP_RATE ${fixed(askedRate, 0)}/s` }
          : processModel
            ? { perSecond: processModel.scenario.perSecond, from: `the process model's ${fixed(processModel.scenario.perSecond, 0)}/s` }
            : null;
      ({ openLoops, decay, check: laterCheck } = await laterRuns(service, database.url, standaloneMerchants, rows, reference, standaloneSums));
    }
    return { clients: HTTP_CONNECTIONS, poolMax: service.poolMax, processModel, inProcess, openLoops, decay, laterCheck };
  } finally {
    await worker?.close();
    await receiver.close();
    await service.close();
    await database.drop();
  }
}

/** A webhook endpoint (every event) on the receiver for each merchant; their secrets, to verify what arrived. */
async function webhookEndpoints(service: BenchService, merchants: Funded[], receiver: Receiver): Promise<string[]> {
  progress(`  a webhook endpoint for each of ${merchants.length} merchants…`);
  const secrets: string[] = [];
  await inParallel(merchants.length, 8, async (i) => {
    const endpoint = await callJson<{ secret: string }>(service.baseUrl, 'POST', '/api/v1/webhook-endpoints', merchants[i]!.key, { url: receiver.url, enabled_events: ['*'] });
    secrets.push(endpoint.secret);
  });
  return secrets;
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
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How long the bench waits for the standalone service's background after the load. */
const LAG_LIMIT_S = 120;

/** A running `make start` (the standalone service) and a load generator on merchants of the bench's. */
interface Standalone {
  worker: LoadWorker;
  /** The process group of a pid (primary, API workers, PostgreSQL, load generator, bench), for cpuByGroup. */
  group(pid: number, process: ProcessCpu): string | null;
  primary: number;
  /** The statements the primary has sent so far (statement-counter.ts). */
  primaryStatements(): Promise<StatementCounts>;
}

/**
 * Starts the standalone service (`make start`) with API_WORKERS workers on the bench's database,
 * the sandbox operator answering at once, so the scheduler, the consumers and the dispatcher all
 * work during the run; runs `body` with a load generator on `merchants`; stops it. Its statements
 * and event loops are in other processes; statement-counter.ts is preloaded into them, and `nodeArgs`
 * adds Node arguments of the caller's (a profiler's). Returns what `body` did and the processes' RSS after it.
 */
async function withStandalone<T>(service: BenchService, databaseUrl: string, merchants: Funded[], nodeArgs: string[], body: (s: Standalone) => Promise<T>): Promise<{ value: T; rssBytes: number[] }> {
  const port = await freePort();
  // Where its processes append their statement counts (statement-counter.ts).
  const statementsDir = fs.mkdtempSync(`${os.tmpdir()}/sika-bench-statements-`);
  const standalone = startProcess(
    'services/standalone/main.js',
    {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      API_WORKERS: String(API_WORKERS),
      SANDBOX_OPERATOR_DELAY_MS: '0',
      WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1',
      SECRETS_KEY: service.system.config.secretsKey!, // the endpoints' secrets were sealed with it
      RATE_LIMIT: 'off',
      RATE_LIMIT_ADDRESS: 'off',
      LOG_LEVEL: 'warn',
      BENCH_STATEMENTS_DIR: statementsDir,
    },
    [],
    [...process.execArgv, ...STATEMENT_COUNTER, ...nodeArgs],
  ); // the bench's Node flags are make start's (Makefile)
  let worker: LoadWorker | null = null;
  try {
    await untilReady(`http://127.0.0.1:${port}/readyz`, standalone.exit);
    worker = new LoadWorker(`http://127.0.0.1:${port}`, { standalone: { kind: 'payouts', body: PAYOUT_BODY, keys: merchants.map((m) => m.key) } });
    const primary = standalone.child.pid ?? -1;
    const workers = new Set(childrenOf(primary));
    const loadGenerator = worker.pid;
    // The bench's PostgreSQL only (its postmaster and the postmaster's children), not another server on the machine.
    const postmaster = await postmasterOf(service);
    const group = (pid: number, p: ProcessCpu): string | null =>
      pid === primary
        ? 'primary'
        : workers.has(pid)
          ? 'API workers'
          : p.comm === 'postgres' && (postmaster === null || pid === postmaster || p.parent === postmaster)
            ? 'PostgreSQL'
            : pid === loadGenerator
              ? 'load generator'
              : pid === process.pid
                ? 'bench'
                : null;
    const value = await body({ worker, group, primary, primaryStatements: () => statementsSent(statementsDir, primary) });
    return { value, rssBytes: processTreeRss(standalone.child.pid) };
  } finally {
    await worker?.close();
    standalone.child.kill('SIGTERM');
    await standalone.exit;
    fs.rmSync(statementsDir, { recursive: true, force: true });
  }
}

type Sums = Map<string, { ok: number; amountPlusFee: number }>;

/** `sums` plus a load generator's 2xx totals so far (they count from its start), per merchant key. */
async function withTotals(worker: LoadWorker, sums: Sums): Promise<{ sums: Sums; payouts: number; outcomes: Record<string, number> }> {
  const totals = await worker.totals('standalone');
  const out: Sums = new Map(sums);
  for (const t of totals.perKey) {
    const sum = out.get(t.key) ?? { ok: 0, amountPlusFee: 0 };
    out.set(t.key, { ok: sum.ok + t.ok, amountPlusFee: sum.amountPlusFee + t.amountPlusFee });
  }
  return { sums: out, payouts: [...out.values()].reduce((n, t) => n + t.ok, 0), outcomes: totals.outcomes };
}

/**
 * The process model's row: the closed-loop load against `make start` on merchants whose webhook
 * endpoints are on `receiver`, then the background's lag, the CPU of each process, the balances,
 * and every delivery verified. With BENCH_PROFILE_DIR, the primary runs with --cpu-prof and its
 * profile is reduced over the load and the lag (window.json beside it says which).
 */
async function processModelRun(service: BenchService, databaseUrl: string, merchants: Funded[], receiver: Receiver, secrets: string[], sums: Map<string, { ok: number; amountPlusFee: number }>): Promise<ProcessModelResult> {
  progress(`  the standalone service with API_WORKERS=${API_WORKERS}: ${merchants.length} merchants against ${API_WORKERS} API workers and the background…`);
  if (PROFILE_DIR) fs.mkdirSync(PROFILE_DIR, { recursive: true });
  const profiling = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const { value, rssBytes } = await withStandalone(service, databaseUrl, merchants, profiling, async ({ worker, group, primary, primaryStatements }) => {
    const finalBefore = await warmUp(service, worker, merchants, sums);
    const statementsFrom = await primaryStatements();
    const cpuFrom = processCpuSeconds();
    const fromUs = monotonicUs();
    const loadStarted = performance.now();
    const [result] = await measureScenarios(worker, ['standalone'], service.system.knex);
    const loadEnded = performance.now();
    const cpuAtEnd = processCpuSeconds();
    const { sums: after, payouts, outcomes } = await withTotals(worker, sums);
    for (const [key, sum] of after) sums.set(key, sum);
    progress(`  waiting for the background: ${payouts} payouts final, their webhooks delivered…`);
    const lag = await backgroundLag(service, merchants, payouts, loadEnded);
    const toUs = monotonicUs();
    const statementsTo = await primaryStatements();
    const statements = statementsTo.count - statementsFrom.count;
    const made = lag.final - finalBefore;
    const cpuDuringLoad = { wallSeconds: (loadEnded - loadStarted) / 1000, seconds: cpuByGroup(cpuFrom, cpuAtEnd, group) };
    const cpuAfterLoad = { wallSeconds: (performance.now() - loadEnded) / 1000, seconds: cpuByGroup(cpuAtEnd, processCpuSeconds(), group) };
    const serviceCpu = serviceCpuSeconds(cpuDuringLoad) + serviceCpuSeconds(cpuAfterLoad);
    const window: ProfileWindow = { fromUs, toUs, operations: made, cpuSeconds: (cpuDuringLoad.seconds.primary ?? 0) + (cpuAfterLoad.seconds.primary ?? 0) };
    if (PROFILE_DIR) fs.writeFileSync(`${PROFILE_DIR}/window.${primary}.json`, JSON.stringify(window));
    const check = await checkBalances(service, merchants, sums);
    const { verified, failures } = verifyAll(receiver.received, secrets);
    const scenario: PayoutScenario = {
      name: `${merchants.length} merchants, make start's processes (API_WORKERS=${API_WORKERS})`,
      merchants: merchants.length,
      ...result!,
      statementsPerOperation: Number.NaN,
      busy: { ...result!.busy, serverEventLoop: Number.NaN },
      outcomes,
      check,
    };
    return {
      scenario,
      lag: { ...lag, received: receiver.received.length, verified, verifyFailures: failures, cpuDuringLoad, cpuAfterLoad },
      madeFinal: made,
      cpuPerPayoutMs: made > 0 ? (1000 * serviceCpu) / made : Number.NaN,
      primaryStatementsPerPayout: made > 0 ? statements / made : Number.NaN,
      primaryStatementKinds: made > 0 ? statementKindsPerPayout(statementsFrom, statementsTo, made) : [],
      window,
      primary,
    };
  });
  // The profile is written when the primary exits.
  const file = PROFILE_DIR ? newestProfile(PROFILE_DIR, value.primary) : null;
  const profile = file ? [`  the primary's CPU profile over the load and the lag (${file}):`, ...summaryText(summarize(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, value.window), 20)] : null;
  return {
    scenario: value.scenario,
    lag: value.lag,
    madeFinal: value.madeFinal,
    cpuPerPayoutMs: value.cpuPerPayoutMs,
    primaryStatementsPerPayout: value.primaryStatementsPerPayout,
    primaryStatementKinds: value.primaryStatementKinds,
    rssBytes,
    profile,
  };
}

/**
 * SERVICE_WARMUP_SECONDS of payouts against a fresh `make start`, then its background caught up;
 * answers how many of the merchants' payouts are final by then (what the measured run starts from).
 */
async function warmUp(service: BenchService, worker: LoadWorker, merchants: Funded[], sums: Sums): Promise<number> {
  if (SERVICE_WARMUP_SECONDS > 0) {
    progress(`  warming make start up: ${SERVICE_WARMUP_SECONDS} s of payouts, then its background caught up…`);
    await worker.slice('standalone', SERVICE_WARMUP_SECONDS);
  }
  const lag = await backgroundLag(service, merchants, (await withTotals(worker, sums)).payouts, performance.now());
  if (lag.seconds === null) throw new Error(`the background did not catch up within ${LAG_LIMIT_S} s before the measured run`);
  return lag.final;
}

/**
 * `make start` again, on the process model's merchants (their history kept): for each share of
 * OPEN_LOOP_SHARES, payouts at that share of `reference` for BENCH_OPEN_LOOP_SECONDS and the
 * background's lag after them (the next starts once it caught up, or LAG_LIMIT_S passed); then
 * DECAY_SLICES consecutive closed-loop slices (no rate), the last's rate ÷ the first's; the processes' RSS after.
 */
async function laterRuns(
  service: BenchService,
  databaseUrl: string,
  merchants: Funded[],
  rows: Set<PayoutRow>,
  reference: { perSecond: number; from: string } | null,
  sums: Map<string, { ok: number; amountPlusFee: number }>,
): Promise<{ openLoops: OpenLoopResult[]; decay: DecayResult | null; check: BalanceCheck }> {
  const { value, rssBytes } = await withStandalone(service, databaseUrl, merchants, [], async ({ worker, group, primaryStatements }) => {
    await warmUp(service, worker, merchants, sums);
    const openLoops: OpenLoopResult[] = [];
    if (rows.has('open-loop') && reference) {
      for (const share of OPEN_LOOP_SHARES) {
        const perSecond = share * reference.perSecond;
        const rateFrom = `${percent(share)} of ${reference.from}`;
        progress(`  open loop: ${fixed(perSecond, 0)} payouts/s (${rateFrom}) for ${OPEN_LOOP_SECONDS} s against make start…`);
        const statementsFrom = await primaryStatements();
        const cpuFrom = processCpuSeconds();
        const started = performance.now();
        const report = await worker.openLoop('standalone', OPEN_LOOP_SECONDS, perSecond);
        const ended = performance.now();
        const cpu = { wallSeconds: (ended - started) / 1000, seconds: cpuByGroup(cpuFrom, processCpuSeconds(), group) };
        const statementsTo = await primaryStatements();
        const lag = await backgroundLag(service, merchants, (await withTotals(worker, sums)).payouts, ended);
        const m = new Measurement();
        for (const ms of report.latenciesMs) m.record(ms);
        const r = m.result();
        const serviceCpu = serviceCpuSeconds(cpu);
        const answered = Math.max(r.operations - report.non2xx, 1);
        openLoops.push({
          share,
          perSecondAsked: perSecond,
          rateFrom,
          result: { operations: r.operations, p50Ms: r.p50Ms, p99Ms: r.p99Ms, non2xx: report.non2xx, errors: report.errors },
          lagSeconds: lag.seconds,
          cpu,
          cpuPerPayoutMs: (serviceCpu / answered) * 1000,
          primaryStatementsPerPayout: (statementsTo.count - statementsFrom.count) / answered,
          primaryStatementKinds: statementKindsPerPayout(statementsFrom, statementsTo, answered),
        });
      }
    }
    let decay: Omit<DecayResult, 'rssBytes'> | null = null;
    if (rows.has('decay')) {
      progress(`  decay: ${DECAY_SLICES} consecutive slices of ${DECAY_SLICE_SECONDS} s against make start…`);
      const perSecond: number[] = [];
      for (let i = 0; i < DECAY_SLICES; i++) {
        const report = await worker.slice('standalone', DECAY_SLICE_SECONDS);
        perSecond.push((report.latenciesMs.length - report.non2xx) / report.seconds);
      }
      const ended = performance.now();
      const lag = await backgroundLag(service, merchants, (await withTotals(worker, sums)).payouts, ended);
      decay = { sliceSeconds: DECAY_SLICE_SECONDS, perSecond, ratio: perSecond[perSecond.length - 1]! / perSecond[0]!, lagSeconds: lag.seconds };
    }
    const check = await checkBalances(service, merchants, (await withTotals(worker, sums)).sums);
    return { openLoops, decay, check };
  });
  return { openLoops: value.openLoops, decay: value.decay ? { ...value.decay, rssBytes } : null, check: value.check };
}

/** The statements a process sent so far, in all and by kind (statement-counter.ts). */
interface StatementCounts {
  count: number;
  kinds: Record<string, number>;
}

/** Statements `pid` has sent so far: asks it (SIGUSR2) and waits for the count it appends in `dir`. */
async function statementsSent(dir: string, pid: number): Promise<StatementCounts> {
  const file = `${dir}/statements.${pid}`;
  const lines = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);
  const before = lines().length;
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 10_000; waited += 10) {
    const now = lines();
    if (now.length > before) return JSON.parse(now[now.length - 1]!) as StatementCounts;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { count: Number.NaN, kinds: {} };
}

/** The kinds of statement sent between two counts, most frequent first, per payout. */
function statementKindsPerPayout(from: StatementCounts, to: StatementCounts, payouts: number): { kind: string; perPayout: number }[] {
  return Object.entries(to.kinds)
    .map(([kind, n]) => ({ kind, perPayout: (n - (from.kinds[kind] ?? 0)) / payouts }))
    .filter((k) => k.perPayout > 0)
    .sort((a, b) => b.perPayout - a.perPayout);
}

/** CPU seconds of the service's processes (SERVICE_GROUPS) in `share`. */
function serviceCpuSeconds(share: CpuShare): number {
  return SERVICE_GROUPS.reduce((sum, g) => sum + (share.seconds[g] ?? 0), 0);
}

/** Preloaded into make start's processes: counts the statements they send (statement-counter.ts). */
const STATEMENT_COUNTER = ['--import', new URL('./statement-counter.js', import.meta.url).href];

/** Microseconds of the monotonic clock V8's profiles use. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

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

/** The bench database's postmaster: the parent of a backend of the bench's connection (null where /proc says nothing, or the server is elsewhere). */
async function postmasterOf(service: BenchService): Promise<number | null> {
  const { rows } = await service.system.knex.raw<{ rows: { pid: number }[] }>('SELECT pg_backend_pid() AS pid');
  const parent = processCpuSeconds().get(rows[0]!.pid)?.parent;
  return parent ?? null;
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
  const pm = r.processModel;
  const ip = r.inProcess;
  const scenarios = [...(pm ? [pm.scenario] : []), ...(ip ? [ip.separate, ip.hot] : [])];
  const out = [
    `Payout creation (POST /api/v1/payouts, 1 000 XOF to Wave SN; ${r.clients} closed-loop keep-alive clients in a process of their own). ` +
      `First make start's processes (knex pool 20 each, the scheduler loop on, the sandbox operator answering at once, a webhook endpoint per merchant on a loopback receiver; ` +
      `SQL and event loops in those processes); then a service in this process (API only: operator an hour out, no background; pool max ${r.poolMax}), ` +
      `its two runs and GET /healthz alternating in slices`,
    ...(scenarios.length === 0
      ? []
      : [
          table(
            ['merchants', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'requests', 'SQL/request', 'server loop busy', 'CPUs busy', 'balance check'],
            [...scenarios, ...(ip ? [{ ...ip.healthz, name: 'GET /healthz (in this process)', check: null }] : [])].map((s) => [
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
        ]),
  ];
  if (pm) {
    const lag = pm.lag;
    out.push(
      `  the standalone service's background after the load: ${lag.seconds === null ? `NOT caught up within ${LAG_LIMIT_S} s` : `caught up ${fixed(lag.seconds, 2)} s after the load stopped`} ` +
        `(${lag.final}/${lag.payouts} payouts final; ${lag.webhookEvents} webhook events, ${lag.delivered} deliveries succeeded, ${lag.received} requests received, ${lag.verified} verified by standardwebhooks)` +
        (lag.verifyFailures.length > 0 ? `\n    verify failures: ${lag.verifyFailures.join('; ')}` : '') +
        `\n    CPU seconds during the load (${fixed(lag.cpuDuringLoad.wallSeconds, 1)} s, warm-up included): ${cpuText(lag.cpuDuringLoad)}` +
        `\n    CPU seconds after it, until caught up (${fixed(lag.cpuAfterLoad.wallSeconds, 1)} s): ${cpuText(lag.cpuAfterLoad)}` +
        `\n    CPU per complete payout (${SERVICE_GROUPS.join(', ')}; load and lag; ${pm.madeFinal} payouts made final after ${SERVICE_WARMUP_SECONDS} s of warm-up): ${fixed(pm.cpuPerPayoutMs, 2)} ms` +
        `\n    statements the primary sent per complete payout (load and lag): ${fixed(pm.primaryStatementsPerPayout, 2)}, by kind:` +
        pm.primaryStatementKinds
          .slice(0, 16)
          .map((k) => `\n      ${fixed(k.perPayout, 2).padStart(6)}  ${k.kind}`)
          .join(''),
    );
  }
  out.push(
    ...scenarios.map(
      (s) =>
        `  ${s.name}: ${s.check.payouts2xx} payouts answered 2xx (warm-up included), ${s.check.payoutsStored} in read.payouts; ` +
        `available = funding − Σ(amount+fee): ledger ${s.check.merchants - s.check.ledgerMismatches}/${s.check.merchants}, ` +
        `GET /api/v1/balance ${s.check.merchants - s.check.apiMismatches}/${s.check.merchants} merchants → ${s.check.ok ? 'OK' : 'MISMATCH'}` +
        (s.check.detail ? `\n    ${s.check.detail}` : '') +
        `\n    answers: ${outcomesText(s.outcomes)}`,
    ),
  );
  for (const o of r.openLoops) {
    out.push(
      `  open loop against make start: ${fixed(o.perSecondAsked, 0)} payouts/s (${o.rateFrom}) for ${OPEN_LOOP_SECONDS} s: ${o.result.operations} answered, ` +
        `p50 ${fixed(o.result.p50Ms, 1)} ms, p99 ${fixed(o.result.p99Ms, 1)} ms (from when each was due), ${o.result.non2xx} non-2xx, ${o.result.errors} errors; ` +
        `background ${o.lagSeconds === null ? `NOT caught up within ${LAG_LIMIT_S} s` : `caught up ${fixed(o.lagSeconds, 2)} s after the last arrival`}` +
        `\n    CPU seconds during the loop (${fixed(o.cpu.wallSeconds, 1)} s): ${cpuText(o.cpu)}; the service's ${fixed(o.cpuPerPayoutMs, 2)} ms per payout answered` +
        `\n    statements the primary sent during the loop per payout answered: ${fixed(o.primaryStatementsPerPayout, 2)}; the most frequent: ` +
        o.primaryStatementKinds
          .slice(0, 6)
          .map((k) => `${fixed(k.perPayout, 2)} ${k.kind}`)
          .join('; '),
    );
  }
  if (r.decay) {
    const d = r.decay;
    out.push(
      `  decay against make start: ${d.perSecond.length} consecutive closed-loop slices of ${d.sliceSeconds} s on the same merchants: ${d.perSecond.map((x) => fixed(x, 0)).join(', ')} payouts/s; ` +
        `last ÷ first ${fixed(d.ratio, 2)}; background ${d.lagSeconds === null ? `NOT caught up within ${LAG_LIMIT_S} s` : `caught up ${fixed(d.lagSeconds, 2)} s after`}`,
    );
  }
  if (r.laterCheck) {
    const c = r.laterCheck;
    out.push(
      `  after the open loops and the decay slices, ${c.merchants} merchants of the process model: ${c.payouts2xx} payouts answered 2xx in all, ${c.payoutsStored} in read.payouts; ` +
        `available = funding − Σ(amount+fee): ledger ${c.merchants - c.ledgerMismatches}/${c.merchants}, GET /api/v1/balance ${c.merchants - c.apiMismatches}/${c.merchants} → ${c.ok ? 'OK' : 'MISMATCH'}` +
        (c.detail ? `\n    ${c.detail}` : ''),
    );
  }
  out.push(
    `  memory at the end of the runs: ` +
      [
        ip ? `RSS ${mb(ip.rssBytes)} (the bench process, which runs the service; the load generator is a process of its own)` : null,
        pm?.rssBytes.length ? `make start's processes after the process model's run, primary first: ${pm.rssBytes.map(mb).join(', ')}` : null,
        r.decay?.rssBytes.length ? `after the open loops and the decay slices: ${r.decay.rssBytes.map(mb).join(', ')}` : null,
      ]
        .filter(Boolean)
        .join('; '),
  );
  if (pm?.profile) out.push(...pm.profile);
  return out;
}

const mb = (bytes: number) => `${fixed(bytes / 2 ** 20, 0)} MB`;

/** RSS of each of `make start`'s processes after its longest run (the decay slices, else the process model), the primary first; null if not measured. */
export function standaloneRss(r: PayoutsResult): number[] | null {
  return r.decay?.rssBytes.length ? r.decay.rssBytes : r.processModel?.rssBytes.length ? r.processModel.rssBytes : null;
}

function cpuText(share: CpuShare): string {
  const available = share.wallSeconds * os.availableParallelism();
  return (
    Object.entries(share.seconds)
      .sort((x, y) => y[1] - x[1])
      .map(([name, seconds]) => `${name} ${fixed(seconds, 1)} (${percent(seconds / Math.max(available, 1e-9))})`)
      .join(', ') + ` of ${fixed(available, 1)} available`
  );
}

export function outcomesText(outcomes: Record<string, number>): string {
  return Object.entries(outcomes)
    .sort((x, y) => y[1] - x[1])
    .map(([label, n]) => `${label} ×${n}`)
    .join(', ');
}

const roundAll = (values: Record<string, number>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, round(v, 2)]));

export function payoutsJson(r: PayoutsResult) {
  const pm = r.processModel;
  const ip = r.inProcess;
  const run = (s: PayoutScenario) => ({
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
  });
  return {
    clients: r.clients,
    pool_max: r.poolMax,
    rss_mb: ip ? round(ip.rssBytes / 2 ** 20, 1) : null,
    standalone_rss_mb: (standaloneRss(r) ?? []).map((b) => round(b / 2 ** 20, 1)),
    healthz: ip ? { req_per_s: round(ip.healthz.perSecond, 1), p50_ms: round(ip.healthz.p50Ms, 3), p99_ms: round(ip.healthz.p99Ms, 3), non_2xx: ip.healthz.non2xx, errors: ip.healthz.errors } : null,
    standalone_background: pm
      ? {
          caught_up_s: pm.lag.seconds === null ? null : round(pm.lag.seconds, 3),
          payouts: pm.lag.payouts,
          final: pm.lag.final,
          made_final: pm.madeFinal,
          service_warmup_s: SERVICE_WARMUP_SECONDS,
          webhook_events: pm.lag.webhookEvents,
          deliveries_succeeded: pm.lag.delivered,
          received: pm.lag.received,
          verified: pm.lag.verified,
          cpu_ms_per_payout: round(pm.cpuPerPayoutMs, 3),
          primary_statements_per_payout: round(pm.primaryStatementsPerPayout, 2),
          primary_statement_kinds: pm.primaryStatementKinds.slice(0, 16).map((k) => ({ kind: k.kind, per_payout: round(k.perPayout, 3) })),
          cpu_s_during_load: { wall_s: round(pm.lag.cpuDuringLoad.wallSeconds, 2), ...roundAll(pm.lag.cpuDuringLoad.seconds) },
          cpu_s_after_load: { wall_s: round(pm.lag.cpuAfterLoad.wallSeconds, 2), ...roundAll(pm.lag.cpuAfterLoad.seconds) },
        }
      : null,
    process_model: pm ? run(pm.scenario) : null,
    in_process: ip ? { separate: run(ip.separate), hot: run(ip.hot) } : null,
    open_loops: r.openLoops.map((o) => ({
      share: o.share,
      asked_per_s: round(o.perSecondAsked, 1),
      rate_from: o.rateFrom,
      answered: o.result.operations,
      p50_ms: round(o.result.p50Ms, 3),
      p99_ms: round(o.result.p99Ms, 3),
      non_2xx: o.result.non2xx,
      errors: o.result.errors,
      caught_up_s: o.lagSeconds === null ? null : round(o.lagSeconds, 3),
      cpu_s: { wall_s: round(o.cpu.wallSeconds, 2), ...roundAll(o.cpu.seconds) },
      cpu_ms_per_payout: round(o.cpuPerPayoutMs, 3),
      primary_statements_per_payout: round(o.primaryStatementsPerPayout, 2),
      primary_statement_kinds: o.primaryStatementKinds.slice(0, 16).map((k) => ({ kind: k.kind, per_payout: round(k.perPayout, 3) })),
    })),
    later_balance_check: r.laterCheck ? (r.laterCheck.ok ? 'OK' : 'MISMATCH') : null,
    decay: r.decay ? { slice_s: r.decay.sliceSeconds, per_s: r.decay.perSecond.map((x) => round(x, 1)), last_over_first: round(r.decay.ratio, 3), caught_up_s: r.decay.lagSeconds === null ? null : round(r.decay.lagSeconds, 3) } : null,
  };
}
