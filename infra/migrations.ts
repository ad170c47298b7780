import type { Knex } from 'knex';
import { auditChainMigrations } from '#packages/eventstore/audit-chain.js';
import { addEventHashes, createEventStoreSchema } from '#packages/eventstore/postgres/schema.js';
import { apiKeyUsageMigrations } from '#packages/http/api-key-usage.js';
import { idempotencyMigrations } from '#packages/http/idempotency.js';
import { rateLimitMigrations } from '#packages/http/rate-limit.js';
import { schedulerMigrations } from '#packages/scheduler/scheduler.js';
import { messagingMigrations } from '#packages/messaging/schema.js';
import { webhookMigrations } from '#packages/families/webhooks/schema.js';
import { eventWaitMigrations } from '#packages/families/webhooks/event-waits.js';
import { automationMigrations } from '#packages/families/automations/schema.js';
import { invoiceMailMigrations } from '#packages/families/billing/invoice/schema.js';
import { ALL_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { reportingMigrations } from '#packages/read-models/reporting.js';
import type { Migration } from '#packages/core/migration.js';
import { railRecipientMigrations } from '../services/rail-recipients.js';
import { refundLeaseMigrations } from '#packages/families/payments/rail-refund/lease.js';

/** Every schema change of the service, in order. Append only: never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  { name: 'eventstore/001-streams-events', up: (knex) => createEventStoreSchema(knex) },
  {
    name: 'read/001-schema-checkpoints',
    up: (knex) =>
      knex.raw(`CREATE SCHEMA IF NOT EXISTS read;
        CREATE TABLE read.projection_checkpoints (
          name text PRIMARY KEY,
          position text,
          updated_at timestamptz NOT NULL
        )`),
  },
  ...idempotencyMigrations,
  ...schedulerMigrations,
  ...webhookMigrations,
  ...ALL_PROJECTIONS.flatMap((p) => p.migrations),
  ...rateLimitMigrations,
  ...messagingMigrations,
  { name: 'eventstore/002-event-hashes', up: addEventHashes },
  ...auditChainMigrations,
  ...reportingMigrations,
  ...automationMigrations,
  ...apiKeyUsageMigrations,
  ...eventWaitMigrations,
  ...railRecipientMigrations,
  ...refundLeaseMigrations,
  ...invoiceMailMigrations,
];

const LOCK_KEY = 7_305_001; // any constant; serialises concurrent migrators (api + projector starting together)

/** Applies the migrations not yet applied, all in one transaction, under an advisory lock. */
export async function migrate(knex: Knex, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  const names = new Set<string>();
  for (const m of migrations) {
    if (names.has(m.name)) throw new Error(`Duplicate migration name ${m.name}`);
    names.add(m.name);
  }
  return knex.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [LOCK_KEY]);
    await trx.raw(`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await trx('schema_migrations').select<{ name: string }[]>('name')).map((r) => r.name));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      await m.up(trx);
      await trx('schema_migrations').insert({ name: m.name });
      applied.push(m.name);
    }
    return applied;
  });
}
