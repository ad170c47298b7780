import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { LiveActivation } from '../merchant/events.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { liveActivationOf } from '../read/merchants.js';
import { merchantQuery, ownerOf, read } from '#packages/families/platform/http/index.js';

const PATH = '/api/v1/configuration/live-activation';

const liveActivationSchema = {
  type: 'object',
  required: ['object', 'merchantId', 'status', 'activated', 'deactivated', 'suspended'],
  properties: {
    object: { const: 'live_activation', description: 'The kind of object: always `live_activation`' },
    merchantId: { type: 'string', description: 'The merchant (`acct_…`)' },
    status: {
      enum: ['inactive', 'active', 'deactivated'],
      description: 'Whether live payments and payouts move money',
      'x-enumDescriptions': {
        inactive: 'Never activated (no activation application approved yet): new live payment confirmations and payouts are refused with `403 IKW-PRV-005`',
        active: 'The activation application approved (or a suspension lifted): live payments and payouts move money',
        deactivated: 'Closed again by a suspension of the account: new live payment confirmations and payouts are refused (`403 IKW-ACT-006` while `suspended`); what was under way finishes',
      },
    },
    activated: { type: ['integer', 'null'], description: 'When live was last opened (an approval or a reinstatement), in Unix seconds; null if never' },
    deactivated: { type: ['integer', 'null'], description: 'When live was last closed, in Unix seconds; null if never' },
    suspended: { type: 'boolean', description: 'Whether live is closed because the account is suspended (`GET /api/v1/merchant/activation` gives the reason)' },
  },
};

const render = (merchantId: string, live: LiveActivation) => ({
  object: 'live_activation',
  merchantId,
  status: live.status,
  activated: live.activatedAt === null ? null : unixSeconds(new Date(live.activatedAt)),
  deactivated: live.deactivatedAt === null ? null : unixSeconds(new Date(live.deactivatedAt)),
  suspended: live.suspended,
});

/**
 * /api/v1/configuration/live-activation (docs/configuration.md, "Live activation"): whether a
 * merchant's live environment moves money, read by the merchant or the platform operator. It is
 * the outcome of the merchant's activation application (docs/merchants.md, "Going live"): an
 * approval opens it, a suspension closes it; nothing else switches it. One operation.
 */
export function liveActivationRoutes(knex: Knex): RouteGroup {
  return {
    name: 'live-activation',
    description: "Whether the merchant's live environment moves real money: the outcome of its activation application.",
    routes: [
      route<unknown, { merchantId?: string }>({
        method: 'get',
        path: PATH,
        summary: "Whether the merchant's live environment is activated: live payments and payouts move money once its activation application is approved",
        description:
          "Whether your live environment moves money. Every merchant starts `inactive`: its live keys work and live objects are read, but live payment links, checkout sessions and invoices are refused at creation (`IKW-ACT-005`), and live payment confirmations and payouts with `403 IKW-PRV-005`, until the platform approves its activation application (`POST /api/v1/merchant/activation`); a suspension of the account makes it `deactivated` and those refusals `IKW-ACT-006`. Sandbox is never gated. The go-live checklist's `live_activation` step is complete while it is `active`. One state per merchant, not per environment: either key reads the same. The platform operator reads any merchant's, naming it in `merchantId`; `GET /api/v1/merchant/activation` says why it is as it is.",
        refusals: ['IKW-RES-001'],
        auth: read,
        query: merchantQuery,
        response: liveActivationSchema,
        handler: async (ctx) => {
          const { merchantId } = await ownerOf(knex, ctx, ctx.query.merchantId);
          return render(merchantId, await liveActivationOf(knex, merchantId));
        },
      }),
    ],
  };
}
