import { sqlMigration, type Migration } from '#packages/core/migration.js';

/**
 * What the invoices' e-mails record outside the log (a replay cannot send an e-mail again):
 * the language each invoice was last sent in, which its reminders are written in, and each
 * reminder claimed, one per (invoice, offset from the due date), so a reminder step run again
 * (the next day, a retry, after a crash) never reminds twice (docs/billing.md, "Reminders").
 */
export const invoiceMailMigrations: Migration[] = [
  sqlMigration(
    'invoice-mail/001-create',
    `CREATE TABLE invoice_languages (
        invoice_id text PRIMARY KEY,
        language text NOT NULL
      );
      CREATE TABLE invoice_reminders (
        invoice_id text NOT NULL,
        offset_days integer NOT NULL,
        merchant_id text NOT NULL,
        environment text NOT NULL,
        automation_run_id text NOT NULL,
        claimed_at timestamptz NOT NULL,
        delivery text,
        PRIMARY KEY (invoice_id, offset_days)
      )`,
  ),
];
