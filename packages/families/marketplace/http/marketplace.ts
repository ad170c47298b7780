import type { Knex } from 'knex';
import { MAX_AMOUNT } from '#packages/catalog/index.js';
import type { CreateCommissionRuleInput, UpdateCommissionRuleInput } from '../commission-rule/commands.js';
import type { CreateOrderInput, RefundOrderInput } from '../marketplace-order/commands.js';
import { ORDER_STATUSES, type OrderStatus } from '../marketplace-order/events.js';
import type { CreateSellerInput } from '../marketplace-seller/commands.js';
import { SETTLEMENT_MODES, sellerUuid, type SellerSettlement, type SettlementMode } from '../marketplace-seller/events.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import {
  findCommissionRule,
  findMarketplaceOrder,
  findMarketplacePayout,
  findMarketplaceRefund,
  findMarketplaceSeller,
  findMarketplaceSettlement,
  listCommissionRules,
  listMarketplaceOrders,
  listMarketplacePayouts,
  listMarketplaceRefunds,
  listMarketplaceSellers,
  listMarketplaceSettlements,
  marketplaceFundsTotals,
  sellerBalances,
  toSettlementObject,
} from '../read/index.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import type { Marketplace } from '../marketplace.js';
import { CREATE_PAYOUT_EVENTS, CREATE_PAYOUT_REFUSALS } from '#packages/families/payouts/http/index.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, found, idParams, metadataSchema, requesterOf, resourceSchema, retrieveRoute } from '#packages/http/route-kit.js';
import { destinationSchema } from '#packages/families/payouts/index.js';
import type { SellerPayoutInput } from '../marketplace-seller/payouts.js';

const BASE = '/api/v1/marketplace';
const read: RouteAuth = { scope: 'marketplace.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'marketplace.write', environmentHeader: 'optional' };

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });
/** An optional string of the interface: it may also be sent as null, which means "not given". */
const optionalText = (maxLength: number) => ({ type: ['string', 'null'], minLength: 1, maxLength });
const uuid = { type: 'string', format: 'uuid' };
const amountMinor = { type: 'integer', minimum: 1, maximum: MAX_AMOUNT };
const basisPoints = { type: 'integer', minimum: 0, maximum: 10_000, description: 'Hundredths of a percent of the line (0 to 10000)' };
const fixedFee = { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: 'A fixed amount per line, in minor units, added to the percentage' };
const SETTLEMENT_MODE_WORDS = {
  rolling: "Each share is due `settlementDelayDays` after the order's payment",
  weekly: 'Shares are due on the first Monday (00:00 UTC) on or after payment + `settlementDelayDays`',
  manual: 'Never due by itself: shares stay pending until the mode changes',
};
const settlementMode = { enum: [...SETTLEMENT_MODES], description: "When the seller's shares move from pending to available; `rolling` when left out", 'x-enumDescriptions': SETTLEMENT_MODE_WORDS };
const settlementDelayDays = { type: 'integer', minimum: 0, maximum: 365, description: 'Days after payment before a share is due (0 to 365); 7 when left out' };
const sellerIdSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:@-]*$',
  description: "The platform's own id of the seller (1 to 128 of `A–Z a–z 0–9 _ . : @ -`), unique per merchant and environment",
};
const ORDER_STATUS_WORDS = {
  requires_payment: 'Created: its payment intent waits to be paid',
  paid: 'Paid: its money is split among the sellers and the commission',
  partially_refunded: 'Paid, and part of it refunded',
  refunded: 'Paid, and refunded in full',
  canceled: 'Canceled before payment, with its payment intent',
};
const RULE_STATUS_WORDS = { active: 'Order lines may name it', inactive: 'Switched off: order lines naming it are refused' };
const PAYOUT_STATUS_WORDS = {
  pending: 'Made and held, not yet with the operator',
  in_transit: 'With the operator',
  paid: 'Delivered',
  failed: "Refused or failed: amount and fee went back to the seller's available funds",
  canceled: "Canceled: amount and fee went back to the seller's available funds",
};
const currencyOut = { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case (`xof`)' };

/** The body without its null fields: the interface's null optional strings are fields not given. */
function given<T extends object>(body: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)) as { [K in keyof T]: Exclude<T[K], null> };
}

const ruleBody = {
  type: 'object',
  required: ['name', 'currency'],
  additionalProperties: false,
  properties: {
    name: { ...text(256), description: 'What the platform calls the rule (`Standard 10%`)' },
    percentBasisPoints: { ...basisPoints, description: 'The percentage of each line, in hundredths of a percent (1000 is 10%); 0 when left out' },
    fixedFeeMinor: { ...fixedFee, description: 'A fixed amount per line, in minor units, added to the percentage; 0 when left out' },
    currency: { ...currencySchema, description: 'The currency of the orders it applies to (ISO 4217, any case)' },
    isActive: { type: 'boolean', description: 'Whether order lines may name it; `true` when left out' },
  },
};
const ruleUpdateBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    percentBasisPoints: { ...basisPoints, description: 'The new percentage of each line, in hundredths of a percent' },
    fixedFeeMinor: { ...fixedFee, description: 'The new fixed amount per line, in minor units' },
    isActive: { type: 'boolean', description: '`false` to switch the rule off (new order lines naming it are refused), `true` to switch it on' },
  },
};
const sellerBody = {
  type: 'object',
  required: ['sellerId', 'displayName'],
  additionalProperties: false,
  properties: { sellerId: sellerIdSchema, displayName: { ...text(256), description: "The seller's name, as the platform shows it" }, settlementMode, settlementDelayDays },
};
const settlementBody = { type: 'object', minProperties: 1, additionalProperties: false, properties: { settlementMode, settlementDelayDays } };
const MAX_ORDER_LINES = 100;
const orderLine = {
  type: 'object',
  required: ['sellerId', 'amountMinor'],
  additionalProperties: false,
  properties: {
    sellerId: { ...sellerIdSchema, description: "The platform's id of the seller of this line: one of your sellers (`IKW-MKT-002`)" },
    amountMinor: { ...amountMinor, description: "The line's total, in minor units" },
    description: { ...optionalText(500), description: 'What the line is, as you show it' },
    commissionRuleId: { ...uuid, description: "An active commission rule of yours in the order's currency (`IKW-MKT-003`); none, no commission on the line" },
  },
};
const orderBody = {
  type: 'object',
  required: ['currency', 'transactionCountry', 'lines'],
  additionalProperties: false,
  properties: {
    currency: currencySchema,
    transactionCountry: { ...countrySchema, description: 'The country the buyer pays in (ISO 3166-1, any case), as for a payment intent' },
    idempotencyKey: { ...optionalText(64), description: 'Names the order: the same key answers the order it made, whatever else the body says' },
    buyerName: { ...optionalText(256), description: "The buyer's name, for your records" },
    buyerEmail: { type: ['string', 'null'], format: 'email', maxLength: 256, description: "The buyer's e-mail address, for your records" },
    lines: { type: 'array', minItems: 1, maxItems: MAX_ORDER_LINES, items: orderLine, description: 'The lines, 1 to 100; several may name the same seller' },
  },
};
const refundBody = {
  type: 'object',
  required: ['orderId'],
  additionalProperties: false,
  properties: {
    orderId: { ...uuid, description: 'The paid order to refund' },
    amountMinor: { ...amountMinor, description: 'The amount to refund, in minor units; everything that remains when left out' },
    reason: { ...optionalText(1000), description: 'Why, in words kept on the refund' },
  },
};
const MAX_SETTLEMENT_ITEMS = 1000;
/** Bodies get no defaults from their schema (only queries do): process-due's own. */
const DEFAULT_SETTLEMENT_ITEMS = 100;
const processDueBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    currency: { ...currencySchema, description: 'Only the shares in this currency; every currency when left out' },
    maxItems: { type: 'integer', minimum: 1, maximum: MAX_SETTLEMENT_ITEMS, description: `The most shares settled by this call, oldest payment first; ${DEFAULT_SETTLEMENT_ITEMS} when left out` },
  },
};

const payoutBody = {
  type: 'object',
  required: ['amountMinor', 'currency'],
  additionalProperties: false,
  // challengeId: live, a signed-in user paying an inline destination the merchant never paid (docs/decisions.md, "Payouts").
  properties: {
    amountMinor: { ...amountMinor, description: "The amount the seller receives, in minor units; the fee is held from the seller's funds besides" },
    currency: currencySchema,
    destination: destinationSchema,
    payoutMethodId: { ...uuid, description: 'A saved payout method of yours to pay, instead of `destination`' },
    metadata: metadataSchema,
    challengeId: { ...uuid, description: 'Live, a signed-in user paying a destination never paid before: a verified `payouts/new-destination` challenge (POST /api/v1/auth/mfa/challenge). An API key gives none' },
  },
};
const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'];

const nullableText = { type: ['string', 'null'] };
const nullableInteger = { type: ['integer', 'null'] };
const ruleSchema = resourceSchema('marketplace_commission_rule', ['name', 'percentBasisPoints', 'fixedFeeMinor', 'currency', 'isActive'], {
  name: { type: 'string', description: 'What the platform calls the rule' },
  percentBasisPoints: { type: 'integer', description: 'The percentage of each line, in hundredths of a percent' },
  fixedFeeMinor: { type: 'integer', description: 'The fixed amount per line, in minor units' },
  currency: currencyOut,
  isActive: { type: 'boolean', description: 'Whether order lines may name it' },
  status: { enum: ['active', 'inactive'], description: '`isActive` as a state, for the list filter', 'x-enumDescriptions': RULE_STATUS_WORDS },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
});
const sellerSchema = resourceSchema('marketplace_seller', ['sellerId', 'displayName', 'settlementMode', 'settlementDelayDays'], {
  sellerId: { type: 'string', description: "The platform's own id of the seller" },
  displayName: { type: 'string', description: "The seller's name" },
  settlementMode: { ...settlementMode, description: "When the seller's shares move from pending to available" },
  settlementDelayDays: { type: 'integer', description: 'Days after payment before a share is due' },
  status: { const: 'active', description: 'Always `active`: sellers are not removed' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
});
const sellerAmount = {
  type: 'object',
  properties: { sellerId: { type: 'string', description: "The platform's id of the seller" }, amountMinor: { type: 'integer', description: "Their lines less those lines' commission, in minor units" } },
};
const orderSchema = resourceSchema('marketplace_order', ['status', 'currency', 'amountMinor', 'commissionMinor', 'paymentIntentId', 'lines', 'sellerShares'], {
  status: { enum: [...ORDER_STATUSES], description: 'Where the order stands', 'x-enumDescriptions': ORDER_STATUS_WORDS },
  currency: currencyOut,
  transactionCountry: { type: 'string', description: 'The country the buyer pays in, upper case' },
  amountMinor: { type: 'integer', description: 'The sum of the lines, in minor units: what the buyer pays' },
  commissionMinor: { type: 'integer', description: "The sum of the lines' commission, in minor units: the platform's part" },
  processingFeeMinor: { ...nullableInteger, description: "Sika's processing fee of the payment, paid out of the commission; null until paid" },
  refundedMinor: { type: 'integer', description: 'What was refunded so far, in minor units' },
  idempotencyKey: { ...nullableText, description: 'The `idempotencyKey` it was created with, or null' },
  buyerName: { ...nullableText, description: "The buyer's name, or null" },
  buyerEmail: { ...nullableText, description: "The buyer's e-mail address, or null" },
  paymentIntentId: { type: 'string', description: 'The payment intent the buyer pays (`POST /api/v1/payment-intents/{id}/confirm`, a checkout)' },
  lines: {
    type: 'array',
    description: 'The lines, as given, each with its commission',
    items: {
      type: 'object',
      properties: {
        sellerId: { type: 'string', description: "The platform's id of the line's seller" },
        description: { ...nullableText, description: 'What the line is, or null' },
        amountMinor: { type: 'integer', description: "The line's total, in minor units" },
        commissionRuleId: { ...nullableText, description: 'The commission rule applied, or null' },
        commissionMinor: { type: 'integer', description: "The line's commission, fixed at creation: round-half-up of amount × percentage, plus the fixed fee, at most the line's amount" },
      },
    },
  },
  sellerShares: { type: 'array', items: sellerAmount, description: "What each seller is owed, in the order sellers first appear: with the commission, the order's amount" },
  paidAt: { ...nullableInteger, description: 'When it was paid, in Unix seconds; null until then' },
  canceledAt: { ...nullableInteger, description: 'When it was canceled, in Unix seconds; null unless canceled' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
const refundSchema = resourceSchema('marketplace_refund', ['orderId', 'amountMinor', 'currency', 'status', 'sellerReversals', 'commissionReversedMinor'], {
  orderId: { type: 'string', description: 'The order refunded' },
  amountMinor: { type: 'integer', description: 'The amount refunded to the buyer, in minor units' },
  currency: currencyOut,
  reason: { ...nullableText, description: 'Why, or null' },
  status: { const: 'succeeded', description: 'Always `succeeded`: a refund is posted in the commit that accepts it' },
  sellerReversals: {
    type: 'array',
    description: 'What each seller gave back, in proportion to what they had not had refunded',
    items: {
      type: 'object',
      properties: {
        sellerId: { type: 'string', description: "The platform's id of the seller" },
        amountMinor: { type: 'integer', description: 'What the seller gave back, in minor units' },
        fromPendingMinor: { type: 'integer', description: 'The part of it taken from their pending share; the rest came from their available funds' },
      },
    },
  },
  commissionReversedMinor: { type: 'integer', description: "What the platform's commission gave back, in minor units" },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
const settlementSchema = resourceSchema('marketplace_settlement', ['orderId', 'sellerId', 'currency', 'amountMinor'], {
  orderId: { type: 'string', description: 'The order whose share was settled' },
  sellerId: { type: 'string', description: "The platform's id of the seller" },
  currency: currencyOut,
  amountMinor: { type: 'integer', description: 'What moved from pending to available, in minor units (the share less what refunds took from it first)' },
  status: { const: 'settled', description: 'Always `settled`' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
const settlementRunSchema = {
  type: 'object',
  properties: {
    object: { const: 'marketplace_settlement_run', description: 'The kind of object: always `marketplace_settlement_run`' },
    settledCount: { type: 'integer', description: 'How many shares this call settled' },
    settledMinor: {
      type: 'array',
      description: 'What this call settled, per currency',
      items: { type: 'object', properties: { currency: currencyOut, amountMinor: { type: 'integer', description: 'The total settled in that currency, in minor units' } } },
    },
    settlements: { type: 'array', items: settlementSchema, description: 'The settlements this call made, oldest payment first' },
    hasMore: { type: 'boolean', description: 'More shares were due than maxItems: call again' },
  },
};
const sellerBalanceSchema = {
  type: 'object',
  properties: {
    object: { const: 'marketplace_seller_balance', description: 'The kind of object: always `marketplace_seller_balance`' },
    id: { type: 'string', description: "The seller's id (uuid)" },
    sellerId: { type: 'string', description: "The platform's id of the seller" },
    livemode: { type: 'boolean', description: '`true` for the live environment, `false` for sandbox' },
    balances: {
      type: 'array',
      description: 'One entry per currency the seller has had funds in',
      items: {
        type: 'object',
        properties: {
          currency: currencyOut,
          pendingMinor: { type: 'integer', description: 'Shares not yet settled, in minor units' },
          availableMinor: { type: 'integer', description: 'Settled funds, less payouts held or paid, in minor units: what a payout may take' },
        },
      },
    },
  },
};
const payoutSchema = resourceSchema('marketplace_payout', ['sellerId', 'amountMinor', 'feeMinor', 'currency', 'status', 'destination'], {
  sellerId: { type: 'string', description: "The platform's id of the seller paid" },
  amountMinor: { type: 'integer', description: 'The amount the seller receives, in minor units' },
  feeMinor: { type: 'integer', description: 'Paid out of the seller’s funds with the amount' },
  currency: currencyOut,
  status: { enum: PAYOUT_STATUSES, description: "The payout's status, as `GET /api/v1/payouts/{id}` gives it", 'x-enumDescriptions': PAYOUT_STATUS_WORDS },
  destination: { type: 'object', description: 'Where the money goes, as payouts spell it' },
  payoutMethodId: { ...nullableText, description: 'The saved payout method paid, or null for an inline destination' },
  failureCode: { ...nullableText, description: 'Why it failed, a code; null unless failed' },
  failureMessage: { ...nullableText, description: 'Why it failed, in words; null unless failed' },
  metadata: { type: 'object', additionalProperties: { type: 'string' }, description: 'Your key–value pairs, with `marketplace_seller` naming the seller' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
const fundsSchema = {
  type: 'object',
  properties: {
    object: { const: 'marketplace_balance', description: 'The kind of object: always `marketplace_balance`' },
    livemode: { type: 'boolean', description: '`true` for the live environment, `false` for sandbox' },
    balances: {
      type: 'array',
      description: 'One entry per currency the marketplace has had funds in',
      items: {
        type: 'object',
        properties: {
          currency: currencyOut,
          sellerPendingMinor: { type: 'integer', description: "All sellers' shares not yet settled, in minor units" },
          sellerAvailableMinor: { type: 'integer', description: "All sellers' settled funds not paid out, in minor units" },
          commissionMinor: { type: 'integer', description: 'Commission earned less processing fees and refunded commission; may be negative' },
        },
      },
    },
  },
};

/**
 * /api/v1/marketplace (docs/marketplace.md): commission rules (create, list, get, update), sellers
 * (create, list, get, settlement schedule, balance), orders (create, list, get, cancel), refunds
 * (create, list, get), settlements (process due, list, get), payouts to sellers (create, list, get)
 * and the marketplace's balance: 23 operations.
 */
export function marketplaceRoutes(knex: Knex, marketplace: Marketplace): RouteGroup {
  const sellerOf = (owner: Parameters<typeof findMarketplaceSeller>[1], id: string) => found('marketplace seller', id, findMarketplaceSeller(knex, owner, id));
  return {
    name: 'marketplace',
    description: 'Marketplaces: sellers, commission rules, orders split between sellers and the platform, seller balances, settlements and refunds.',
    routes: [
      route<CreateCommissionRuleInput>({
        method: 'post',
        path: `${BASE}/commission-rules`,
        summary: 'Create a commission rule: a percentage (basis points) of each order line it applies to, plus a fixed fee, in one currency',
        description:
          "Defines what the platform keeps of an order line that names the rule: `round_half_up(amount × percentBasisPoints / 10000) + fixedFeeMinor`, at most the line's amount, in the rule's currency. Name it in an order line's `commissionRuleId`. A rule is never deleted (orders name it): switch it off with `isActive: false`.",
        refusals: ['IKW-VAL-003'],
        auth: write,
        body: ruleBody,
        response: ruleSchema,
        handler: (ctx) => marketplace.commissionRules.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: 'active' | 'inactive'; currency?: string }>({
        method: 'get',
        path: `${BASE}/commission-rules`,
        summary: 'List commission rules, newest first (cursor-paged), by status and currency',
        description: 'Your commission rules, newest first; `status` and `currency` narrow the list. Cursor-paged with `limit`, `starting_after` and `ending_before` (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({
          status: { enum: ['active', 'inactive'], description: 'Only the rules in this state', 'x-enumDescriptions': RULE_STATUS_WORDS },
          currency: { ...currencySchema, description: 'Only the rules in this currency (any case)' },
        }),
        response: cursorListSchema(ruleSchema),
        handler: (ctx) => listCommissionRules(knex, ctx.owner, ctx.query, `${BASE}/commission-rules`, { status: ctx.query.status, currency: ctx.query.currency?.toLowerCase() }),
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/commission-rules/:id`,
          noun: 'commission rule',
          summary: 'Retrieve a commission rule',
          auth: read,
          response: ruleSchema,
          find: (owner, id) => findCommissionRule(knex, owner, id),
        }),
        description: "The rule as it stands. Another merchant's rule, or one of the other environment, is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<UpdateCommissionRuleInput, unknown, { id: string }>({
        method: 'patch',
        path: `${BASE}/commission-rules/:id`,
        fields: { commissionRuleId: 'id' },
        summary: 'Change a rule’s percentage or fixed fee, or switch it on or off; orders already created keep the commission they were given',
        description:
          'Changes what new order lines pay: give at least one of `percentBasisPoints`, `fixedFeeMinor` and `isActive`. Orders already created keep the commission they were given. Switched off, the rule is refused to new order lines (`IKW-MKT-003`).',
        refusals: [],
        auth: write,
        params: idParams,
        body: ruleUpdateBody,
        response: ruleSchema,
        handler: (ctx) => marketplace.commissionRules.update(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<CreateSellerInput>({
        method: 'post',
        path: `${BASE}/sellers`,
        summary: 'Register a seller under the platform’s own sellerId, with its settlement schedule (default rolling, 7 days)',
        description:
          'Adds a seller that order lines can name by your own `sellerId`. Their shares of paid orders are held apart from your balance, `pending` until settled by their schedule, then `available` for payouts to them. One `sellerId` is one seller per environment: a second registration is `IKW-MKT-001`.',
        refusals: ['IKW-MKT-001'],
        auth: write,
        body: sellerBody,
        status: 201,
        response: sellerSchema,
        handler: (ctx) => marketplace.sellers.create(ctx.owner, ctx.body, ctx.actor),
      }),
      route<unknown, CursorQuery & { settlementMode?: SettlementMode }>({
        method: 'get',
        path: `${BASE}/sellers`,
        summary: 'List sellers, newest first (cursor-paged), by settlement mode',
        description: 'Your sellers, newest first; `settlementMode` keeps those on one schedule. Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({ settlementMode: { ...settlementMode, description: 'Only the sellers on this schedule' } }),
        response: cursorListSchema(sellerSchema),
        handler: (ctx) => listMarketplaceSellers(knex, ctx.owner, ctx.query, `${BASE}/sellers`, { settlement_mode: ctx.query.settlementMode }),
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/sellers/:id`,
          noun: 'marketplace seller',
          summary: 'Retrieve a seller by its id (uuid)',
          auth: read,
          response: sellerSchema,
          find: (owner, id) => findMarketplaceSeller(knex, owner, id),
        }),
        description: "The seller and their settlement schedule, by the `id` (uuid) Sika gave them, not your `sellerId`. Another merchant's seller is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<Partial<SellerSettlement>, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/sellers/:id/settlement`,
        fields: { marketplaceSellerId: 'id' },
        summary: 'Change a seller’s settlement mode or delay; it applies at once to their shares still pending',
        description:
          "Changes when the seller's shares become available: give `settlementMode`, `settlementDelayDays` or both. The schedule is read when settling, so the change applies at once to shares still pending (`manual` keeps them pending until it changes again).",
        refusals: [],
        auth: write,
        params: idParams,
        body: settlementBody,
        response: sellerSchema,
        handler: (ctx) => marketplace.sellers.updateSettlement(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: `${BASE}/sellers/:id/balance`,
        summary: 'A seller’s funds per currency: pending (not yet settled) and available',
        description: 'What the platform owes the seller, per currency: `pendingMinor` waits for settlement, `availableMinor` can be paid out with `POST /api/v1/marketplace/sellers/{id}/payouts`. These funds are never in your own balance.',
        refusals: [],
        auth: read,
        params: idParams,
        response: sellerBalanceSchema,
        handler: async (ctx) => {
          const seller = await sellerOf(ctx.owner, ctx.params.id);
          const balances = await sellerBalances(knex, ctx.owner, seller.id);
          return { object: 'marketplace_seller_balance', id: seller.id, sellerId: seller.sellerId, livemode: seller.livemode, balances };
        },
      }),
      route<CreateOrderInput>({
        method: 'post',
        path: `${BASE}/orders`,
        summary: 'Create an order of sellers’ lines, paid by one payment intent (confirm it with POST /api/v1/payment-intents/{id}/confirm); on success it is split among the sellers and the commission',
        description:
          "Takes one payment for lines of several sellers. Sika checks the lines (each `sellerId` one of your sellers, `IKW-MKT-002`; each `commissionRuleId` active and in the order's currency, `IKW-MKT-003`), fixes each line's commission, creates a payment intent for the total (with the checks of `POST /api/v1/payment-intents`) and the order, `requires_payment`. The buyer pays `paymentIntentId` as any intent. When it succeeds, the order is `paid` and its money is split in the same commit: each seller's share to their pending funds, the commission (less Sika's processing fee) to the platform. The body's `idempotencyKey`, else the `Idempotency-Key` header, names the order: a retry answers the same order and intent.",
        refusals: ['IKW-MKT-002', 'IKW-MKT-003', 'IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-008', 'IKW-VAL-009', 'IKW-CFG-001', 'IKW-CFG-002'],
        emits: ['marketplace_order.created', 'payment_intent.created'],
        auth: write,
        body: orderBody,
        status: 201,
        response: orderSchema,
        handler: (ctx) => {
          const body = given(ctx.body);
          return marketplace.orders.create(ctx.owner, { ...body, lines: body.lines.map((l) => given(l)) }, ctx.actor, ctx.requestRef);
        },
      }),
      route<unknown, CursorQuery & { status?: OrderStatus; currency?: string }>({
        method: 'get',
        path: `${BASE}/orders`,
        summary: 'List orders, newest first (cursor-paged), by status and currency',
        description: 'Your marketplace orders, newest first; `status` and `currency` narrow the list, such as the `paid` ones. Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({
          status: { enum: [...ORDER_STATUSES], description: 'Only the orders in this state', 'x-enumDescriptions': ORDER_STATUS_WORDS },
          currency: { ...currencySchema, description: 'Only the orders in this currency (any case)' },
        }),
        response: cursorListSchema(orderSchema),
        handler: (ctx) => listMarketplaceOrders(knex, ctx.owner, ctx.query, `${BASE}/orders`, { status: ctx.query.status, currency: ctx.query.currency?.toLowerCase() }),
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/orders/:id`,
          noun: 'marketplace order',
          summary: 'Retrieve an order: its lines, seller shares, commission, payment and refunds so far',
          auth: read,
          response: orderSchema,
          find: (owner, id) => findMarketplaceOrder(knex, owner, id),
        }),
        description: "The order as it stands: its lines and their commission, what each seller is owed, the processing fee once paid and what was refunded. Another merchant's order is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/orders/:id/cancel`,
        summary: 'Cancel an order awaiting payment, and its payment intent',
        description:
          'Withdraws an order nobody paid: its payment intent is canceled (when `requires_payment_method` or `requires_action`) and the order becomes `canceled`. An order whose payment is with the operator (`processing`) or succeeded, or that is paid or refunded, is `IKW-MKT-004`: refund a paid one. Canceling a canceled order answers it unchanged.',
        refusals: ['IKW-MKT-004'],
        emits: ['marketplace_order.canceled', 'payment_intent.canceled'],
        auth: write,
        params: idParams,
        // The order is named by the path here, by the body's orderId on refunds.
        fields: { orderId: 'id' },
        response: orderSchema,
        handler: (ctx) => marketplace.orders.cancel(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<RefundOrderInput>({
        method: 'post',
        path: `${BASE}/refunds`,
        summary: 'Refund part or all (amountMinor left out) of a paid order: the sellers’ shares and the commission give back in proportion',
        description:
          "Gives the buyer back `amountMinor` of a paid order (everything that remains when left out), through the way the money came; the processing fee is not returned. Each seller and the commission give back in proportion to what they have not had refunded: a seller's part comes from their pending share first, then their available funds (`IKW-MKT-006` when those no longer cover it; nothing is refunded then). Above what remains is `IKW-MKT-005`; an order not paid `IKW-MKT-004`. Parallel refunds are each decided on what the others left. A retry with the same `Idempotency-Key` answers the same refund.",
        refusals: ['IKW-MKT-004', 'IKW-MKT-005', 'IKW-MKT-006', 'IKW-PRV-006'],
        emits: ['marketplace_order.refunded'],
        auth: write,
        body: refundBody,
        fields: { amount: 'amountMinor' },
        status: 201,
        response: refundSchema,
        handler: async (ctx) => {
          const id = await marketplace.orders.refund(ctx.owner, given(ctx.body), ctx.actor, ctx.requestRef);
          return found('marketplace refund', id, findMarketplaceRefund(knex, ctx.owner, id));
        },
      }),
      route<unknown, CursorQuery & { orderId?: string }>({
        method: 'get',
        path: `${BASE}/refunds`,
        summary: 'List refunds, newest first (cursor-paged), of one order when orderId is given',
        description: "Your marketplace refunds, newest first; `orderId` keeps one order's. Cursor-paged (docs/pagination.md).",
        refusals: [],
        auth: read,
        query: cursorQuery({ orderId: { ...uuid, description: 'Only the refunds of this order' } }),
        response: cursorListSchema(refundSchema),
        handler: (ctx) => listMarketplaceRefunds(knex, ctx.owner, ctx.query, `${BASE}/refunds`, { order_id: ctx.query.orderId }),
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/refunds/:id`,
          noun: 'marketplace refund',
          summary: 'Retrieve a refund with what each seller and the commission gave back',
          auth: read,
          response: refundSchema,
          find: (owner, id) => findMarketplaceRefund(knex, owner, id),
        }),
        description: "The refund with what each seller and the commission gave back. Another merchant's refund is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<{ currency?: string; maxItems?: number }>({
        method: 'post',
        path: `${BASE}/settlements/process-due`,
        summary: 'Move the sellers’ shares that are due by their settlement mode and delay from pending to available (at most maxItems, oldest first)',
        description:
          "Settles the sellers' shares whose time has come by each seller's schedule: each becomes available to pay out, with a settlement object. No timer calls it: call it, say daily, and again while `hasMore` is true. Settling is idempotent: a share is settled once.",
        refusals: [],
        auth: write,
        body: processDueBody,
        response: settlementRunSchema,
        handler: async (ctx) => {
          const run = await marketplace.orders.processDue(ctx.owner, { ...ctx.body, maxItems: ctx.body.maxItems ?? DEFAULT_SETTLEMENT_ITEMS }, ctx.actor);
          const totals = new Map<string, number>();
          for (const s of run.settled) totals.set(s.currency, (totals.get(s.currency) ?? 0) + s.amount);
          return {
            object: 'marketplace_settlement_run',
            settledCount: run.settled.length,
            settledMinor: [...totals].map(([currency, amount]) => ({ currency, amountMinor: amount })),
            settlements: run.settled.map(toSettlementObject),
            hasMore: run.hasMore,
          };
        },
      }),
      route<unknown, CursorQuery & { sellerId?: string; currency?: string }>({
        method: 'get',
        path: `${BASE}/settlements`,
        summary: 'List settlements, newest first (cursor-paged), by seller (the platform’s sellerId) and currency',
        description: "The settlements made so far, newest first: one per seller's share of an order; `sellerId` and `currency` narrow the list. Cursor-paged (docs/pagination.md).",
        refusals: [],
        auth: read,
        query: cursorQuery({ sellerId: { ...sellerIdSchema, description: "Only this seller's, by the platform's own id" }, currency: { ...currencySchema, description: 'Only those in this currency (any case)' } }),
        response: cursorListSchema(settlementSchema),
        handler: (ctx) =>
          listMarketplaceSettlements(knex, ctx.owner, ctx.query, `${BASE}/settlements`, {
            seller_ref: ctx.query.sellerId === undefined ? undefined : sellerUuid(ctx.owner.merchantId, ctx.owner.environment, ctx.query.sellerId),
            currency: ctx.query.currency?.toLowerCase(),
          }),
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/settlements/:id`,
          noun: 'marketplace settlement',
          summary: 'Retrieve a settlement: one seller’s share of one order moved to available',
          auth: read,
          response: settlementSchema,
          find: (owner, id) => findMarketplaceSettlement(knex, owner, id),
        }),
        description: "One seller's share of one order, moved from pending to available. Another merchant's settlement is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<SellerPayoutInput & { challengeId?: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/sellers/:id/payouts`,
        summary: 'Pay out a seller’s available funds to a mobile money or bank destination (or a saved payout method): an ordinary payout, its amount and fee held from the seller’s funds and given back to them if it fails',
        description:
          "Sends a seller their money: an ordinary payout (`po_…`, with the checks, fee and lifecycle of `POST /api/v1/payouts`, and its `payout.*` webhooks) whose amount and fee are held from the seller's available funds, never your balance (`IKW-MKT-007` when they do not cover both). Give `destination` or a saved `payoutMethodId`. If it fails or is canceled, amount and fee go back to the seller. In live, a signed-in user paying a destination never paid gives `challengeId`; an API key pays one only as your payout settings allow.",
        refusals: [...CREATE_PAYOUT_REFUSALS.filter((code) => code !== 'IKW-BAL-001'), 'IKW-MKT-007'],
        emits: CREATE_PAYOUT_EVENTS,
        auth: { ...write, idempotencyKeyInLive: 'required' },
        params: idParams,
        body: payoutBody,
        // The payouts name their own fields (this body's challengeId is theirs too).
        fields: { amount: 'amountMinor', marketplaceSellerId: 'id' },
        status: 201,
        response: payoutSchema,
        handler: async (ctx) => {
          const { challengeId, ...input } = ctx.body;
          const payout = await marketplace.payouts.create(ctx.owner, ctx.params.id, input, requesterOf(ctx, challengeId), ctx.actor, ctx.requestRef);
          return found('marketplace payout', payout.id, findMarketplacePayout(knex, ctx.owner, payout.id));
        },
      }),
      route<unknown, CursorQuery & { sellerId?: string; status?: string }>({
        method: 'get',
        path: `${BASE}/payouts`,
        summary: 'List payouts to sellers, newest first (cursor-paged), by seller (the platform’s sellerId) and status',
        description: 'Payouts to your sellers, newest first; `sellerId` and `status` narrow the list. Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({
          sellerId: { ...sellerIdSchema, description: "Only this seller's, by the platform's own id" },
          status: { enum: PAYOUT_STATUSES, description: 'Only the payouts in this state', 'x-enumDescriptions': PAYOUT_STATUS_WORDS },
        }),
        response: cursorListSchema(payoutSchema),
        handler: (ctx) =>
          listMarketplacePayouts(knex, ctx.owner, ctx.query, `${BASE}/payouts`, {
            seller_ref: ctx.query.sellerId === undefined ? undefined : sellerUuid(ctx.owner.merchantId, ctx.owner.environment, ctx.query.sellerId),
            status: ctx.query.status,
          }),
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/payouts/:id`,
          noun: 'marketplace payout',
          summary: 'Retrieve a payout to a seller (also GET /api/v1/payouts/{id}, as any payout)',
          auth: read,
          response: payoutSchema,
          find: (owner, id) => findMarketplacePayout(knex, owner, id),
        }),
        description: "The payout to a seller as it stands, with its `failureCode` once failed. It is also `GET /api/v1/payouts/{id}`. Another merchant's payout is `404 IKW-RES-001`.",
        refusals: [],
      },
      route({
        method: 'get',
        path: `${BASE}/balance`,
        summary: 'The marketplace’s funds per currency: what sellers hold, pending and available, and the platform’s commission',
        description:
          "What the marketplace holds apart from your own balance, per currency: the sellers' pending and available funds, and the platform's commission (earned, less processing fees and refunded commission; it may be negative).",
        refusals: [],
        auth: read,
        response: fundsSchema,
        handler: async (ctx) => ({ object: 'marketplace_balance', livemode: ctx.principal.livemode, balances: await marketplaceFundsTotals(knex, ctx.owner) }),
      }),
    ],
  };
}
