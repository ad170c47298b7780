interface Queued<Row> {
  row: Row;
  resolve(): void;
  reject(err: unknown): void;
}

/** Rows per statement, and statements running at once (each holds a connection). */
export interface JobWriterLimits {
  maxRows: number;
  inFlight: number;
}

const JOB_WRITER_DEFAULTS: JobWriterLimits = { maxRows: 500, inFlight: 2 };

/**
 * Writes the jobs commands enqueue or drop outside a transaction (timers set before a command, the
 * sandbox operator's answers, a timer its object no longer needs): concurrent ones share one
 * multi-row statement instead of a round trip each (docs/performance.md). Like the event store's
 * group commit, no timer delays a lone job: jobs written in the same step go out together, and
 * the queue fills while statements are running. Each caller resolves once its row is committed; a
 * statement that fails is retried row by row, so an error reaches only the job that caused it. A
 * key enqueued twice keeps the first job, as `schedule` does.
 */
export class JobWriter<Row> {
  private queued: Queued<Row>[] = [];
  private running = 0;
  private flushQueued = false;
  private readonly limits: JobWriterLimits;

  constructor(
    /** Writes rows in one statement (the scheduler's scheduleMany, or its delete by keys). */
    private readonly statement: (rows: Row[]) => Promise<void>,
    limits: Partial<JobWriterLimits> = {},
  ) {
    this.limits = { ...JOB_WRITER_DEFAULTS, ...limits };
  }

  write(row: Row): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ row, resolve, reject });
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

  private async run(batch: Queued<Row>[]): Promise<void> {
    try {
      await this.statement(batch.map((q) => q.row));
      for (const q of batch) q.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      await Promise.all(batch.map((q) => this.statement([q.row]).then(q.resolve, q.reject)));
    }
  }
}
