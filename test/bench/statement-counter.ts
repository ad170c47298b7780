/**
 * Loaded into the standalone service's processes by the payout section (`node --import`): counts
 * the statements each process sends (every node-postgres `query` call: one round trip, BEGIN and
 * COMMIT included). On SIGUSR2 it appends the count so far to `<BENCH_STATEMENTS_DIR>/statements.<pid>`,
 * so the bench reads it at the start and the end of the window it measures. A bench instrument:
 * the service itself never loads it.
 */
import fs from 'node:fs';
import pg from 'pg';

const dir = process.env.BENCH_STATEMENTS_DIR;
if (dir) {
  let count = 0;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    count += 1;
    return query.apply(this, args);
  };
  process.on('SIGUSR2', () => fs.appendFileSync(`${dir}/statements.${process.pid}`, `${count}\n`));
}
