import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../packages/catalog/index.js';
import type { RefundInput, Refunds } from '../../../packages/domain/refund/commands.js';
import { REFUND_REASONS, type RefundObject } from '../../../packages/domain/refund/events.js';
import { pageListQuery, pageOf, type PageQuery } from '../../../packages/http/pagination.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { renderRefund } from '../../../projections/refunds.js';
import { billingRead, billingWrite, idParams } from './merchant-customers.js';

export const refundSchema = {
  type: 'object',
  required: ['id', 'object', 'amount', 'currency', 'payment_intent', 'status', 'reason', 'created'],
  properties: {
    id: { type: 'string' },
    object: { const: 'refund' },
    amount: { type: 'integer' },
    currency: { type: 'string' },
    payment_intent: { type: 'string' },
    status: { enum: ['pending', 'succeeded', 'failed'] },
    reason: { enum: [...REFUND_REASONS, null] },
    failure_reason: { type: ['string', 'null'] },
    created: { type: 'integer' },
    livemode: { type: 'boolean' },
  },
};

/** /api/v1/merchant/payments/{id}/refund(s): refunds of a succeeded payment intent (the merchant payment). */
export function merchantRefundsFamily(knex: Knex, refunds: Refunds): Family {
  return {
    name: 'merchant-refunds',
    routes: [
      route<RefundInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/merchant/payments/:id/refund',
        summary: 'Refund a succeeded payment, in part (amount) or all that remains; the refunds of a payment never exceed its amount',
        auth: billingWrite,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT }, reason: { enum: [...REFUND_REASONS] } },
        },
        response: refundSchema,
        handler: (ctx) => refunds.create(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<unknown, PageQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/payments/:id/refunds',
        summary: 'The refunds of one payment, newest first',
        auth: billingRead,
        params: idParams,
        query: pageListQuery,
        handler: async (ctx) => {
          await refunds.assertPayment(ctx.owner, ctx.params.id);
          const base = knex('read.refunds')
            .select('object')
            .where({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment, payment_intent: ctx.params.id });
          return pageOf<{ object: RefundObject }, RefundObject>(base, ctx.query, (row) => renderRefund(row.object));
        },
      }),
    ],
  };
}
