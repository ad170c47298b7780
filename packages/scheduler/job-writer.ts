import type { Knex } from 'knex';

/** What the writer inserts: a job as `scheduled_jobs` stores it (the scheduler's JobSpec). */
export interface JobRow {
  kind: string;
  key: string;
  runAt: Date;
  payload: Record<string, unknown>;
}

interface Queued {
  job: JobRow;
  resolve(): void;
  reject(err: unknown): void;
}

/** Rows per statement, and statements running at once (each holds a connection). */
export interface JobWriterLimits {
  maxRows: number;
  inFlight: number;
}

export const JOB_WRITER_DEFAULTS: JobWriterLimits = { maxRows: 500, inFlight: 2 };

function insertJobs(knex: Knex, jobs: readonly JobRow[]): Promise<unknown> {
  return knex('scheduled_jobs')
    .insert(jobs.map((j) => ({ kind: j.kind, key: j.key, run_at: j.runAt, payload: JSON.stringify(j.payload) })))
    .onConflict('key')
    .ignore();
}

/**
 * Writes the jobs commands enqueue outside a transaction (timers set before a command, the
 * sandbox operator's answers): concurrent ones share one multi-row INSERT instead of a round trip
 * each (docs/performance.md). Like the event store's group commit, no timer delays a lone job: the
 * queue fills only while statements are running. Each caller resolves once its row is committed;
 * a statement that fails is retried row by row, so an error reaches only the job that caused it.
 * A key enqueued twice keeps the first job, as `schedule` does.
 */
export class JobWriter {
  private queued: Queued[] = [];
  private running = 0;
  private flushQueued = false;
  private readonly limits: JobWriterLimits;

  constructor(
    private readonly knex: Knex,
    limits: Partial<JobWriterLimits> = {},
  ) {
    this.limits = { ...JOB_WRITER_DEFAULTS, ...limits };
  }

  write(job: JobRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ job, resolve, reject });
      // At the end of the current step, so that jobs enqueued together go out together.
      if (this.flushQueued) return;
      this.flushQueued = true;
      queueMicrotask(() => {
        this.flushQueued = false;
        this.flush();
      });
    });
  }

  private flush(): void {
    while (this.running < this.limits.inFlight && this.queued.length > 0) {
      const batch = this.queued.splice(0, this.limits.maxRows);
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.flush();
      });
    }
  }

  private async run(batch: Queued[]): Promise<void> {
    try {
      await insertJobs(this.knex, batch.map((q) => q.job));
      for (const q of batch) q.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      await Promise.all(batch.map((q) => insertJobs(this.knex, [q.job]).then(q.resolve, q.reject)));
    }
  }
}
