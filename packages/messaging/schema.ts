import { sqlMigration, type Migration } from '#packages/core/migration.js';

/**
 * What was sent to whom. Written by the messenger, not a projection: it records deliveries, which
 * a replay of the log cannot reproduce (the log records that a message was sent, never its secret).
 */
export const messagingMigrations: Migration[] = [
  sqlMigration(
    'messaging/001-create',
    `CREATE TABLE message_outbox (
        id bigserial PRIMARY KEY,
        channel text NOT NULL CHECK (channel IN ('email', 'sms')),
        recipient text NOT NULL,
        purpose text NOT NULL,
        subject text NOT NULL,
        -- Kept only when no transport delivered the message (the sandbox): then the outbox is the delivery.
        body text,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        error text
      );
      CREATE INDEX message_outbox_recipient ON message_outbox (recipient, id)`,
  ),
];
