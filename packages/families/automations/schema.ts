import { sqlMigration, type Migration } from '#packages/core/migration.js';

/**
 * Tables of the automation runner (written by its bus consumer and step jobs, not projections:
 * they record what was done outside the log — messages sent, URLs called — which a replay of the
 * log cannot reproduce).
 */
export const automationMigrations: Migration[] = [
  sqlMigration(
    'automation-runs/001-create',
    `CREATE TABLE automation_runs (
        id text PRIMARY KEY,
        seq bigserial NOT NULL,
        automation_id text NOT NULL,
        automation_version integer NOT NULL,
        merchant_id text NOT NULL,
        environment text NOT NULL,
        trigger_kind text NOT NULL CHECK (trigger_kind IN ('event', 'schedule', 'test')),
        -- One run per trigger: the event's id, the schedule's tick, or the test run's own id.
        dedupe_key text NOT NULL,
        trigger_event jsonb,
        scheduled_for timestamptz,
        steps jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('running', 'waiting', 'succeeded', 'failed', 'skipped', 'canceled')),
        current_step integer NOT NULL DEFAULT 0,
        error text,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        UNIQUE (automation_id, dedupe_key)
      );
      CREATE INDEX automation_runs_list ON automation_runs (merchant_id, environment, automation_id, seq);
      CREATE INDEX automation_runs_recent ON automation_runs (merchant_id, environment, started_at);
      CREATE TABLE automation_step_logs (
        id text PRIMARY KEY,
        seq bigserial NOT NULL,
        run_id text NOT NULL REFERENCES automation_runs (id),
        automation_id text NOT NULL,
        merchant_id text NOT NULL,
        environment text NOT NULL,
        step_index integer NOT NULL,
        step_id text NOT NULL,
        action text NOT NULL,
        attempt integer NOT NULL,
        status text NOT NULL CHECK (status IN ('succeeded', 'failed', 'waiting', 'skipped')),
        input jsonb,
        output jsonb,
        error text,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        UNIQUE (run_id, step_index, attempt)
      );
      CREATE INDEX automation_step_logs_list ON automation_step_logs (merchant_id, environment, seq);
      CREATE TABLE automation_health (
        automation_id text PRIMARY KEY,
        consecutive_failures integer NOT NULL,
        last_error text,
        updated_at timestamptz NOT NULL
      )`,
  ),
  // Header values of http_request steps are logged redacted (packages/families/automations/headers.ts):
  // the logs written before are redacted the same way, "…" and the last four of 9 characters or more.
  sqlMigration(
    'automation-runs/002-redact-logged-headers',
    `UPDATE automation_step_logs
        SET input = jsonb_set(input, '{headers}', (
          SELECT coalesce(jsonb_object_agg(h.key, '…' || CASE WHEN length(h.value) >= 9 THEN right(h.value, 4) ELSE '' END), '{}'::jsonb)
            FROM jsonb_each_text(input->'headers') AS h))
      WHERE action = 'http_request' AND jsonb_typeof(input->'headers') = 'object'`,
  ),
];
