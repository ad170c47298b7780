import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { instanceIsDead } from '#packages/core/instance.js';
import { sqlMigration, type Migration } from '#packages/core/migration.js';

/**
 * Who may talk to the rail about one refund now: its send and its status checks take turns
 * (docs/connectors.md, "Sending again"). A check that runs while the refund's `POST` is still on its
 * way would find no record of it and could only guess; with the lease it waits for the send's end.
 */
export interface RefundLeases {
  /**
   * Runs `work` holding the refund's lease, waiting up to `waitMs` for another holder to let go;
   * `{ held: false }` without running it when none came free by then.
   */
  hold<T>(refundId: string, waitMs: number, work: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }>;
}

/**
 * A lease row per refund being talked about, not a PostgreSQL advisory lock: a session lock would
 * pin one pooled connection for the whole provider call (seconds, up to the connector's timeout),
 * and a slow rail would drain the pool for everything else. The row costs two short statements and
 * is seen by every process of the service. It ends with its holder's work; when the holder died
 * holding it, as soon as its process instance's lock is gone (core/instance.ts: a crash closes its
 * connection), and at the latest at `expires_at` (past any provider call's timeout).
 */
export const refundLeaseMigrations: Migration[] = [
  sqlMigration(
    'rail-refund-leases/001-create',
    `CREATE TABLE rail_refund_leases (
        refund_id text PRIMARY KEY,
        holder text NOT NULL,
        instance integer NOT NULL,
        expires_at timestamptz NOT NULL
      )`,
  ),
];

/** How long a lease lasts at most: longer than any connector's call timeout (15 s), so it never ends under a live call. */
export const REFUND_LEASE_MS = 120_000;
/** How often a waiting holder asks again. */
const POLL_MS = 50;

/**
 * Leases in the database's own time, not the service's clock: they stand for a process's call in
 * progress, measured as it runs (a clock moved on by hand must not end a call's lease).
 */
export function knexRefundLeases(knex: Knex, instance: { id: number }, leaseMs = REFUND_LEASE_MS): RefundLeases {
  const take = async (refundId: string, holder: string): Promise<boolean> => {
    const { rows } = await knex.raw<{ rows: { holder: string }[] }>(
      `INSERT INTO rail_refund_leases (refund_id, holder, instance, expires_at) VALUES (?, ?, ?, clock_timestamp() + ? * interval '1 millisecond')
       ON CONFLICT (refund_id) DO UPDATE SET holder = excluded.holder, instance = excluded.instance, expires_at = excluded.expires_at
       WHERE rail_refund_leases.expires_at <= clock_timestamp() OR ${instanceIsDead('rail_refund_leases.instance')}
       RETURNING holder`,
      [refundId, holder, instance.id, leaseMs],
    );
    return rows.length === 1;
  };
  return {
    async hold(refundId, waitMs, work) {
      const holder = randomUUID();
      const until = Date.now() + waitMs;
      while (!(await take(refundId, holder))) {
        if (Date.now() >= until) return { held: false };
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      try {
        return { held: true, value: await work() };
      } finally {
        await knex('rail_refund_leases').where({ refund_id: refundId, holder }).delete();
      }
    },
  };
}
