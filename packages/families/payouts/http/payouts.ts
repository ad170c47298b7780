import type { Knex } from 'knex';
import type { PayoutCreation } from '../payout/creation.js';
import type { PayoutReviews } from '../payout/reviews.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { listObjectEvents } from '#packages/read-models/object-events.js';
import { findPayout, payoutHistory } from '../read/payouts.js';
import type { ErrorCode } from '#packages/core/errors.js';
import { Refusal } from '#packages/core/refusal.js';
import { createPayoutBody, createPayoutFields, type CreatePayoutBody, payoutSchema } from './schemas.js';
import { requesterOf, cursorListSchema, cursorQuery, found, historyEventSchema, idParams, payoutsRead, payoutsWrite, retrieveRoute } from '#packages/http/route-kit.js';

/** The reference's example of a payout request (/docs): 2,000 XOF to an Orange Money number in Senegal. */
const CREATE_PAYOUT_EXAMPLE = {
  amount: 2000,
  currency: 'xof',
  destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
  metadata: { order_id: '42' },
};

/** What that request answers: the payout, pending until the operator pays it. */
const CREATED_PAYOUT_EXAMPLE = {
  id: 'po_3MtwBwLkdIwHu7ix28a3tqPa',
  object: 'payout',
  amount: 2000,
  currency: 'xof',
  status: 'pending',
  destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
  expected_by: '2026-11-26T10:05:00.000Z',
  arrival_date_estimate: '2026-11-26T10:05:00.000Z',
  metadata: { order_id: '42' },
  failure_code: null,
  failure_message: null,
  payout_method_id: null,
  fee: 0,
  created: 1795255200,
  livemode: false,
};

/**
 * What a payout creation may refuse besides its declaration (docs/payouts.md, "Money and
 * safeguards"): the destination and the catalog, the saved destination, the gates, the rule of
 * new destinations and its challenge, the balance, and the bank's check of the holder's name.
 */
export const CREATE_PAYOUT_REFUSALS: readonly ErrorCode[] = [
  'IKW-PAY-001',
  'IKW-PAY-002',
  'IKW-PAY-003',
  'IKW-PAY-004',
  'IKW-PAY-007',
  'IKW-PAY-008',
  'IKW-VAL-003',
  'IKW-VAL-004',
  'IKW-VAL-005',
  'IKW-VAL-006',
  'IKW-VAL-007',
  'IKW-VAL-008',
  'IKW-VAL-009',
  'IKW-CAP-001',
  'IKW-CAP-002',
  'IKW-CFG-001',
  'IKW-CFG-002',
  'IKW-PRV-001',
  'IKW-PRV-005',
  'IKW-ACT-006',
  'IKW-PRV-010',
  'IKW-PRV-011',
  'IKW-PRV-012',
  'IKW-BAL-001',
  'IKW-RES-001',
  'IKW-ACC-006',
  'IKW-ACC-007',
  'IKW-LIM-007',
];

/** The events a payout creation may emit: made, then at once accepted or refused by the operator. */
export const CREATE_PAYOUT_EVENTS = ['payout.created', 'payout.updated', 'payout.failed'] as const;

/** The body of a decline of a held payout: an optional reason, the failed payout's failure_message. */
export const declineBody = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: { type: 'string', minLength: 1, maxLength: 500, description: "Why it was declined, in words the merchant reads: the payout's `failure_message`" } },
  examples: [{ reason: 'The recipient could not be verified' }],
};

/** /api/v1/payouts: create, retrieve, and each payout's history of events (the public surface has no payout cancel and no list). */
export function payoutsRoutes(knex: Knex, payouts: PayoutCreation, reviews: PayoutReviews): RouteGroup {
  return {
    name: 'payouts',
    description: "Payouts: money sent from the merchant's balance to a mobile money wallet or a bank account, with their history.",
    routes: [
      route<CreatePayoutBody>({
        method: 'post',
        path: '/api/v1/payouts',
        summary: 'Create a payout to a mobile money or bank destination (live: a signed-in user paying a destination never paid before gives challenge_id, purpose payouts/new-destination)',
        description: [
          'Sends `amount` in `currency` from your available balance to one destination: an inline `destination` (a mobile money wallet or a bank account) or a saved one (`payout_method_id`), never both. In the same commit Sika holds amount + `fee` on the balance (`IKW-BAL-001` when it does not cover them, nothing made), then hands the payout to the operator; the answer is the payout, usually `pending` or `in_transit`. Follow it to `paid` or `failed` with the `payout.*` webhooks or `GET /api/v1/payouts/{id}`; a failed payout gives amount and fee back. `POST /api/v1/fees/quote` tells the fee beforehand.',
          '',
          "Each destination is checked against the catalog (country, operator, its payout direction and limits) and the merchant's payment capabilities and activations; a bank account whose rail checks the holder's name (NGN, GHS) is checked last, once nothing else refuses (`IKW-PRV-010`). An API key may be kept to saved destinations (`inline_destinations_for_api_keys: false`, `IKW-PAY-008`); in live, a signed-in user paying a destination the merchant never paid sends `challenge_id` (`IKW-PAY-007`). A lost answer from the operator is settled by asking it, never by sending again, and a retry with the same `Idempotency-Key` finds the same payout.",
        ].join('\n'),
        refusals: CREATE_PAYOUT_REFUSALS,
        emits: CREATE_PAYOUT_EVENTS,
        auth: payoutsWrite,
        body: { ...createPayoutBody, examples: [CREATE_PAYOUT_EXAMPLE] },
        fields: createPayoutFields,
        response: { ...payoutSchema, examples: [CREATED_PAYOUT_EXAMPLE] },
        handler: (ctx) => {
          const { challenge_id, ...input } = ctx.body;
          return payouts.create(ctx.owner, input, requesterOf(ctx, challenge_id), 'api', ctx.actor, ctx.requestRef);
        },
      }),
      {
        ...retrieveRoute({ path: '/api/v1/payouts/:id', noun: 'payout', auth: payoutsRead, response: payoutSchema, summary: 'Retrieve a payout', find: (owner, id) => findPayout(knex, owner, id) }),
        description:
          "The payout as it stands now: its `status`, the delay overlay (`delay_state`, `delay_reason`) while it is late, `failure_code` and `failure_message` once failed, `provider_reference` once paid. Use it to check a payout whose webhook you missed; another merchant's payout, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payouts/:id/release',
        fields: { payoutId: 'id' },
        summary: 'Release a payout the risk rules held for review: it is sent now',
        description: [
          "A payout whose `review_status` is `held` was created and its amount and fee held on the balance, but the merchant's risk rules (a rule with action `review`, docs/risk.md) keep it from the operator until a person releases it. Releasing sends it at once, as a new payout would be sent; `review_status` becomes `released`. Releasing it again sends nothing and answers the payout as it is.",
          '',
          "Only a signed-in user with payouts rights releases (the dashboard): an API key is `403 IKW-LIM-010`, so that no integration releases what the rules held. A payout never held is `409 IKW-LIM-009`; another merchant's payout is `404 IKW-RES-001`. Insights (`GET /api/v1/intelligence/decisions?kind=risk&subject=po_…`) says why it was held.",
        ].join('\n'),
        refusals: ['IKW-LIM-009', 'IKW-LIM-010', 'IKW-RES-001'],
        emits: CREATE_PAYOUT_EVENTS,
        auth: payoutsWrite,
        params: idParams,
        response: payoutSchema,
        handler: (ctx) => {
          if (!ctx.principal.user) throw new Refusal('IKW-LIM-010', undefined, 'payoutId');
          return reviews.releaseReview(ctx.owner, ctx.params.id, ctx.actor);
        },
      }),
      route<{ reason?: string } | undefined, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payouts/:id/decline',
        fields: { payoutId: 'id' },
        summary: 'Decline a payout the risk rules held for review: it fails, never sent, and its amount and fee go back to available',
        description: [
          'A payout whose `review_status` is `held` is turned down: it ends `failed` with `failure_code` `declined_in_review` (`failure_message` your `reason`, or "Declined in review"), `review_status` becomes `declined`, and its amount and fee go back to the available balance in the same commit. It never reaches a rail. The `payout.failed` webhook is sent as for any failed payout. Declining it again answers the payout as it is.',
          '',
          "Only a signed-in user with payouts rights declines (the dashboard): an API key is `403 IKW-LIM-010`. A payout not held (never held, or released) is `409 IKW-LIM-009`, so a release and a decline of one payout never both win; another merchant's payout is `404 IKW-RES-001`.",
        ].join('\n'),
        refusals: ['IKW-LIM-009', 'IKW-LIM-010', 'IKW-RES-001'],
        emits: ['payout.failed'],
        auth: payoutsWrite,
        params: idParams,
        body: declineBody,
        response: payoutSchema,
        handler: (ctx) => {
          if (!ctx.principal.user) throw new Refusal('IKW-LIM-010', undefined, 'payoutId');
          return reviews.declineReview(ctx.owner, ctx.params.id, ctx.body?.reason, ctx.actor);
        },
      }),
      route<unknown, CursorQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/payouts/:id/events',
        summary: "The payout's history: its events as webhooks carry them, each with the payout as that event left it and who caused it, newest first",
        description:
          "Every change of the payout, newest first: each event as webhooks carry it (`payout.created`, `payout.updated`, `payout.delayed`, `payout.paid`, …) with the payout as that event left it and who caused it (`actor`). Use it to show a payout's timeline or to audit it; the list is cursor-paged with `limit`, `starting_after` and `ending_before` (docs/pagination.md).",
        auth: payoutsRead,
        params: idParams,
        query: cursorQuery(),
        response: cursorListSchema(historyEventSchema),
        handler: async (ctx) => {
          // Another merchant's payout, or none, is "no such payout", not an empty history.
          await found('payout', ctx.params.id, findPayout(knex, ctx.owner, ctx.params.id));
          return listObjectEvents(knex, ctx.owner, payoutHistory, ctx.params.id, ctx.query, `/api/v1/payouts/${ctx.params.id}/events`);
        },
      }),
    ],
  };
}
