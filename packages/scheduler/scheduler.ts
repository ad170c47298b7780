import type { Knex } from 'knex';
import type { Clock } from '../core/clock.js';
import { instanceIsDead, type ProcessInstance } from '../core/instance.js';
import type { Logger } from '../core/logger.js';
import { sqlMigration, type Migration } from '../core/migration.js';
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

export type JobHandler<Payload = Record<string, unknown>> = (payload: Payload, job: Job) => Promise<void>;

interface Registered {
  kind: JobKind<never>;
  handler: JobHandler<never>;
}

/** Schedules a job, inside the caller's transaction when one is given. */
export async function schedule(db: Knex | Knex.Transaction, spec: JobSpec): Promise<void> {
  await db('scheduled_jobs')
    .insert({ kind: spec.kind, key: spec.key, run_at: spec.runAt, payload: JSON.stringify(spec.payload) })
    .onConflict('key')
    .ignore();
}

/** Schedules a job of a declared kind, inside the caller's transaction when one is given. */
export function enqueue<Payload extends object>(db: Knex | Knex.Transaction, kind: JobKind<Payload>, payload: Payload, runAt: Date): Promise<void> {
  return schedule(db, { kind: kind.name, key: kind.key(payload, runAt), runAt, payload: { ...payload } as Record<string, unknown> });
}

const LEASE_MS = 5 * 60_000;

/** Back-off after a failed run: 1 s, 2 s, 4 s … capped at 10 minutes. */
const retryDelay = (attempts: number) => Math.min(1000 * 2 ** Math.max(0, attempts - 1), 10 * 60_000);

export class Scheduler {
  private readonly kinds = new Map<string, Registered>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly writer: JobWriter;

  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** How many objects' jobs run at once. */
    private readonly concurrency = 16,
    /** This process; without one, a lease lasts until it times out. */
    private readonly instance: ProcessInstance | null = null,
  ) {
    this.writer = new JobWriter(knex);
  }

  register<Payload>(kind: JobKind<Payload>, handler: JobHandler<Payload>): void {
    if (this.kinds.has(kind.name)) throw new Error(`A handler for ${kind.name} is already registered`);
    this.kinds.set(kind.name, { kind: kind as JobKind<never>, handler: handler as JobHandler<never> });
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

  /** The object a job is about, as its kind declares; its jobs must not overtake each other. */
  private laneOf(job: Job): string {
    const registered = this.kinds.get(job.kind);
    return registered ? registered.kind.lane(job.payload as never) : job.key;
  }

  /** Claims and runs the jobs due now; returns how many ran (successfully or not). */
  async runDue(limit = 50): Promise<number> {
    const now = this.clock.now();
    const claimed = await this.knex.transaction(async (trx) => {
      const rows = await trx('scheduled_jobs')
        .select('id', 'kind', 'key', 'run_at', 'payload', 'attempts')
        .where('run_at', '<=', now)
        // Free, lease timed out, or leased by a process that died (its jobs resume at once).
        .andWhere((q) => q.whereNull('locked_until').orWhere('locked_until', '<', now).orWhereRaw(instanceIsDead('locked_by')))
        .orderBy('run_at')
        .limit(limit)
        .forUpdate()
        .skipLocked();
      if (rows.length === 0) return [];
      await trx('scheduled_jobs')
        .whereIn('id', rows.map((r: { id: string }) => r.id))
        .update({ locked_until: new Date(now.getTime() + LEASE_MS), locked_by: this.instance?.id ?? null, attempts: trx.raw('attempts + 1') });
      return rows as { id: string; kind: string; key: string; run_at: Date; payload: Record<string, unknown>; attempts: number }[];
    });
    // Jobs of one object (a delivery, a payout, an intent) run in order; different objects run
    // side by side, so one slow webhook receiver does not hold up everything else.
    const lanes = new Map<string, Job[]>();
    for (const row of claimed) {
      const job: Job = { id: row.id, kind: row.kind, key: row.key, runAt: row.run_at, payload: row.payload, attempts: row.attempts + 1 };
      const lane = this.laneOf(job);
      lanes.set(lane, [...(lanes.get(lane) ?? []), job]);
    }
    const queue = [...lanes.values()];
    const worker = async () => {
      for (let jobs = queue.shift(); jobs; jobs = queue.shift()) {
        for (const job of jobs) await this.runOne(job);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, queue.length) }, worker));
    return claimed.length;
  }

  private async runOne(job: Job): Promise<void> {
    const registered = this.kinds.get(job.kind);
    try {
      if (!registered) throw new Error(`No handler for job kind ${job.kind}`);
      await registered.handler(job.payload as never, job);
      await this.knex('scheduled_jobs').where({ id: job.id }).delete();
    } catch (err) {
      this.log.error({ err, job: { id: job.id, kind: job.kind, key: job.key, attempts: job.attempts } }, 'scheduled job failed; will retry');
      await this.knex('scheduled_jobs')
        .where({ id: job.id })
        .update({
          locked_until: null,
          locked_by: null,
          run_at: new Date(this.clock.now().getTime() + retryDelay(job.attempts)),
          last_error: err instanceof Error ? err.message : String(err),
        });
    }
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
      if (this.timer) this.timer = setTimeout(tick, pollMs);
    };
    this.timer = setTimeout(tick, pollMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
