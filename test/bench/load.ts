/** The parent side of load-worker.ts: start it, run slices, collect totals. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { alternateSlices, BusyMeter, Measurement, QueryMeter, type Busy, type LoadResult } from './common.js';
import type { FromWorker, LoadWorkerData, ScenarioSpec, SliceReport, ToWorker, TotalsReport } from './load-worker.js';

export interface ScenarioResult extends LoadResult {
  non2xx: number;
  errors: number;
  busy: Busy;
  /** SQL statements the service sent per operation (BEGIN and COMMIT not counted). */
  statementsPerOperation: number;
}

/**
 * The load generator runs in a child process, not a worker thread: a thread's V8 heap would count
 * in the RSS the bench reports as the server's memory.
 */
export class LoadWorker {
  private readonly child: ChildProcess;
  private readonly exited: Promise<unknown>;
  private readonly waiting: { resolve(message: FromWorker): void; reject(err: Error): void }[] = [];
  private failure: Error | null = null;

  constructor(baseUrl: string, scenarios: Record<string, ScenarioSpec>) {
    const data: LoadWorkerData = { baseUrl, scenarios };
    // Node's default flags (not the service's), and structured clone so latencies arrive as a Float64Array.
    this.child = fork(fileURLToPath(new URL('./load-worker.js', import.meta.url)), [JSON.stringify(data)], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message: FromWorker) => this.waiting.shift()?.resolve(message));
    const fail = (err: Error) => {
      this.failure = err;
      for (const w of this.waiting.splice(0)) w.reject(err);
    };
    this.child.on('error', fail);
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.once('exit', (code) => fail(new Error(`load worker exited (code ${code})`)));
  }

  private ask(message: ToWorker): Promise<FromWorker> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<FromWorker>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.send(message);
    }).then((answer) => {
      if (answer.type === 'failed') throw new Error(`load worker: ${answer.message}`);
      return answer;
    });
  }

  async slice(scenario: string, seconds: number): Promise<SliceReport> {
    const answer = await this.ask({ type: 'run', scenario, seconds });
    if (answer.type !== 'slice') throw new Error(`load worker answered ${answer.type} to run`);
    return answer;
  }

  /** Requests at a fixed rate for `seconds` (load-worker.ts, `open`), latencies from when each was due. */
  async openLoop(scenario: string, seconds: number, perSecond: number): Promise<SliceReport> {
    const answer = await this.ask({ type: 'open', scenario, seconds, perSecond });
    if (answer.type !== 'slice') throw new Error(`load worker answered ${answer.type} to open`);
    return answer;
  }

  /** The load generator's process id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  async totals(scenario: string): Promise<TotalsReport> {
    const answer = await this.ask({ type: 'totals', scenario });
    if (answer.type !== 'totals') throw new Error(`load worker answered ${answer.type} to totals`);
    return answer;
  }

  async close(): Promise<void> {
    if (this.failure) return;
    this.child.send({ type: 'close' } satisfies ToWorker);
    await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
    this.child.kill();
  }
}

/**
 * Runs the named scenarios of a worker: each warmed up, then measured in alternating slices
 * (one scenario: its warm-up, then its slices back to back).
 */
export async function measureScenarios(worker: LoadWorker, names: string[], knex: Knex): Promise<ScenarioResult[]> {
  const measured = names.map(() => ({ m: new Measurement(), non2xx: 0, errors: 0, busy: new BusyMeter(), sql: new QueryMeter(knex) }));
  await alternateSlices(names.length, async (which, seconds, isMeasured) => {
    const into = measured[which]!;
    if (!isMeasured) {
      await worker.slice(names[which]!, seconds);
      return;
    }
    const report = await into.busy.around(() => into.sql.around(() => worker.slice(names[which]!, seconds)));
    for (const ms of report.latenciesMs) into.m.record(ms);
    into.m.addTime(report.seconds);
    into.non2xx += report.non2xx;
    into.errors += report.errors;
  });
  return measured.map((x) => {
    const result = x.m.result();
    return { ...result, non2xx: x.non2xx, errors: x.errors, busy: x.busy.result(), statementsPerOperation: result.operations > 0 ? x.sql.statements / result.operations : 0 };
  });
}
