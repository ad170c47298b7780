import type { Knex } from 'knex';
import { paymentStatusOf } from '../checkout-session/decider.js';
import { toCheckoutSessionObject } from '../checkout-session/render.js';
import type { CheckoutSessionCreated, CheckoutSessionEvent, CheckoutSessionObject, CheckoutSessionStatus } from '../checkout-session/events.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { Owner } from '#packages/core/owner.js';

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
    {
      // The merchant's list (newest first, by the creation's log position) and sessions expired early.
      name: 'checkout_sessions/002-list-and-expire',
      up: (knex) =>
        knex.raw(`ALTER TABLE read.checkout_sessions ADD COLUMN seq text, ADD COLUMN expired_at text;
        CREATE INDEX checkout_sessions_list ON read.checkout_sessions (merchant_id, environment, seq);
        -- Sessions opened before: their creation's log position, where the log is this database's
        -- (an EventStoreDB log gives them theirs at the next rebuild of this read model).
        DO $$ BEGIN
          IF to_regclass('events') IS NOT NULL THEN
            UPDATE read.checkout_sessions s SET seq = lpad(e.transaction_id::text, 20, '0') || ':' || lpad(e.global_position::text, 20, '0')
            FROM events e WHERE e.type = 'checkout_session.created' AND e.stream_id = 'checkout_session-' || s.id;
          END IF;
        END $$`),
    },
  ],
  handles: ['checkout_session.created', 'checkout_session.payment_intent_attached', 'checkout_session.canceled', 'checkout_session.expired'],
  async apply(trx, event) {
    const e = event as unknown as CheckoutSessionEvent;
    const id = event.streamId.replace(/^checkout_session-/, '');
    switch (e.type) {
      case 'checkout_session.created':
        await trx('read.checkout_sessions')
          .insert({ id, seq: event.position, merchant_id: e.data.merchantId, environment: e.data.environment, session: JSON.stringify(e.data) })
          .onConflict('id')
          .ignore();
        return;
      case 'checkout_session.payment_intent_attached':
        await trx('read.checkout_sessions').where({ id }).update({ payment_intent: e.data.paymentIntentId, attempt: e.data.attempt, amount_total: e.data.amount });
        return;
      case 'checkout_session.canceled':
        await trx('read.checkout_sessions').where({ id }).update({ canceled_at: e.data.at });
        return;
      case 'checkout_session.expired':
        await trx('read.checkout_sessions').where({ id }).update({ expired_at: e.data.at });
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
  expired_at: string | null;
  intent: PaymentIntentObject | null;
}

function sessionRows(knex: Knex): Knex.QueryBuilder {
  return knex('read.checkout_sessions as s').leftJoin('read.payment_intents as pi', 'pi.id', 's.payment_intent').select('s.*', 'pi.object as intent');
}

function toView(row: Row, now: Date): CheckoutSessionView {
  const state = {
    session: row.session,
    paymentIntentId: row.payment_intent,
    attempt: row.attempt,
    amountTotal: row.amount_total === null ? null : Number(row.amount_total),
    canceledAt: row.canceled_at,
    expiredAt: row.expired_at,
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

/** What the merchant's list narrows to: a status (as it stands at the list's `now`), a payment link's sessions. */
export interface CheckoutSessionFilters {
  status?: CheckoutSessionStatus;
  paymentLinkId?: string;
}

/**
 * The status sessionStatus gives, as SQL over a session row (s) and its latest intent (pi), at
 * `now`: complete once paid; canceled; expired once its expiry passed with nothing with the
 * operator; else open.
 */
function whereStatus(q: Knex.QueryBuilder, status: CheckoutSessionStatus, now: Date): Knex.QueryBuilder {
  const paid = "pi.status IS NOT DISTINCT FROM 'succeeded'";
  const withOperator = "pi.status IN ('processing', 'requires_action')";
  const past = "COALESCE(s.expired_at, s.session->>'expiresAt')::timestamptz <= ?";
  switch (status) {
    case 'complete':
      return q.whereRaw(paid);
    case 'canceled':
      return q.whereRaw(`NOT (${paid}) AND s.canceled_at IS NOT NULL`);
    case 'expired':
      return q.whereRaw(`NOT (${paid}) AND s.canceled_at IS NULL AND NOT COALESCE(${withOperator}, false) AND ${past}`, [now]);
    case 'open':
      return q.whereRaw(`NOT (${paid}) AND s.canceled_at IS NULL AND (COALESCE(${withOperator}, false) OR NOT (${past}))`, [now]);
  }
}

/** The owner's sessions as they stand at `now`, newest first, cursor-paged. */
export function listCheckoutSessions(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: CheckoutSessionFilters, now: Date): Promise<CursorList<CheckoutSessionObject>> {
  const rows = sessionRows(knex).where({ 's.merchant_id': owner.merchantId, 's.environment': owner.environment });
  if (filters.status) whereStatus(rows, filters.status, now);
  if (filters.paymentLinkId) rows.whereRaw("s.session->>'paymentLinkId' = ?", [filters.paymentLinkId]);
  // A subquery, so the cursor's `id` and `seq` are the session's alone (its intent has both too).
  return cursorPage<Row & { seq: string }, CheckoutSessionObject>(knex.from(rows.as('sessions')), cursor, url, 'id', (row) => toView(row, now).session);
}

/** A session by its unguessable id, whoever asks: the hosted page and its API. */
export async function findPublicCheckoutSession(knex: Knex, id: string, now: Date): Promise<CheckoutSessionView | undefined> {
  const row = await sessionRows(knex).where({ 's.id': id }).first<Row | undefined>();
  return row && toView(row, now);
}
