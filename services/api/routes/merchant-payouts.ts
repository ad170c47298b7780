import type { Knex } from 'knex';
import type { CreatePayoutInput, Payouts } from '../../../packages/domain/payout/commands.js';
import type { PayoutStatus } from '../../../packages/domain/payout/events.js';
import type { PageQuery } from '../../../projections/paging.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findPayout, listPayouts } from '../../../projections/payouts.js';
import { createPayoutBody, found, idParams, pageQuery, payoutSchema, payoutsRead, payoutsWrite } from './shared.js';

const STATUSES: readonly PayoutStatus[] = ['pending', 'in_transit', 'paid', 'failed', 'canceled'];

/** /api/v1/merchant/payouts: the dashboard's payouts, page-based with a status filter. */
export function merchantPayoutsFamily(knex: Knex, payouts: Payouts): Family {
  return {
    name: 'merchant-payouts',
    routes: [
      route<unknown, PageQuery & { status?: PayoutStatus }>({
        method: 'get',
        path: '/api/v1/merchant/payouts',
        summary: 'List payouts, newest first, page by page',
        auth: payoutsRead,
        query: pageQuery({ status: { enum: STATUSES } }),
        handler: (ctx) => listPayouts(knex, ctx.owner, ctx.query, { status: ctx.query.status }),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/payouts/:id',
        summary: 'Retrieve a payout',
        auth: payoutsRead,
        params: idParams,
        response: payoutSchema,
        handler: (ctx) => found('payout', ctx.params.id, findPayout(knex, ctx.owner, ctx.params.id)),
      }),
      route<CreatePayoutInput>({
        method: 'post',
        path: '/api/v1/merchant/payouts',
        summary: 'Create a payout from the merchant dashboard (metadata.source = merchant_portal; default saved destination when none is given)',
        auth: payoutsWrite,
        body: createPayoutBody,
        response: payoutSchema,
        handler: (ctx) => payouts.createFromDashboard(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
    ],
  };
}
