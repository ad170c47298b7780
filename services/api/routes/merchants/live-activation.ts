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
    object: { const: 'live_activation', description: 'The kind of object: always `live_activation`' },
    merchantId: { type: 'string', description: 'The merchant (`acct_…`)' },
    status: {
      enum: ['inactive', 'active', 'deactivated'],
      description: 'Whether live payments and payouts move money',
      'x-enumDescriptions': {
        inactive: 'Never activated: new live payment confirmations and payouts are refused with `403 IKW-PRV-005`',
        active: 'Activated by the platform operator: live payments and payouts move money',
        deactivated: 'Activated, then deactivated: new live payment confirmations and payouts are refused with `403 IKW-PRV-005`; what was under way finishes',
      },
    },
    activated: { type: ['integer', 'null'], description: 'When the platform operator last activated live, in Unix seconds; null if never' },
    deactivated: { type: ['integer', 'null'], description: 'When the platform operator last deactivated it, in Unix seconds; null if never' },
  },
};

const switchBody = {
  type: 'object',
  required: ['merchantId'],
  additionalProperties: false,
  properties: { merchantId: { ...merchantIdSchema, description: 'The merchant whose live environment to switch (`acct_…`); an unknown one is `404 IKW-RES-001`' } },
};

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
      description: active
        ? "Opens a merchant's live environment once it may take real money (your review of it done): from the next request its live payment confirmations and live payouts move money. The same as `bin/sika admin merchants activate-live` on the server. Activating a merchant already `active` changes nothing and answers the same object (two at once record one). Audited on the merchant's stream with the credential's key id (`admin:<key id>`)."
        : "Closes a merchant's live environment: from the next request (in every process of the service within a second) its new live payment confirmations and live payouts are refused with `403 IKW-PRV-005`, before anything is held or sent. What is under way finishes: a confirmed payment's outcome, a sent payout's result, refunds, settlement, a batch already executing. The same as `bin/sika admin merchants deactivate-live`. A merchant that is not `active` is left as it is and its object answered. Audited like activation.",
      refusals: ['IKW-RES-001'],
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
        description:
          "Whether your live environment moves money. Every merchant starts `inactive`: its live keys work and live objects can be created and read, but live payment confirmations and live payouts are refused with `403 IKW-PRV-005` until the platform operator activates live; sandbox is never gated. The go-live checklist's `live_activation` step is complete while it is `active`. One state per merchant, not per environment: either key reads the same. The platform operator reads any merchant's, naming it in `merchantId`.",
        refusals: ['IKW-RES-001'],
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
