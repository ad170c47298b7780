import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../packages/catalog/index.js';
import { ApiError } from '../../../packages/core/errors.js';
import type { CreatePayoutInput, Payouts } from '../../../packages/domain/payout/commands.js';
import { destinationSchema } from '../../../packages/domain/payout-method/destination.js';
import type { HandlerContext } from '../../../packages/http/context.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import { findPayout } from '../../../projections/payouts.js';

export const createPayoutBody = {
  type: 'object',
  required: ['amount', 'currency'],
  additionalProperties: false,
  properties: {
    amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT },
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    destination: destinationSchema,
    payout_method_id: { type: 'string', format: 'uuid' },
    metadata: {
      type: 'object',
      maxProperties: 50,
      propertyNames: { minLength: 1, maxLength: 40 },
      additionalProperties: { type: 'string', maxLength: 500 },
    },
  },
};

export const payoutSchema = {
  type: 'object',
  required: ['id', 'object', 'amount', 'currency', 'status', 'destination', 'expected_by', 'metadata'],
  properties: {
    id: { type: 'string' },
    object: { const: 'payout' },
    amount: { type: 'integer' },
    currency: { type: 'string' },
    status: { enum: ['pending', 'in_transit', 'paid', 'failed', 'canceled'] },
    destination: { type: 'object' },
    arrival_date_estimate: { type: 'string', format: 'date-time' },
    expected_by: { type: 'string', format: 'date-time' },
    delay_state: { enum: ['delayed', null] },
    delay_reason: { enum: ['operator_pending', 'operator_timeout', 'operator_down', 'unknown', null] },
    delayed_at: { type: ['string', 'null'] },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    failure_code: { type: ['string', 'null'] },
    failure_message: { type: ['string', 'null'] },
  },
};

export const payoutIdParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['id'] };

export const payoutsWrite: RouteAuth = { scope: 'payouts.write', environmentHeader: 'required', idempotencyKeyInLive: 'required' };
export const payoutsRead: RouteAuth = { scope: 'payouts.read', environmentHeader: 'required' };

export async function getPayout(knex: Knex, ctx: HandlerContext<unknown, unknown, { id: string }>) {
  const found = await findPayout(knex, ctx.principal.merchantId, ctx.principal.environment, ctx.params.id);
  if (!found) throw new ApiError('IKW-RES-001', `No such payout: '${ctx.params.id}'`, 'id');
  return found;
}

/** /api/v1/payouts: create and retrieve (the public surface has no payout cancel and no list). */
export function payoutsFamily(knex: Knex, payouts: Payouts): Family {
  return {
    name: 'payouts',
    routes: [
      route<CreatePayoutInput>({
        method: 'post',
        path: '/api/v1/payouts',
        summary: 'Create a payout to a mobile money or bank destination',
        auth: payoutsWrite,
        body: createPayoutBody,
        response: payoutSchema,
        handler: (ctx) => payouts.create(ctx.owner, ctx.body, 'api', ctx.actor, ctx.requestRef),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/payouts/:id',
        summary: 'Retrieve a payout',
        auth: payoutsRead,
        params: payoutIdParams,
        response: payoutSchema,
        handler: (ctx) => getPayout(knex, ctx),
      }),
    ],
  };
}
