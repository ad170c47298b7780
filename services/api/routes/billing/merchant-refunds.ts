import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../../packages/catalog/index.js';
import type { RefundInput, Refunds } from '../../../../packages/families/billing/refund/commands.js';
import { REFUND_REASONS } from '../../../../packages/families/billing/refund/events.js';
import type { PageQuery } from '../../../../projections/paging.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { listRefunds } from '../../../../projections/billing/refunds.js';
import { refundSchema } from '../../schemas/billing.js';
import { billingRead, billingWrite, idParams, pageListSchema, pageQuery } from '../shared.js';

/** /api/v1/merchant/payments/{id}/refund(s): refunds of a succeeded payment intent (the merchant payment). */
export function merchantRefundsFamily(knex: Knex, refunds: Refunds): Family {
  return {
    name: 'merchant-refunds',
    description: 'Refunds of succeeded payments, in part or in full, back to the payer\'s wallet or card.',
    routes: [
      route<RefundInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/merchant/payments/:id/refund',
        summary: 'Refund a succeeded payment, in part (amount) or all that remains; the refunds of a payment never exceed its amount',
        auth: billingWrite,
        params: idParams,
        fields: { paymentId: 'id' },
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT }, reason: { enum: [...REFUND_REASONS] } },
        },
        response: refundSchema,
        handler: (ctx) => refunds.create(ctx.owner, ctx.params.id, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, PageQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/payments/:id/refunds',
        summary: 'The refunds of one payment, newest first',
        auth: billingRead,
        params: idParams,
        fields: { paymentId: 'id' },
        query: pageQuery(),
        response: pageListSchema(refundSchema),
        handler: async (ctx) => {
          // Another merchant's payment, or none, is "no such payment", not an empty list.
          await refunds.assertPayment(ctx.owner, ctx.params.id);
          return listRefunds(knex, ctx.owner, ctx.params.id, ctx.query);
        },
      }),
    ],
  };
}
