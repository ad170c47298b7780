import type { Knex } from 'knex';
import { unixSeconds, type Clock } from '../../../../packages/core/clock.js';
import { Merchants } from '../../../../packages/families/merchants/merchant/commands.js';
import type { LiveActivation } from '../../../../packages/families/merchants/merchant/events.js';
import type { EventStore } from '../../../../packages/eventstore/port.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { liveActivationOf } from '../../../../projections/merchants/merchants.js';
import { merchantIdSchema, merchantQuery, ownerOf, platformOnly, read } from '../platform/configuration.js';

const PATH = '/api/v1/configuration/live-activation';

const liveActivationSchema = {
  type: 'object',
  required: ['object', 'merchantId', 'status', 'activated', 'deactivated'],
  properties: {
    object: { const: 'live_activation' },
    merchantId: { type: 'string' },
    status: {
      enum: ['inactive', 'active', 'deactivated'],
      description: 'active: live payments and payouts move money; inactive (never activated) and deactivated: new ones are refused with 403 IKW-PRV-005',
    },
    activated: { type: ['integer', 'null'], description: 'When the platform operator last activated live (Unix seconds)' },
    deactivated: { type: ['integer', 'null'], description: 'When the platform operator last deactivated it (Unix seconds)' },
  },
};

const switchBody = { type: 'object', required: ['merchantId'], additionalProperties: false, properties: { merchantId: merchantIdSchema } };

const render = (merchantId: string, live: LiveActivation) => ({
  object: 'live_activation',
  merchantId,
  status: live.status,
  activated: live.activatedAt === null ? null : unixSeconds(new Date(live.activatedAt)),
  deactivated: live.deactivatedAt === null ? null : unixSeconds(new Date(live.deactivatedAt)),
});

/**
 * /api/v1/configuration/live-activation (docs/configuration.md, "Live activation"): whether a
 * merchant's live environment moves money, read by the merchant or the platform operator, and
 * switched by the operator only (audited as `admin:<key id>` on the merchant's stream). Three operations.
 */
export function liveActivationFamily(knex: Knex, store: EventStore, clock: Clock): Family {
  const merchants = new Merchants(store, clock);
  const switchTo = (active: boolean) =>
    route<{ merchantId: string }>({
      method: 'post',
      path: `${PATH}/${active ? 'activate' : 'deactivate'}`,
      summary: active
        ? "Activate a merchant's live environment: its live payments and payouts move money from now on (again if it was deactivated); the platform operator credential only"
        : "Deactivate a merchant's live environment: new live payments and payouts are refused (403 IKW-PRV-005), those under way finish; the platform operator credential only",
      auth: platformOnly,
      body: switchBody,
      response: liveActivationSchema,
      handler: async (ctx) => {
        const { merchantId } = await ownerOf(knex, ctx, ctx.body.merchantId);
        return render(merchantId, await merchants.setLive(merchantId, active, ctx.actor));
      },
    });
  return {
    name: 'live-activation',
    description: 'Whether the merchant\'s live environment moves real money, and the platform operator\'s switch for it.',
    routes: [
      route<unknown, { merchantId?: string }>({
        method: 'get',
        path: PATH,
        summary: "Whether the merchant's live environment is activated: live payments and payouts move money only once the platform operator has activated it",
        auth: read,
        query: merchantQuery,
        response: liveActivationSchema,
        handler: async (ctx) => {
          const { merchantId } = await ownerOf(knex, ctx, ctx.query.merchantId);
          return render(merchantId, await liveActivationOf(knex, merchantId));
        },
      }),
      switchTo(true),
      switchTo(false),
    ],
  };
}
