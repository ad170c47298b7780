import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../packages/catalog/index.js';
import type { CreateCommissionRuleInput, UpdateCommissionRuleInput } from '../../../packages/families/marketplace/commission-rule/commands.js';
import type { CreateOrderInput, RefundOrderInput } from '../../../packages/families/marketplace/marketplace-order/commands.js';
import { ORDER_STATUSES, type OrderStatus } from '../../../packages/families/marketplace/marketplace-order/events.js';
import type { CreateSellerInput } from '../../../packages/families/marketplace/marketplace-seller/commands.js';
import { SETTLEMENT_MODES, sellerUuid, type SellerSettlement, type SettlementMode } from '../../../packages/families/marketplace/marketplace-seller/events.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
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
} from '../../../projections/marketplace/index.js';
import type { CursorQuery } from '../../../projections/paging.js';
import type { Marketplace } from '../../system.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, found, idParams, metadataSchema, requesterOf, resourceSchema, retrieveRoute } from './shared.js';
import { destinationSchema } from '../../../packages/families/payouts/payout-method/destination.js';
import type { SellerPayoutInput } from '../../../packages/families/marketplace/marketplace-seller/payouts.js';

const BASE = '/api/v1/marketplace';
const read: RouteAuth = { scope: 'marketplace.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'marketplace.write', environmentHeader: 'optional' };

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });
/** An optional string of the interface: it may also be sent as null, which means "not given". */
const optionalText = (maxLength: number) => ({ type: ['string', 'null'], minLength: 1, maxLength });
const uuid = { type: 'string', format: 'uuid' };
const amountMinor = { type: 'integer', minimum: 1, maximum: MAX_AMOUNT };
const basisPoints = { type: 'integer', minimum: 0, maximum: 10_000, description: 'Hundredths of a percent of the line (0 to 10000)' };
const fixedFee = { type: 'integer', minimum: 0, maximum: MAX_AMOUNT };
const settlementMode = { enum: [...SETTLEMENT_MODES] };
const settlementDelayDays = { type: 'integer', minimum: 0, maximum: 365 };
const sellerIdSchema = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9_.:@-]*$' };

/** The body without its null fields: the interface's null optional strings are fields not given. */
function given<T extends object>(body: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)) as { [K in keyof T]: Exclude<T[K], null> };
}

const ruleBody = {
  type: 'object',
  required: ['name', 'currency'],
  additionalProperties: false,
  properties: { name: text(256), percentBasisPoints: basisPoints, fixedFeeMinor: fixedFee, currency: currencySchema, isActive: { type: 'boolean' } },
};
const ruleUpdateBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { percentBasisPoints: basisPoints, fixedFeeMinor: fixedFee, isActive: { type: 'boolean' } },
};
const sellerBody = {
  type: 'object',
  required: ['sellerId', 'displayName'],
  additionalProperties: false,
  properties: { sellerId: sellerIdSchema, displayName: text(256), settlementMode, settlementDelayDays },
};
const settlementBody = { type: 'object', minProperties: 1, additionalProperties: false, properties: { settlementMode, settlementDelayDays } };
const MAX_ORDER_LINES = 100;
const orderLine = {
  type: 'object',
  required: ['sellerId', 'amountMinor'],
  additionalProperties: false,
  properties: { sellerId: sellerIdSchema, amountMinor, description: optionalText(500), commissionRuleId: uuid },
};
const orderBody = {
  type: 'object',
  required: ['currency', 'transactionCountry', 'lines'],
  additionalProperties: false,
  properties: {
    currency: currencySchema,
    transactionCountry: countrySchema,
    idempotencyKey: optionalText(64),
    buyerName: optionalText(256),
    buyerEmail: { type: ['string', 'null'], format: 'email', maxLength: 256 },
    lines: { type: 'array', minItems: 1, maxItems: MAX_ORDER_LINES, items: orderLine },
  },
};
const refundBody = {
  type: 'object',
  required: ['orderId'],
  additionalProperties: false,
  properties: { orderId: uuid, amountMinor, reason: optionalText(1000) },
};
const MAX_SETTLEMENT_ITEMS = 1000;
/** Bodies get no defaults from their schema (only queries do): process-due's own. */
const DEFAULT_SETTLEMENT_ITEMS = 100;
const processDueBody = {
  type: 'object',
  additionalProperties: false,
  properties: { currency: currencySchema, maxItems: { type: 'integer', minimum: 1, maximum: MAX_SETTLEMENT_ITEMS, description: `Default ${DEFAULT_SETTLEMENT_ITEMS}` } },
};

const payoutBody = {
  type: 'object',
  required: ['amountMinor', 'currency'],
  additionalProperties: false,
  // challengeId: live, a signed-in user paying an inline destination the merchant never paid (docs/decisions.md, "Payouts").
  properties: { amountMinor, currency: currencySchema, destination: destinationSchema, payoutMethodId: uuid, metadata: metadataSchema, challengeId: uuid },
};
const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'];

const nullableText = { type: ['string', 'null'] };
const nullableInteger = { type: ['integer', 'null'] };
const ruleSchema = resourceSchema('marketplace_commission_rule', ['name', 'percentBasisPoints', 'fixedFeeMinor', 'currency', 'isActive'], {
  name: { type: 'string' },
  percentBasisPoints: { type: 'integer' },
  fixedFeeMinor: { type: 'integer' },
  currency: { type: 'string' },
  isActive: { type: 'boolean' },
  status: { enum: ['active', 'inactive'] },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
});
const sellerSchema = resourceSchema('marketplace_seller', ['sellerId', 'displayName', 'settlementMode', 'settlementDelayDays'], {
  sellerId: { type: 'string' },
  displayName: { type: 'string' },
  settlementMode,
  settlementDelayDays: { type: 'integer' },
  status: { const: 'active' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
});
const sellerAmount = { type: 'object', properties: { sellerId: { type: 'string' }, amountMinor: { type: 'integer' } } };
const orderSchema = resourceSchema('marketplace_order', ['status', 'currency', 'amountMinor', 'commissionMinor', 'paymentIntentId', 'lines', 'sellerShares'], {
  status: { enum: [...ORDER_STATUSES] },
  currency: { type: 'string' },
  transactionCountry: { type: 'string' },
  amountMinor: { type: 'integer' },
  commissionMinor: { type: 'integer' },
  processingFeeMinor: nullableInteger,
  refundedMinor: { type: 'integer' },
  idempotencyKey: nullableText,
  buyerName: nullableText,
  buyerEmail: nullableText,
  paymentIntentId: { type: 'string' },
  lines: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        sellerId: { type: 'string' },
        description: nullableText,
        amountMinor: { type: 'integer' },
        commissionRuleId: nullableText,
        commissionMinor: { type: 'integer' },
      },
    },
  },
  sellerShares: { type: 'array', items: sellerAmount },
  paidAt: nullableInteger,
  canceledAt: nullableInteger,
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
const refundSchema = resourceSchema('marketplace_refund', ['orderId', 'amountMinor', 'currency', 'status', 'sellerReversals', 'commissionReversedMinor'], {
  orderId: { type: 'string' },
  amountMinor: { type: 'integer' },
  currency: { type: 'string' },
  reason: nullableText,
  status: { const: 'succeeded' },
  sellerReversals: {
    type: 'array',
    items: { type: 'object', properties: { sellerId: { type: 'string' }, amountMinor: { type: 'integer' }, fromPendingMinor: { type: 'integer' } } },
  },
  commissionReversedMinor: { type: 'integer' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
const settlementSchema = resourceSchema('marketplace_settlement', ['orderId', 'sellerId', 'currency', 'amountMinor'], {
  orderId: { type: 'string' },
  sellerId: { type: 'string' },
  currency: { type: 'string' },
  amountMinor: { type: 'integer' },
  status: { const: 'settled' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
const settlementRunSchema = {
  type: 'object',
  properties: {
    object: { const: 'marketplace_settlement_run' },
    settledCount: { type: 'integer' },
    settledMinor: { type: 'array', items: { type: 'object', properties: { currency: { type: 'string' }, amountMinor: { type: 'integer' } } } },
    settlements: { type: 'array', items: settlementSchema },
    hasMore: { type: 'boolean', description: 'More shares were due than maxItems: call again' },
  },
};
const sellerBalanceSchema = {
  type: 'object',
  properties: {
    object: { const: 'marketplace_seller_balance' },
    id: { type: 'string' },
    sellerId: { type: 'string' },
    livemode: { type: 'boolean' },
    balances: {
      type: 'array',
      items: { type: 'object', properties: { currency: { type: 'string' }, pendingMinor: { type: 'integer' }, availableMinor: { type: 'integer' } } },
    },
  },
};
const payoutSchema = resourceSchema('marketplace_payout', ['sellerId', 'amountMinor', 'feeMinor', 'currency', 'status', 'destination'], {
  sellerId: { type: 'string' },
  amountMinor: { type: 'integer' },
  feeMinor: { type: 'integer', description: 'Paid out of the seller’s funds with the amount' },
  currency: { type: 'string' },
  status: { enum: PAYOUT_STATUSES },
  destination: { type: 'object' },
  payoutMethodId: nullableText,
  failureCode: nullableText,
  failureMessage: nullableText,
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
const fundsSchema = {
  type: 'object',
  properties: {
    object: { const: 'marketplace_balance' },
    livemode: { type: 'boolean' },
    balances: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          currency: { type: 'string' },
          sellerPendingMinor: { type: 'integer' },
          sellerAvailableMinor: { type: 'integer' },
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
export function marketplaceFamily(knex: Knex, marketplace: Marketplace): Family {
  const sellerOf = (owner: Parameters<typeof findMarketplaceSeller>[1], id: string) => found('marketplace seller', id, findMarketplaceSeller(knex, owner, id));
  return {
    name: 'marketplace',
    description: 'Marketplaces: sellers, commission rules, orders split between sellers and the platform, seller balances, settlements and refunds.',
    routes: [
      route<CreateCommissionRuleInput>({
        method: 'post',
        path: `${BASE}/commission-rules`,
        summary: 'Create a commission rule: a percentage (basis points) of each order line it applies to, plus a fixed fee, in one currency',
        auth: write,
        body: ruleBody,
        response: ruleSchema,
        handler: (ctx) => marketplace.commissionRules.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: 'active' | 'inactive'; currency?: string }>({
        method: 'get',
        path: `${BASE}/commission-rules`,
        summary: 'List commission rules, newest first (cursor-paged), by status and currency',
        auth: read,
        query: cursorQuery({ status: { enum: ['active', 'inactive'] }, currency: currencySchema }),
        response: cursorListSchema(ruleSchema),
        handler: (ctx) =>
          listCommissionRules(knex, ctx.owner, ctx.query, `${BASE}/commission-rules`, { status: ctx.query.status, currency: ctx.query.currency?.toLowerCase() }),
      }),
      retrieveRoute({
        path: `${BASE}/commission-rules/:id`,
        noun: 'commission rule',
        summary: 'Retrieve a commission rule',
        auth: read,
        response: ruleSchema,
        find: (owner, id) => findCommissionRule(knex, owner, id),
      }),
      route<UpdateCommissionRuleInput, unknown, { id: string }>({
        method: 'patch',
        path: `${BASE}/commission-rules/:id`,
        fields: { commissionRuleId: 'id' },
        summary: 'Change a rule’s percentage or fixed fee, or switch it on or off; orders already created keep the commission they were given',
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
        auth: read,
        query: cursorQuery({ settlementMode }),
        response: cursorListSchema(sellerSchema),
        handler: (ctx) => listMarketplaceSellers(knex, ctx.owner, ctx.query, `${BASE}/sellers`, { settlement_mode: ctx.query.settlementMode }),
      }),
      retrieveRoute({
        path: `${BASE}/sellers/:id`,
        noun: 'marketplace seller',
        summary: 'Retrieve a seller by its id (uuid)',
        auth: read,
        response: sellerSchema,
        find: (owner, id) => findMarketplaceSeller(knex, owner, id),
      }),
      route<Partial<SellerSettlement>, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/sellers/:id/settlement`,
        fields: { marketplaceSellerId: 'id' },
        summary: 'Change a seller’s settlement mode or delay; it applies at once to their shares still pending',
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
        auth: read,
        query: cursorQuery({ status: { enum: [...ORDER_STATUSES] }, currency: currencySchema }),
        response: cursorListSchema(orderSchema),
        handler: (ctx) => listMarketplaceOrders(knex, ctx.owner, ctx.query, `${BASE}/orders`, { status: ctx.query.status, currency: ctx.query.currency?.toLowerCase() }),
      }),
      retrieveRoute({
        path: `${BASE}/orders/:id`,
        noun: 'marketplace order',
        summary: 'Retrieve an order: its lines, seller shares, commission, payment and refunds so far',
        auth: read,
        response: orderSchema,
        find: (owner, id) => findMarketplaceOrder(knex, owner, id),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/orders/:id/cancel`,
        summary: 'Cancel an order awaiting payment, and its payment intent',
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
        auth: read,
        query: cursorQuery({ orderId: uuid }),
        response: cursorListSchema(refundSchema),
        handler: (ctx) => listMarketplaceRefunds(knex, ctx.owner, ctx.query, `${BASE}/refunds`, { order_id: ctx.query.orderId }),
      }),
      retrieveRoute({
        path: `${BASE}/refunds/:id`,
        noun: 'marketplace refund',
        summary: 'Retrieve a refund with what each seller and the commission gave back',
        auth: read,
        response: refundSchema,
        find: (owner, id) => findMarketplaceRefund(knex, owner, id),
      }),
      route<{ currency?: string; maxItems?: number }>({
        method: 'post',
        path: `${BASE}/settlements/process-due`,
        summary: 'Move the sellers’ shares that are due by their settlement mode and delay from pending to available (at most maxItems, oldest first)',
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
        auth: read,
        query: cursorQuery({ sellerId: sellerIdSchema, currency: currencySchema }),
        response: cursorListSchema(settlementSchema),
        handler: (ctx) =>
          listMarketplaceSettlements(knex, ctx.owner, ctx.query, `${BASE}/settlements`, {
            seller_ref: ctx.query.sellerId === undefined ? undefined : sellerUuid(ctx.owner.merchantId, ctx.owner.environment, ctx.query.sellerId),
            currency: ctx.query.currency?.toLowerCase(),
          }),
      }),
      retrieveRoute({
        path: `${BASE}/settlements/:id`,
        noun: 'marketplace settlement',
        summary: 'Retrieve a settlement: one seller’s share of one order moved to available',
        auth: read,
        response: settlementSchema,
        find: (owner, id) => findMarketplaceSettlement(knex, owner, id),
      }),
      route<SellerPayoutInput & { challengeId?: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/sellers/:id/payouts`,
        summary: 'Pay out a seller’s available funds to a mobile money or bank destination (or a saved payout method): an ordinary payout, its amount and fee held from the seller’s funds and given back to them if it fails',
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
        auth: read,
        query: cursorQuery({ sellerId: sellerIdSchema, status: { enum: PAYOUT_STATUSES } }),
        response: cursorListSchema(payoutSchema),
        handler: (ctx) =>
          listMarketplacePayouts(knex, ctx.owner, ctx.query, `${BASE}/payouts`, {
            seller_ref: ctx.query.sellerId === undefined ? undefined : sellerUuid(ctx.owner.merchantId, ctx.owner.environment, ctx.query.sellerId),
            status: ctx.query.status,
          }),
      }),
      retrieveRoute({
        path: `${BASE}/payouts/:id`,
        noun: 'marketplace payout',
        summary: 'Retrieve a payout to a seller (also GET /api/v1/payouts/{id}, as any payout)',
        auth: read,
        response: payoutSchema,
        find: (owner, id) => findMarketplacePayout(knex, owner, id),
      }),
      route({
        method: 'get',
        path: `${BASE}/balance`,
        summary: 'The marketplace’s funds per currency: what sellers hold, pending and available, and the platform’s commission',
        auth: read,
        response: fundsSchema,
        handler: async (ctx) => ({ object: 'marketplace_balance', livemode: ctx.principal.livemode, balances: await marketplaceFundsTotals(knex, ctx.owner) }),
      }),
    ],
  };
}
