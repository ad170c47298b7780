import type { Knex } from 'knex';
import type { PayoutCreation } from '../payout/creation.js';
import type { PayoutStatus } from '../payout/events.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { acceptsCsv, csvReply } from '#packages/http/csv.js';
import type { PageQuery } from '#packages/read-models/paging.js';
import { CREATE_PAYOUT_EVENTS, CREATE_PAYOUT_REFUSALS } from './payouts.js';
import { findPayout, listPayouts, PAYOUT_CSV_COLUMNS, payoutRecords } from '../read/payouts.js';
import { createdQuery, createdRange, exportTimeZone, pageListSchema, pageQuery, requesterOf, retrieveRoute, timeZoneQuery, type CreatedQuery } from '#packages/http/route-kit.js';
import { createPayoutBody, createPayoutFields, payoutSchema, type CreatePayoutBody } from './schemas.js';

type ListQuery = PageQuery & CreatedQuery & { status?: PayoutStatus; review_status?: 'held' | 'released' | 'declined'; time_zone?: string };

/** The dashboard's payouts: X-Environment optional (it must match when sent), no Idempotency-Key required; those rules are /api/v1/payouts' own. */
const merchantPayoutsRead: RouteAuth = { scope: 'payouts.read', environmentHeader: 'optional' };
const merchantPayoutsWrite: RouteAuth = { scope: 'payouts.write', environmentHeader: 'optional' };

const STATUSES: readonly PayoutStatus[] = ['pending', 'in_transit', 'paid', 'failed', 'canceled'];

/** /api/v1/merchant/payouts: the dashboard's payouts, page-based with a status filter. */
export function merchantPayoutsRoutes(knex: Knex, payouts: PayoutCreation): RouteGroup {
  return {
    name: 'merchant-payouts',
    description: 'Payouts as the merchant dashboard lists and makes them, page by page and as CSV.',
    routes: [
      route<unknown, ListQuery>({
        method: 'get',
        path: '/api/v1/merchant/payouts',
        summary:
          'List payouts, newest first, page by page; filters: `status`, `review_status`, `created[gt|gte|lt|lte]` (Unix seconds); `Accept: text/csv` exports every match as CSV, newest first, streamed, its times in `time_zone` (UTC by default)',
        description: [
          "The merchant's payouts of the environment, newest first, page by page (`page`, `limit` up to 100, with `total`): the dashboard's list. Filter by `status`, by `review_status` (`held`: the payouts the risk rules hold for review, waiting for a person to release or decline them) and by creation time (`created[gte]`, `created[lt]`, …, Unix seconds).",
          '',
          'With `Accept: text/csv` it answers every matching payout as one CSV file instead, streamed newest first, its times written in `time_zone` (an IANA zone, UTC by default): the export for accounting.',
        ].join('\n'),
        auth: merchantPayoutsRead,
        query: pageQuery({
          status: {
            enum: STATUSES,
            description: 'Only payouts in this status',
            'x-enumDescriptions': {
              pending: 'Made, not yet accepted by the operator',
              in_transit: 'Accepted by the operator, on its way',
              paid: 'Arrived at the destination',
              failed: 'Refused or failed; the funds are back on the balance',
              canceled: 'Canceled by its batch before reaching the operator',
            },
          },
          review_status: {
            enum: ['held', 'released', 'declined'],
            description: 'Only payouts the risk rules held for review and now in this review status (docs/risk.md, "Review")',
            'x-enumDescriptions': { held: 'Waiting for a person to release or decline it', released: 'Released and sent on', declined: 'Declined: failed without being sent' },
          },
          ...createdQuery,
          ...timeZoneQuery,
        }),
        response: pageListSchema(payoutSchema),
        answers: { csv: PAYOUT_CSV_COLUMNS },
        handler: async (ctx) => {
          const filters = { status: ctx.query.status, reviewStatus: ctx.query.review_status, created: createdRange(ctx.query) };
          if (acceptsCsv(ctx.header('accept'))) return csvReply(PAYOUT_CSV_COLUMNS, payoutRecords(knex, ctx.owner, filters, exportTimeZone(ctx.query.time_zone)), 'payouts.csv');
          return listPayouts(knex, ctx.owner, ctx.query, filters);
        },
      }),
      {
        ...retrieveRoute({ path: '/api/v1/merchant/payouts/:id', noun: 'payout', auth: merchantPayoutsRead, response: payoutSchema, summary: 'Retrieve a payout', find: (owner, id) => findPayout(knex, owner, id) }),
        description:
          "The payout as `GET /api/v1/payouts/{id}` answers it, for the dashboard: `X-Environment` is optional here (the environment of the key or of the header). Another merchant's payout, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<CreatePayoutBody>({
        method: 'post',
        path: '/api/v1/merchant/payouts',
        summary: 'Create a payout from the merchant dashboard (recorded with source merchant_portal; default saved destination when none is given; live: a destination never paid before takes challenge_id, purpose payouts/new-destination)',
        description: [
          'Creates a payout as `POST /api/v1/payouts` does (the same checks, hold and refusals), from the merchant dashboard: it is recorded with source `merchant_portal`, `X-Environment` is optional and no `Idempotency-Key` is required (one is honoured when sent).',
          '',
          'Without `destination` and `payout_method_id` it pays the default saved destination of the payout settings (`default_payout_method_id`); with no default either, it is `IKW-PAY-001`. In live, a signed-in user paying an inline destination the merchant never paid sends `challenge_id` (`IKW-PAY-007`).',
        ].join('\n'),
        refusals: CREATE_PAYOUT_REFUSALS,
        emits: CREATE_PAYOUT_EVENTS,
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
