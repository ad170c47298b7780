import { randomInt } from 'node:crypto';
import pg from 'pg';
import type { Logger } from './logger.js';

/** The advisory-lock namespace (first key) of process instances: "SI". */
const NAMESPACE = 0x5349;

/**
 * This process among the service's processes: an id, and a session advisory lock on it that
 * PostgreSQL holds for as long as this process's own connection lives. A crash, even SIGKILL,
 * closes that connection, so other processes see at once that the dead one's leases (scheduler
 * jobs, idempotency keys) are void and take its work over, instead of waiting out a timeout.
 */
export class ProcessInstance {
  private constructor(
    readonly id: number,
    private readonly client: pg.Client,
  ) {}

  static async start(url: string, log?: Logger): Promise<ProcessInstance> {
    const client = new pg.Client({ connectionString: url, application_name: 'sika-instance' });
    // A lost connection ends this instance's lock: its leases look dead to others from then on.
    client.on('error', (err) => log?.error({ err }, 'process instance connection lost; its leases are void'));
    await client.connect();
    for (;;) {
      const id = randomInt(1, 2 ** 31 - 1);
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [NAMESPACE, id]);
      if (rows[0]?.ok) return new ProcessInstance(id, client);
    }
  }

  /** Whether the process with this instance id still holds its lock (in this database). */
  async isAlive(id: number): Promise<boolean> {
    const { rows } = await this.client.query<{ dead: boolean }>(`SELECT ${instanceIsDead('$1::int')} AS dead`, [id]);
    return rows[0]?.dead === false;
  }

  async stop(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

/**
 * SQL that is true when the instance whose id is in `column` is known dead: the column is set and
 * no session of this database holds that instance's lock.
 */
export function instanceIsDead(column: string): string {
  return `(${column} IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ${NAMESPACE} AND l.objsubid = 2
      AND l.objid = ${column}::oid
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())))`;
}
