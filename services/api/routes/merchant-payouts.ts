import type { Knex } from 'knex';
import type { CreatePayoutInput, Payouts } from '../../../packages/domain/payout/commands.js';
import type { PayoutStatus } from '../../../packages/domain/payout/events.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findPayout, listPayouts } from '../../../projections/payouts.js';
import { createPayoutBody, pageListRoute, payoutSchema, payoutsRead, payoutsWrite, retrieveRoute } from './shared.js';

const STATUSES: readonly PayoutStatus[] = ['pending', 'in_transit', 'paid', 'failed', 'canceled'];

/** /api/v1/merchant/payouts: the dashboard's payouts, page-based with a status filter. */
export function merchantPayoutsFamily(knex: Knex, payouts: Payouts): Family {
  return {
    name: 'merchant-payouts',
    routes: [
      pageListRoute<{ status?: PayoutStatus }>({ path: '/api/v1/merchant/payouts', auth: payoutsRead, filters: { status: { enum: STATUSES } },
        summary: 'List payouts, newest first, page by page',
        list: (owner, query) => listPayouts(knex, owner, query, { status: query.status }) }),
      retrieveRoute({ path: '/api/v1/merchant/payouts/:id', noun: 'payout', auth: payoutsRead, response: payoutSchema,
        summary: 'Retrieve a payout',
        find: (owner, id) => findPayout(knex, owner, id) }),
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
