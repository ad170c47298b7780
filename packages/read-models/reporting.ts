import type { Migration } from '#packages/core/migration.js';

/**
 * Schema `reporting`: views over the read models with stable column names, for finance jobs that
 * query PostgreSQL directly, and the role `sika_reporting` that may read them and nothing else
 * (docs/reconciliation.md). A read model may change its tables; these views keep their columns.
 */

export const REPORTING_ROLE = 'sika_reporting';

/**
 * The query of `reporting.daily_balances` with the terms of inflow, outflow and fees as the
 * migration of its time defines them: one row per merchant, environment, currency and UTC day with
 * entries, opening + inflow - outflow - fees = closing.
 */
function dailyBalances(terms: { inflow: string; outflow: string; fees: string }): string {
  return `
          WITH days AS (
            SELECT merchant_id, environment, currency, (posted_at AT TIME ZONE 'UTC')::date AS day,
                   sum(${terms.inflow})::bigint AS inflow,
                   sum(${terms.outflow})::bigint AS outflow,
                   sum(${terms.fees})::bigint AS fees,
                   sum(available + pending + reserved)::bigint AS movement
            FROM read.ledger_entries GROUP BY 1, 2, 3, 4
          )
          SELECT merchant_id, environment, currency, day,
                 (sum(movement) OVER w - movement)::bigint AS opening, inflow, outflow, fees,
                 (sum(movement) OVER w)::bigint AS closing
          FROM days
          WINDOW w AS (PARTITION BY merchant_id, environment, currency ORDER BY day)`;
}

export const reportingMigrations: readonly Migration[] = [
  {
    name: 'reporting/001-views-role',
    up: (knex) =>
      knex.raw(`CREATE SCHEMA reporting;
        CREATE VIEW reporting.balances AS
          SELECT merchant_id, environment, currency, available, pending, reserved FROM read.balances;
        CREATE VIEW reporting.balance_transactions AS
          SELECT id, merchant_id, environment, type, source, status, currency, amount, fee, net,
                 available_on, created_at, settled_at
          FROM read.balance_transactions;
        CREATE VIEW reporting.ledger_entries AS
          SELECT entry_id, merchant_id, environment, currency, kind, source, amount, fee, net,
                 available, pending, reserved, posted_at
          FROM read.ledger_entries;
        CREATE VIEW reporting.payout_settlements AS
          SELECT payout_id, balance_transaction_id, merchant_id, environment, amount FROM read.payout_settlements;
        -- One row per merchant, environment, currency and UTC day with entries; the same rule as
        -- GET /api/v1/balance/summaries: opening + inflow - outflow - fees = closing.
        CREATE VIEW reporting.daily_balances AS ${dailyBalances({
          inflow: "CASE WHEN kind = 'payment' THEN amount ELSE 0 END",
          outflow: "CASE WHEN kind IN ('payout_paid', 'refund', 'refund_reversal') THEN -amount ELSE 0 END",
          fees: "CASE WHEN kind IN ('payment', 'payout_paid') THEN fee ELSE 0 END",
        })};
        -- Roles belong to the whole server: made once, and left to an administrator where the
        -- service's own database user may not make roles.
        DO $$
        BEGIN
          BEGIN
            CREATE ROLE ${REPORTING_ROLE} NOLOGIN;
          EXCEPTION
            WHEN duplicate_object OR unique_violation THEN NULL;
            WHEN insufficient_privilege THEN
              RAISE NOTICE 'role ${REPORTING_ROLE} not created: no CREATEROLE privilege (docs/reconciliation.md)';
          END;
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${REPORTING_ROLE}') THEN
            GRANT USAGE ON SCHEMA reporting TO ${REPORTING_ROLE};
            GRANT SELECT ON ALL TABLES IN SCHEMA reporting TO ${REPORTING_ROLE};
          END IF;
        END $$;`),
  },
  {
    // A funding campaign's release reaches the balance as an inflow with its fees (docs/funding.md):
    // the same columns, so opening + inflow - outflow - fees = closing holds with releases too.
    name: 'reporting/002-funding-release',
    up: (knex) =>
      knex.raw(
        `CREATE OR REPLACE VIEW reporting.daily_balances AS ${dailyBalances({
          inflow: "CASE WHEN kind IN ('payment', 'campaign_release') THEN amount ELSE 0 END",
          outflow: "CASE WHEN kind IN ('payout_paid', 'refund', 'refund_reversal') THEN -amount ELSE 0 END",
          fees: "CASE WHEN kind IN ('payment', 'payout_paid', 'campaign_release') THEN fee ELSE 0 END",
        })}`,
      ),
  },
  {
    // Escrow entries count by what they moved in or out of the merchant's own accounts, as
    // dailySummaries (packages/families/ledger/read/ledger-entries.ts) counts them: without these terms the movement
    // reached closing but neither inflow nor outflow, and the identity broke on escrow days.
    name: 'reporting/003-escrow',
    up: (knex) =>
      knex.raw(
        `CREATE OR REPLACE VIEW reporting.daily_balances AS ${dailyBalances({
          inflow: `CASE WHEN kind IN ('payment', 'campaign_release') THEN amount
                      WHEN kind LIKE 'escrow%' THEN greatest(available + pending + reserved, 0) ELSE 0 END`,
          outflow: `CASE WHEN kind IN ('payout_paid', 'refund', 'refund_reversal') THEN -amount
                       WHEN kind LIKE 'escrow%' THEN greatest(-(available + pending + reserved), 0) ELSE 0 END`,
          fees: "CASE WHEN kind IN ('payment', 'payout_paid', 'campaign_release') THEN fee ELSE 0 END",
        })}`,
      ),
  },
];
