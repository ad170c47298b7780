import type { RailRefundEvent } from '../rail-refund/events.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';

/**
 * read.rail_refunds: every refund sent through a rail that keeps Sika's money, whichever family's
 * (docs/connectors.md, "Refunds through a rail"), as its latest event left it: what
 * `bin/sika rails review` lists when one stays pending past every status check, or when the rail
 * failed a give-back whose money went back to the account it left.
 */
export const railRefundsProjection: Projection = {
  name: 'rail_refunds',
  tables: ['read.rail_refunds'],
  migrations: [
    {
      name: 'rail_refunds/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.rail_refunds (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          connector text NOT NULL,
          origin text NOT NULL,
          status text NOT NULL,
          amount bigint NOT NULL,
          currency text NOT NULL,
          failure_code text,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX rail_refunds_open ON read.rail_refunds (environment, status)`),
    },
  ],
  handles: ['rail_refund.requested', 'rail_refund.succeeded', 'rail_refund.failed'],
  ...rowChangeProjection({ 'read.rail_refunds': ['id'] }, (event) => {
    const e = event as unknown as RailRefundEvent;
    const table = 'read.rail_refunds';
    switch (e.type) {
      case 'rail_refund.requested': {
        const r = e.data.refund;
        const row = {
          id: r.id,
          seq: event.position,
          merchant_id: r.merchantId,
          environment: r.environment,
          connector: r.connector,
          origin: r.origin.family,
          status: 'pending',
          amount: r.amount,
          currency: r.currency,
          created_at: r.requestedAt,
        };
        return [{ table, insert: row }];
      }
      case 'rail_refund.succeeded':
        return [{ table, key: { id: e.data.refundId }, set: { status: 'succeeded' } }];
      case 'rail_refund.failed':
        return [{ table, key: { id: e.data.refundId }, set: { status: 'failed', failure_code: e.data.failureCode } }];
    }
  }),
};
