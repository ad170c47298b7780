import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { instanceIsDead, type ProcessInstance } from '#packages/core/instance.js';
import type { Logger } from '#packages/core/logger.js';
import { sqlMigration, type Migration } from '#packages/core/migration.js';
import { JobWriter } from './job-writer.js';

/**
 * Durable timers in Postgres: webhook retries, the sandbox operator's answers, payout delay
 * checks, settlement of pending funds, billing renewals (docs/architecture.md, "Scheduler and
 * processes"). Due jobs are claimed with `FOR UPDATE SKIP LOCKED` under a lease, run outside that
 * transaction, and deleted on success: at-least-once, so every handler is idempotent. Time is the
 * injected clock's.
 */
export const schedulerMigrations: Migration[] = [
  sqlMigration(
    'scheduler/001-create',
    `CREATE TABLE scheduled_jobs (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        key text NOT NULL UNIQUE,
        run_at timestamptz NOT NULL,
        payload jsonb NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX scheduled_jobs_due ON scheduled_jobs (run_at)`,
  ),
  // Which process instance holds a job's lease: a dead one's jobs are taken over at once.
  sqlMigration('scheduler/002-locked-by', `ALTER TABLE scheduled_jobs ADD COLUMN locked_by integer`),
];

export interface JobSpec {
  kind: string;
  /** Dedupe key: scheduling the same key twice keeps the first. */
  key: string;
  runAt: Date;
  payload: Record<string, unknown>;
}

export interface Job extends JobSpec {
  id: string;
  attempts: number;
}

/**
 * A kind of job, declared once by the process that handles it (packages/processes): its name,
 * the dedupe key of one job, and its lane: the object whose jobs must run one after another.
 */
export interface JobKind<Payload> {
  name: string;
  key(payload: Payload, runAt: Date): string;
  lane(payload: Payload): string;
}

/** Enqueues a job of one kind: the port a domain service gets instead of the scheduler. */
export type Enqueue<Payload> = (payload: Payload, runAt: Date) => Promise<void>;

/**
 * Drops the job of one kind that `Enqueue` set for the same payload and time, if it has not run
 * yet: for a timer its object no longer needs. A job running meanwhile still runs to its end.
 */
export type Unschedule<Payload> = (payload: Payload, runAt: Date) => Promise<void>;

export type JobHandler<Payload = Record<string, unknown>> = (payload: Payload, job: Job) => Promise<void>;

/**
 * Runs claimed jobs of one kind together and answers for each, in order: `null` when it is done
 * (the job is deleted), an error when it failed (it runs again after the back-off). Throwing fails
 * them all. It never gets two jobs of one lane in one call.
 */
export type BatchJobHandler<Payload = Record<string, unknown>> = (jobs: readonly { payload: Payload; job: Job }[]) => Promise<readonly (Error | null)[]>;

type Registered = { kind: JobKind<never>; handler: JobHandler<never>; batch?: undefined } | { kind: JobKind<never>; batch: { handler: BatchJobHandler<never>; claimLimit: number; companions: readonly string[] }; handler?: undefined };

/** Runs `work` on each item, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, worker));
}

/** Schedules a job, inside the caller's transaction when one is given. */
export async function schedule(db: Knex | Knex.Transaction, spec: JobSpec): Promise<void> {
  await db('scheduled_jobs')
    .insert({ kind: spec.kind, key: spec.key, run_at: spec.runAt, payload: JSON.stringify(spec.payload) })
    .onConflict('key')
    .ignore();
}

/** Schedules jobs in one statement, inside the caller's transaction when one is given. */
export async function scheduleMany(db: Knex | Knex.Transaction, specs: readonly JobSpec[]): Promise<void> {
  // Bounded rows per statement: PostgreSQL takes at most 65 535 bindings.
  for (let i = 0; i < specs.length; i += 1000) {
    await db('scheduled_jobs')
      .insert(specs.slice(i, i + 1000).map((spec) => ({ kind: spec.kind, key: spec.key, run_at: spec.runAt, payload: JSON.stringify(spec.payload) })))
      .onConflict('key')
      .ignore();
  }
}

/** Deletes the jobs of these keys, a thousand keys per statement. */
export async function unscheduleMany(db: Knex | Knex.Transaction, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await db.raw('DELETE FROM scheduled_jobs WHERE key = ANY(?::text[])', [keys.slice(i, i + 1000)]);
}

/** Schedules a job of a declared kind, inside the caller's transaction when one is given. */
export function enqueue<Payload extends object>(db: Knex | Knex.Transaction, kind: JobKind<Payload>, payload: Payload, runAt: Date): Promise<void> {
  return schedule(db, { kind: kind.name, key: kind.key(payload, runAt), runAt, payload: { ...payload } as Record<string, unknown> });
}

/** Schedules jobs of a declared kind in one statement, inside the caller's transaction when one is given. */
export function enqueueMany<Payload extends object>(db: Knex | Knex.Transaction, kind: JobKind<Payload>, jobs: readonly { payload: Payload; runAt: Date }[]): Promise<void> {
  return scheduleMany(
    db,
    jobs.map(({ payload, runAt }) => ({ kind: kind.name, key: kind.key(payload, runAt), runAt, payload: { ...payload } as Record<string, unknown> })),
  );
}

const LEASE_MS = 5 * 60_000;

/** Back-off after a failed run: 1 s, 2 s, 4 s … capped at 10 minutes. */
const retryDelay = (attempts: number) => Math.min(1000 * 2 ** Math.max(0, attempts - 1), 10 * 60_000);

/**
 * What a job throws when it cannot run yet through no fault (another process holds what it needs):
 * it runs again after the usual back-off, and the log says so at info, not as an error.
 */
export class JobWaits extends Error {}

export class Scheduler {
  private readonly kinds = new Map<string, Registered>();
  /** Kinds run one by one in a batch kind's lanes: companion → batch kind. */
  private readonly companionOf = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly writer: JobWriter<JobSpec>;
  private readonly dropper: JobWriter<string>;

  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** How many objects' jobs run at once. */
    private readonly concurrency = 16,
    /** This process; without one, a lease lasts until it times out. */
    private readonly instance: ProcessInstance | null = null,
  ) {
    this.writer = new JobWriter<JobSpec>((jobs) => scheduleMany(knex, jobs));
    this.dropper = new JobWriter<string>((keys) => unscheduleMany(knex, keys));
  }

  register<Payload>(kind: JobKind<Payload>, handler: JobHandler<Payload>): void {
    if (this.kinds.has(kind.name)) throw new Error(`A handler for ${kind.name} is already registered`);
    this.kinds.set(kind.name, { kind: kind as JobKind<never>, handler: handler as JobHandler<never> });
  }

  /**
   * A kind whose claimed jobs one call handles together; up to `claimLimit` of them are claimed at
   * a time. Its lanes are its own, unless it names `companions`: kinds run one by one (registered
   * with `register`) whose jobs share its lanes, like a payout's timers beside its operator's
   * answers. Those are claimed with it, within its claim limit, and run in its rounds, so a lane's
   * jobs keep their order and never run at once, whatever their kinds.
   */
  registerBatch<Payload>(kind: JobKind<Payload>, handler: BatchJobHandler<Payload>, claimLimit: number, companions: readonly string[] = []): void {
    if (this.kinds.has(kind.name)) throw new Error(`A handler for ${kind.name} is already registered`);
    for (const name of companions) {
      const owner = this.companionOf.get(name);
      if (owner) throw new Error(`${name} already shares the lanes of ${owner}`);
      this.companionOf.set(name, kind.name);
    }
    this.kinds.set(kind.name, { kind: kind as JobKind<never>, batch: { handler: handler as BatchJobHandler<never>, claimLimit, companions } });
  }

  /** The batch kind whose lanes and rounds a job runs in, or null for the kinds run one by one on their own. */
  private groupOf(kind: string): string | null {
    return this.kinds.get(kind)?.batch ? kind : (this.companionOf.get(kind) ?? null);
  }

  /** Low-level: a job as it is stored (tests use it to inject duplicates). */
  schedule(spec: JobSpec): Promise<void> {
    return schedule(this.knex, spec);
  }

  /**
   * The port a domain service gets to enqueue jobs of one kind, outside any transaction:
   * concurrent jobs share one INSERT (job-writer.ts).
   */
  enqueuer<Payload extends object>(kind: JobKind<Payload>): Enqueue<Payload> {
    return (payload, runAt) => this.writer.write({ kind: kind.name, key: kind.key(payload, runAt), runAt, payload: { ...payload } as Record<string, unknown> });
  }

  /**
   * The port that drops jobs of one kind, outside any transaction: concurrent drops share one
   * DELETE. The key is the kind's, so a kind whose key names the time needs the same time.
   */
  unscheduler<Payload extends object>(kind: JobKind<Payload>): Unschedule<Payload> {
    return (payload, runAt) => this.dropper.write(kind.key(payload, runAt));
  }

  /** The object a job is about, as its kind declares; its jobs must not overtake each other. */
  private laneOf(job: Job): string {
    const registered = this.kinds.get(job.kind);
    return registered ? registered.kind.lane(job.payload as never) : job.key;
  }

  /**
   * Claims due jobs in one statement: up to `limit` of the kinds run one by one, and up to its
   * claim limit of each batch kind with its companions.
   */
  private async claim(limit: number): Promise<Job[]> {
    const now = this.clock.now();
    const batchKinds = [...this.kinds.values()].flatMap((r) => (r.batch ? [{ names: [r.kind.name, ...r.batch.companions], limit: r.batch.claimLimit }] : []));
    // Free, lease timed out, or leased by a process that died (its jobs resume at once).
    const due = `run_at <= ? AND (locked_until IS NULL OR locked_until < ? OR ${instanceIsDead('locked_by')})`;
    const pick = (kindFilter: string) => `SELECT id FROM scheduled_jobs WHERE ${due} AND ${kindFilter} ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED`;
    const list = (names: readonly string[]) => `(${names.map(() => '?').join(', ')})`;
    const names = batchKinds.flatMap((k) => k.names);
    const parts = [{ sql: pick(names.length > 0 ? `kind NOT IN ${list(names)}` : 'true'), bindings: [now, now, ...names, limit] }];
    for (const k of batchKinds) parts.push({ sql: pick(`kind IN ${list(k.names)}`), bindings: [now, now, ...k.names, k.limit] });
    const { rows } = await this.knex.raw<{ rows: { id: string; kind: string; key: string; run_at: Date; payload: Record<string, unknown>; attempts: number }[] }>(
      `WITH ${parts.map((p, i) => `c${i} AS (${p.sql})`).join(', ')}
       UPDATE scheduled_jobs j SET locked_until = ?, locked_by = ?, attempts = j.attempts + 1
       WHERE j.id IN (${parts.map((_, i) => `SELECT id FROM c${i}`).join(' UNION ALL ')})
       RETURNING j.id, j.kind, j.key, j.run_at, j.payload, j.attempts`,
      [...parts.flatMap((p) => p.bindings), new Date(now.getTime() + LEASE_MS), this.instance?.id ?? null],
    );
    return rows.map((row) => ({ id: String(row.id), kind: row.kind, key: row.key, runAt: row.run_at, payload: row.payload, attempts: row.attempts })).sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || Number(a.id) - Number(b.id));
  }

  /** Claims and runs the jobs due now; returns how many ran (successfully or not). */
  async runDue(limit = 50): Promise<number> {
    const claimed = await this.claim(limit);
    // Jobs of one object (a payout, an intent, a delivery) run in order; different objects run
    // side by side, so one slow job does not hold up everything else. A batch kind's lanes (with
    // its companions' jobs) go to its handler, a round at a time.
    const lanes = new Map<string, Job[]>();
    const batchLanes = new Map<string, Map<string, Job[]>>();
    for (const job of claimed) {
      const lane = this.laneOf(job);
      const group = this.groupOf(job.kind);
      let into = lanes;
      if (group) {
        into = batchLanes.get(group) ?? new Map();
        batchLanes.set(group, into);
      }
      into.set(lane, [...(into.get(lane) ?? []), job]);
    }
    await Promise.all([
      eachLimited([...lanes.values()], this.concurrency, async (jobs) => {
        for (const job of jobs) await this.runOne(job);
      }),
      ...[...batchLanes.entries()].map(([kind, byLane]) => this.runBatches(kind, [...byLane.values()])),
    ]);
    return claimed.length;
  }

  /**
   * A batch kind's lanes: the first job of every lane, then the second of every lane, … Each round's
   * jobs of the kind go in one call, its companions' run one by one beside it; the next round waits
   * for both, so no lane has two jobs running.
   */
  private async runBatches(kind: string, lanes: Job[][]): Promise<void> {
    for (let round = 0; ; round++) {
      const jobs = lanes.flatMap((lane) => (lane[round] ? [lane[round]] : []));
      if (jobs.length === 0) return;
      await Promise.all([
        this.runBatchCall(
          kind,
          jobs.filter((job) => job.kind === kind),
        ),
        eachLimited(
          jobs.filter((job) => job.kind !== kind),
          this.concurrency,
          (job) => this.runOne(job),
        ),
      ]);
    }
  }

  /** One call of a batch kind's handler; the jobs it answers done are deleted, the others retried later. */
  private async runBatchCall(kind: string, jobs: Job[]): Promise<void> {
    if (jobs.length === 0) return;
    let outcomes: readonly (Error | null)[];
    try {
      outcomes = await this.kinds.get(kind)!.batch!.handler(jobs.map((job) => ({ payload: job.payload as never, job })));
      if (outcomes.length !== jobs.length) throw new Error(`the ${kind} handler answered for ${outcomes.length} of ${jobs.length} jobs`);
    } catch (err) {
      outcomes = jobs.map(() => (err instanceof Error ? err : new Error(String(err))));
    }
    const done = jobs.filter((_, i) => outcomes[i] === null);
    if (done.length > 0)
      await this.knex('scheduled_jobs')
        .whereIn(
          'id',
          done.map((j) => j.id),
        )
        .delete();
    await this.retryLater(jobs.flatMap((job, i) => (outcomes[i] ? [{ job, err: outcomes[i] }] : [])));
  }

  private async runOne(job: Job): Promise<void> {
    const registered = this.kinds.get(job.kind);
    try {
      if (!registered?.handler) throw new Error(`No handler for job kind ${job.kind}`);
      await registered.handler(job.payload as never, job);
      await this.knex('scheduled_jobs').where({ id: job.id }).delete();
    } catch (err) {
      await this.retryLater([{ job, err }]);
    }
  }

  /** Failed jobs are released and run again after the back-off; one that only has to wait (JobWaits) is no error. */
  private async retryLater(failed: readonly { job: Job; err: unknown }[]): Promise<void> {
    if (failed.length === 0) return;
    const now = this.clock.now().getTime();
    for (const { job, err } of failed) {
      const fields = { err, job: { id: job.id, kind: job.kind, key: job.key, attempts: job.attempts } };
      if (err instanceof JobWaits) this.log.info(fields, 'scheduled job waits; will run again');
      else this.log.error(fields, 'scheduled job failed; will retry');
    }
    const rows = failed.map(({ job, err }) => ({ id: job.id, run_at: new Date(now + retryDelay(job.attempts)).toISOString(), last_error: err instanceof Error ? err.message : String(err) }));
    await this.knex.raw(
      `UPDATE scheduled_jobs j SET locked_until = NULL, locked_by = NULL, run_at = v.run_at, last_error = v.last_error
       FROM jsonb_to_recordset(?::jsonb) AS v(id bigint, run_at timestamptz, last_error text) WHERE j.id = v.id`,
      [JSON.stringify(rows)],
    );
  }

  /** Runs due jobs until none is left (jobs may schedule more jobs for now). For tests and CLI. */
  async runUntilIdle(maxRounds = 100): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxRounds; i++) {
      const ran = await this.runDue();
      total += ran;
      if (ran === 0) return total;
    }
    return total;
  }

  /** Polls for due jobs until stopped (the service's loop; tests drive runDue by hand). */
  start(pollMs = 200): void {
    const tick = async () => {
      this.running = this.runUntilIdle().catch((err: unknown) => this.log.error({ err }, 'scheduler tick failed'));
      await this.running;
      if (this.timer) this.timer = setTimeout(() => void tick(), pollMs);
    };
    // tick cannot reject: runUntilIdle's failures are caught and logged above.
    this.timer = setTimeout(() => void tick(), pollMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
