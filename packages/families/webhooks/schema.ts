import { sqlMigration, type Migration } from '#packages/core/migration.js';

/**
 * Tables of the webhook dispatcher (written by the bus consumer and the delivery jobs, not
 * projections: they record what was sent, which a replay of the log cannot reproduce).
 */
export const webhookMigrations: Migration[] = [
  sqlMigration(
    'webhooks/001-create',
    `CREATE TABLE bus_checkpoints (
        name text PRIMARY KEY,
        position text,
        updated_at timestamptz NOT NULL
      );
      CREATE TABLE webhook_events (
        id text PRIMARY KEY,
        source_event_id uuid NOT NULL UNIQUE,
        merchant_id text NOT NULL,
        environment text NOT NULL,
        type text NOT NULL,
        payload text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX webhook_events_merchant ON webhook_events (merchant_id, environment, created_at);
      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        event_id text NOT NULL REFERENCES webhook_events (id),
        endpoint_id text NOT NULL,
        merchant_id text NOT NULL,
        environment text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'retrying', 'succeeded', 'failed', 'skipped')),
        attempts integer NOT NULL DEFAULT 0,
        replay_of text,
        next_attempt_at timestamptz,
        -- The endpoint was marked failing (and the merchant told) for this delivery's last failure.
        failure_noted boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status, created_at);
      CREATE TABLE webhook_attempts (
        delivery_id text NOT NULL REFERENCES webhook_deliveries (id),
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        response_status integer,
        error text,
        PRIMARY KEY (delivery_id, attempt)
      );
      CREATE TABLE email_outbox (
        id bigserial PRIMARY KEY,
        merchant_id text NOT NULL,
        recipient text,
        subject text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        error text
      )`,
  ),
  // The events API (GET /api/v1/events) pages a merchant's events in the order they were stored.
  sqlMigration(
    'webhooks/002-event-order',
    `ALTER TABLE webhook_events ADD COLUMN seq bigserial;
      CREATE INDEX webhook_events_merchant_seq ON webhook_events (merchant_id, environment, seq)`,
  ),
  // The deliveries API (GET /api/v1/webhook-endpoints/{id}/deliveries) pages an endpoint's
  // deliveries in the order they were queued, and shows each attempt's answer: its first 4 KiB
  // (ATTEMPT_BODY_BYTES in delivery.ts).
  sqlMigration(
    'webhooks/003-delivery-order-and-answer',
    `ALTER TABLE webhook_deliveries ADD COLUMN seq bigserial;
      CREATE INDEX webhook_deliveries_endpoint_seq ON webhook_deliveries (endpoint_id, seq);
      ALTER TABLE webhook_attempts ADD COLUMN response_body text`,
  ),
  // Test events (POST /api/v1/webhook-endpoints/{id}/send_test_event) are stored like real ones,
  // so their deliveries go through the same jobs, attempts and replays; they come from no domain
  // event, belong to one endpoint, and the events API never lists them.
  sqlMigration(
    'webhooks/004-test-events',
    `ALTER TABLE webhook_events ALTER COLUMN source_event_id DROP NOT NULL;
      ALTER TABLE webhook_events ADD COLUMN test_endpoint_id text;
      ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_source_or_test CHECK ((source_event_id IS NULL) <> (test_endpoint_id IS NULL))`,
  ),
];
