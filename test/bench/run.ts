/**
 * `make bench`: first the baseline (single-row INSERTs from Node at 64 connections, and pgbench's
 * rate where it is installed); how fast the Postgres event store appends, compared with that
 * INSERT in alternating slices; how many requests per second the HTTP API answers; payout creation
 * and payment intent create + confirm throughput under 64 clients (with a balance check after the
 * payouts, and the process's memory); how many webhook deliveries per second a drain gets through;
 * a payout engine batch of 10 000 items from CSV: validation and execution items/s, then every item
 * paid once and the balance = funding − Σ(amount + fee); each intelligence operation's latency on
 * 100 000 payments; a projection rebuild over 200 000 events.
 * Last, the goals of docs/performance.md with this run's figures and ratios to its baseline.
 *
 * Prints a table for people and, as the very last line of stdout, one JSON object for tools.
 * Environment: BENCH_SECONDS (measured seconds per run, default 5), BENCH_WARMUP_SECONDS
 * (default 1), BENCH_CONNECTIONS (HTTP connections / clients, default 64), BENCH_HTTP_WORKERS
 * (autocannon worker threads, default 1; 0 runs the load generator on the server's own thread),
 * BENCH_ONLY (comma-separated sections: eventstore,http,payouts,intents,webhooks,batches,rebuild,intelligence;
 * default all; the baseline always runs), BENCH_REBUILD_EVENTS (events of the rebuild's log, default 200 000),
 * BENCH_WEBHOOKS (deliveries queued by the webhook section, default 400 × BENCH_SECONDS),
 * BENCH_BATCH_ITEMS (items of the payout engine's batch, default 10 000),
 * BENCH_INTEL_PAYMENTS (payments the intelligence section seeds, default 100 000),
 * BENCH_API_WORKERS (workers of the payout section's standalone run, default make start's: one per CPU but one),
 * BENCH_PAYOUT_ROWS (comma-separated rows of the payout section: process-model,in-process,open-loop,decay; default all;
 * open-loop without process-model needs BENCH_OPEN_LOOP_RATE),
 * BENCH_PROFILE_DIR (the process model's primary runs with --cpu-prof into that directory, and its profile is
 * reduced to its top frames per payout in the output; test/bench/cpuprofile.ts reduces one again),
 * BENCH_OPEN_LOOP_SECONDS (each of the two open loops, default 30), BENCH_OPEN_LOOP_RATE (payouts/s taken as the
 * 100 % of the open loops, which run at 60 % and then 90 % of it; default the process model's closed-loop rate of
 * the same run), BENCH_DECAY_SLICE_SECONDS (each of the five consecutive slices against make start, default 10;
 * closed loop, so no rate),
 * BENCH_SERVICE_WARMUP_SECONDS (payouts against each freshly started make start before its rows measure, its background then caught up; default 20),
 * DATABASE_URL (use that server instead of a throwaway embedded one; the payout, intent and webhook
 * sections then create and drop databases of their own on it).
 */
import os from 'node:os';
import { createKnex } from '#packages/core/database.js';
import { migrate } from '../../infra/migrations.js';
import { serviceNodeFlags } from '../support/child-process.js';
import { benchBaseline, type Baseline } from './baseline.js';
import { fixed, HTTP_CONNECTIONS, HTTP_WORKERS, MEASURE_SECONDS, progress, round, selectedSections, SLICES_PER_WORKLOAD, WARMUP_SECONDS, type Section } from './common.js';
import { openBenchDatabase, serverSettings, type ServerSettings } from './database.js';
import { benchWrites, STORE_POOL_MAX, writesJson, writeTable, type WriteLevel } from './eventstore.js';
import { benchHttp, HTTP_POOL_MAX, httpJson, httpTable, type HttpResult } from './http.js';
import { benchIntents, intentsJson, intentsText, type IntentsResult } from './intents.js';
import { goalsJson, goalsText } from './goals.js';
import { benchIntelligence, intelligenceJson, intelligenceText, type IntelligenceResult } from './intelligence.js';
import { benchPayoutEngine, payoutEngineJson, payoutEngineText, type PayoutEngineResult } from './payout-engine.js';
import { benchPayouts, payoutsJson, payoutsText, type PayoutsResult } from './payouts.js';
import { benchRebuild, rebuildJson, rebuildText, type RebuildResult } from './rebuild.js';
import { benchWebhooks, webhooksJson, webhooksText, type WebhooksResult } from './webhooks.js';

interface Results {
  baseline?: Baseline;
  eventstore?: WriteLevel[];
  http?: HttpResult[];
  payouts?: PayoutsResult;
  intents?: IntentsResult;
  webhooks?: WebhooksResult;
  batches?: PayoutEngineResult;
  rebuild?: RebuildResult;
  intelligence?: IntelligenceResult;
  failures: Partial<Record<Section | 'baseline', string>>;
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

function summaryJson(loadAtStart: number, settings: ServerSettings, embedded: boolean, r: Results): string {
  return JSON.stringify({
    bench: 'sika',
    load_average_at_start: round(loadAtStart, 2),
    measure_seconds: MEASURE_SECONDS,
    warmup_seconds: WARMUP_SECONDS,
    node: process.version,
    cpus: os.cpus().length,
    postgres: { version: settings.version, embedded, fsync: settings.fsync, synchronous_commit: settings.synchronousCommit, pool_max: STORE_POOL_MAX },
    eventstore: r.eventstore ? writesJson(r.eventstore) : null,
    http: r.http ? httpJson(r.http) : null,
    payouts: r.payouts ? payoutsJson(r.payouts) : null,
    payment_intents: r.intents ? intentsJson(r.intents) : null,
    webhooks: r.webhooks ? webhooksJson(r.webhooks) : null,
    payout_engine: r.batches ? payoutEngineJson(r.batches) : null,
    projection_rebuild: r.rebuild ? rebuildJson(r.rebuild) : null,
    intelligence: r.intelligence ? intelligenceJson(r.intelligence) : null,
    goals: goalsJson(r),
    ...(Object.keys(r.failures).length > 0 ? { failures: Object.fromEntries(Object.entries(r.failures).map(([k, v]) => [k, v.split('\n')[0]])) } : {}),
  });
}

function report(loadAtStart: number, settings: ServerSettings, embedded: boolean, sections: Set<Section>, r: Results): string[] {
  const where = embedded ? 'embedded, throwaway data directory' : 'from DATABASE_URL; the bench events stay in its event store';
  const out = [
    `Sika benchmark: node ${process.version}, ${os.cpus().length} CPU(s), load average at start ${fixed(loadAtStart, 2)}; ` + `${WARMUP_SECONDS} s warm-up, ${MEASURE_SECONDS} s measured per run; sections: ${[...sections].join(', ')}`,
    `PostgreSQL ${settings.version} (${where}): fsync=${settings.fsync}, synchronous_commit=${settings.synchronousCommit}`,
  ];
  if (loadAtStart > os.cpus().length / 2) {
    out.push(`WARNING: the machine was busy when the bench started (load ${fixed(loadAtStart, 2)}); absolute figures are low and noisy`);
  }
  const missing = serviceNodeFlags().filter((flag) => !process.execArgv.includes(flag));
  if (missing.length > 0) {
    out.push(`WARNING: this process (the in-process service) and the make start it runs lack make start's Node flags ${missing.join(' ')} (the Makefile's SERVICE_NODE_FLAGS); their memory and rates are not the service's`);
  }
  const failed = (section: Section | 'baseline') => (r.failures[section] ? [`  FAILED: ${r.failures[section]}`] : []);
  if (sections.has('eventstore')) {
    out.push(
      '',
      `Event store appends (Sika's PostgresEventStore, no inline projections; one event per append, own stream per writer, knex pool max ${STORE_POOL_MAX})`,
      `vs. the peer, Emmett's PostgreSQL event store (@event-driven-io/emmett-postgresql, the same event, its own pool of ${STORE_POOL_MAX}),`,
      `vs. the baseline: one prepared single-row INSERT with jsonb in autocommit per operation, one connection per writer;`,
      `each measured in ${SLICES_PER_WORKLOAD} slices alternating with the others (A B C C B A …) after its warm-up`,
      ...(r.eventstore ? [writeTable(r.eventstore)] : failed('eventstore')),
    );
  }
  if (sections.has('http')) {
    out.push(
      '',
      `HTTP (autocannon, ${HTTP_CONNECTIONS} connections, ${MEASURE_SECONDS} s; ` + `${HTTP_WORKERS > 0 ? `load generator in ${HTTP_WORKERS} worker thread(s)` : 'load generator on the server thread'}; server pool max ${HTTP_POOL_MAX})`,
      ...(r.http ? [httpTable(r.http), ...r.http.filter((x) => x.note).map((x) => `  note: ${x.name}: ${x.note}`)] : failed('http')),
    );
  }
  if (sections.has('payouts')) out.push('', ...(r.payouts ? payoutsText(r.payouts) : ['Payout creation', ...failed('payouts')]));
  if (sections.has('intents')) out.push('', ...(r.intents ? intentsText(r.intents) : ['Payment intents, create + confirm', ...failed('intents')]));
  if (sections.has('webhooks')) out.push('', ...(r.webhooks ? webhooksText(r.webhooks) : ['Webhook deliveries', ...failed('webhooks')]));
  if (sections.has('batches')) out.push('', ...(r.batches ? payoutEngineText(r.batches) : ['Payout engine', ...failed('batches')]));
  if (sections.has('rebuild')) out.push('', ...(r.rebuild ? rebuildText(r.rebuild) : ['Projection rebuild', ...failed('rebuild')]));
  if (sections.has('intelligence')) out.push('', ...(r.intelligence ? intelligenceText(r.intelligence) : ['Intelligence', ...failed('intelligence')]));
  out.push('', ...goalsText(r), ...failed('baseline'));
  return out;
}

async function main(): Promise<void> {
  const sections = selectedSections();
  // Postgres, the server and the load generator share this machine's CPUs: other work skews the figures.
  const loadAtStart = os.loadavg()[0]!;
  progress('Starting PostgreSQL…');
  const database = await openBenchDatabase();
  const results: Results = { failures: {} };
  const attempt = async (section: Section | 'baseline', title: string, run: () => Promise<void>): Promise<void> => {
    if (section !== 'baseline' && !sections.has(section)) return;
    progress(title);
    try {
      await run();
    } catch (err) {
      results.failures[section] = errorText(err);
      progress(`  ${section} failed: ${errorText(err)}`);
    }
  };
  try {
    const knex = createKnex(database.url, STORE_POOL_MAX);
    let settings: ServerSettings;
    try {
      await migrate(knex);
      settings = await serverSettings(knex);
      await attempt('eventstore', 'Event store and baseline:', async () => {
        results.eventstore = await benchWrites(knex, database.url);
      });
    } finally {
      await knex.destroy();
    }
    await attempt('baseline', `Baseline: single-row INSERTs at ${HTTP_CONNECTIONS} connections…`, async () => {
      results.baseline = await benchBaseline(database.url, HTTP_CONNECTIONS);
    });
    await attempt('http', 'HTTP:', async () => {
      results.http = await benchHttp(database.url);
    });
    await attempt('payouts', 'Payouts:', async () => {
      results.payouts = await benchPayouts(database.url);
    });
    await attempt('intents', 'Payment intents:', async () => {
      results.intents = await benchIntents(database.url);
    });
    await attempt('webhooks', 'Webhooks:', async () => {
      results.webhooks = await benchWebhooks(database.url);
    });
    await attempt('batches', 'Payout engine:', async () => {
      results.batches = await benchPayoutEngine(database.url);
      if (!results.batches.check.ok) results.failures.batches = `check failed: ${results.batches.check.detail}`;
    });
    await attempt('rebuild', 'Projection rebuild:', async () => {
      results.rebuild = await benchRebuild(database.url);
    });
    await attempt('intelligence', 'Intelligence:', async () => {
      results.intelligence = await benchIntelligence(database.url);
      if (!results.intelligence.check.ok) results.failures.intelligence = `check failed: ${results.intelligence.check.detail}`;
    });

    const out = [...report(loadAtStart, settings, database.embedded, sections, results), '', summaryJson(loadAtStart, settings, database.embedded, results)];
    process.stdout.write(`${out.join('\n')}\n`);
    if (Object.keys(results.failures).length > 0) process.exitCode = 1;
  } finally {
    await database.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${errorText(err)}\n`);
  process.exitCode = 1;
});
