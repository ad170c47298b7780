import type { Knex } from 'knex';
import type { Owner } from '../packages/domain/audit.js';
import { paymentStatusOf, toCheckoutSessionObject } from '../packages/domain/checkout-session/decider.js';
import type { CheckoutSessionCreated, CheckoutSessionEvent, CheckoutSessionObject } from '../packages/domain/checkout-session/events.js';
import type { PaymentIntentObject } from '../packages/domain/payment-intent/events.js';
import type { Projection } from './projection.js';

/**
 * read.checkout_sessions: each session with its latest payment attempt. Where the payment stands
 * is the attempt's intent (read.payment_intents), joined when a session is read, so the session
 * never lags behind its payment.
 */
export const checkoutSessionsProjection: Projection = {
  name: 'checkout_sessions',
  tables: ['read.checkout_sessions'],
  migrations: [
    {
      name: 'checkout_sessions/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.checkout_sessions (
          id text PRIMARY KEY,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          session json NOT NULL,
          payment_intent text,
          attempt integer NOT NULL DEFAULT 0,
          amount_total bigint,
          canceled_at text
        )`),
    },
  ],
  handles: ['checkout_session.created', 'checkout_session.payment_intent_attached', 'checkout_session.canceled'],
  async apply(trx, event) {
    const e = event as unknown as CheckoutSessionEvent;
    const id = event.streamId.replace(/^checkout_session-/, '');
    switch (e.type) {
      case 'checkout_session.created':
        await trx('read.checkout_sessions')
          .insert({ id, merchant_id: e.data.merchantId, environment: e.data.environment, session: JSON.stringify(e.data) })
          .onConflict('id')
          .ignore();
        return;
      case 'checkout_session.payment_intent_attached':
        await trx('read.checkout_sessions').where({ id }).update({ payment_intent: e.data.paymentIntentId, attempt: e.data.attempt, amount_total: e.data.amount });
        return;
      case 'checkout_session.canceled':
        await trx('read.checkout_sessions').where({ id }).update({ canceled_at: e.data.at });
        return;
    }
  },
};

/** A session with what the hosted page and its API show of the latest attempt's payment. */
export interface CheckoutSessionView {
  session: CheckoutSessionObject;
  owner: Owner;
  intent: PaymentIntentObject | null;
}

interface Row {
  id: string;
  merchant_id: string;
  environment: Owner['environment'];
  session: CheckoutSessionCreated;
  payment_intent: string | null;
  attempt: number;
  amount_total: string | null;
  canceled_at: string | null;
  intent: PaymentIntentObject | null;
}

function sessionRows(knex: Knex): Knex.QueryBuilder {
  return knex('read.checkout_sessions as s')
    .leftJoin('read.payment_intents as pi', 'pi.id', 's.payment_intent')
    .select('s.*', 'pi.object as intent');
}

function toView(row: Row, now: Date): CheckoutSessionView {
  const state = {
    session: row.session,
    paymentIntentId: row.payment_intent,
    attempt: row.attempt,
    amountTotal: row.amount_total === null ? null : Number(row.amount_total),
    canceledAt: row.canceled_at,
  };
  return {
    session: toCheckoutSessionObject(state, paymentStatusOf(row.intent?.status ?? null), now),
    owner: { merchantId: row.merchant_id, environment: row.environment },
    intent: row.intent,
  };
}

/** This owner's session, as it stands at `now`. */
export async function findCheckoutSession(knex: Knex, owner: Owner, id: string, now: Date): Promise<CheckoutSessionObject | undefined> {
  const row = await sessionRows(knex).where({ 's.id': id, 's.merchant_id': owner.merchantId, 's.environment': owner.environment }).first<Row | undefined>();
  return row && toView(row, now).session;
}

/** A session by its unguessable id, whoever asks: the hosted page and its API. */
export async function findPublicCheckoutSession(knex: Knex, id: string, now: Date): Promise<CheckoutSessionView | undefined> {
  const row = await sessionRows(knex).where({ 's.id': id }).first<Row | undefined>();
  return row && toView(row, now);
}
