import type { Knex } from 'knex';
import { listCountries } from '#packages/catalog/index.js';
import type { Environment } from '#packages/core/owner.js';
import type { PayoutEvent } from '../payout/events.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { addRailActivityIndex, addRailDecisionColumns, passedOverColumn, RAIL_ATTEMPT_COLUMNS, RAIL_ATTEMPT_TABLES, railOf, railOutcomes, type RailAttemptOutcomes } from '#packages/read-models/rail-attempts.js';

const TABLE = RAIL_ATTEMPT_TABLES.payout;

/** A bank account's country: the one country of its currency, when only one has it. */
function countryOfCurrency(currency: string): string | null {
  const countries = listCountries().filter((c) => c.currency === currency.toUpperCase());
  return countries.length === 1 ? countries[0]!.code : null;
}

/**
 * read.payout_rail_attempts: one row per payout, with the rail that sends it, its destination's
 * country and operator (a bank's code) and how it ended: the payouts' side of the rails' measured
 * health and of the router's recent decisions, with its merchant and the rails passed over for it
 * (packages/read-models/rail-attempts.ts, docs/operator.md, "Rails").
 */
export const payoutRailAttemptsProjection: Projection = {
  name: 'payout-rail-attempts',
  tables: [TABLE],
  migrations: [
    { name: 'payout-rail-attempts/001-create', up: (knex) => knex.raw(`CREATE TABLE ${TABLE} (${RAIL_ATTEMPT_COLUMNS}); CREATE INDEX ON ${TABLE} (environment, started_at)`) },
    {
      name: 'payout-rail-attempts/002-decisions',
      up: (knex) =>
        addRailDecisionColumns(
          knex,
          TABLE,
          `UPDATE ${TABLE} AS a SET merchant_id = e.data->>'merchantId', object_id = a.id, passed_over = NULLIF(e.data->'passedOver', '[]'::jsonb)
           FROM events e WHERE e.type = 'payout.created' AND e.stream_id = 'payout-' || a.id`,
        ),
    },
    { name: 'payout-rail-attempts/003-activity', up: (knex) => addRailActivityIndex(knex, TABLE) },
  ],
  handles: ['payout.created', 'payout.paid', 'payout.failed', 'payout.canceled'],
  ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
    const e = event as unknown as PayoutEvent;
    switch (e.type) {
      case 'payout.created': {
        const d = e.data.destination;
        const subject = d.type === 'mobile_money' ? { kind: 'mobile_money', country: d.country, operator: d.operator } : { kind: 'bank', country: countryOfCurrency(d.currency), operator: d.bank_code };
        const decision = { merchant_id: e.data.merchantId, object_id: e.data.id, passed_over: passedOverColumn(e.data.passedOver) };
        const insert = {
          id: e.data.id,
          rail: railOf(e.data.connector, e.data.environment),
          environment: e.data.environment,
          ...subject,
          currency: e.data.currency.toLowerCase(),
          started_at: e.data.createdAt,
          outcome: 'pending',
          ...decision,
        };
        return [{ table: TABLE, insert }];
      }
      case 'payout.paid':
        return [{ table: TABLE, key: { id: e.data.object.id }, set: { outcome: 'succeeded', finished_at: e.data.at } }];
      case 'payout.failed':
        return [{ table: TABLE, key: { id: e.data.object.id }, set: { outcome: 'failed', failure_code: e.data.failureCode, finished_at: e.data.at } }];
      // Canceled before it was sent: the rail never had it.
      case 'payout.canceled':
        return [{ table: TABLE, key: { id: e.data.object.id }, delete: true }];
      default:
        return [];
    }
  }),
};

/** The payouts each rail carried in `environment` since `since`, per country and operator. */
export function payoutRailOutcomes(knex: Knex, environment: Environment, since: Date): Promise<RailAttemptOutcomes[]> {
  return railOutcomes(knex, TABLE, environment, since);
}
