import type { Knex } from 'knex';
import type { CreatePayoutInput, Payouts } from '../../../packages/domain/payout/commands.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findPayout } from '../../../projections/payouts.js';
import { createPayoutBody, found, idParams, payoutSchema, payoutsRead, payoutsWrite } from './shared.js';

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
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/payouts/:id',
        summary: 'Retrieve a payout',
        auth: payoutsRead,
        params: idParams,
        response: payoutSchema,
        handler: (ctx) => found('payout', ctx.params.id, findPayout(knex, ctx.owner, ctx.params.id)),
      }),
    ],
  };
}
