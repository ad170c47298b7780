import type { Knex } from 'knex';
import type { CreatePayoutInput, Payouts } from '../../../packages/domain/payout/commands.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findPayout } from '../../../projections/payouts.js';
import { createPayoutBody, payoutSchema, payoutsRead, payoutsWrite, retrieveRoute } from './shared.js';

/** /api/v1/payouts: create and retrieve (the public surface has no payout cancel and no list). */
export function payoutsFamily(knex: Knex, payouts: Payouts): Family {
  return {
    name: 'payouts',
    routes: [
      route<CreatePayoutInput>({
        method: 'post',
        path: '/api/v1/payouts',
        summary: 'Create a payout to a mobile money or bank destination',
        auth: payoutsWrite,
        body: createPayoutBody,
        response: payoutSchema,
        handler: (ctx) => payouts.create(ctx.owner, ctx.body, 'api', ctx.actor, ctx.requestRef),
      }),
      retrieveRoute({ path: '/api/v1/payouts/:id', noun: 'payout', auth: payoutsRead, response: payoutSchema,
        summary: 'Retrieve a payout',
        find: (owner, id) => findPayout(knex, owner, id) }),
    ],
  };
}
