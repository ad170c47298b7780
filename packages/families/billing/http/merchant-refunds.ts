import type { Knex } from 'knex';
import { MAX_AMOUNT } from '#packages/catalog/index.js';
import type { RefundInput, Refunds } from '../refund/commands.js';
import { REFUND_REASONS, type RefundStatus } from '../refund/events.js';
import type { CursorQuery, PageQuery } from '#packages/read-models/paging.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { acceptsCsv, csvReply } from '#packages/http/csv.js';
import { listAllRefunds, listRefunds, REFUND_CSV_COLUMNS, refundRecords } from '../read/refunds.js';
import { REFUND_REASON_WORDS, REFUND_STATUS_WORDS, refundSchema } from './schemas.js';
import { billingRead, billingWrite } from './customer-fields.js';
import { createdQuery, createdRange, cursorListSchema, cursorQuery, exportTimeZone, idParams, pageListSchema, pageQuery, timeZoneQuery, type CreatedQuery } from '#packages/http/route-kit.js';

type ListQuery = CursorQuery & CreatedQuery & { status?: RefundStatus; time_zone?: string };

const STATUSES: readonly RefundStatus[] = ['pending', 'succeeded', 'failed'];

/** /api/v1/merchant/payments/{id}/refund(s): refunds of a succeeded payment intent (the merchant payment); /api/v1/merchant/refunds: those of every payment. */
export function merchantRefundsRoutes(knex: Knex, refunds: Refunds): RouteGroup {
  return {
    name: 'merchant-refunds',
    description: "Refunds of succeeded payments, in part or in full, back to the payer's wallet or card.",
    routes: [
      route<RefundInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/merchant/payments/:id/refund',
        summary: 'Refund a succeeded payment, in part (amount) or all that remains; the refunds of a payment never exceed its amount',
        description: [
          'Gives a payer back part or all of a succeeded payment, from your available balance: without `amount`, all that is left to refund. Refunds of one payment never add up to more than it, however many are asked at once.',
          '',
          "Most refunds answer `succeeded` at once, the money taken from your balance in the same step. A payment collected through a rail that keeps the money (pawaPay) is refunded through that rail: the refund answers `pending`, its money held, and the rail's answer makes it `succeeded` or `failed` (webhooks tell you). When the available balance does not cover it, the refund is recorded `failed` and the answer is `IKW-BAL-001`. A payment that funded an escrow contract, a marketplace order or a funding campaign is refunded through that family instead.",
        ].join('\n'),
        refusals: ['IKW-BIL-003', 'IKW-BIL-004', 'IKW-BAL-001', 'IKW-PRV-006', 'IKW-ESC-010', 'IKW-MKT-008', 'IKW-FND-006'],
        emits: ['refund.created', 'refund.succeeded', 'refund.failed'],
        auth: billingWrite,
        params: idParams,
        fields: { paymentId: 'id' },
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT, description: "How much to refund, in minor units of the payment's currency; all that remains refundable when left out" },
            reason: { enum: [...REFUND_REASONS], description: 'Why you refund it, kept on the refund', 'x-enumDescriptions': REFUND_REASON_WORDS },
          },
        },
        response: refundSchema,
        handler: (ctx) => refunds.create(ctx.owner, ctx.params.id, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, PageQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/payments/:id/refunds',
        summary: 'The refunds of one payment, newest first',
        description: "Every refund of one payment intent, pending and failed ones included, to see what is left to refund. Another merchant's payment, or one of the other environment, is `404 IKW-RES-001`, not an empty list.",
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
        description:
          'The refunds of all your payments in the environment, newest first (cursor-paged), for the Refunds page and reconciliation. Filter by `status` and creation time. With `Accept: text/csv` it answers every match as one CSV file (columns `' +
          REFUND_CSV_COLUMNS.join('`, `') +
          '`), streamed, for a spreadsheet or an accounting import.',
        auth: billingRead,
        query: cursorQuery({ status: { enum: STATUSES, description: 'Only the refunds in this status', 'x-enumDescriptions': REFUND_STATUS_WORDS }, ...createdQuery, ...timeZoneQuery }),
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
