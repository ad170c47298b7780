/**
 * The baseline every ratio of `make bench` divides by: the fastest single-row INSERT transactions
 * Node can drive on the bench's server, node-postgres directly, one prepared statement in
 * autocommit, one connection per client. Where pgbench is on the PATH, its rate for the same
 * INSERT at the same concurrency is printed beside it (what a C client gets out of the server).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Measurement, MEASURE_SECONDS, runFor, WARMUP_SECONDS, type LoadResult, type Operation } from './common.js';

export const BASELINE_TABLE = 'bench_insert_baseline';
/** What every baseline row carries: a payment-sized JSON document (the event store section appends the same). */
export const BASELINE_PAYLOAD = {
  object: 'payment_intent',
  amount: 125_000,
  currency: 'xof',
  status: 'succeeded',
  customer: { msisdn: '+221770000000', operator: 'orange_sn' },
  metadata: { order_id: 'ord_0001', source: 'bench' },
};
const INSERT_SQL = `INSERT INTO ${BASELINE_TABLE} (data) VALUES ($1)`;

export async function createBaselineTable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS ${BASELINE_TABLE} (id bigserial PRIMARY KEY, data jsonb NOT NULL)`);
  } finally {
    await client.end();
  }
}

/** `count` connections, each inserting one row per operation with the prepared statement. */
export async function baselineInserters(url: string, count: number): Promise<{ operations: Operation[]; close(): Promise<void> }> {
  const clients = await Promise.all(
    Array.from({ length: count }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  const data = JSON.stringify(BASELINE_PAYLOAD);
  return {
    operations: clients.map((client) => async () => {
      await client.query({ name: 'bench_insert', text: INSERT_SQL, values: [data] });
    }),
    close: async () => {
      await Promise.all(clients.map((c) => c.end()));
    },
  };
}

export interface Baseline {
  clients: number;
  node: LoadResult;
  /** pgbench's transactions per second for the same INSERT, or why there is none. */
  pgbench: { tps: number } | { missing: string };
}

/** The baseline at `clients` connections, measured on its own (warm-up, then MEASURE_SECONDS). */
export async function benchBaseline(url: string, clients: number): Promise<Baseline> {
  await createBaselineTable(url);
  const inserters = await baselineInserters(url, clients);
  const measured = new Measurement();
  try {
    if (WARMUP_SECONDS > 0) await runFor(inserters.operations, WARMUP_SECONDS);
    await runFor(inserters.operations, MEASURE_SECONDS, measured);
  } finally {
    await inserters.close();
  }
  return { clients, node: measured.result(), pgbench: runPgbench(url, clients) };
}

function runPgbench(url: string, clients: number): Baseline['pgbench'] {
  const found = spawnSync('pgbench', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) return { missing: 'pgbench is not on the PATH' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-pgbench-'));
  try {
    const script = path.join(dir, 'insert.sql');
    fs.writeFileSync(script, `INSERT INTO ${BASELINE_TABLE} (data) VALUES ('${JSON.stringify(BASELINE_PAYLOAD)}');\n`);
    const run = spawnSync('pgbench', ['--no-vacuum', '--protocol=prepared', `--client=${clients}`, `--jobs=${Math.max(1, os.cpus().length)}`, `--time=${Math.max(2, Math.round(MEASURE_SECONDS))}`, `--file=${script}`, url], {
      encoding: 'utf8',
    });
    const tps = /tps = ([\d.]+)/.exec(run.stdout ?? '')?.[1];
    if (run.status !== 0 || tps === undefined) return { missing: `pgbench failed: ${(run.stderr || run.stdout || '').trim().split('\n').pop() ?? ''}` };
    return { tps: Number(tps) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
