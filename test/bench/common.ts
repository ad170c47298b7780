/**
 * What every part of `make bench` shares: settings from the environment, closed-loop load with
 * latency histograms, alternating slices, output helpers.
 */
import fs from 'node:fs';
import os from 'node:os';
import { createHistogram, performance } from 'node:perf_hooks';
import type { Knex } from 'knex';

// ---------------------------------------------------------------------------------------------
// Settings

export function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

export const MEASURE_SECONDS = numberFromEnv('BENCH_SECONDS', 5, 0.1);
export const WARMUP_SECONDS = numberFromEnv('BENCH_WARMUP_SECONDS', 1, 0);
export const HTTP_CONNECTIONS = Math.round(numberFromEnv('BENCH_CONNECTIONS', 64, 1));
export const HTTP_WORKERS = Math.round(numberFromEnv('BENCH_HTTP_WORKERS', 1, 0));
/** The measured seconds of each compared workload are split into this many alternating slices. */
export const SLICES_PER_WORKLOAD = 4;

export const SECTIONS = ['eventstore', 'http', 'payouts', 'intents', 'webhooks', 'batches', 'rebuild', 'intelligence'] as const;
export type Section = (typeof SECTIONS)[number];

/** BENCH_ONLY=payouts,webhooks runs those sections only; unset or empty runs them all. */
export function selectedSections(raw = process.env.BENCH_ONLY): Set<Section> {
  return selectedNames('BENCH_ONLY', SECTIONS, raw);
}

/** The names a comma-separated variable lists, each one of `known`; all of them when it is unset or empty. */
export function selectedNames<T extends string>(variable: string, known: readonly T[], raw = process.env[variable]): Set<T> {
  if (raw === undefined || raw.trim() === '') return new Set(known);
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(known as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`${variable}: unknown name(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return new Set(names as T[]);
}

// ---------------------------------------------------------------------------------------------
// Closed-loop load: N workers each run one operation after another

export interface LoadResult {
  operations: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export type Operation = () => Promise<void>;

/** Operations and latencies of one workload, summed over the slices it ran in. */
export class Measurement {
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
      perSecond: this.seconds > 0 ? this.operations / this.seconds : 0,
      p50Ms: this.operations > 0 ? this.latencyNs.percentile(50) / 1e6 : 0,
      p99Ms: this.operations > 0 ? this.latencyNs.percentile(99) / 1e6 : 0,
    };
  }
}

/**
 * Runs every worker back to back for `seconds`. Only operations that start inside the window are
 * counted (when `into` is given); the window closes when the last of them has finished, so nothing
 * in flight is lost or counted twice. Without `into` it is a warm-up.
 */
export async function runFor(workers: Operation[], seconds: number, into?: Measurement): Promise<void> {
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
 * Measures workloads at the same concurrency in alternating slices (A B B A A B B A), so
 * background load on a shared machine falls on all alike and their ratio stays meaningful.
 * `run(i, seconds, measured)` runs workload i for one slice (a warm-up when `measured` is false).
 */
export async function alternateSlices(count: number, run: (which: number, seconds: number, measured: boolean) => Promise<void>): Promise<void> {
  for (let i = 0; i < count; i++) if (WARMUP_SECONDS > 0) await run(i, WARMUP_SECONDS, false);
  const slice = MEASURE_SECONDS / SLICES_PER_WORKLOAD;
  const forward = Array.from({ length: count }, (_, i) => i);
  for (let s = 0; s < SLICES_PER_WORKLOAD; s++) {
    for (const which of s % 2 === 0 ? forward : [...forward].reverse()) await run(which, slice, true);
  }
}

/** In-process workloads at the same concurrency, in alternating slices; their results in the same order. */
export async function compareInSlices(...workloads: Operation[][]): Promise<LoadResult[]> {
  const measured = workloads.map(() => new Measurement());
  await alternateSlices(workloads.length, (which, seconds, isMeasured) => runFor(workloads[which]!, seconds, isMeasured ? measured[which] : undefined));
  return measured.map((m) => m.result());
}

// ---------------------------------------------------------------------------------------------
// Where the time goes

/** How busy this process's main thread (the server's event loop) and the machine's CPUs were. */
export interface Busy {
  /** Event loop utilisation of the main thread, 0..1: near 1, the service's JavaScript is the limit. */
  serverEventLoop: number;
  /** Share of all CPUs of the machine not idle, 0..1 (Postgres, the load generator, everything else). */
  machineCpu: number;
}

function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/** Accumulates Busy over the measured parts of a workload. */
export class BusyMeter {
  private elu = { idle: 0, active: 0 };
  private cpu = { idle: 0, total: 0 };

  async around<T>(work: () => Promise<T>): Promise<T> {
    const eluFrom = performance.eventLoopUtilization();
    const cpuFrom = cpuTimes();
    try {
      return await work();
    } finally {
      const elu = performance.eventLoopUtilization(eluFrom);
      const cpu = cpuTimes();
      this.elu.idle += elu.idle;
      this.elu.active += elu.active;
      this.cpu.idle += cpu.idle - cpuFrom.idle;
      this.cpu.total += cpu.total - cpuFrom.total;
    }
  }

  result(): Busy {
    const eluTotal = this.elu.idle + this.elu.active;
    return {
      serverEventLoop: eluTotal > 0 ? this.elu.active / eluTotal : 0,
      machineCpu: this.cpu.total > 0 ? 1 - this.cpu.idle / this.cpu.total : 0,
    };
  }
}

/** A process's command name, parent and CPU seconds (user and system) so far, from /proc. */
export interface ProcessCpu {
  comm: string;
  parent: number;
  seconds: number;
}

/** CPU seconds (user + system) each process has used so far, by pid, from Linux's /proc; empty elsewhere. */
export function processCpuSeconds(): Map<number, ProcessCpu> {
  const out = new Map<number, ProcessCpu>();
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' '); // fields[0] is the state (field 3)
      out.set(Number(pid), { comm: stat.slice(stat.indexOf('(') + 1, close), parent: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Linux's USER_HZ, 100 on every architecture Node runs on. */
const CLOCK_TICKS = 100;

/** CPU seconds used between two processCpuSeconds() snapshots, summed per group (`group` names a pid's group, or null to leave it out). */
export function cpuByGroup(from: Map<number, ProcessCpu>, to: Map<number, ProcessCpu>, group: (pid: number, process: ProcessCpu) => string | null): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const [pid, now] of to) {
    const name = group(pid, now);
    if (name === null) continue;
    sums[name] = (sums[name] ?? 0) + now.seconds - (from.get(pid)?.seconds ?? 0);
  }
  return sums;
}

interface KnexQueryEvent {
  __knexQueryUid?: string;
  sql?: string;
}

/** Counts the SQL statements a knex instance sends (transactions' included) and the time each took to answer. */
export class QueryMeter {
  private readonly started = new Map<string, number>();
  statements = 0;
  totalMs = 0;
  private readonly onQuery = (q: KnexQueryEvent): void => {
    if (q.__knexQueryUid) this.started.set(q.__knexQueryUid, performance.now());
  };
  private readonly onAnswer = (_response: unknown, q: KnexQueryEvent): void => {
    const from = q.__knexQueryUid ? this.started.get(q.__knexQueryUid) : undefined;
    if (from === undefined) return;
    this.started.delete(q.__knexQueryUid!);
    this.statements++;
    this.totalMs += performance.now() - from;
  };

  constructor(private readonly knex: Knex) {}

  async around<T>(work: () => Promise<T>): Promise<T> {
    this.knex.on('query', this.onQuery);
    this.knex.on('query-response', this.onAnswer);
    try {
      return await work();
    } finally {
      this.knex.off('query', this.onQuery);
      this.knex.off('query-response', this.onAnswer);
      this.started.clear();
    }
  }
}

export const percent = (x: number): string => `${Math.round(x * 100)} %`;

// ---------------------------------------------------------------------------------------------
// Pools

/** tarn's pool, which knex does not type. */
interface TarnPool {
  numUsed(): number;
  numPendingAcquires(): number;
}

/**
 * A load generator may stop with requests in flight; their handlers go on waiting for a connection
 * after the sockets are gone. Closing the pool under them would abort those waits with logged errors.
 */
export async function waitForIdlePool(knex: Knex, timeoutMs = 10_000): Promise<void> {
  const pool = (knex.client as { pool?: TarnPool }).pool;
  const until = performance.now() + timeoutMs;
  while (pool && pool.numUsed() + pool.numPendingAcquires() > 0 && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// ---------------------------------------------------------------------------------------------
// Output

export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

export const fixed = (n: number, digits = 1): string => n.toFixed(digits);
export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
