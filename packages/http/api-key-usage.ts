import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { sqlMigration, type Migration } from '#packages/core/migration.js';

/**
 * When each API key last authenticated a request, to the minute. Not a projection: it records
 * use, not a fact of the log (a request is not an event), and a rebuild of the read models keeps it.
 */
export const apiKeyUsageMigrations: Migration[] = [
  sqlMigration(
    'api-key-usage/001-create',
    `CREATE TABLE api_key_usage (
        key_id text PRIMARY KEY,
        last_used_at timestamptz NOT NULL
      )`,
  ),
];

const MINUTE_MS = 60_000;

/**
 * Notes that a key was used: one upsert per key and minute per process (the minute this process
 * last wrote is remembered), so a busy key costs a statement a minute, not one a request.
 */
export class ApiKeyUsage {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
  ) {}

  async used(keyId: string): Promise<void> {
    const minute = Math.floor(this.clock.now().getTime() / MINUTE_MS) * MINUTE_MS;
    if ((this.written.get(keyId) ?? -1) >= minute) return;
    this.written.set(keyId, minute);
    await this.knex.raw(
      `INSERT INTO api_key_usage (key_id, last_used_at) VALUES (?, ?)
       ON CONFLICT (key_id) DO UPDATE SET last_used_at = GREATEST(api_key_usage.last_used_at, EXCLUDED.last_used_at)`,
      [keyId, new Date(minute)],
    );
  }
}
