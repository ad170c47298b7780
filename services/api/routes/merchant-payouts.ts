import type { Knex } from 'knex';
import type { CreatePayoutInput, Payouts } from '../../../packages/domain/payout/commands.js';
import type { PayoutObject } from '../../../packages/domain/payout/events.js';
import { pageListQuery, pageOf, type PageQuery } from '../../../packages/http/pagination.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { readPayoutSettings } from '../../../projections/payout-settings.js';
import { renderPayout } from '../../../projections/payouts.js';
import { createPayoutBody, getPayout, payoutIdParams, payoutSchema, payoutsRead, payoutsWrite } from './payouts.js';

const STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'];

/** /api/v1/merchant/payouts: the dashboard's payouts, page-based with a status filter. */
export function merchantPayoutsFamily(knex: Knex, payouts: Payouts): Family {
  return {
    name: 'merchant-payouts',
    routes: [
      route<unknown, PageQuery & { status?: string }>({
        method: 'get',
        path: '/api/v1/merchant/payouts',
        summary: 'List payouts, newest first, page by page',
        auth: payoutsRead,
        query: { ...pageListQuery, properties: { ...pageListQuery.properties, status: { enum: STATUSES } } },
        handler: (ctx) => {
          const base = knex('read.payouts').select('object').where({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment });
          if (ctx.query.status) base.andWhere({ status: ctx.query.status });
          return pageOf<{ object: PayoutObject }, PayoutObject>(base, ctx.query, (row) => renderPayout(row.object));
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/payouts/:id',
        summary: 'Retrieve a payout',
        auth: payoutsRead,
        params: payoutIdParams,
        response: payoutSchema,
        handler: (ctx) => getPayout(knex, ctx),
      }),
      route<CreatePayoutInput>({
        method: 'post',
        path: '/api/v1/merchant/payouts',
        summary: 'Create a payout from the merchant dashboard (metadata.source = merchant_portal; default saved destination when none is given)',
        auth: payoutsWrite,
        body: createPayoutBody,
        response: payoutSchema,
        handler: async (ctx) => {
          // The dashboard may leave the destination out: the merchant's default saved destination is used.
          let body = ctx.body;
          if (body.destination === undefined && body.payout_method_id === undefined) {
            const { settings } = await readPayoutSettings(knex, ctx.principal.merchantId, ctx.principal.environment);
            if (settings.defaultPayoutMethodId) body = { ...body, payout_method_id: settings.defaultPayoutMethodId };
          }
          return payouts.create(ctx.owner, body, 'merchant_portal', ctx.actor, ctx.requestRef);
        },
      }),
    ],
  };
}
