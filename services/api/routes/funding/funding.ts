import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../../packages/catalog/index.js';
import type { ContributeInput, CreateCampaignInput, FundingCampaigns, PayoutInput } from '../../../../packages/families/funding/commands.js';
import type { CampaignChanges, ContributionObject } from '../../../../packages/families/funding/events.js';
import { FUNDING_MODELS } from '../../../../packages/families/funding/events.js';
import { ApiError } from '../../../../packages/core/errors.js';
import { csvReply } from '../../../../packages/http/csv.js';
import { route, type Family, type RouteAuth } from '../../../../packages/http/routes.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import {
  allContributions,
  campaignLedger,
  contributionsByDay,
  findCampaign,
  findCampaignBySlug,
  findContribution,
  findContributionById,
  findUpdate,
  listCampaignPayouts,
  listCampaigns,
  listContributions,
  listUpdates,
  publicCampaignView,
} from '../../../../projections/funding/funding-campaigns.js';
import {
  type CamelPaymentMethod,
  campaignSlugParams,
  confirmationFields,
  currencySchema,
  cursorListSchema,
  cursorQuery,
  found,
  idParams,
  paymentMethodSchema,
  resourceSchema,
  retrieveRoute,
  returnUrlSchema,
  toPaymentMethod,
} from '../shared.js';

const read: RouteAuth = { scope: 'funding.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'funding.write', environmentHeader: 'optional' };

const amountMinor = { type: 'integer', minimum: 1, maximum: MAX_AMOUNT };
/** The interface types metadata of this family as a string (up to 8000 characters), e.g. JSON the merchant reads back. */
const metadata = { type: ['string', 'null'], maxLength: 8000 };
const uuid = { type: 'string', format: 'uuid' };

const campaignFields = {
  title: { type: 'string', minLength: 1, maxLength: 256 },
  description: { type: ['string', 'null'], maxLength: 4000 },
  targetAmountMinor: { ...amountMinor, type: ['integer', 'null'] },
  deadline: { type: ['string', 'null'], format: 'date-time' },
  payoutMethodId: { ...uuid, type: ['string', 'null'] },
  metadata,
};

const createCampaignBody = {
  type: 'object',
  required: ['title', 'currency'],
  additionalProperties: false,
  properties: {
    ...campaignFields,
    currency: currencySchema,
    country: { type: ['string', 'null'], pattern: '^[A-Za-z]{2}$' },
    fundingModel: { enum: [...FUNDING_MODELS] },
  },
};

const updateCampaignBody = { type: 'object', additionalProperties: false, properties: campaignFields };

const contributorFields = {
  contributorName: { type: ['string', 'null'], maxLength: 256 },
  contributorEmail: { type: ['string', 'null'], maxLength: 256, format: 'email' },
  anonymous: { type: 'boolean' },
  message: { type: ['string', 'null'], maxLength: 1000 },
  paymentMethod: paymentMethodSchema('camelCase'),
  returnUrl: returnUrlSchema,
};

const contributionBody = {
  type: 'object',
  required: ['campaignId', 'amountMinor', 'currency'],
  additionalProperties: false,
  properties: {
    campaignId: uuid,
    amountMinor,
    currency: currencySchema,
    idempotencyKey: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
    ...contributorFields,
    metadata,
  },
};

const confirmBody = {
  type: 'object',
  required: ['paymentMethod'],
  additionalProperties: false,
  properties: { paymentMethod: paymentMethodSchema('camelCase'), returnUrl: returnUrlSchema },
};

const updateBody = { type: 'object', required: ['title', 'body'], additionalProperties: false, properties: { title: { type: 'string', minLength: 1, maxLength: 256 }, body: { type: 'string', minLength: 1, maxLength: 10_000 } } };
const editUpdateBody = { type: 'object', additionalProperties: false, minProperties: 1, properties: updateBody.properties };
const payoutBody = { type: 'object', additionalProperties: false, properties: { payoutMethodId: uuid, amountMinor } };

const nullableString = { type: ['string', 'null'] };
export const campaignSchema = resourceSchema('funding.campaign', ['slug', 'url', 'title', 'currency', 'country', 'fundingModel', 'status', 'raisedAmountMinor', 'contributorCount', 'livemode', 'created'], {
  slug: { type: 'string' },
  url: { type: 'string' },
  title: { type: 'string' },
  description: nullableString,
  targetAmountMinor: { type: ['integer', 'null'] },
  currency: { type: 'string' },
  country: { type: 'string' },
  deadline: { type: ['string', 'null'], format: 'date-time' },
  fundingModel: { enum: [...FUNDING_MODELS] },
  payoutMethodId: nullableString,
  metadata: nullableString,
  status: { enum: ['draft', 'active', 'closed', 'canceled', 'failed'] },
  raisedAmountMinor: { type: 'integer' },
  contributorCount: { type: 'integer' },
  percentFunded: { type: ['number', 'null'] },
  targetReachedAt: nullableString,
  heldAmountMinor: { type: 'integer' },
  releasedAmountMinor: { type: 'integer' },
  releasedFeeMinor: { type: 'integer' },
  paidOutAmountMinor: { type: 'integer' },
  refundedAmountMinor: { type: 'integer' },
  publishedAt: nullableString,
  closedAt: nullableString,
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});

const contributionStatus = { enum: ['pending', 'succeeded', 'failed', 'canceled', 'refunded'] };
export const contributionSchema = resourceSchema('funding.contribution', ['campaignId', 'paymentIntentId', 'amountMinor', 'currency', 'status', 'anonymous', 'livemode', 'created'], {
  campaignId: { type: 'string' },
  paymentIntentId: { type: 'string' },
  amountMinor: { type: 'integer' },
  currency: { type: 'string' },
  status: contributionStatus,
  contributorName: nullableString,
  contributorEmail: nullableString,
  anonymous: { type: 'boolean' },
  message: nullableString,
  metadata: nullableString,
  feeMinor: { type: ['integer', 'null'] },
  refundReason: { enum: ['requested_by_organizer', 'campaign_canceled', 'campaign_failed', 'campaign_ended', null] },
  refundedFrom: { enum: ['campaign_account', 'balance', null] },
  succeededAt: nullableString,
  refundedAt: nullableString,
  refund: {
    type: ['object', 'null'],
    description: "The give-back's refund (null until given back): `id` is Sika's id of the rail refund (the rail's own id derives from it, and the rail's record carries it as its reference), `rail` the connector that carries it (null: given back on the ledger alone), `status` the rail's answer",
    required: ['id', 'rail', 'status', 'failureCode', 'settledAt'],
    properties: {
      id: { type: 'string' },
      rail: nullableString,
      status: { enum: ['pending', 'succeeded', 'failed'] },
      failureCode: nullableString,
      settledAt: nullableString,
    },
  },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});

const updateSchema = { type: 'object', required: ['id', 'title', 'body', 'createdAt'], properties: { id: { type: 'string' }, title: { type: 'string' }, body: { type: 'string' }, createdAt: { type: 'string' }, editedAt: nullableString } };
const payoutSchema = {
  type: 'object',
  required: ['id', 'payoutId', 'payoutMethodId', 'amountMinor', 'feeMinor', 'status'],
  properties: {
    id: { type: 'string' },
    payoutId: { type: 'string' },
    payoutMethodId: { type: 'string' },
    amountMinor: { type: 'integer' },
    feeMinor: { type: 'integer' },
    status: { enum: ['requested', 'created', 'failed'] },
    failureReason: nullableString,
    createdAt: { type: 'string' },
  },
};
const progressSchema = {
  type: 'object',
  required: ['object', 'campaignId', 'raisedAmountMinor', 'contributorCount', 'timeline'],
  properties: {
    object: { const: 'funding.progress' },
    campaignId: { type: 'string' },
    currency: { type: 'string' },
    status: { type: 'string' },
    targetAmountMinor: { type: ['integer', 'null'] },
    raisedAmountMinor: { type: 'integer' },
    contributorCount: { type: 'integer' },
    percentFunded: { type: ['number', 'null'] },
    targetReachedAt: nullableString,
    deadline: nullableString,
    heldAmountMinor: { type: 'integer' },
    releasedAmountMinor: { type: 'integer' },
    refundedAmountMinor: { type: 'integer' },
    timeline: {
      type: 'array',
      items: { type: 'object', properties: { date: { type: 'string' }, amountMinor: { type: 'integer' }, count: { type: 'integer' }, cumulativeAmountMinor: { type: 'integer' } } },
    },
  },
};
const ledgerSchema = {
  type: 'object',
  required: ['object', 'campaignId', 'account', 'balanceMinor', 'entries'],
  properties: {
    object: { const: 'funding.campaign_ledger' },
    campaignId: { type: 'string' },
    account: { type: 'string' },
    currency: { type: 'string' },
    balanceMinor: { type: 'integer' },
    entries: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, kind: { type: 'string' }, source: { type: 'string' }, amountMinor: { type: 'integer' }, postedAt: { type: 'string' } } } },
  },
};

/** What the public sees of a campaign: no contributor e-mail, anonymous contributors unnamed. */
const publicCampaignSchema = {
  type: 'object',
  required: ['object', 'slug', 'title', 'currency', 'status', 'raisedAmountMinor', 'contributorCount'],
  properties: {
    object: { const: 'funding.public_campaign' },
    slug: { type: 'string' },
    title: { type: 'string' },
    description: nullableString,
    currency: { type: 'string' },
    country: { type: 'string' },
    status: { type: 'string' },
    fundingModel: { type: 'string' },
    targetAmountMinor: { type: ['integer', 'null'] },
    raisedAmountMinor: { type: 'integer' },
    contributorCount: { type: 'integer' },
    percentFunded: { type: ['number', 'null'] },
    deadline: nullableString,
    livemode: { type: 'boolean' },
    updates: { type: 'array', items: updateSchema },
    recentContributions: { type: 'array', items: { type: 'object', properties: { name: nullableString, amountMinor: { type: 'integer' }, message: nullableString, created: { type: 'integer' } } } },
  },
};
const publicContributionSchema = {
  type: 'object',
  required: ['id', 'object', 'status', 'amountMinor', 'currency'],
  properties: {
    id: { type: 'string' },
    object: { const: 'funding.public_contribution' },
    campaignId: { type: 'string' },
    status: contributionStatus,
    amountMinor: { type: 'integer' },
    currency: { type: 'string' },
    nextAction: { type: ['object', 'null'] },
  },
};

const updateParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 255 }, updateId: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['id', 'updateId'] };
const contributionIdParams = { type: 'object', properties: { contributionId: uuid }, required: ['contributionId'] };

export function publicContribution(c: ContributionObject, nextAction: unknown = null) {
  return { id: c.id, object: 'funding.public_contribution' as const, campaignId: c.campaignId, status: c.status, amountMinor: c.amountMinor, currency: c.currency, nextAction };
}

const CSV_COLUMNS = ['id', 'created', 'status', 'amountMinor', 'currency', 'feeMinor', 'contributorName', 'contributorEmail', 'anonymous', 'message', 'paymentIntentId', 'succeededAt', 'refundedAt', 'refundReason'] as const;

async function* csvRecords(rows: ContributionObject[]) {
  for (const c of rows) {
    yield {
      id: c.id,
      created: new Date(c.created * 1000).toISOString(),
      status: c.status,
      amountMinor: c.amountMinor,
      currency: c.currency,
      feeMinor: c.feeMinor,
      contributorName: c.contributorName,
      contributorEmail: c.contributorEmail,
      anonymous: c.anonymous ? 'true' : 'false',
      message: c.message,
      paymentIntentId: c.paymentIntentId,
      succeededAt: c.succeededAt,
      refundedAt: c.refundedAt,
      refundReason: c.refundReason,
    };
  }
}

type ContributionBody = Omit<ContributeInput, 'paymentMethod'> & { paymentMethod?: CamelPaymentMethod };

/** A contribution body as the command takes it: the camelCase payment method in the intents' shape. */
function contributeInput(body: ContributionBody): ContributeInput {
  const { paymentMethod, ...rest } = body;
  return { ...rest, ...(paymentMethod ? { paymentMethod: toPaymentMethod(paymentMethod) } : {}) };
}

/** What a lookup found, or the IKW-RES-001 that names the path parameter at fault. */
async function foundAt<T>(noun: string, param: string, id: string, lookup: Promise<T | undefined>): Promise<T> {
  const object = await lookup;
  if (object === undefined) throw new ApiError('IKW-RES-001', `No such ${noun}: '${id}'`, param);
  return object;
}

/** /api/v1/funding (27 operations, docs/funding.md): campaigns, contributions, updates, payouts, and the public campaign API. */
export function fundingFamily(knex: Knex, funding: FundingCampaigns): Family {
  const campaignOf = (owner: Parameters<typeof findCampaign>[1], id: string) => found('funding campaign', id, findCampaign(knex, owner, id));
  return {
    name: 'funding',
    description: 'Funding campaigns: a target raised from many contributors by mobile money, kept or given back by the rules of the campaign.',
    routes: [
      route<CreateCampaignInput>({
        method: 'post',
        path: '/api/v1/funding/campaigns',
        summary: 'Create a funding campaign (a draft until published): title, target, currency, deadline, `fundingModel` (`keep_what_you_raise` by default, or `all_or_nothing`)',
        auth: write,
        body: createCampaignBody,
        response: campaignSchema,
        handler: (ctx) => funding.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns',
        summary: 'List funding campaigns, newest first; `status` filters',
        auth: read,
        query: cursorQuery({ status: { enum: ['draft', 'active', 'closed', 'canceled', 'failed'] } }),
        response: cursorListSchema(campaignSchema),
        handler: (ctx) => listCampaigns(knex, ctx.owner, ctx.query),
      }),
      retrieveRoute({
        path: '/api/v1/funding/campaigns/:id',
        noun: 'funding campaign',
        summary: 'Retrieve a funding campaign with its raised amount, contributor count and percentage',
        auth: read,
        response: campaignSchema,
        find: (owner, id) => findCampaign(knex, owner, id),
      }),
      route<CampaignChanges, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/funding/campaigns/:id',
        fields: { campaignId: 'id' },
        summary: 'Update a draft or active campaign: title, description, metadata, payout method; target and deadline while it is a draft',
        auth: write,
        params: idParams,
        body: updateCampaignBody,
        response: campaignSchema,
        handler: (ctx) => funding.update(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/publish',
        fields: { campaignId: 'id' },
        summary: 'Publish a draft: its page takes contributions and its deadline timer is set (publishing an active campaign changes nothing)',
        auth: write,
        params: idParams,
        response: campaignSchema,
        handler: (ctx) => funding.publish(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/close',
        fields: { campaignId: 'id' },
        summary: "Close an active campaign: no more contributions; its funds are released to the organizer's balance (fees taken) and paid out to its payout method if it has one",
        auth: write,
        params: idParams,
        response: campaignSchema,
        handler: (ctx) => funding.close(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/cancel',
        // A contribution whose refund cannot be made stops the cancel; its refusal answers as `id`, as it always has.
        fields: { campaignId: 'id', contributionId: 'id' },
        summary: 'Cancel a draft or active campaign: every succeeded contribution is refunded in full, pending ones are canceled',
        auth: write,
        params: idParams,
        response: campaignSchema,
        handler: (ctx) => funding.cancel(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/progress',
        summary: 'The progress of a campaign: raised amount, contributor count, percentage, held and released funds, and contributions per day with the running total',
        auth: read,
        params: idParams,
        response: progressSchema,
        handler: async (ctx) => {
          const c = await campaignOf(ctx.owner, ctx.params.id);
          return {
            object: 'funding.progress',
            campaignId: c.id,
            currency: c.currency,
            status: c.status,
            targetAmountMinor: c.targetAmountMinor,
            raisedAmountMinor: c.raisedAmountMinor,
            contributorCount: c.contributorCount,
            percentFunded: c.percentFunded,
            targetReachedAt: c.targetReachedAt,
            deadline: c.deadline,
            heldAmountMinor: c.heldAmountMinor,
            releasedAmountMinor: c.releasedAmountMinor,
            refundedAmountMinor: c.refundedAmountMinor,
            timeline: await contributionsByDay(knex, ctx.owner, c.id),
          };
        },
      }),
      route<unknown, CursorQuery & { status?: string }, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/contributions',
        summary: "List a campaign's contributions, newest first; `status` filters",
        auth: read,
        params: idParams,
        query: cursorQuery({ status: contributionStatus }),
        response: cursorListSchema(contributionSchema),
        handler: async (ctx) => {
          const c = await campaignOf(ctx.owner, ctx.params.id);
          return listContributions(knex, ctx.owner, { ...ctx.query, campaignId: c.id }, `/api/v1/funding/campaigns/${c.id}/contributions`);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/contributions/export',
        summary: "Export a campaign's contributors as CSV (every contribution, oldest first)",
        auth: read,
        params: idParams,
        answers: { csv: CSV_COLUMNS },
        handler: async (ctx) => {
          const c = await campaignOf(ctx.owner, ctx.params.id);
          return csvReply(CSV_COLUMNS, csvRecords(await allContributions(knex, ctx.owner, c.id)), `campaign-${c.id}-contributions.csv`);
        },
      }),
      route<{ title: string; body: string }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/updates',
        fields: { campaignId: 'id' },
        summary: "Post an update to a campaign (shown on its page); answers the campaign with the new `update`",
        auth: write,
        params: idParams,
        body: updateBody,
        response: { ...campaignSchema, properties: { ...campaignSchema.properties, update: updateSchema } },
        handler: (ctx) => funding.postUpdate(ctx.owner, ctx.params.id, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/updates',
        summary: "List a campaign's updates, newest first",
        auth: read,
        params: idParams,
        query: cursorQuery(),
        response: cursorListSchema(updateSchema),
        handler: async (ctx) => {
          const c = await campaignOf(ctx.owner, ctx.params.id);
          return listUpdates(knex, ctx.owner, c.id, ctx.query, `/api/v1/funding/campaigns/${c.id}/updates`);
        },
      }),
      route<unknown, unknown, { id: string; updateId: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/updates/:updateId',
        summary: 'Retrieve a campaign update',
        auth: read,
        params: updateParams,
        response: updateSchema,
        handler: async (ctx) => {
          const c = await campaignOf(ctx.owner, ctx.params.id);
          return foundAt('campaign update', 'updateId', ctx.params.updateId, findUpdate(knex, ctx.owner, c.id, ctx.params.updateId));
        },
      }),
      route<{ title?: string; body?: string }, unknown, { id: string; updateId: string }>({
        method: 'patch',
        path: '/api/v1/funding/campaigns/:id/updates/:updateId',
        fields: { campaignId: 'id' },
        summary: 'Edit a campaign update (title or body)',
        auth: write,
        params: updateParams,
        body: editUpdateBody,
        response: updateSchema,
        handler: (ctx) => funding.editUpdate(ctx.owner, ctx.params.id, ctx.params.updateId, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { id: string; updateId: string }>({
        method: 'delete',
        path: '/api/v1/funding/campaigns/:id/updates/:updateId',
        fields: { campaignId: 'id' },
        summary: 'Delete a campaign update (it leaves the page)',
        auth: write,
        params: updateParams,
        response: { type: 'object', properties: { id: { type: 'string' }, deleted: { const: true } } },
        handler: (ctx) => funding.deleteUpdate(ctx.owner, ctx.params.id, ctx.params.updateId, ctx.actor),
      }),
      route<PayoutInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/payouts',
        fields: { campaignId: 'id' },
        summary: "Pay out a closed campaign's released funds to a payout method (the campaign's by default); without `amountMinor`, all that remains, its fee included",
        auth: write,
        params: idParams,
        body: payoutBody,
        response: payoutSchema,
        handler: (ctx) => funding.payOut(ctx.owner, ctx.params.id, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/payouts',
        summary: "List the payouts of a campaign's released funds, newest first",
        auth: read,
        params: idParams,
        query: cursorQuery(),
        response: cursorListSchema(payoutSchema),
        handler: async (ctx) => {
          const c = await campaignOf(ctx.owner, ctx.params.id);
          return listCampaignPayouts(knex, ctx.owner, c.id, ctx.query, `/api/v1/funding/campaigns/${c.id}/payouts`);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/ledger',
        summary: "The campaign's ledger account (`campaign:<id>`): its balance and every entry that moved it",
        auth: read,
        params: idParams,
        response: ledgerSchema,
        handler: async (ctx) => campaignLedger(knex, ctx.owner, await campaignOf(ctx.owner, ctx.params.id)),
      }),
      route<ContributionBody>({
        method: 'post',
        path: '/api/v1/funding/contributions',
        fields: confirmationFields,
        summary: 'Contribute to an active campaign: a payment intent is made for it, and confirmed at once when `paymentMethod` is given; `idempotencyKey` names the contribution',
        auth: write,
        body: contributionBody,
        response: contributionSchema,
        handler: (ctx) => funding.contribute(ctx.owner, contributeInput(ctx.body), ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { campaignId?: string; status?: string }>({
        method: 'get',
        path: '/api/v1/funding/contributions',
        summary: 'List contributions, newest first; `campaignId` and `status` filter',
        auth: read,
        query: cursorQuery({ campaignId: { type: 'string', minLength: 1, maxLength: 255 }, status: contributionStatus }),
        response: cursorListSchema(contributionSchema),
        handler: (ctx) => listContributions(knex, ctx.owner, ctx.query, '/api/v1/funding/contributions'),
      }),
      retrieveRoute({
        path: '/api/v1/funding/contributions/:id',
        noun: 'contribution',
        summary: 'Retrieve a contribution',
        auth: read,
        response: contributionSchema,
        find: (owner, id) => findContribution(knex, owner, id),
      }),
      route<{ paymentMethod: CamelPaymentMethod; returnUrl?: string }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/contributions/:id/confirm',
        fields: { ...confirmationFields, contributionId: 'id' },
        summary: 'Pay a pending contribution through its payment intent (mobile money or card)',
        auth: write,
        params: idParams,
        body: confirmBody,
        response: contributionSchema,
        handler: (ctx) =>
          funding.confirmContribution(ctx.owner, ctx.params.id, { payment_method: toPaymentMethod(ctx.body.paymentMethod), ...(ctx.body.returnUrl ? { return_url: ctx.body.returnUrl } : {}) }, ctx.actor, ctx.requestRef),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/contributions/:id/refund',
        fields: { contributionId: 'id' },
        summary: "Refund a succeeded contribution in full: from the campaign's account, or from the organizer's balance once the funds were released",
        auth: write,
        params: idParams,
        response: contributionSchema,
        handler: (ctx) => funding.refundContribution(ctx.owner, ctx.params.id, ctx.actor, ctx.requestRef),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/contributions/:id/cancel',
        fields: { contributionId: 'id' },
        summary: 'Cancel a pending contribution and its payment intent (refused once the operator has the payment)',
        auth: write,
        params: idParams,
        response: contributionSchema,
        handler: (ctx) => funding.cancelContribution(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { slug: string }>({
        method: 'get',
        path: '/api/v1/funding/public/campaigns/:slug',
        summary: "A campaign as its public page shows it (no credential): progress, updates, latest contributions (anonymous ones unnamed)",
        auth: 'public',
        params: campaignSlugParams,
        response: publicCampaignSchema,
        handler: async (ctx) => {
          const found_ = await findCampaignBySlug(knex, ctx.params.slug);
          const visible = found_ && found_.campaign.status !== 'draft' ? found_ : undefined;
          return publicCampaignView(knex, (await foundAt('funding campaign', 'slug', ctx.params.slug, Promise.resolve(visible))).campaign);
        },
      }),
      route<Omit<ContributionBody, 'campaignId' | 'currency' | 'idempotencyKey' | 'metadata'>, unknown, { slug: string }>({
        method: 'post',
        path: '/api/v1/funding/public/campaigns/:slug/contributions',
        fields: confirmationFields,
        summary: "Contribute from the campaign's public page (no credential): amount, contributor, and the payment method, confirmed at once",
        auth: 'public',
        params: campaignSlugParams,
        body: { type: 'object', required: ['amountMinor', 'paymentMethod'], additionalProperties: false, properties: { amountMinor, ...contributorFields } },
        response: publicContributionSchema,
        handler: async (ctx) => {
          const page = await findCampaignBySlug(knex, ctx.params.slug);
          const visible = page && page.campaign.status !== 'draft' ? page : undefined;
          const { owner, campaign } = await foundAt('funding campaign', 'slug', ctx.params.slug, Promise.resolve(visible));
          const contribution = await funding.contribute(owner, contributeInput({ ...ctx.body, campaignId: campaign.id, currency: campaign.currency }), ctx.actor, ctx.requestRef, 'public_page');
          return publicContribution(contribution, await funding.nextActionOf(owner, contribution.paymentIntentId));
        },
      }),
      route<unknown, unknown, { contributionId: string }>({
        method: 'get',
        path: '/api/v1/funding/public/contributions/:contributionId',
        summary: 'The status of a contribution made on a public page (no credential; its id is unguessable), which the page polls',
        auth: 'public',
        params: contributionIdParams,
        response: publicContributionSchema,
        handler: async (ctx) => publicContribution(await foundAt('contribution', 'contributionId', ctx.params.contributionId, findContributionById(knex, ctx.params.contributionId))),
      }),
    ],
  };
}
