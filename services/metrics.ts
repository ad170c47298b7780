import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { instanceIsDead } from '#packages/core/instance.js';
import type { Metrics } from '#packages/core/metrics.js';

/** Events counted behind a consumer's checkpoint at most: a lag beyond it reads as this number. */
const LAG_CAP = 100_000;

interface Pool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/**
 * The gauges read from the database when /metrics is scraped: scheduler backlog and lateness,
 * bus consumers' lag, webhook deliveries by status, the connection pool. Shared state, so every
 * process reports the same backlog; alert on it from one.
 */
export function registerOperationalGauges(metrics: Metrics, deps: { knex: Knex; clock: Clock; consumers: string[]; postgresLog: boolean }): void {
  const { knex, clock } = deps;
  const due = () =>
    knex('scheduled_jobs')
      .where('run_at', '<=', clock.now())
      .andWhere((q) => {
        q.whereNull('locked_until').orWhere('locked_until', '<', clock.now()).orWhereRaw(instanceIsDead('locked_by'));
      });

  metrics.gaugeOnScrape('sika_scheduler_due_jobs', 'Jobs due now that no live process holds', [], async (set) => {
    const [row] = await due().count<{ count: string }[]>({ count: '*' });
    set({}, Number(row?.count ?? 0));
  });
  metrics.gaugeOnScrape('sika_scheduler_lateness_seconds', 'How long the oldest due, unclaimed job has waited past its time', [], async (set) => {
    const [row] = await due().min<{ oldest: Date | null }[]>({ oldest: 'run_at' });
    set({}, row?.oldest ? Math.max(0, (clock.now().getTime() - new Date(row.oldest).getTime()) / 1000) : 0);
  });

  // Positions are comparable only on the Postgres log; Kafka consumers report through Kafka's own lag.
  if (deps.postgresLog) {
    metrics.gaugeOnScrape('sika_bus_consumer_lag_events', `Events committed after a bus consumer's checkpoint (at most ${LAG_CAP})`, ['consumer'], async (set) => {
      for (const name of deps.consumers) {
        const checkpoint = await knex('bus_checkpoints').where({ name }).first<{ position: string | null } | undefined>('position');
        const [tx, pos] = checkpoint?.position?.split(':') ?? ['0', '0'];
        const { rows } = await knex.raw<{ rows: { lag: string }[] }>(`SELECT count(*) AS lag FROM (SELECT 1 FROM events WHERE (transaction_id, global_position) > (?::text::xid8, ?::bigint) LIMIT ?) behind`, [
          BigInt(tx ?? '0').toString(),
          BigInt(pos ?? '0').toString(),
          LAG_CAP,
        ]);
        set({ consumer: name }, Number(rows[0]?.lag ?? 0));
      }
    });
  }

  metrics.gaugeOnScrape('sika_webhook_deliveries', 'Webhook deliveries by status', ['status'], async (set) => {
    for (const status of ['pending', 'retrying', 'succeeded', 'failed']) set({ status }, 0);
    const rows = await knex('webhook_deliveries').select('status').count<{ status: string; count: string }[]>({ count: '*' }).groupBy('status');
    for (const r of rows) set({ status: r.status }, Number(r.count));
  });

  metrics.gaugeOnScrape('sika_db_pool_connections', 'Database pool connections of this process, by state', ['state'], async (set) => {
    const pool = (knex.client as { pool?: Pool }).pool;
    if (!pool) return;
    set({ state: 'used' }, pool.numUsed());
    set({ state: 'free' }, pool.numFree());
    set({ state: 'waiting' }, pool.numPendingAcquires());
  });
}
