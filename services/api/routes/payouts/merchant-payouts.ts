import type { Knex } from 'knex';
import type { Payouts } from '../../../../packages/families/payouts/payout/commands.js';
import type { PayoutStatus } from '../../../../packages/families/payouts/payout/events.js';
import { route, type Family, type RouteAuth } from '../../../../packages/http/routes.js';
import { findPayout, listPayouts } from '../../../../projections/payouts/payouts.js';
import { createPayoutBody, createPayoutFields, pageListRoute, payoutSchema, requesterOf, retrieveRoute, type CreatePayoutBody } from '../shared.js';

/** The dashboard's payouts: X-Environment optional (it must match when sent), no Idempotency-Key required; those rules are /api/v1/payouts' own. */
const merchantPayoutsRead: RouteAuth = { scope: 'payouts.read', environmentHeader: 'optional' };
const merchantPayoutsWrite: RouteAuth = { scope: 'payouts.write', environmentHeader: 'optional' };

const STATUSES: readonly PayoutStatus[] = ['pending', 'in_transit', 'paid', 'failed', 'canceled'];

/** /api/v1/merchant/payouts: the dashboard's payouts, page-based with a status filter. */
export function merchantPayoutsFamily(knex: Knex, payouts: Payouts): Family {
  return {
    name: 'merchant-payouts',
    routes: [
      pageListRoute<{ status?: PayoutStatus }>({ path: '/api/v1/merchant/payouts', item: payoutSchema, auth: merchantPayoutsRead, filters: { status: { enum: STATUSES } },
        summary: 'List payouts, newest first, page by page',
        list: (owner, query) => listPayouts(knex, owner, query, { status: query.status }) }),
      retrieveRoute({ path: '/api/v1/merchant/payouts/:id', noun: 'payout', auth: merchantPayoutsRead, response: payoutSchema,
        summary: 'Retrieve a payout',
        find: (owner, id) => findPayout(knex, owner, id) }),
      route<CreatePayoutBody>({
        method: 'post',
        path: '/api/v1/merchant/payouts',
        summary:
          'Create a payout from the merchant dashboard (metadata.source = merchant_portal; default saved destination when none is given; live: a destination never paid before takes challenge_id, purpose payouts/new-destination)',
        auth: merchantPayoutsWrite,
        body: createPayoutBody,
        fields: createPayoutFields,
        response: payoutSchema,
        handler: (ctx) => {
          const { challenge_id, ...input } = ctx.body;
          return payouts.createFromDashboard(ctx.owner, input, requesterOf(ctx, challenge_id), ctx.actor, ctx.requestRef);
        },
      }),
    ],
  };
}
