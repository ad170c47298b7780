import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../../packages/catalog/index.js';
import type { RefundInput, Refunds } from '../../../../packages/families/billing/refund/commands.js';
import { REFUND_REASONS, type RefundStatus } from '../../../../packages/families/billing/refund/events.js';
import type { CursorQuery, PageQuery } from '../../../../projections/paging.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { acceptsCsv, csvReply } from '../../../../packages/http/csv.js';
import { listAllRefunds, listRefunds, REFUND_CSV_COLUMNS, refundRecords } from '../../../../projections/billing/refunds.js';
import { refundSchema } from '../../schemas/billing.js';
import {
  billingRead,
  billingWrite,
  createdQuery,
  createdRange,
  cursorListSchema,
  cursorQuery,
  exportTimeZone,
  idParams,
  pageListSchema,
  pageQuery,
  timeZoneQuery,
  type CreatedQuery,
} from '../shared.js';

type ListQuery = CursorQuery & CreatedQuery & { status?: RefundStatus; time_zone?: string };

const STATUSES: readonly RefundStatus[] = ['pending', 'succeeded', 'failed'];

/** /api/v1/merchant/payments/{id}/refund(s): refunds of a succeeded payment intent (the merchant payment); /api/v1/merchant/refunds: those of every payment. */
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
      route<unknown, ListQuery>({
        method: 'get',
        path: '/api/v1/merchant/refunds',
        summary:
          'List the refunds of every payment, newest first; filters: `status`, `created[gt|gte|lt|lte]` (Unix seconds); `Accept: text/csv` exports every match as CSV, newest first, streamed, its times in `time_zone` (UTC by default)',
        auth: billingRead,
        query: cursorQuery({ status: { enum: STATUSES }, ...createdQuery, ...timeZoneQuery }),
        response: cursorListSchema(refundSchema),
        answers: { csv: REFUND_CSV_COLUMNS },
        handler: async (ctx) => {
          const filters = { status: ctx.query.status, created: createdRange(ctx.query) };
          if (acceptsCsv(ctx.header('accept'))) return csvReply(REFUND_CSV_COLUMNS, refundRecords(knex, ctx.owner, filters, exportTimeZone(ctx.query.time_zone)), 'refunds.csv');
          return listAllRefunds(knex, ctx.owner, ctx.query, '/api/v1/merchant/refunds', filters);
        },
      }),
    ],
  };
}
