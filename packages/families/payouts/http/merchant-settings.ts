import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { unixSeconds } from '#packages/core/clock.js';
import type { PayoutSettingsService } from '../payout/settings.js';
import type { PortalSettingsService } from '#packages/families/customer-portal/index.js';
import type { CustomerPortalSettings, PayoutSettings } from '#packages/families/merchants/index.js';
import { createPayoutMethod, deactivatePayoutMethod } from '../payout-method/commands.js';
import type { PayoutMethodState } from '../payout-method/decider.js';
import { destinationSchema, type DestinationInput } from '../payout-method/destination.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { HandlerContext } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { listPayoutMethods, type PayoutMethodRow } from '../read/payout-methods.js';
import { readPayoutSettings } from '../read/payout-settings.js';
import { readCustomerPortalSettings } from '#packages/families/customer-portal/read/index.js';
import { billingRead, billingWrite } from '#packages/families/billing/http/index.js';
import { requesterOf, returnUrlSchema } from '#packages/http/route-kit.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

interface SettingsPatch {
  default_return_url?: string | null;
  safety_delay_minutes?: number;
  default_currency?: string | null;
  default_payout_method_id?: string | null;
  inline_destinations_for_api_keys?: boolean;
  challenge_id?: string;
}

const settingsPatchBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    default_return_url: { type: ['string', 'null'], maxLength: 2048, pattern: '^https?://[^\\s]+$', description: 'Where payment pages send payers back when a payment gives no `return_url` of its own (http or https); null removes it' },
    safety_delay_minutes: {
      type: 'integer',
      minimum: 0,
      maximum: 43_200,
      description: 'How long a newly saved destination waits before payouts may use it, 0 to 43,200 minutes (30 days). Lowering it takes `challenge_id` (`IKW-PAY-006`; an API key cannot: `IKW-PAY-005`)',
    },
    default_currency: { type: ['string', 'null'], pattern: '^[A-Za-z]{3}$', description: 'The currency the dashboard proposes for payouts (ISO 4217, any case; stored in lower case); null removes it' },
    default_payout_method_id: {
      type: ['string', 'null'],
      format: 'uuid',
      description: 'The saved destination the dashboard pays when a payout names none: an active payout method of this merchant and environment (`IKW-PAY-002`, `IKW-PAY-003`); null removes it',
    },
    inline_destinations_for_api_keys: {
      type: 'boolean',
      description: 'Whether API keys may pay out to inline destinations; false keeps them to saved payout methods (`IKW-PAY-008`). Setting it back to true takes `challenge_id` (`IKW-PAY-006`; an API key cannot: `IKW-PAY-005`)',
    },
    // Lowering safety_delay_minutes, or setting inline_destinations_for_api_keys back to true: a
    // verified challenge of purpose payout-settings/delay (docs/accounts.md).
    challenge_id: {
      type: 'string',
      format: 'uuid',
      description:
        'Weakening a safeguard (lowering `safety_delay_minutes`, `inline_destinations_for_api_keys` back to true): the id of a verified second-factor challenge of the signed-in user, purpose `payout-settings/delay`; used up by the change. An API key never sends it',
    },
  },
};

const payoutMethodSchema = {
  type: 'object',
  required: ['id', 'object', 'type', 'destination', 'status', 'usable_from', 'created', 'livemode'],
  properties: {
    id: { type: 'string', description: "The payout method's id (a UUID), to pay it with `payout_method_id`" },
    object: { const: 'payout_method', description: 'The kind of object: always `payout_method`' },
    type: {
      enum: ['mobile_money', 'bank'],
      description: 'The kind of destination',
      'x-enumDescriptions': { mobile_money: 'A mobile money wallet', bank: 'A bank account' },
    },
    destination: { ...destinationSchema, description: 'The destination as saved (docs/payouts.md)' },
    status: {
      enum: ['active', 'inactive'],
      description: 'Whether payouts may use it',
      'x-enumDescriptions': { active: 'Usable, once `usable_from` has passed', inactive: 'Deleted: payouts naming it are refused (`IKW-PAY-003`)' },
    },
    usable_from: { type: 'string', format: 'date-time', description: 'When the safety delay ends; payouts to it are refused before' },
    created: { type: 'integer', description: 'When it was saved, in Unix seconds' },
    livemode: { type: 'boolean', description: '`true` for a destination of the live environment, `false` for sandbox' },
  },
};

const payoutSettingsSchema = {
  type: 'object',
  required: ['object', 'livemode', 'default_return_url', 'safety_delay_minutes', 'default_currency', 'default_payout_method_id', 'inline_destinations_for_api_keys', 'destinations', 'updated'],
  properties: {
    object: { const: 'payout_settings', description: 'The kind of object: always `payout_settings`' },
    livemode: { type: 'boolean', description: "`true` for the live environment's settings, `false` for sandbox's" },
    default_return_url: { type: ['string', 'null'], description: 'Where payment pages send payers back when a payment gives no `return_url` of its own; null when unset' },
    safety_delay_minutes: { type: 'integer', description: 'How long a newly saved destination waits before payouts may use it' },
    default_currency: { type: ['string', 'null'], description: 'The currency the dashboard proposes for payouts, in lower case; null when unset' },
    default_payout_method_id: { type: ['string', 'null'], description: 'The saved destination a dashboard payout naming none pays; null when unset' },
    inline_destinations_for_api_keys: {
      type: 'boolean',
      description: 'API keys may pay out to inline destinations (true by default); false: API keys pay out to saved payout methods only. Signed-in users are not bound by it',
    },
    destinations: { type: 'array', items: payoutMethodSchema, description: 'The active saved destinations (payout methods) of this environment, newest first; deleted ones are left out' },
    updated: { type: ['integer', 'null'], description: 'When they last changed (Unix seconds); null while they are the defaults' },
  },
};

function settingsObject(settings: PayoutSettings, updatedAt: Date | string | null, livemode: boolean, destinations: PayoutMethodRow[]) {
  return {
    object: 'payout_settings',
    livemode,
    default_return_url: settings.defaultReturnUrl,
    safety_delay_minutes: settings.safetyDelayMinutes,
    default_currency: settings.defaultCurrency,
    default_payout_method_id: settings.defaultPayoutMethodId,
    inline_destinations_for_api_keys: settings.inlineDestinationsForApiKeys,
    destinations: destinations.map((d) => methodObject({ id: d.id, destination: d.destination, active: d.status === 'active', usableFrom: d.usable_from, createdAt: d.created_at, livemode })),
    updated: updatedAt ? unixSeconds(new Date(updatedAt)) : null,
  };
}

function methodObject(m: { id: string; destination: PayoutMethodRow['destination']; active: boolean; usableFrom: Date | string; createdAt: Date | string; livemode: boolean }) {
  return {
    id: m.id,
    object: 'payout_method',
    type: m.destination.type,
    destination: m.destination,
    status: m.active ? 'active' : 'inactive',
    usable_from: new Date(m.usableFrom).toISOString(),
    created: unixSeconds(new Date(m.createdAt)),
    livemode: m.livemode,
  };
}

function fromState(state: PayoutMethodState) {
  const m = state.method!;
  return methodObject({ id: m.id, destination: m.destination, active: state.active, usableFrom: m.usableFrom, createdAt: m.createdAt, livemode: m.environment === 'live' });
}

interface PortalSettingsPatch {
  subscription_cancel?: boolean;
  customer_update?: boolean;
  return_url?: string | null;
}

const portalSettingsFields = {
  subscription_cancel: { type: 'boolean', description: 'Customers may set a subscription to end at the end of its period (resuming one set to end is always allowed)' },
  customer_update: { type: 'boolean', description: 'Customers may change their name and phone number' },
  return_url: { ...returnUrlSchema, type: ['string', 'null'], description: "The merchant's site, which the portal's pages link back to" },
};

const portalSettingsSchema = {
  type: 'object',
  required: ['object', 'livemode', 'url', 'subscription_cancel', 'customer_update', 'return_url', 'updated'],
  properties: {
    object: { const: 'customer_portal_settings', description: 'The kind of object: always `customer_portal_settings`' },
    livemode: { type: 'boolean', description: "`true` for the live environment's settings, `false` for sandbox's" },
    url: { type: 'string', description: 'The portal’s hosted page, `{PUBLIC_URL}/portal/{environment}/{merchantId}`, to give customers' },
    ...portalSettingsFields,
    updated: { type: ['integer', 'null'], description: 'When they last changed (Unix seconds); null while they are the defaults' },
  },
};

function portalSettingsObject(settings: CustomerPortalSettings, updatedAt: Date | null, owner: HandlerContext['owner'], publicUrl: string) {
  return {
    object: 'customer_portal_settings',
    livemode: owner.environment === 'live',
    url: `${publicUrl}/portal/${owner.environment}/${owner.merchantId}`,
    subscription_cancel: settings.subscriptionCancel,
    customer_update: settings.customerUpdate,
    return_url: settings.returnUrl,
    updated: updatedAt ? unixSeconds(updatedAt) : null,
  };
}

const meta = (ctx: HandlerContext, clock: Clock): EventMetadata => auditMetadata(clock, ctx.owner, ctx.owner.merchantId, ctx.actor);

/**
 * /api/v1/merchant/settings/payouts: default return URL for payments, payout defaults, the safety
 * delay of new saved destinations, and the saved destinations themselves (payout methods).
 * /api/v1/merchant/settings/customer-portal: what the merchant's customers may do in its portal.
 */
export function merchantSettingsRoutes(knex: Knex, store: EventStore, clock: Clock, payoutSettings: PayoutSettingsService, portalSettings: PortalSettingsService, publicUrl: string): RouteGroup {
  const read = { scope: 'payouts.read', environmentHeader: 'optional' } as const;
  const write = { scope: 'payouts.write', environmentHeader: 'optional' } as const;
  const current = async (ctx: HandlerContext) => {
    const { settings, updatedAt } = await readPayoutSettings(knex, ctx.owner.merchantId, ctx.owner.environment);
    return settingsObject(settings, updatedAt, ctx.principal.livemode, await listPayoutMethods(knex, ctx.owner));
  };
  return {
    name: 'merchant-settings',
    description: "The merchant's settings for payouts (safety delay, saved destinations, API key rules) and for its customer portal.",
    routes: [
      route({
        method: 'get',
        path: '/api/v1/merchant/settings/payouts',
        summary: 'Payout settings and saved destinations',
        description:
          "The merchant's payout settings of the environment: the default return URL of payment pages, the safety delay of newly saved destinations, the default currency and saved destination of dashboard payouts, whether API keys may pay inline destinations, and the saved destinations themselves. Settings never changed answer their defaults (`updated: null`): a 24-hour safety delay in live, none in sandbox.",
        auth: read,
        response: payoutSettingsSchema,
        handler: current,
      }),
      route<SettingsPatch>({
        method: 'patch',
        path: '/api/v1/merchant/settings/payouts',
        summary:
          'Change payout settings; lowering safety_delay_minutes or setting inline_destinations_for_api_keys back to true takes challenge_id, a verified second-factor challenge of the signed-in user (purpose payout-settings/delay), and the organization owners are told',
        description: [
          'Changes the fields given and answers the settings as they now are. Strengthening a safeguard (raising `safety_delay_minutes`, setting `inline_destinations_for_api_keys` to false) needs nothing more.',
          '',
          "Weakening one (lowering the delay, letting API keys pay inline destinations again) is a signed-in user's act with a second factor: send `challenge_id`, a verified challenge of purpose `payout-settings/delay` (`IKW-PAY-006` without it; an API key cannot at all: `IKW-PAY-005`). Every owner of the organization is told by e-mail. The delay is the time to notice a taken-over account before money leaves for a new destination.",
        ].join('\n'),
        refusals: ['IKW-VAL-003', 'IKW-PAY-002', 'IKW-PAY-003', 'IKW-PAY-005', 'IKW-PAY-006', 'IKW-RES-001', 'IKW-ACC-006', 'IKW-ACC-007'],
        auth: write,
        body: settingsPatchBody,
        fields: {
          safetyDelay: 'safety_delay_minutes',
          inlineDestinations: 'inline_destinations_for_api_keys',
          challenge: 'challenge_id',
          challengeId: 'challenge_id',
          defaultCurrency: 'default_currency',
          defaultPayoutMethod: 'default_payout_method_id',
        },
        response: payoutSettingsSchema,
        handler: async (ctx) => {
          const b = ctx.body;
          const changes: Partial<PayoutSettings> = {};
          if (b.default_return_url !== undefined) changes.defaultReturnUrl = b.default_return_url;
          if (b.safety_delay_minutes !== undefined) changes.safetyDelayMinutes = b.safety_delay_minutes;
          if (b.default_currency !== undefined) changes.defaultCurrency = b.default_currency;
          if (b.default_payout_method_id !== undefined) changes.defaultPayoutMethodId = b.default_payout_method_id;
          if (b.inline_destinations_for_api_keys !== undefined) changes.inlineDestinationsForApiKeys = b.inline_destinations_for_api_keys;
          await payoutSettings.update(ctx.owner, changes, requesterOf(ctx, b.challenge_id), ctx.actor);
          return current(ctx);
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/merchant/settings/customer-portal',
        summary: "What the merchant's customers may do in its customer portal, and the portal's link",
        description:
          "The customer portal's settings of the environment: whether customers may cancel subscriptions and change their details, the merchant site the portal links back to, and the portal's URL to give customers. Settings never changed answer their defaults (`updated: null`).",
        auth: billingRead,
        response: portalSettingsSchema,
        handler: async (ctx) => {
          const { settings, updatedAt } = await readCustomerPortalSettings(knex, ctx.owner);
          return portalSettingsObject(settings, updatedAt, ctx.owner, publicUrl);
        },
      }),
      route<PortalSettingsPatch>({
        method: 'patch',
        path: '/api/v1/merchant/settings/customer-portal',
        summary: "Change what the merchant's customers may do in its customer portal; the portal's pages and API honour it at once",
        description: 'Changes the fields given (at least one) and answers the settings as they now are. The portal honours them from the next request: a customer refused an action gets `403 IKW-CPT-003` there.',
        auth: billingWrite,
        body: { type: 'object', additionalProperties: false, minProperties: 1, properties: portalSettingsFields },
        response: portalSettingsSchema,
        handler: async (ctx) => {
          const b = ctx.body;
          await portalSettings.update(
            ctx.owner,
            {
              ...(b.subscription_cancel !== undefined ? { subscriptionCancel: b.subscription_cancel } : {}),
              ...(b.customer_update !== undefined ? { customerUpdate: b.customer_update } : {}),
              ...(b.return_url !== undefined ? { returnUrl: b.return_url } : {}),
            },
            ctx.actor,
          );
          const { settings, updatedAt } = await readCustomerPortalSettings(knex, ctx.owner);
          return portalSettingsObject(settings, updatedAt, ctx.owner, publicUrl);
        },
      }),
      route<DestinationInput>({
        method: 'post',
        path: '/api/v1/merchant/settings/payouts/destinations',
        summary: 'Save a payout destination (usable after the safety delay)',
        description:
          "Saves a destination, a mobile money wallet or a bank account, as a payout method to pay later with `payout_method_id`. It is checked against the catalog as a payout's inline destination is, and `currency` is required. Payouts may use it once its safety delay has passed (`usable_from`; `409 IKW-PAY-004` before): the settings' `safety_delay_minutes`, 24 hours in live and none in sandbox by default.",
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-005', 'IKW-VAL-006', 'IKW-VAL-007', 'IKW-VAL-009'],
        auth: write,
        body: { ...destinationSchema, required: ['type', 'currency'] },
        response: payoutMethodSchema,
        handler: async (ctx) => fromState(await createPayoutMethod(store, clock, ctx.owner.merchantId, ctx.owner.environment, ctx.body, meta(ctx, clock))),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/merchant/settings/payouts/destinations/:id',
        fields: { payoutMethodId: 'id' },
        summary: 'Delete (deactivate) a saved payout destination',
        description: "Deactivates a saved destination: it leaves the settings' list, and payouts naming it are refused (`IKW-PAY-003`); payouts already made to it carry on. Deleting one already deleted answers it again, unchanged.",
        auth: write,
        params: { type: 'object', properties: { id: { type: 'string', format: 'uuid', description: "The payout method's id (a UUID)" } }, required: ['id'] },
        response: payoutMethodSchema,
        handler: async (ctx) => fromState(await deactivatePayoutMethod(store, clock, ctx.owner.merchantId, ctx.owner.environment, ctx.params.id, meta(ctx, clock))),
      }),
    ],
  };
}
