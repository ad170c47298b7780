import type { Knex } from 'knex';
import { sqlMigration, type Migration } from '#packages/core/migration.js';
import type { Environment } from '#packages/core/owner.js';
import { createHash } from 'node:crypto';
import type { CardBook, RecipientBook, SavedCard } from '#packages/connectors/paystack/index.js';
import type { Hub2Book } from '#packages/connectors/hub2/index.js';

/**
 * What Sika keeps of a rail's own objects, outside the event log: transfer recipients and saved
 * cards; Hub2's intents and transfers of Sika's attempts, and when each of its money calls was
 * claimed (its connector's book: packages/connectors/hub2/connector.ts). The transfer recipients Sika made at a rail (Paystack's `recipient_code`), one per environment,
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
  // The cards customers paid with whose authorization a rail gave (Paystack), by the token merchants charge them with.
  sqlMigration(
    'rail-recipients/002-cards',
    `CREATE TABLE rail_cards (
        token text PRIMARY KEY,
        rail text NOT NULL,
        environment text NOT NULL,
        merchant_id text NOT NULL,
        customer_id text NOT NULL,
        card jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX rail_cards_customer ON rail_cards (merchant_id, environment, customer_id)`,
  ),
];

export function knexRecipientBook(knex: Knex, environment: Environment, rail = 'paystack'): RecipientBook & Hub2Book {
  return {
    async get(key) {
      const row = await knex('rail_recipients').where({ rail, environment, account_key: key }).first<{ recipient_code: string } | undefined>('recipient_code');
      return row?.recipient_code ?? null;
    },
    async put(key, recipientCode) {
      await knex('rail_recipients').insert({ rail, environment, account_key: key, recipient_code: recipientCode }).onConflict(['rail', 'environment', 'account_key']).merge(['recipient_code']);
    },
    async claim(key, value, replacing) {
      if (replacing === null) {
        const inserted = await knex('rail_recipients').insert({ rail, environment, account_key: key, recipient_code: value }).onConflict(['rail', 'environment', 'account_key']).ignore().returning('account_key');
        return inserted.length === 1;
      }
      return (await knex('rail_recipients').where({ rail, environment, account_key: key, recipient_code: replacing }).update({ recipient_code: value })) === 1;
    },
  };
}

/**
 * The saved cards of customers (docs/connectors.md, "Paystack"): one row per rail, environment,
 * merchant, customer and card (Paystack's signature of it), so the same card paid twice keeps its
 * token, `card_` and 24 hex digits derived from those. A new authorization of the same card
 * replaces the kept one. Not an event: the card moves no money by itself, and a lost row only
 * means the payer enters the card again.
 */
export function knexCardBook(knex: Knex, environment: Environment, rail = 'paystack'): CardBook {
  return {
    async save(card) {
      const token = `card_${createHash('sha256').update(`${rail}/${environment}/${card.merchantId}/${card.customerId}/${card.signature}`).digest('hex').slice(0, 24)}`;
      const { merchantId, customerId, ...rest } = card;
      await knex('rail_cards')
        .insert({ token, rail, environment, merchant_id: merchantId, customer_id: customerId, card: JSON.stringify(rest) })
        .onConflict('token')
        .merge(['card']);
      return token;
    },
    async find(token) {
      const row = await knex('rail_cards').where({ token, rail, environment }).first<{ merchant_id: string; customer_id: string; card: Omit<SavedCard, 'token' | 'merchantId' | 'customerId'> } | undefined>();
      return row ? { ...row.card, token, merchantId: row.merchant_id, customerId: row.customer_id } : null;
    },
  };
}

/** A customer's saved cards of one environment, newest first, as `GET /api/v1/customers/{id}/cards` lists them. */
export async function savedCardsOf(knex: Knex, owner: { merchantId: string; environment: Environment }, customerId: string): Promise<SavedCard[]> {
  const rows = await knex('rail_cards')
    .where({ merchant_id: owner.merchantId, environment: owner.environment, customer_id: customerId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'token', order: 'asc' },
    ])
    .select<{ token: string; card: Omit<SavedCard, 'token' | 'merchantId' | 'customerId'> }[]>('token', 'card');
  return rows.map((r) => ({ ...r.card, token: r.token, merchantId: owner.merchantId, customerId }));
}
