import type { Knex } from 'knex';
import type { Payouts } from '../../../../packages/families/payouts/payout/commands.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { listObjectEvents } from '../../../../projections/object-events.js';
import { findPayout, payoutHistory } from '../../../../projections/payouts/payouts.js';
import { createPayoutBody, createPayoutFields, requesterOf, type CreatePayoutBody, cursorListSchema, cursorQuery, found, historyEventSchema, idParams, payoutSchema, payoutsRead, payoutsWrite, retrieveRoute } from '../shared.js';

/** The reference's example of a payout request (/docs): 2,000 XOF to an Orange Money number in Senegal. */
const CREATE_PAYOUT_EXAMPLE = {
  amount: 2000,
  currency: 'xof',
  destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
  metadata: { order_id: '42' },
};

/** What that request answers: the payout, pending until the operator pays it. */
const CREATED_PAYOUT_EXAMPLE = {
  id: 'po_3MtwBwLkdIwHu7ix28a3tqPa',
  object: 'payout',
  amount: 2000,
  currency: 'xof',
  status: 'pending',
  destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
  expected_by: '2026-11-26T10:05:00.000Z',
  arrival_date_estimate: '2026-11-26T10:05:00.000Z',
  metadata: { order_id: '42' },
  failure_code: null,
  failure_message: null,
  payout_method_id: null,
  fee: 0,
  created: 1795255200,
  livemode: false,
};

/** /api/v1/payouts: create, retrieve, and each payout's history of events (the public surface has no payout cancel and no list). */
export function payoutsFamily(knex: Knex, payouts: Payouts): Family {
  return {
    name: 'payouts',
    description: 'Payouts: money sent from the merchant\'s balance to a mobile money wallet or a bank account, with their history.',
    routes: [
      route<CreatePayoutBody>({
        method: 'post',
        path: '/api/v1/payouts',
        summary: 'Create a payout to a mobile money or bank destination (live: a signed-in user paying a destination never paid before gives challenge_id, purpose payouts/new-destination)',
        auth: payoutsWrite,
        body: { ...createPayoutBody, examples: [CREATE_PAYOUT_EXAMPLE] },
        fields: createPayoutFields,
        response: { ...payoutSchema, examples: [CREATED_PAYOUT_EXAMPLE] },
        handler: (ctx) => {
          const { challenge_id, ...input } = ctx.body;
          return payouts.create(ctx.owner, input, requesterOf(ctx, challenge_id), 'api', ctx.actor, ctx.requestRef);
        },
      }),
      retrieveRoute({ path: '/api/v1/payouts/:id', noun: 'payout', auth: payoutsRead, response: payoutSchema,
        summary: 'Retrieve a payout',
        find: (owner, id) => findPayout(knex, owner, id) }),
      route<unknown, CursorQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/payouts/:id/events',
        summary: "The payout's history: its events as webhooks carry them, each with the payout as that event left it and who caused it, newest first",
        auth: payoutsRead,
        params: idParams,
        query: cursorQuery(),
        response: cursorListSchema(historyEventSchema),
        handler: async (ctx) => {
          // Another merchant's payout, or none, is "no such payout", not an empty history.
          await found('payout', ctx.params.id, findPayout(knex, ctx.owner, ctx.params.id));
          return listObjectEvents(knex, ctx.owner, payoutHistory, ctx.params.id, ctx.query, `/api/v1/payouts/${ctx.params.id}/events`);
        },
      }),
    ],
  };
}
