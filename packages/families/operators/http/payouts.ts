import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { ENVIRONMENTS, type Environment, type Owner } from '#packages/core/owner.js';
import type { PayoutReviews } from '#packages/families/payouts/index.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import type { PageQuery } from '#packages/read-models/paging.js';
import { listHeldPayouts } from '#packages/families/payouts/read/index.js';
import { declineBody } from '#packages/families/payouts/http/index.js';
import { idParams, pageListSchema, pageQuery } from '#packages/http/route-kit.js';
import { payoutSchema } from '#packages/families/payouts/http/index.js';
import { operatorOf } from './shared.js';

/** The risk team (admins too, as every operator route) decide what the merchants' risk rules held. */
const RISK: RouteAuth = { scope: 'operator.payouts', operator: ['risk'] };

const environmentSchema = {
  enum: [...ENVIRONMENTS],
  description: 'The environment: `live` (default) or `sandbox`',
  'x-enumDescriptions': { live: "Live: the merchants' real money", sandbox: "The sandbox: the merchants' test money" },
};

const heldPayoutSchema = {
  type: 'object',
  required: ['object', 'merchant_id', 'payout'],
  properties: {
    object: { const: 'held_payout', description: 'The kind of object: always `held_payout`' },
    merchant_id: { type: 'string', description: 'The merchant whose payout it is (`acct_…`)' },
    payout: { ...payoutSchema, description: 'The payout as the merchant reads it (`GET /api/v1/payouts/{id}`): `review_status` `held`' },
  },
};

const payoutParams = { ...idParams, properties: { id: { type: 'string', minLength: 1, maxLength: 255, description: 'The payout (`po_…`)' } } };

/** Whose payout this is; none is IKW-RES-001. */
async function ownerOfPayout(reviews: PayoutReviews, id: string): Promise<Owner> {
  const owner = await reviews.ownerOf(id);
  if (!owner) throw new ApiError('IKW-RES-001', `No such payout: '${id}'`, 'id');
  return owner;
}

/**
 * /api/v1/operator/payouts (docs/operator.md, "Held payouts"): every merchant's payouts their risk
 * rules held for review, oldest first, which the risk team releases or declines as the merchant's
 * own users can (docs/risk.md, "Review"), recorded with the operator as the actor.
 */
export function operatorPayoutsRoutes(knex: Knex, reviews: PayoutReviews): RouteGroup {
  return {
    name: 'operator-payouts',
    description: "The risk team's queue of payouts held for review, every merchant's, and its release or decline of them.",
    routes: [
      route<unknown, PageQuery & { environment?: Environment }>({
        method: 'get',
        path: '/api/v1/operator/payouts/held',
        summary: "Every merchant's payouts held for review in an environment, oldest first, page by page",
        description:
          "The payouts whose `review_status` is `held`: created, their amount and fee held on the merchant's balance, not sent until a person releases them. Oldest first, since they have waited longest; page-based (`page`, `limit` up to 100, with `total`). Each names its merchant. A payout leaves the queue when it is released or declined, here or in the merchant's dashboard.",
        auth: RISK,
        query: pageQuery({ environment: environmentSchema }),
        response: pageListSchema(heldPayoutSchema),
        handler: async (ctx) => {
          const { environment, ...page } = ctx.query;
          return listHeldPayouts(knex, environment ?? 'live', page);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/operator/payouts/:id/release',
        fields: { payoutId: 'id' },
        summary: 'Release a payout held for review: it is sent now',
        description:
          "As the merchant's `POST /api/v1/payouts/{id}/release`: the payout is sent at once and its `review_status` becomes `released`, recorded with you as its actor. Releasing again sends nothing and answers the payout as it is. A payout not held (never, or declined) is `409 IKW-LIM-009`; an unknown one `404 IKW-RES-001`.",
        refusals: ['IKW-LIM-009', 'IKW-RES-001'],
        emits: ['payout.created', 'payout.updated', 'payout.failed'],
        auth: RISK,
        params: payoutParams,
        response: payoutSchema,
        handler: async (ctx) => reviews.releaseReview(await ownerOfPayout(reviews, ctx.params.id), ctx.params.id, { actor: `operator:${operatorOf(ctx).operatorId}` }),
      }),
      route<{ reason?: string } | undefined, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/operator/payouts/:id/decline',
        fields: { payoutId: 'id' },
        summary: 'Decline a payout held for review: it fails, never sent, and its amount and fee go back to available',
        description:
          "As the merchant's `POST /api/v1/payouts/{id}/decline`: the payout fails with `failure_code` `declined_in_review` (`failure_message` your `reason`), `review_status` becomes `declined`, and its amount and fee go back to the merchant's available balance in the same commit, recorded with you as its actor; the merchant gets the `payout.failed` webhook. Declining again answers the payout as it is. A payout not held (never, or released) is `409 IKW-LIM-009`; an unknown one `404 IKW-RES-001`.",
        refusals: ['IKW-LIM-009', 'IKW-RES-001'],
        emits: ['payout.failed'],
        auth: RISK,
        params: payoutParams,
        body: declineBody,
        response: payoutSchema,
        handler: async (ctx) => reviews.declineReview(await ownerOfPayout(reviews, ctx.params.id), ctx.params.id, ctx.body?.reason, { actor: `operator:${operatorOf(ctx).operatorId}` }),
      }),
    ],
  };
}
