import type { Knex } from 'knex';
import { MAX_AMOUNT } from '#packages/catalog/index.js';
import type { CreateCampaignInput, FundingCampaigns } from '../campaigns.js';
import type { ContributeInput, FundingContributions } from '../contributions.js';
import type { CampaignPayouts, PayoutInput } from '../payouts.js';
import type { CampaignUpdates } from '../updates.js';
import type { CampaignChanges, ContributionObject } from '../events.js';
import { FUNDING_MODELS } from '../events.js';
import { ApiError } from '#packages/core/errors.js';
import { csvReply } from '#packages/http/csv.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
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
} from '../read/funding-campaigns.js';
import { type CamelPaymentMethod, confirmationFields, paymentMethodSchema, toPaymentMethod, CONFIRM_PAYMENT_EVENTS, CONFIRM_PAYMENT_REFUSALS } from '#packages/families/payments/http/index.js';
import { campaignSlugParams } from './schemas.js';
import { currencySchema, cursorListSchema, cursorQuery, found, idParams, resourceSchema, retrieveRoute, returnUrlSchema } from '#packages/http/route-kit.js';

const read: RouteAuth = { scope: 'funding.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'funding.write', environmentHeader: 'optional' };

const amountMinor = { type: 'integer', minimum: 1, maximum: MAX_AMOUNT };
/** The interface types metadata of this family as a string (up to 8000 characters), e.g. JSON the merchant reads back. */
const metadata = { type: ['string', 'null'], maxLength: 8000, description: 'A string of your own (up to 8000 characters, such as JSON), returned as given' };
const uuid = { type: 'string', format: 'uuid' };

const CAMPAIGN_STATUSES = ['draft', 'active', 'closed', 'canceled', 'failed'];
const CAMPAIGN_STATUS_WORDS = {
  draft: 'Created, not published: it has no page and takes no contributions',
  active: 'Published: its page takes contributions until the deadline',
  closed: "Ended by the organizer or at a deadline it met: its funds were released to the organizer's balance",
  canceled: 'Canceled by the organizer: every contribution was refunded',
  failed: 'An all-or-nothing campaign whose deadline passed below target: every contribution was refunded',
};
const FUNDING_MODEL_WORDS = {
  keep_what_you_raise: 'Whatever was raised is released at close; a target is optional',
  all_or_nothing: 'Needs a target and a deadline; below target at the deadline it fails and every contribution is refunded',
};
const CONTRIBUTION_STATUS_WORDS = {
  pending: 'Made: its payment intent waits for a payment method or for the operator',
  succeeded: "Paid: counted, its money held on the campaign's account",
  failed: 'Its payment failed',
  canceled: 'Abandoned, or its campaign ended before it was paid',
  refunded: 'Given back in full',
};
const REFUND_REASON_WORDS = {
  requested_by_organizer: 'Refunded by `POST /api/v1/funding/contributions/{id}/refund`',
  campaign_canceled: 'Its campaign was canceled',
  campaign_failed: 'Its all-or-nothing campaign failed',
  campaign_ended: 'Its payment succeeded after the campaign ended',
};
const REFUNDED_FROM_WORDS = { campaign_account: "The campaign's account, while the funds were held", balance: "The organizer's balance, after the funds were released" };
const RAIL_REFUND_STATUS_WORDS = { pending: "Waiting for the rail's answer", succeeded: 'The rail gave the money back', failed: 'The rail failed it: the money is back on the account it left, for review' };
const PAYOUT_CLAIM_STATUS_WORDS = {
  requested: 'The amount is claimed on the campaign; the payout is being made',
  created: 'The payout was made (`payoutId`): follow it as any payout',
  failed: 'The payout was refused (`failureReason`): the amount is free to pay out again',
};
const dateTime = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

const campaignFields = {
  title: { type: 'string', minLength: 1, maxLength: 256, description: 'The name of the campaign, as its page shows it' },
  description: { type: ['string', 'null'], maxLength: 4000, description: 'What the money is for, as its page shows it' },
  targetAmountMinor: { ...amountMinor, type: ['integer', 'null'], description: 'The goal, in minor units: optional to keep what you raise, required all or nothing. Only a draft may change it' },
  deadline: dateTime('When it ends by itself (ISO 8601, in the future): closed, or failed below target all or nothing. Only a draft may change it'),
  payoutMethodId: { ...uuid, type: ['string', 'null'], description: 'A saved payout method of yours: at close, the released funds are paid out to it' },
  metadata,
};

const createCampaignBody = {
  type: 'object',
  required: ['title', 'currency'],
  additionalProperties: false,
  properties: {
    ...campaignFields,
    currency: currencySchema,
    country: { type: ['string', 'null'], pattern: '^[A-Za-z]{2}$', description: 'The country contributors pay in (ISO 3166-1, any case); needed only when the currency is used in several countries (XOF, XAF)' },
    fundingModel: { enum: [...FUNDING_MODELS], description: 'What happens to the money at the end; `keep_what_you_raise` when left out', 'x-enumDescriptions': FUNDING_MODEL_WORDS },
  },
};

const updateCampaignBody = { type: 'object', additionalProperties: false, properties: campaignFields };

const contributorFields = {
  contributorName: { type: ['string', 'null'], maxLength: 256, description: "The contributor's name: the page shows it unless `anonymous`" },
  contributorEmail: { type: ['string', 'null'], maxLength: 256, format: 'email', description: "The contributor's e-mail address, for the organizer's receipts: never public" },
  anonymous: { type: 'boolean', description: '`true` hides the name on the public page and API (the organizer still sees it); `false` when left out' },
  message: { type: ['string', 'null'], maxLength: 1000, description: 'A message from the contributor, shown on the page with the contribution' },
  paymentMethod: paymentMethodSchema('camelCase'),
  returnUrl: { ...returnUrlSchema, description: 'Where the payer comes back to after a page they had to open (`nextAction`), such as a card check' },
};

const contributionBody = {
  type: 'object',
  required: ['campaignId', 'amountMinor', 'currency'],
  additionalProperties: false,
  properties: {
    campaignId: { ...uuid, description: 'The active campaign contributed to' },
    amountMinor: { ...amountMinor, description: 'The contribution, in minor units' },
    currency: { ...currencySchema, description: "The campaign's currency (ISO 4217, any case)" },
    idempotencyKey: { type: ['string', 'null'], minLength: 1, maxLength: 64, description: 'Names the contribution within its campaign: the same key answers the same contribution and intent' },
    ...contributorFields,
    paymentMethod: { ...paymentMethodSchema('camelCase'), description: 'How the contributor pays, to pay at once; left out, the contribution waits, `pending`, for `confirm`' },
    metadata,
  },
};

const confirmBody = {
  type: 'object',
  required: ['paymentMethod'],
  additionalProperties: false,
  properties: { paymentMethod: paymentMethodSchema('camelCase'), returnUrl: contributorFields.returnUrl },
};

const updateTitle = { type: 'string', minLength: 1, maxLength: 256, description: 'The headline of the update' };
const updateText = { type: 'string', minLength: 1, maxLength: 10_000, description: 'The news, as the page shows it (plain text)' };
const updateBody = { type: 'object', required: ['title', 'body'], additionalProperties: false, properties: { title: updateTitle, body: updateText } };
const editUpdateBody = { type: 'object', additionalProperties: false, minProperties: 1, properties: updateBody.properties };
const payoutBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    payoutMethodId: { ...uuid, description: "The saved payout method to pay; the campaign's `payoutMethodId` when left out" },
    amountMinor: { ...amountMinor, description: 'The amount sent, in minor units (its fee comes out of the released funds besides); left out, the most that fits with its fee' },
  },
};

const nullableString = { type: ['string', 'null'] };
const currencyOut = { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case (`xof`)' };
const raised = { type: 'integer', description: 'The contributions succeeded and not refunded, in minor units' };
const contributors = { type: 'integer', description: 'How many contributions succeeded and were not refunded' };
const percent = { type: ['number', 'null'], description: 'raised / target × 100, floored to two decimals (above 100 past the target); null without a target' };
export const campaignSchema = resourceSchema('funding.campaign', ['slug', 'url', 'title', 'currency', 'country', 'fundingModel', 'status', 'raisedAmountMinor', 'contributorCount', 'livemode', 'created'], {
  slug: { type: 'string', description: 'The unguessable name of its public page (16 characters)' },
  url: { type: 'string', description: 'Its public page, where anyone contributes once it is published' },
  title: { type: 'string', description: 'The name of the campaign' },
  description: { ...nullableString, description: 'What the money is for, or null' },
  targetAmountMinor: { type: ['integer', 'null'], description: 'The goal, in minor units, or null' },
  currency: currencyOut,
  country: { type: 'string', description: 'The country contributors pay in, upper case' },
  deadline: dateTime('When it ends by itself, or null'),
  fundingModel: { enum: [...FUNDING_MODELS], description: 'What happens to the money at the end', 'x-enumDescriptions': FUNDING_MODEL_WORDS },
  payoutMethodId: { ...nullableString, description: 'The payout method its released funds are paid out to at close, or null' },
  metadata: { ...nullableString, description: 'Your string, as given, or null' },
  status: { enum: CAMPAIGN_STATUSES, description: 'Where the campaign stands', 'x-enumDescriptions': CAMPAIGN_STATUS_WORDS },
  raisedAmountMinor: raised,
  contributorCount: contributors,
  percentFunded: percent,
  targetReachedAt: { ...nullableString, description: 'When a contribution first reached the target, an ISO 8601 time; null until then' },
  heldAmountMinor: { type: 'integer', description: "What the campaign's account holds now, in minor units" },
  releasedAmountMinor: { type: 'integer', description: "What was released to the organizer's balance at close, in minor units (fees included)" },
  releasedFeeMinor: { type: 'integer', description: "The contributions' processing fees taken at release, in minor units" },
  paidOutAmountMinor: { type: 'integer', description: 'What payouts of the released funds claimed, amounts and fees, in minor units' },
  refundedAmountMinor: { type: 'integer', description: 'What was given back to contributors, in minor units' },
  publishedAt: { ...nullableString, description: 'When it was published, an ISO 8601 time; null for a draft' },
  closedAt: { ...nullableString, description: 'When it ended (closed, canceled or failed), an ISO 8601 time; null before' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});

const contributionStatus = { enum: ['pending', 'succeeded', 'failed', 'canceled', 'refunded'], 'x-enumDescriptions': CONTRIBUTION_STATUS_WORDS };
export const contributionSchema = resourceSchema('funding.contribution', ['campaignId', 'paymentIntentId', 'amountMinor', 'currency', 'status', 'anonymous', 'livemode', 'created'], {
  campaignId: { type: 'string', description: 'The campaign contributed to' },
  paymentIntentId: { type: 'string', description: 'The payment intent that pays it' },
  amountMinor: { type: 'integer', description: 'The contribution, in minor units' },
  currency: currencyOut,
  status: { ...contributionStatus, description: 'Where the contribution stands' },
  contributorName: { ...nullableString, description: "The contributor's name, or null" },
  contributorEmail: { ...nullableString, description: "The contributor's e-mail address, or null" },
  anonymous: { type: 'boolean', description: '`true`: the public page and API do not show the name' },
  message: { ...nullableString, description: "The contributor's message, or null" },
  metadata: { ...nullableString, description: 'Your string, as given, or null' },
  feeMinor: { type: ['integer', 'null'], description: 'The processing fee of its payment, in minor units, taken when the funds are released; null until it succeeded' },
  refundReason: { enum: ['requested_by_organizer', 'campaign_canceled', 'campaign_failed', 'campaign_ended', null], description: 'Why it was given back; null unless refunded', 'x-enumDescriptions': REFUND_REASON_WORDS },
  refundedFrom: { enum: ['campaign_account', 'balance', null], description: 'Where the give-back was taken from; null unless refunded', 'x-enumDescriptions': REFUNDED_FROM_WORDS },
  succeededAt: { ...nullableString, description: 'When its payment succeeded, an ISO 8601 time; null before' },
  refundedAt: { ...nullableString, description: 'When it was given back, an ISO 8601 time; null unless refunded' },
  refund: {
    type: ['object', 'null'],
    description:
      "The give-back's refund (null until given back): `id` is Sika's id of the rail refund (the rail's own id derives from it, and the rail's record carries it as its reference), `rail` the connector that carries it (null: given back on the ledger alone), `status` the rail's answer",
    required: ['id', 'rail', 'status', 'failureCode', 'settledAt'],
    properties: {
      id: { type: 'string', description: "Sika's id of the refund, which the rail's record carries as its reference" },
      rail: { ...nullableString, description: 'The connector that carries it (`pawapay`, `paystack`), or null when it went back on the ledger alone' },
      status: { enum: ['pending', 'succeeded', 'failed'], description: "The rail's answer", 'x-enumDescriptions': RAIL_REFUND_STATUS_WORDS },
      failureCode: { ...nullableString, description: 'Why the rail failed it (`recipient_not_found`, `refund_not_supported`…); null unless failed' },
      settledAt: { ...nullableString, description: 'When the rail answered, an ISO 8601 time; null while pending' },
    },
  },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});

const updateSchema = {
  type: 'object',
  required: ['id', 'title', 'body', 'createdAt'],
  properties: {
    id: { type: 'string', description: "The update's id" },
    title: { type: 'string', description: 'Its headline' },
    body: { type: 'string', description: 'Its text' },
    createdAt: { type: 'string', description: 'When it was posted, an ISO 8601 time' },
    editedAt: { ...nullableString, description: 'When it was last edited, an ISO 8601 time; null if never' },
  },
};
const payoutSchema = {
  type: 'object',
  required: ['id', 'payoutId', 'payoutMethodId', 'amountMinor', 'feeMinor', 'status'],
  properties: {
    id: { type: 'string', description: "The campaign's claim on its released funds" },
    payoutId: { type: 'string', description: 'The payout (`po_…`) made for it: an ordinary payout, at `GET /api/v1/payouts/{id}`' },
    payoutMethodId: { type: 'string', description: 'The payout method paid' },
    amountMinor: { type: 'integer', description: 'The amount sent, in minor units' },
    feeMinor: { type: 'integer', description: "The payout's fee, in minor units, taken from the released funds besides" },
    status: { enum: ['requested', 'created', 'failed'], description: 'Whether the payout was made', 'x-enumDescriptions': PAYOUT_CLAIM_STATUS_WORDS },
    failureReason: { ...nullableString, description: "The payout's refusal (`IKW-…: words`); null unless failed" },
    createdAt: { type: 'string', description: 'When it was claimed, an ISO 8601 time' },
  },
};
const progressSchema = {
  type: 'object',
  required: ['object', 'campaignId', 'raisedAmountMinor', 'contributorCount', 'timeline'],
  properties: {
    object: { const: 'funding.progress', description: 'The kind of object: always `funding.progress`' },
    campaignId: { type: 'string', description: 'The campaign' },
    currency: currencyOut,
    status: { type: 'string', description: "The campaign's status (`draft`, `active`, `closed`, `canceled`, `failed`)" },
    targetAmountMinor: { type: ['integer', 'null'], description: 'The goal, in minor units, or null' },
    raisedAmountMinor: raised,
    contributorCount: contributors,
    percentFunded: percent,
    targetReachedAt: { ...nullableString, description: 'When the target was reached, an ISO 8601 time; null until then' },
    deadline: { ...nullableString, description: 'When it ends by itself, or null' },
    heldAmountMinor: { type: 'integer', description: "What the campaign's account holds now, in minor units" },
    releasedAmountMinor: { type: 'integer', description: "What was released to the organizer's balance, in minor units" },
    refundedAmountMinor: { type: 'integer', description: 'What was given back to contributors, in minor units' },
    timeline: {
      type: 'array',
      description: 'The succeeded contributions per day (UTC), oldest first',
      items: {
        type: 'object',
        properties: {
          date: { type: 'string', description: 'The day, `YYYY-MM-DD` (UTC)' },
          amountMinor: { type: 'integer', description: 'What that day raised, in minor units' },
          count: { type: 'integer', description: 'How many contributions that day' },
          cumulativeAmountMinor: { type: 'integer', description: 'What was raised up to and with that day, in minor units' },
        },
      },
    },
  },
};
const ledgerSchema = {
  type: 'object',
  required: ['object', 'campaignId', 'account', 'balanceMinor', 'entries'],
  properties: {
    object: { const: 'funding.campaign_ledger', description: 'The kind of object: always `funding.campaign_ledger`' },
    campaignId: { type: 'string', description: 'The campaign' },
    account: { type: 'string', description: 'The ledger account, `campaign:<id>`' },
    currency: currencyOut,
    balanceMinor: { type: 'integer', description: 'What the account holds, in minor units' },
    entries: {
      type: 'array',
      description: 'Every entry that moved the account, oldest first',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: "The ledger entry's id" },
          kind: { type: 'string', description: "What moved it (`campaign_contribution`, `campaign_refund`, `campaign_release`, a rail's `refund_reversal`…)" },
          source: { type: 'string', description: 'The id of what caused it: a contribution, a refund, the campaign' },
          amountMinor: { type: 'integer', description: 'How it moved the account, in minor units: positive in, negative out' },
          postedAt: { type: 'string', description: 'When it was posted, an ISO 8601 time' },
        },
      },
    },
  },
};

/** What the public sees of a campaign: no contributor e-mail, anonymous contributors unnamed. */
const publicCampaignSchema = {
  type: 'object',
  required: ['object', 'slug', 'title', 'currency', 'status', 'raisedAmountMinor', 'contributorCount'],
  properties: {
    object: { const: 'funding.public_campaign', description: 'The kind of object: always `funding.public_campaign`' },
    slug: { type: 'string', description: 'The name of its page' },
    title: { type: 'string', description: 'The name of the campaign' },
    description: { ...nullableString, description: 'What the money is for, or null' },
    currency: currencyOut,
    country: { type: 'string', description: 'The country contributors pay in' },
    status: { type: 'string', description: "The campaign's status (`active`, `closed`, `canceled`, `failed`): only an `active` one takes contributions" },
    fundingModel: { type: 'string', description: '`keep_what_you_raise` or `all_or_nothing`' },
    targetAmountMinor: { type: ['integer', 'null'], description: 'The goal, in minor units, or null' },
    raisedAmountMinor: raised,
    contributorCount: contributors,
    percentFunded: percent,
    deadline: { ...nullableString, description: 'When it ends, or null' },
    livemode: { type: 'boolean', description: '`true` for a live campaign, `false` for sandbox' },
    updates: { type: 'array', items: updateSchema, description: "The organizer's updates, newest first" },
    recentContributions: {
      type: 'array',
      description: 'The latest succeeded contributions, newest first',
      items: {
        type: 'object',
        properties: {
          name: { ...nullableString, description: "The contributor's name; null for an anonymous one, or one who gave none" },
          amountMinor: { type: 'integer', description: 'The contribution, in minor units' },
          message: { ...nullableString, description: "The contributor's message, or null" },
          created: { type: 'integer', description: 'When it was made, in Unix seconds' },
        },
      },
    },
  },
};
const publicContributionSchema = {
  type: 'object',
  required: ['id', 'object', 'status', 'amountMinor', 'currency'],
  properties: {
    id: { type: 'string', description: "The contribution's id: poll `GET /api/v1/funding/public/contributions/{id}` with it" },
    object: { const: 'funding.public_contribution', description: 'The kind of object: always `funding.public_contribution`' },
    campaignId: { type: 'string', description: 'The campaign contributed to' },
    status: { ...contributionStatus, description: 'Where the contribution stands' },
    amountMinor: { type: 'integer', description: 'The contribution, in minor units' },
    currency: currencyOut,
    nextAction: { type: ['object', 'null'], description: "What the payer must do, as the payment intent's `next_action` says (open a page for a card check); null when nothing" },
  },
};

const updateParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 255, description: 'The id of the campaign' }, updateId: { type: 'string', minLength: 1, maxLength: 255, description: 'The id of one of its updates' } },
  required: ['id', 'updateId'],
};
const contributionIdParams = { type: 'object', properties: { contributionId: { ...uuid, description: 'The id of the contribution, as the contribution answered it' } }, required: ['contributionId'] };

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

/** The funding family's use cases, one service each (the family's manifest builds them). */
export interface FundingServices {
  campaigns: FundingCampaigns;
  contributions: FundingContributions;
  payouts: CampaignPayouts;
  updates: CampaignUpdates;
}

/** /api/v1/funding (27 operations, docs/funding.md): campaigns, contributions, updates, payouts, and the public campaign API. */
export function fundingRoutes(knex: Knex, funding: FundingServices): RouteGroup {
  const campaignOf = (owner: Parameters<typeof findCampaign>[1], id: string) => found('funding campaign', id, findCampaign(knex, owner, id));
  return {
    name: 'funding',
    description: 'Funding campaigns: a target raised from many contributors by mobile money, kept or given back by the rules of the campaign.',
    routes: [
      route<CreateCampaignInput>({
        method: 'post',
        path: '/api/v1/funding/campaigns',
        summary: 'Create a funding campaign (a draft until published): title, target, currency, deadline, `fundingModel` (`keep_what_you_raise` by default, or `all_or_nothing`)',
        description:
          "Creates a campaign as a `draft`: it has no page and takes nothing until you publish it. Its contributions are paid by mobile money or card into the campaign's own account, apart from your balance, until it ends. `all_or_nothing` needs `targetAmountMinor` and a `deadline`; a currency used in several countries (XOF) needs `country`. The answer's `url` is the public page to share once published. A retry with the same `Idempotency-Key` answers the same campaign.",
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-009', 'IKW-PAY-002'],
        auth: write,
        body: createCampaignBody,
        response: campaignSchema,
        handler: (ctx) => funding.campaigns.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns',
        summary: 'List funding campaigns, newest first; `status` filters',
        description: 'Your campaigns, newest first, with what each raised; `status` keeps those in one state, such as the `active` ones. Cursor-paged with `limit`, `starting_after` and `ending_before` (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({ status: { enum: CAMPAIGN_STATUSES, description: 'Only the campaigns in this state', 'x-enumDescriptions': CAMPAIGN_STATUS_WORDS } }),
        response: cursorListSchema(campaignSchema),
        handler: (ctx) => listCampaigns(knex, ctx.owner, ctx.query),
      }),
      {
        ...retrieveRoute({
          path: '/api/v1/funding/campaigns/:id',
          noun: 'funding campaign',
          summary: 'Retrieve a funding campaign with its raised amount, contributor count and percentage',
          auth: read,
          response: campaignSchema,
          find: (owner, id) => findCampaign(knex, owner, id),
        }),
        description:
          "The campaign as it stands: its status, what it raised (`raisedAmountMinor`, `contributorCount`, `percentFunded`) and where the money is (held, released, paid out, refunded). Another merchant's campaign is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<CampaignChanges, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/funding/campaigns/:id',
        fields: { campaignId: 'id' },
        summary: 'Update a draft or active campaign: title, description, metadata, payout method; target and deadline while it is a draft',
        description:
          'Changes what the page says and where the money goes: `title`, `description`, `metadata` and `payoutMethodId` while the campaign is `draft` or `active`. `targetAmountMinor` and `deadline` change only while it is a draft (`IKW-FND-001` after: contributors relied on them). An ended campaign is `IKW-FND-001`.',
        refusals: ['IKW-FND-001', 'IKW-PAY-002'],
        auth: write,
        params: idParams,
        body: updateCampaignBody,
        response: campaignSchema,
        handler: (ctx) => funding.campaigns.update(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/publish',
        fields: { campaignId: 'id' },
        summary: 'Publish a draft: its page takes contributions and its deadline timer is set (publishing an active campaign changes nothing)',
        description:
          'Opens the campaign: its page (`url`) and the public API take contributions, and its deadline timer is set. A deadline already past is `IKW-VAL-001`: set a later one first. Publishing an active campaign answers it unchanged; an ended one is `IKW-FND-001`.',
        refusals: ['IKW-FND-001'],
        auth: write,
        params: idParams,
        response: campaignSchema,
        handler: (ctx) => funding.campaigns.publish(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/close',
        fields: { campaignId: 'id' },
        summary: "Close an active campaign: no more contributions; its funds are released to the organizer's balance (fees taken) and paid out to its payout method if it has one",
        description:
          "Ends an active campaign by hand: it takes no more contributions, pending ones are canceled, and everything its account holds is released to your available balance, less the contributions' processing fees. A campaign with a `payoutMethodId` is then paid out to it (see its payouts). An all-or-nothing campaign below target cannot be closed (`IKW-FND-003`): it fails at its deadline, or cancel it.",
        refusals: ['IKW-FND-001', 'IKW-FND-003', 'IKW-RES-003'],
        emits: ['funding_campaign.closed', 'payment_intent.canceled', 'payout.created', 'payout.updated', 'payout.failed'],
        auth: write,
        params: idParams,
        response: campaignSchema,
        handler: (ctx) => funding.campaigns.close(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/cancel',
        // A contribution whose refund cannot be made stops the cancel; its refusal answers as `id`, as it always has.
        fields: { campaignId: 'id', contributionId: 'id' },
        summary: 'Cancel a draft or active campaign: every succeeded contribution is refunded in full, pending ones are canceled',
        description:
          "Ends a campaign and gives everything back: every succeeded contribution is refunded in full from the campaign's account (`refundReason: campaign_canceled`), through the rail it came by, and pending ones are canceled. A payment that succeeds afterwards is given back as it arrives. An ended campaign is `IKW-FND-001`.",
        refusals: ['IKW-FND-001', 'IKW-RES-003', 'IKW-PRV-006'],
        emits: ['payment_intent.canceled'],
        auth: write,
        params: idParams,
        response: campaignSchema,
        handler: (ctx) => funding.campaigns.cancel(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/progress',
        summary: 'The progress of a campaign: raised amount, contributor count, percentage, held and released funds, and contributions per day with the running total',
        description: "What a dashboard chart needs: the campaign's totals and `timeline`, its succeeded contributions per day (UTC) with the running total.",
        refusals: [],
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
        description: "The contributions to one campaign, newest first, with the contributors' names and e-mail addresses (anonymous ones too); `status` keeps those in one state. Cursor-paged (docs/pagination.md).",
        refusals: [],
        auth: read,
        params: idParams,
        query: cursorQuery({ status: { ...contributionStatus, description: 'Only the contributions in this state' } }),
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
        description: "Every contribution of the campaign as CSV, oldest first, for receipts and bookkeeping: names and e-mail addresses included, anonymous ones too. Text a spreadsheet would run as a formula is written with a leading `'`.",
        refusals: [],
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
        summary: 'Post an update to a campaign (shown on its page); answers the campaign with the new `update`',
        description:
          "Tells contributors how things go: the update is shown on the campaign's page, newest first. Allowed while the campaign is `draft`, `active` or `closed` (`IKW-FND-001` otherwise). A retry with the same `Idempotency-Key` answers the same update.",
        refusals: ['IKW-FND-001'],
        auth: write,
        params: idParams,
        body: updateBody,
        response: { ...campaignSchema, properties: { ...campaignSchema.properties, update: { ...updateSchema, description: 'The update just posted' } } },
        handler: (ctx) => funding.updates.postUpdate(ctx.owner, ctx.params.id, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/updates',
        summary: "List a campaign's updates, newest first",
        description: 'The updates posted on the campaign, newest first. Cursor-paged (docs/pagination.md).',
        refusals: [],
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
        description: 'One update of the campaign. An update of another campaign, or deleted, is `404 IKW-RES-001`.',
        refusals: [],
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
        description: 'Corrects an update: give `title`, `body` or both; `editedAt` records when.',
        refusals: [],
        auth: write,
        params: updateParams,
        body: editUpdateBody,
        response: updateSchema,
        handler: (ctx) => funding.updates.editUpdate(ctx.owner, ctx.params.id, ctx.params.updateId, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { id: string; updateId: string }>({
        method: 'delete',
        path: '/api/v1/funding/campaigns/:id/updates/:updateId',
        fields: { campaignId: 'id' },
        summary: 'Delete a campaign update (it leaves the page)',
        description: 'Removes an update from the page and the lists for good.',
        refusals: [],
        auth: write,
        params: updateParams,
        response: { type: 'object', properties: { id: { type: 'string', description: 'The id of the update deleted' }, deleted: { const: true, description: 'Always `true`' } } },
        handler: (ctx) => funding.updates.deleteUpdate(ctx.owner, ctx.params.id, ctx.params.updateId, ctx.actor),
      }),
      route<PayoutInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/campaigns/:id/payouts',
        fields: { campaignId: 'id' },
        summary: "Pay out a closed campaign's released funds to a payout method (the campaign's by default); without `amountMinor`, all that remains, its fee included",
        description:
          'Sends released funds of a `closed` campaign (`IKW-FND-001` otherwise) to a saved payout method: an ordinary payout (`payoutId`, `po_…`) from your balance, claimed first on the campaign so that its released funds are never paid out twice. Without `amountMinor`, the most that fits with its fee in what remains (`IKW-FND-005` when nothing fits). A payout the payouts refuse is answered `failed`, with its `failureReason`, and frees its amount. A retry with the same `Idempotency-Key` pays once.',
        refusals: ['IKW-FND-001', 'IKW-FND-005', 'IKW-PAY-002', 'IKW-PRV-005', 'IKW-ACT-006'],
        emits: ['payout.created', 'payout.updated', 'payout.failed'],
        auth: write,
        params: idParams,
        body: payoutBody,
        response: payoutSchema,
        handler: (ctx) => funding.payouts.payOut(ctx.owner, ctx.params.id, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/funding/campaigns/:id/payouts',
        summary: "List the payouts of a campaign's released funds, newest first",
        description: "The payouts of the campaign's released funds, newest first, each with its payout's id to follow it at `GET /api/v1/payouts/{id}`. Cursor-paged (docs/pagination.md).",
        refusals: [],
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
        description:
          "For reconciliation: the campaign's own account on your ledger, apart from your balance, with what it holds and every entry that moved it (contributions in, refunds and the release out, a rail's reversal of a failed give-back), oldest first.",
        refusals: [],
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
        description:
          "Makes a contribution to an `active` campaign before its deadline (`IKW-FND-002` otherwise), in its currency (`IKW-VAL-009`), with a payment intent of its own. With `paymentMethod` the intent is confirmed at once (the payer approves on their phone; a card may need `nextAction`), else it waits, `pending`, for `confirm`. When the payment succeeds the contribution counts and its money is held on the campaign's account. The body's `idempotencyKey`, else the `Idempotency-Key` header, names the contribution: a retry answers the same one, paid once.",
        refusals: ['IKW-RES-001', 'IKW-FND-002', 'IKW-VAL-009', ...CONFIRM_PAYMENT_REFUSALS],
        emits: ['payment_intent.created', ...CONFIRM_PAYMENT_EVENTS, 'funding_campaign.contribution_received', 'funding_campaign.target_reached'],
        auth: write,
        body: contributionBody,
        response: contributionSchema,
        handler: (ctx) => funding.contributions.contribute(ctx.owner, contributeInput(ctx.body), ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { campaignId?: string; status?: string }>({
        method: 'get',
        path: '/api/v1/funding/contributions',
        summary: 'List contributions, newest first; `campaignId` and `status` filter',
        description: 'Your contributions across campaigns, newest first; `campaignId` and `status` narrow the list. Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({ campaignId: { type: 'string', minLength: 1, maxLength: 255, description: 'Only the contributions to this campaign' }, status: { ...contributionStatus, description: 'Only the contributions in this state' } }),
        response: cursorListSchema(contributionSchema),
        handler: (ctx) => listContributions(knex, ctx.owner, ctx.query, '/api/v1/funding/contributions'),
      }),
      {
        ...retrieveRoute({
          path: '/api/v1/funding/contributions/:id',
          noun: 'contribution',
          summary: 'Retrieve a contribution',
          auth: read,
          response: contributionSchema,
          find: (owner, id) => findContribution(knex, owner, id),
        }),
        description: "The contribution as it stands: its status, its fee once paid, and once given back why, from where and its rail refund (`refund`). Another merchant's contribution is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<{ paymentMethod: CamelPaymentMethod; returnUrl?: string }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/contributions/:id/confirm',
        fields: { ...confirmationFields, contributionId: 'id' },
        summary: 'Pay a pending contribution through its payment intent (mobile money or card)',
        description:
          'Pays a `pending` contribution (`IKW-FND-004` otherwise) of an active campaign (`IKW-FND-002`) by confirming its payment intent with `paymentMethod`, as `POST /api/v1/payment-intents/{id}/confirm` does. The answer is usually still `pending`: the operator answers later, and the contribution becomes `succeeded` or `failed` (webhooks `funding_campaign.contribution_received`, `payment_intent.*`).',
        refusals: ['IKW-FND-002', 'IKW-FND-004', ...CONFIRM_PAYMENT_REFUSALS],
        emits: [...CONFIRM_PAYMENT_EVENTS, 'funding_campaign.contribution_received', 'funding_campaign.target_reached'],
        auth: write,
        params: idParams,
        body: confirmBody,
        response: contributionSchema,
        handler: (ctx) =>
          funding.contributions.confirmContribution(ctx.owner, ctx.params.id, { payment_method: toPaymentMethod(ctx.body.paymentMethod), ...(ctx.body.returnUrl ? { return_url: ctx.body.returnUrl } : {}) }, ctx.actor, ctx.requestRef),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/contributions/:id/refund',
        fields: { contributionId: 'id' },
        summary: "Refund a succeeded contribution in full: from the campaign's account, or from the organizer's balance once the funds were released",
        description:
          "Gives a `succeeded` contribution back in full (`IKW-FND-004` otherwise), through the rail it came by: from the campaign's account while held, no fee charged; from your available balance once released (`IKW-BAL-001` when it cannot cover it; the fee is not returned). Follow the rail's answer on the contribution's `refund`. A retry with the same `Idempotency-Key` answers the contribution, refunded once.",
        refusals: ['IKW-FND-004', 'IKW-BAL-001', 'IKW-RES-003', 'IKW-PRV-006'],
        auth: write,
        params: idParams,
        response: contributionSchema,
        handler: (ctx) => funding.contributions.refundContribution(ctx.owner, ctx.params.id, ctx.actor, ctx.requestRef),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/funding/contributions/:id/cancel',
        fields: { contributionId: 'id' },
        summary: 'Cancel a pending contribution and its payment intent (refused once the operator has the payment)',
        description:
          'Abandons a contribution nobody paid: its payment intent is canceled and it becomes `canceled`. Once the operator has the payment (`processing`) it cannot be called back (`IKW-RES-002`); a contribution that is not pending is `IKW-FND-004`.',
        refusals: ['IKW-FND-004', 'IKW-RES-002'],
        emits: ['payment_intent.canceled'],
        auth: write,
        params: idParams,
        response: contributionSchema,
        handler: (ctx) => funding.contributions.cancelContribution(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { slug: string }>({
        method: 'get',
        path: '/api/v1/funding/public/campaigns/:slug',
        summary: 'A campaign as its public page shows it (no credential): progress, updates, latest contributions (anonymous ones unnamed)',
        description: 'For a page of your own: what anyone may see of a published campaign, by its `slug` (a draft is `404 IKW-RES-001`): its progress, updates and latest contributions, anonymous contributors unnamed and no e-mail address.',
        refusals: [],
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
        description:
          "What the public page's form does, for a page of your own: makes a contribution in the campaign's currency and confirms it at once with `paymentMethod`. The answer says what the payer must do (`nextAction`); poll `GET /api/v1/funding/public/contributions/{id}` for the outcome. Mobile money numbers are rate-limited per number and campaign (`429 IKW-LIM-001`), as the phone they ring has no credential behind it.",
        refusals: ['IKW-FND-002', ...CONFIRM_PAYMENT_REFUSALS],
        emits: ['payment_intent.created', ...CONFIRM_PAYMENT_EVENTS, 'funding_campaign.contribution_received', 'funding_campaign.target_reached'],
        auth: 'public',
        params: campaignSlugParams,
        body: {
          type: 'object',
          required: ['amountMinor', 'paymentMethod'],
          additionalProperties: false,
          properties: { amountMinor: { ...amountMinor, description: "The contribution, in minor units of the campaign's currency" }, ...contributorFields },
        },
        response: publicContributionSchema,
        handler: async (ctx) => {
          const page = await findCampaignBySlug(knex, ctx.params.slug);
          const visible = page && page.campaign.status !== 'draft' ? page : undefined;
          const { owner, campaign } = await foundAt('funding campaign', 'slug', ctx.params.slug, Promise.resolve(visible));
          const contribution = await funding.contributions.contribute(owner, contributeInput({ ...ctx.body, campaignId: campaign.id, currency: campaign.currency }), ctx.actor, ctx.requestRef, 'public_page');
          return publicContribution(contribution, await funding.contributions.nextActionOf(owner, contribution.paymentIntentId));
        },
      }),
      route<unknown, unknown, { contributionId: string }>({
        method: 'get',
        path: '/api/v1/funding/public/contributions/:contributionId',
        summary: 'The status of a contribution made on a public page (no credential; its id is unguessable), which the page polls',
        description: 'What a page polls after a public contribution: its status until `succeeded` or `failed`. Anyone with its id may read it; it names no contributor.',
        refusals: [],
        auth: 'public',
        params: contributionIdParams,
        response: publicContributionSchema,
        handler: async (ctx) => publicContribution(await foundAt('contribution', 'contributionId', ctx.params.contributionId, findContributionById(knex, ctx.params.contributionId))),
      }),
    ],
  };
}
