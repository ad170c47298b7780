import type { Knex } from 'knex';
import { sqlMigration, type Migration } from '../packages/core/migration.js';
import type { Environment } from '../packages/core/owner.js';
import type { RecipientBook } from '../packages/connectors/paystack/index.js';

/**
 * The transfer recipients Sika made at a rail (Paystack's `recipient_code`), one per environment,
 * merchant and bank account (the connector's key), so that each is created once. Not an event: a
 * recipient moves no money and Paystack answers a repeated creation with the same code, so a lost
 * row costs one more call, never a second payment.
 */
export const railRecipientMigrations: Migration[] = [
  sqlMigration(
    'rail-recipients/001-create',
    `CREATE TABLE rail_recipients (
        rail text NOT NULL,
        environment text NOT NULL,
        account_key text NOT NULL,
        recipient_code text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (rail, environment, account_key)
      )`,
  ),
];

export function knexRecipientBook(knex: Knex, environment: Environment, rail = 'paystack'): RecipientBook {
  return {
    async get(key) {
      const row = await knex('rail_recipients').where({ rail, environment, account_key: key }).first<{ recipient_code: string } | undefined>('recipient_code');
      return row?.recipient_code ?? null;
    },
    async put(key, recipientCode) {
      await knex('rail_recipients').insert({ rail, environment, account_key: key, recipient_code: recipientCode }).onConflict(['rail', 'environment', 'account_key']).merge(['recipient_code']);
    },
  };
}
