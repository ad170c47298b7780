import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { ENVIRONMENTS, type Environment } from '#packages/core/owner.js';
import { auditRecords } from '#packages/eventstore/audit-stream.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { activationStream, APPLICATION_STATUSES, type ApplicationStatus } from '#packages/families/activation/index.js';
import { merchantStream } from '#packages/families/merchants/index.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { balancesOf } from '#packages/families/ledger/read/index.js';
import { findMerchant, liveActivationOf } from '#packages/families/merchants/read/index.js';
import { searchMerchants, type MerchantSummary } from '../read/index.js';
import { cursorListQuery, type CursorQuery } from '#packages/read-models/paging.js';
import { listPaymentIntents } from '#packages/families/payments/read/index.js';
import { listPayouts } from '#packages/families/payouts/read/index.js';
import { cursorListSchema } from '#packages/http/route-kit.js';
import { paymentIntentSchema } from '#packages/families/payments/http/index.js';
import { payoutSchema } from '#packages/families/payouts/http/index.js';
import { merchantLimitsOf, merchantLimitsSchema } from './limits.js';
import { anyOperator } from './shared.js';

const READ = anyOperator('operator.merchants.read');
/** How many of each recent thing the merchant's page shows: the console links to the full lists. */
const RECENT = 10;
const AUDIT_ENTRIES = 50;

const LIVE_WORDS = {
  inactive: 'Live never activated: live money-taking is refused',
  active: 'Live activated: live payments and payouts move money',
  deactivated: 'Live was activated, then deactivated',
};
const liveStatusSchema = { enum: Object.keys(LIVE_WORDS), description: "The merchant's live status", 'x-enumDescriptions': LIVE_WORDS };

const APPLICATION_WORDS: Record<ApplicationStatus, string> = {
  not_submitted: 'Never submitted an activation application',
  under_review: 'Submitted, waiting for a decision: in the review queue',
  information_requested: 'The platform asked the merchant for more; it submits again',
  active: 'Approved (or reinstated): live is open',
  rejected: 'Rejected, for the reason the merchant was told',
  suspended: 'Suspended by the risk team: new live payments and payouts are refused',
};
const applicationStatusSchema = {
  enum: [...APPLICATION_STATUSES],
  description: "Where the merchant's activation application stands (`GET /api/v1/operator/applications/{merchantId}`)",
  'x-enumDescriptions': APPLICATION_WORDS,
};

const merchantSummarySchema = {
  type: 'object',
  required: ['id', 'name', 'email', 'liveStatus', 'applicationStatus', 'created'],
  properties: {
    id: { type: 'string', description: 'The merchant (`acct_…`)' },
    name: { type: 'string', description: "The merchant's name" },
    email: { type: ['string', 'null'], description: "The merchant's contact e-mail address, or null" },
    liveStatus: liveStatusSchema,
    applicationStatus: applicationStatusSchema,
    created: { type: 'string', format: 'date-time', description: 'When the merchant was created (ISO 8601)' },
  },
};

const balanceSchema = {
  type: 'array',
  description: 'Per currency, from the ledger',
  items: {
    type: 'object',
    properties: {
      currency: { type: 'string', description: 'The currency' },
      available: { type: 'integer', description: 'Settled funds, in minor units' },
      pending: { type: 'integer', description: 'Received, within the settlement delay, in minor units' },
      reserved: { type: 'integer', description: 'Held for payouts in flight and holds, in minor units' },
    },
  },
};

const perEnvironment = (schema: Record<string, unknown>, words: string) => ({
  type: 'object',
  description: words,
  properties: { sandbox: { ...schema, description: `${words}: sandbox` }, live: { ...schema, description: `${words}: live` } },
});

const merchantPageSchema = {
  type: 'object',
  properties: {
    merchant: { ...merchantSummarySchema, description: 'The merchant, as the list shows it' },
    liveActivation: {
      type: 'object',
      description: "The merchant's live activation",
      properties: {
        status: liveStatusSchema,
        activatedAt: { type: ['string', 'null'], format: 'date-time', description: 'When live was last activated, or null' },
        deactivatedAt: { type: ['string', 'null'], format: 'date-time', description: 'When live was last deactivated, or null' },
        suspended: { type: 'boolean', description: 'Whether live is off because an operator suspended the merchant: new live payments and payouts are refused until an operator reinstates it' },
      },
    },
    balances: perEnvironment(balanceSchema, 'Balances per currency'),
    recentPayments: perEnvironment({ type: 'array', items: paymentIntentSchema }, `The newest payment intents (up to ${RECENT})`),
    recentPayouts: perEnvironment({ type: 'array', items: payoutSchema }, `The newest payouts (up to ${RECENT})`),
    limits: perEnvironment(merchantLimitsSchema, "The risk team's limits and holds, with the reserves held (as `GET /api/v1/operator/merchants/{merchantId}/limits`)"),
    auditTrail: {
      type: 'array',
      description: `The newest events of the merchant's own stream and of its activation application (up to ${AUDIT_ENTRIES}), newest first: who changed the merchant or decided on its application, when (docs/audit.md)`,
      items: {
        type: 'object',
        properties: {
          type: { type: 'string', description: 'The event type, e.g. `merchant.live_activated`' },
          occurredAt: { type: 'string', format: 'date-time', description: 'When it happened' },
          actor: { type: ['string', 'null'], description: 'Who caused it: `operator:<id>`, `admin:<key id>`, `user:<id>`, an API key id, `cli`, …' },
          requestId: { type: ['string', 'null'], description: 'The request that caused it, if one did' },
          position: { type: 'string', description: "The event's position in the log (for `bin/sika audit stream --from`)" },
        },
      },
    },
  },
};

/** The streams of a merchant's trail: its own, and its activation application's (the review's decisions). */
const trailStreams = (merchantId: string) => [merchantStream(merchantId), activationStream(merchantId)];

async function auditTrail(store: EventStore, merchantId: string) {
  const records = [];
  for (const streamId of trailStreams(merchantId)) {
    for await (const r of auditRecords(store, { streamId })) records.push({ type: r.type, occurredAt: r.occurred_at, actor: r.actor, requestId: r.request_id, position: r.position });
  }
  // Positions order the log (string compare within one store).
  return records
    .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0))
    .slice(-AUDIT_ENTRIES)
    .reverse();
}

const byEnvironment = async <T>(read: (environment: Environment) => Promise<T>) => {
  const [sandbox, live] = await Promise.all(ENVIRONMENTS.map(read));
  return { sandbox: sandbox!, live: live! };
};

/**
 * /api/v1/operator/merchants (docs/operator.md, "Merchants"): every merchant of the platform,
 * searched and filtered, and one merchant's page, read from the read models merchants' own
 * routes read. Read-only: operators' decisions are their own operations.
 */
export function operatorMerchantsRoutes(knex: Knex, store: EventStore): RouteGroup {
  return {
    name: 'operator-merchants',
    description: "Every merchant of the platform for operators: the list with search and filters, and one merchant's page.",
    routes: [
      route<unknown, CursorQuery & { search?: string; live_status?: string; application_status?: ApplicationStatus }>({
        method: 'get',
        path: '/api/v1/operator/merchants',
        summary: 'Every merchant, newest first: search by name, e-mail or id, filter by live or application status',
        description:
          '`search` matches a merchant id exactly, or words of the name or e-mail address in any case; `live_status` keeps the merchants of one live status, `application_status` those whose activation application stands there (`not_submitted`: the merchants that never applied). Each merchant comes with its application status. Cursor-paged like every list (docs/pagination.md): `starting_after` the last id of a page for the next.',
        auth: READ,
        query: {
          ...cursorListQuery,
          properties: {
            ...cursorListQuery.properties,
            search: { type: 'string', minLength: 1, maxLength: 200, description: 'A merchant id (`acct_…`), or words of its name or e-mail address' },
            live_status: { ...liveStatusSchema, description: 'Only merchants of this live status' },
            application_status: { ...applicationStatusSchema, description: 'Only merchants whose activation application stands there (`not_submitted`: those that never applied)' },
          },
        },
        response: cursorListSchema(merchantSummarySchema),
        handler: async (ctx) => {
          const { search, live_status, application_status, ...cursor } = ctx.query;
          const filters = {
            ...(search !== undefined ? { search } : {}),
            ...(live_status !== undefined ? { liveStatus: live_status } : {}),
            ...(application_status !== undefined ? { applicationStatus: application_status } : {}),
          };
          return searchMerchants(knex, filters, cursor, ctx.path);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/operator/merchants/:id',
        summary: "One merchant's page: profile, live status, balances, recent payments and payouts, limits and holds per environment, and its audit trail",
        description:
          "Everything the console's merchant page shows, in one answer: the profile and live activation, the ledger's balances per currency in each environment, the newest payment intents and payouts in each environment (as the merchant's own API shows them), the risk team's limits and holds in each environment with the reserves held, and the newest events of the merchant's stream with their actors. An unknown merchant is `IKW-RES-001`.",
        auth: READ,
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 255, description: 'The merchant (`acct_…`)' } } },
        response: merchantPageSchema,
        handler: async (ctx) => {
          const merchantId = ctx.params.id;
          const row = await findMerchant(knex, merchantId);
          if (!row) throw new ApiError('IKW-RES-001', `No such merchant: '${merchantId}'`, 'id');
          const [summary] = (await searchMerchants(knex, { search: merchantId }, { limit: 1 }, ctx.path)).data as [MerchantSummary];
          const owner = (environment: Environment) => ({ merchantId, environment });
          return {
            merchant: summary,
            liveActivation: await liveActivationOf(knex, merchantId),
            balances: await byEnvironment(async (env) => (await balancesOf(knex, owner(env))).map((b) => ({ currency: b.currency, available: Number(b.available), pending: Number(b.pending), reserved: Number(b.reserved) }))),
            recentPayments: await byEnvironment(async (env) => (await listPaymentIntents(knex, owner(env), { limit: RECENT }, ctx.path, {})).data),
            recentPayouts: await byEnvironment(async (env) => (await listPayouts(knex, owner(env), { page: 1, limit: RECENT }, {})).data),
            limits: await byEnvironment((env) => merchantLimitsOf(knex, owner(env))),
            auditTrail: await auditTrail(store, merchantId),
          };
        },
      }),
    ],
  };
}
