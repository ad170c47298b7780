/**
 * `make bench`: how fast the Postgres event store appends, compared with plain INSERT transactions
 * on the same server and pool, and how many requests per second the HTTP API answers.
 *
 * Prints a table for people and, as the very last line of stdout, one JSON object for tools.
 * Environment: BENCH_SECONDS (measured seconds per run, default 5), BENCH_WARMUP_SECONDS
 * (default 1), BENCH_CONNECTIONS (HTTP connections, default 64), BENCH_HTTP_WORKERS (autocannon
 * worker threads, default 1; 0 runs the load generator on the server's own thread),
 * DATABASE_URL (use that server instead of a throwaway embedded one).
 */
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHistogram, performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { loadConfig } from '../../packages/core/config.js';
import { createKnex, startEmbeddedPostgres } from '../../packages/core/database.js';
import { createLogger } from '../../packages/core/logger.js';
import { createMerchant } from '../../packages/domain/merchant/commands.js';
import type { ExpectedVersion } from '../../packages/eventstore/port.js';
import { PostgresEventStore } from '../../packages/eventstore/postgres/store.js';
import { route, type Family } from '../../packages/http/routes.js';
import { migrate } from '../../infra/migrations.js';
import { buildApi } from '../../services/api/app.js';
import { listen } from '../../services/api/server.js';
import { openSystem, type System } from '../../services/system.js';

// ---------------------------------------------------------------------------------------------
// Settings

function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

const MEASURE_SECONDS = numberFromEnv('BENCH_SECONDS', 5, 0.1);
const WARMUP_SECONDS = numberFromEnv('BENCH_WARMUP_SECONDS', 1, 0);
const HTTP_CONNECTIONS = Math.round(numberFromEnv('BENCH_CONNECTIONS', 64, 1));
const HTTP_WORKERS = Math.round(numberFromEnv('BENCH_HTTP_WORKERS', 1, 0));
const WRITER_LEVELS = [1, 8, 64] as const;
/** The measured seconds of each workload are split into this many alternating slices. */
const SLICES_PER_WORKLOAD = 4;
/** Above the largest writer count, so 64 writers never wait for a connection. */
const STORE_POOL_MAX = 70;
/** The pool the service gets in `make start` (createKnex's default). */
const HTTP_POOL_MAX = 20;
const BASELINE_TABLE = 'bench_insert_baseline';
const ONBOARDING_PATH = '/api/v1/onboarding/steps';
const BENCH_AUTH_PATH = '/bench/authenticated';

/** What every append and every baseline row carries: a payment-sized JSON document. */
const PAYLOAD = {
  object: 'payment_intent',
  amount: 125_000,
  currency: 'xof',
  status: 'succeeded',
  customer: { msisdn: '+221770000000', operator: 'orange_sn' },
  metadata: { order_id: 'ord_0001', source: 'bench' },
};

// ---------------------------------------------------------------------------------------------
// Closed-loop load: N workers each run one operation after another

interface LoadResult {
  operations: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

type Operation = () => Promise<void>;

/** Operations and latencies of one workload, summed over the slices it ran in. */
class Measurement {
  private readonly latencyNs = createHistogram();
  private operations = 0;
  private seconds = 0;

  record(latencyMs: number): void {
    this.latencyNs.record(Math.max(1, Math.round(latencyMs * 1e6)));
    this.operations++;
  }

  addTime(seconds: number): void {
    this.seconds += seconds;
  }

  result(): LoadResult {
    return {
      operations: this.operations,
      seconds: this.seconds,
      perSecond: this.operations / this.seconds,
      p50Ms: this.latencyNs.percentile(50) / 1e6,
      p99Ms: this.latencyNs.percentile(99) / 1e6,
    };
  }
}

/**
 * Runs every worker back to back for `seconds`. Only operations that start inside the window are
 * counted (when `into` is given); the window closes when the last of them has finished, so nothing
 * in flight is lost or counted twice. Without `into` it is a warm-up.
 */
async function runFor(workers: Operation[], seconds: number, into?: Measurement): Promise<void> {
  const from = performance.now();
  const stopAt = from + seconds * 1000;
  const work = async (operation: Operation): Promise<void> => {
    for (;;) {
      const started = performance.now();
      if (started >= stopAt) return;
      await operation();
      into?.record(performance.now() - started);
    }
  };
  await Promise.all(workers.map(work));
  into?.addTime((performance.now() - from) / 1000);
}

/**
 * Measures two workloads at the same concurrency in alternating slices (A B B A A B B A), so
 * background load on a shared machine falls on both alike and their ratio stays meaningful.
 */
async function compareInSlices(a: Operation[], b: Operation[]): Promise<[LoadResult, LoadResult]> {
  await runFor(a, WARMUP_SECONDS);
  await runFor(b, WARMUP_SECONDS);
  const measured = [new Measurement(), new Measurement()] as const;
  const slice = MEASURE_SECONDS / SLICES_PER_WORKLOAD;
  for (let i = 0; i < SLICES_PER_WORKLOAD; i++) {
    const order = i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
    for (const which of order) await runFor(which === 0 ? a : b, slice, measured[which]);
  }
  return [measured[0].result(), measured[1].result()];
}

/** One writer of the store: its own stream, appended one event at a time with the version it knows. */
function appendWriter(store: PostgresEventStore, streamId: string): Operation {
  let expectedVersion: ExpectedVersion = 'no_stream';
  return async () => {
    const result = await store.append(
      streamId,
      [{ type: 'bench.appended', data: PAYLOAD, metadata: { actor: 'bench', occurred_at: new Date().toISOString() } }],
      { expectedVersion },
    );
    expectedVersion = result.nextVersion;
  };
}

/** The baseline: BEGIN; INSERT one row with a jsonb column; COMMIT. */
function insertTransaction(knex: Knex): Operation {
  const data = JSON.stringify(PAYLOAD);
  return () =>
    knex.transaction(async (trx) => {
      await trx(BASELINE_TABLE).insert({ data });
    });
}

// ---------------------------------------------------------------------------------------------
// The database

interface BenchDatabase {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** DATABASE_URL when given; otherwise a throwaway embedded server with fsync on (the real cost of a commit). */
async function openBenchDatabase(): Promise<BenchDatabase> {
  const external = process.env.DATABASE_URL;
  if (external) return { url: external, embedded: false, stop: async () => undefined };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-bench-'));
  fs.chmodSync(dataDir, 0o755); // postgres runs as its own user and must reach the data directory
  try {
    const server = await startEmbeddedPostgres(dataDir, { persistent: false, fast: false });
    return {
      url: server.url('sika'),
      embedded: true,
      stop: async () => {
        await server.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

interface ServerSettings {
  version: string;
  fsync: string;
  synchronousCommit: string;
}

async function serverSettings(knex: Knex): Promise<ServerSettings> {
  const res = await knex.raw<{ rows: { version: string; fsync: string; synchronous_commit: string }[] }>(
    `SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync,
            current_setting('synchronous_commit') AS synchronous_commit`,
  );
  const row = res.rows[0]!;
  return { version: row.version, fsync: row.fsync, synchronousCommit: row.synchronous_commit };
}

// ---------------------------------------------------------------------------------------------
// Part 1 and 2: appends against the baseline

interface WriteLevel {
  writers: number;
  appends: LoadResult;
  inserts: LoadResult;
  /** appends/s ÷ baseline rows/s */
  ratio: number;
}

async function benchWrites(knex: Knex): Promise<WriteLevel[]> {
  await knex.raw(`DROP TABLE IF EXISTS ${BASELINE_TABLE}`);
  await knex.raw(`CREATE TABLE ${BASELINE_TABLE} (id bigserial PRIMARY KEY, data jsonb NOT NULL)`);
  const store = new PostgresEventStore(knex);
  const runId = randomBytes(4).toString('hex');
  const levels: WriteLevel[] = [];
  try {
    for (const writers of WRITER_LEVELS) {
      progress(`  ${writers} writer(s)…`);
      const appenders = Array.from({ length: writers }, (_, i) => appendWriter(store, `bench-${runId}-w${writers}-${i}`));
      const inserters = Array.from({ length: writers }, () => insertTransaction(knex));
      const [appends, inserts] = await compareInSlices(appenders, inserters);
      levels.push({ writers, appends, inserts, ratio: appends.perSecond / inserts.perSecond });
    }
  } finally {
    await store.close(); // stops its coalesced NOTIFY timer before the pool goes away
    await knex.raw(`DROP TABLE IF EXISTS ${BASELINE_TABLE}`);
  }
  return levels;
}

// ---------------------------------------------------------------------------------------------
// Part 3: HTTP

interface HttpTarget {
  name: string;
  path: string;
  headers: Record<string, string>;
  note?: string;
}

interface HttpResult {
  name: string;
  note?: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  total: number;
}

/**
 * Bench-only route with the same authentication as every merchant route (SHA-256 of the key, one
 * read.api_keys lookup), used when the onboarding route does not exist yet: /readyz is public, so a
 * key sent to it is never checked.
 */
function benchAuthFamily(): Family {
  return {
    name: 'bench',
    routes: [
      route({
        method: 'get',
        path: BENCH_AUTH_PATH,
        summary: 'Benchmark probe: authenticates the API key and answers',
        auth: { scope: '*' },
        handler: async (ctx) => ({ merchant_id: ctx.principal.merchantId }),
      }),
    ],
  };
}

/** The authenticated targets: the onboarding route if it exists, else /readyz with a key plus the bench probe. */
async function authenticatedTargets(baseUrl: string, key: string): Promise<HttpTarget[]> {
  const headers = { authorization: `Bearer ${key}` };
  const probe = await fetch(baseUrl + ONBOARDING_PATH, { headers });
  const body = (await probe.json().catch(() => ({}))) as { code?: unknown };
  if (probe.status === 404 && body.code === 'IKW-RTE-001') {
    const why = `${ONBOARDING_PATH} answers 404 IKW-RTE-001 (not built yet)`;
    return [
      { name: 'GET /readyz (with API key)', path: '/readyz', headers, note: `fallback: ${why}; /readyz is public, so the key is not checked` },
      { name: `GET ${BENCH_AUTH_PATH}`, path: BENCH_AUTH_PATH, headers, note: 'bench-only route that does check the API key (same auth as merchant routes)' },
    ];
  }
  const note = probe.ok ? undefined : `probe answered ${probe.status} ${String(body.code ?? '')}: these requests count as non-2xx`;
  return [{ name: `GET ${ONBOARDING_PATH}`, path: ONBOARDING_PATH, headers, ...(note ? { note } : {}) }];
}

async function loadHttp(baseUrl: string, target: HttpTarget): Promise<HttpResult> {
  const result = await autocannon({
    url: baseUrl + target.path,
    method: 'GET',
    headers: target.headers,
    connections: HTTP_CONNECTIONS,
    duration: MEASURE_SECONDS,
    // In worker threads the load generator does not share the server's event loop.
    ...(HTTP_WORKERS > 0 ? { workers: HTTP_WORKERS } : {}),
  });
  return {
    name: target.name,
    ...(target.note ? { note: target.note } : {}),
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    total: result.requests.total,
  };
}

/** Warm-up: connections opened, code paths compiled, the key's row cached by Postgres. */
async function warmHttp(baseUrl: string, target: HttpTarget): Promise<void> {
  if (WARMUP_SECONDS <= 0) return;
  await autocannon({ url: baseUrl + target.path, headers: target.headers, connections: HTTP_CONNECTIONS, duration: WARMUP_SECONDS });
}

async function benchHttp(databaseUrl: string): Promise<HttpResult[]> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
  const system: System = await openSystem(config, { log: createLogger('silent'), poolMax: HTTP_POOL_MAX });
  let server: http.Server | null = null;
  try {
    const merchant = await createMerchant(system.store, system.clock, 'Bench merchant', 'bench');
    server = await listen(buildApi(system, [benchAuthFamily()]), 0, system.log, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const targets: HttpTarget[] = [{ name: 'GET /healthz', path: '/healthz', headers: {} }, ...(await authenticatedTargets(baseUrl, merchant.api_keys.sandbox))];
    const results: HttpResult[] = [];
    for (const target of targets) {
      progress(`  ${target.name}…`);
      await warmHttp(baseUrl, target);
      results.push(await loadHttp(baseUrl, target));
    }
    return results;
  } finally {
    if (server) {
      const closing = server;
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    }
    await waitForIdlePool(system.knex);
    await system.close();
  }
}

/**
 * autocannon stops with requests in flight; their handlers go on waiting for a connection after the
 * sockets are gone. Closing the pool under them would abort those waits with logged errors.
 */
async function waitForIdlePool(knex: Knex, timeoutMs = 10_000): Promise<void> {
  // tarn's pool, which knex does not type.
  const pool = (knex.client as { pool?: { numUsed(): number; numPendingAcquires(): number } }).pool;
  const until = performance.now() + timeoutMs;
  while (pool && pool.numUsed() + pool.numPendingAcquires() > 0 && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// ---------------------------------------------------------------------------------------------
// Output

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

const fixed = (n: number, digits = 1): string => n.toFixed(digits);
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function writeTable(levels: WriteLevel[]): string {
  return table(
    ['writers', 'appends/s', 'p50 ms', 'p99 ms', 'INSERT tx/s', 'p50 ms', 'p99 ms', 'appends ÷ INSERTs'],
    levels.map((l) => [
      String(l.writers),
      fixed(l.appends.perSecond, 0),
      fixed(l.appends.p50Ms, 2),
      fixed(l.appends.p99Ms, 2),
      fixed(l.inserts.perSecond, 0),
      fixed(l.inserts.p50Ms, 2),
      fixed(l.inserts.p99Ms, 2),
      fixed(l.ratio, 2),
    ]),
  );
}

function httpTable(results: HttpResult[]): string {
  return table(
    ['route', 'req/s (avg)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'requests'],
    results.map((r) => [r.name, fixed(r.requestsPerSecond, 0), fixed(r.p50Ms, 2), fixed(r.p99Ms, 2), String(r.non2xx), String(r.errors), String(r.total)]),
  );
}

function summaryJson(loadAtStart: number, settings: ServerSettings, embedded: boolean, levels: WriteLevel[], http: HttpResult[]): string {
  return JSON.stringify({
    bench: 'sika',
    load_average_at_start: round(loadAtStart, 2),
    measure_seconds: MEASURE_SECONDS,
    warmup_seconds: WARMUP_SECONDS,
    node: process.version,
    cpus: os.cpus().length,
    postgres: { version: settings.version, embedded, fsync: settings.fsync, synchronous_commit: settings.synchronousCommit, pool_max: STORE_POOL_MAX },
    eventstore: levels.map((l) => ({
      writers: l.writers,
      appends_per_s: round(l.appends.perSecond, 1),
      append_p50_ms: round(l.appends.p50Ms, 3),
      append_p99_ms: round(l.appends.p99Ms, 3),
      baseline_rows_per_s: round(l.inserts.perSecond, 1),
      baseline_p50_ms: round(l.inserts.p50Ms, 3),
      baseline_p99_ms: round(l.inserts.p99Ms, 3),
      ratio: round(l.ratio, 3),
    })),
    http: {
      connections: HTTP_CONNECTIONS,
      workers: HTTP_WORKERS,
      pool_max: HTTP_POOL_MAX,
      routes: http.map((r) => ({
        route: r.name,
        req_per_s: round(r.requestsPerSecond, 1),
        p50_ms: r.p50Ms,
        p99_ms: r.p99Ms,
        non_2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        requests: r.total,
        ...(r.note ? { note: r.note } : {}),
      })),
    },
  });
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  // Postgres, the server and the load generator share this machine's CPUs: other work skews the figures.
  const loadAtStart = os.loadavg()[0]!;
  progress('Starting PostgreSQL…');
  const database = await openBenchDatabase();
  try {
    const knex = createKnex(database.url, STORE_POOL_MAX);
    let settings: ServerSettings;
    let levels: WriteLevel[];
    try {
      await migrate(knex);
      settings = await serverSettings(knex);
      progress('Event store and baseline:');
      levels = await benchWrites(knex);
    } finally {
      await knex.destroy();
    }
    progress('HTTP:');
    const http = await benchHttp(database.url);

    const where = database.embedded ? 'embedded, throwaway data directory' : 'from DATABASE_URL; the bench events stay in its event store';
    const out = [
      `Sika benchmark: node ${process.version}, ${os.cpus().length} CPU(s), load average at start ${fixed(loadAtStart, 2)}; ` +
        `${WARMUP_SECONDS} s warm-up, ${MEASURE_SECONDS} s measured per run`,
      `PostgreSQL ${settings.version} (${where}): fsync=${settings.fsync}, synchronous_commit=${settings.synchronousCommit}`,
      '',
      `Event store appends (PostgresEventStore, no inline projections; one event per append, own stream per writer)`,
      `vs. baseline INSERT transactions (BEGIN; INSERT 1 row with jsonb; COMMIT), same knex pool (max ${STORE_POOL_MAX});`,
      `each measured in ${SLICES_PER_WORKLOAD} slices alternating with the other (A B B A …) after its warm-up`,
      writeTable(levels),
      '',
      `HTTP (autocannon, ${HTTP_CONNECTIONS} connections, ${MEASURE_SECONDS} s; ` +
        `${HTTP_WORKERS > 0 ? `load generator in ${HTTP_WORKERS} worker thread(s)` : 'load generator on the server thread'}; server pool max ${HTTP_POOL_MAX})`,
      httpTable(http),
      ...http.filter((r) => r.note).map((r) => `  note: ${r.name}: ${r.note}`),
      '',
      summaryJson(loadAtStart, settings, database.embedded, levels, http),
    ];
    if (loadAtStart > os.cpus().length / 2) {
      out.splice(2, 0, `WARNING: the machine was busy when the bench started (load ${fixed(loadAtStart, 2)}); absolute figures are low and noisy`);
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await database.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
