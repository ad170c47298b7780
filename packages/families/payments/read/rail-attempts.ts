import type { Knex } from 'knex';
import type { Environment } from '#packages/core/owner.js';
import type { PaymentIntentEvent } from '../payment-intent/events.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { addRailActivityIndex, addRailDecisionColumns, passedOverColumn, RAIL_ATTEMPT_COLUMNS, RAIL_ATTEMPT_TABLES, railOf, railOutcomes, type RailAttemptOutcomes } from '#packages/read-models/rail-attempts.js';

const TABLE = RAIL_ATTEMPT_TABLES.collect;
const STREAM_PREFIX = 'payment_intent-';

/**
 * read.payment_rail_attempts: one row per confirmation sent to a rail (`op_…`), with the rail
 * that carried it, what it was asked to carry and how it ended: the collections' side of the
 * rails' measured health and of the router's recent decisions, with the payment intent, its
 * merchant and the rails passed over for it (packages/read-models/rail-attempts.ts, docs/operator.md, "Rails").
 */
export const paymentRailAttemptsProjection: Projection = {
  name: 'payment-rail-attempts',
  tables: [TABLE],
  migrations: [
    { name: 'payment-rail-attempts/001-create', up: (knex) => knex.raw(`CREATE TABLE ${TABLE} (${RAIL_ATTEMPT_COLUMNS}); CREATE INDEX ON ${TABLE} (environment, started_at)`) },
    {
      name: 'payment-rail-attempts/002-decisions',
      up: (knex) =>
        addRailDecisionColumns(
          knex,
          TABLE,
          `UPDATE ${TABLE} AS a SET merchant_id = e.metadata->>'merchant_id', object_id = substr(e.stream_id, ${STREAM_PREFIX.length + 1}), passed_over = NULLIF(e.data->'passedOver', '[]'::jsonb)
           FROM events e WHERE e.type = 'payment_intent.confirmation_started' AND e.data->>'operationId' = a.id`,
        ),
    },
    { name: 'payment-rail-attempts/003-activity', up: (knex) => addRailActivityIndex(knex, TABLE) },
  ],
  handles: ['payment_intent.confirmation_started', 'payment_intent.confirmation_aborted', 'payment_intent.succeeded', 'payment_intent.payment_failed'],
  ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
    const e = event as unknown as PaymentIntentEvent;
    switch (e.type) {
      case 'payment_intent.confirmation_started': {
        const pm = e.data.paymentMethod;
        const subject = pm.type === 'mobile_money' ? { kind: 'mobile_money', country: pm.country, operator: pm.operator } : { kind: 'card', country: null, operator: null };
        const environment: Environment = e.data.livemode ? 'live' : 'sandbox';
        const decision = { merchant_id: event.metadata.merchant_id ?? null, object_id: event.streamId.slice(STREAM_PREFIX.length), passed_over: passedOverColumn(e.data.passedOver) };
        return [
          { table: TABLE, insert: { id: e.data.operationId, rail: railOf(e.data.connector, environment), environment, ...subject, currency: e.data.currency.toLowerCase(), started_at: e.data.startedAt, outcome: 'pending', ...decision } },
        ];
      }
      // The rail could not be asked (no answer, or it refused the initiation): the rail's fault.
      case 'payment_intent.confirmation_aborted':
        return [{ table: TABLE, key: { id: e.data.operationId }, set: { outcome: 'failed', failure_code: e.data.failureCode ?? 'initiation_failed', finished_at: e.data.at ?? event.recordedAt } }];
      case 'payment_intent.succeeded':
        return [{ table: TABLE, key: { id: e.data.operationId }, set: { outcome: 'succeeded', finished_at: e.data.at } }];
      case 'payment_intent.payment_failed':
        return [{ table: TABLE, key: { id: e.data.operationId }, set: { outcome: 'failed', failure_code: e.data.failureCode, finished_at: e.data.at } }];
      default:
        return [];
    }
  }),
};

/** The collections each rail carried in `environment` since `since`, per country and operator. */
export function paymentRailOutcomes(knex: Knex, environment: Environment, since: Date): Promise<RailAttemptOutcomes[]> {
  return railOutcomes(knex, TABLE, environment, since);
}
