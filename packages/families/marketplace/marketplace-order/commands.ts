import type { Fact } from '#packages/core/decider.js';
import type { Clock } from '#packages/core/clock.js';
import { isRefused, Refusal, refusedField } from '#packages/core/refusal.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { CommandService, handleSteps, step } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { Ledger } from '#packages/ledger/decider.js';
import { assertOwned, isOwned } from '#packages/core/aggregate.js';
import type { CommissionRules } from '../commission-rule/commands.js';
import { commissionOn } from '../commission-rule/events.js';
import { ledgerStep, runLedger } from '#packages/families/ledger/index.js';
import type { MarketplaceSellers } from '../marketplace-seller/commands.js';
import { postOrderPayment, refundOrder, settleShare, type MarketplaceEntry } from './postings.js';
import { MARKETPLACE_ORDER_METADATA_KEY, type PaymentIntents } from '#packages/families/payments/index.js';
import type { PaymentRecipient } from '#packages/families/payments/index.js';
import type { MarketplaceDueShares } from '#packages/families/read-ports.js';
import type { OrderCommand, OrderState } from './decider.js';
import { orderAggregate, toOrderObject } from './render.js';
import { orderStream, sellerShares, type OrderEvent, type OrderLine, type OrderObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

export interface OrderLineInput {
  sellerId: string;
  amountMinor: number;
  description?: string;
  commissionRuleId?: string;
}

export interface CreateOrderInput {
  currency: string;
  transactionCountry: string;
  idempotencyKey?: string;
  buyerName?: string;
  buyerEmail?: string;
  lines: OrderLineInput[];
}

export interface RefundOrderInput {
  orderId: string;
  amountMinor?: number;
  reason?: string;
}

export interface SettlementRun {
  settled: MarketplaceEntry[];
  hasMore: boolean;
}

export interface MarketplaceOrderDeps {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  paymentIntents: Pick<PaymentIntents, 'create' | 'cancel' | 'load'>;
  sellers: Pick<MarketplaceSellers, 'bySellerId'>;
  commissionRules: Pick<CommissionRules, 'usable'>;
  dueShares: MarketplaceDueShares;
}

/** The intent's fields an order names otherwise: its amount is the lines' total. */
const INTENT_FIELDS: Record<string, string> = { amount: 'lines' };

/**
 * Orders of a marketplace: created with one payment intent for all their lines; on the intent's
 * success split into seller shares and commission on the marketplace funds; refunded in
 * proportion; sellers' shares settled from pending to available when due.
 */
export class MarketplaceOrders extends CommandService<OrderCommand, OrderState, Fact<OrderEvent>> {
  constructor(private readonly deps: MarketplaceOrderDeps) {
    super(deps.store, orderStream, orderAggregate);
  }

  /**
   * Creates an order and its payment intent. The order's id comes from the body's idempotencyKey
   * (or the Idempotency-Key header), and the intent's from the order's, so a retry lands on both.
   */
  async create(owner: Owner, input: CreateOrderInput, actor: Actor, requestRef?: string): Promise<OrderObject> {
    const seed = input.idempotencyKey !== undefined ? `key:${input.idempotencyKey}` : requestRef !== undefined ? `ref:${requestRef}` : null;
    const id = seed === null ? newUuid() : derivedUuid(`marketplace_order|${owner.merchantId}|${owner.environment}|${seed}`);
    const earlier = await this.load(id);
    if (earlier.state.order) return toOrderObject(earlier.state);

    const currency = input.currency.toLowerCase();
    const lines: OrderLine[] = [];
    for (const [n, line] of input.lines.entries()) {
      const seller = await this.deps.sellers.bySellerId(owner, line.sellerId);
      if (!seller) throw new Refusal('IKW-MKT-002', `No marketplace seller with sellerId '${line.sellerId}'`, `lines.${n}.sellerId`);
      let commissionMinor = 0;
      if (line.commissionRuleId !== undefined) {
        const rule = await this.deps.commissionRules.usable(owner, line.commissionRuleId);
        if (!rule || !rule.isActive || rule.currency !== currency) {
          const why = !rule ? 'is not one of your commission rules' : !rule.isActive ? 'is inactive' : `is in ${rule.currency}, not ${currency}`;
          throw new Refusal('IKW-MKT-003', `Commission rule '${line.commissionRuleId}' ${why}`, `lines.${n}.commissionRuleId`);
        }
        commissionMinor = commissionOn(rule, line.amountMinor);
      }
      lines.push({
        sellerId: line.sellerId,
        sellerRef: seller.id,
        description: line.description ?? null,
        amountMinor: line.amountMinor,
        commissionRuleId: line.commissionRuleId ?? null,
        commissionMinor,
      });
    }
    const amountMinor = lines.reduce((s, l) => s + l.amountMinor, 0);
    const commissionMinor = lines.reduce((s, l) => s + l.commissionMinor, 0);

    let intent;
    try {
      intent = await this.deps.paymentIntents.create(owner, { amount: amountMinor, currency: input.currency, transactionCountry: input.transactionCountry, description: `Marketplace order ${id}` }, actor, `marketplace_order:${id}`, {
        [MARKETPLACE_ORDER_METADATA_KEY]: id,
      });
    } catch (err) {
      const field = isRefused(err) ? refusedField(err) : undefined;
      if (isRefused(err) && field !== undefined && Object.hasOwn(INTENT_FIELDS, field)) throw new Refusal(err.code, err.message, INTENT_FIELDS[field]);
      throw err;
    }
    const result = await this.run(
      id,
      {
        type: 'create',
        order: {
          id,
          ...owner,
          currency,
          transactionCountry: input.transactionCountry.toUpperCase(),
          idempotencyKey: input.idempotencyKey ?? null,
          buyerName: input.buyerName ?? null,
          buyerEmail: input.buyerEmail ?? null,
          paymentIntentId: intent.id,
          lines,
          amountMinor,
          commissionMinor,
          createdAt: this.deps.clock.now().toISOString(),
        },
      },
      auditMetadata(this.deps.clock, owner, id, actor),
    );
    return toOrderObject(result.state);
  }

  /** Cancels an unpaid order and its payment intent; an intent already with the operator cannot be called back. */
  async cancel(owner: Owner, id: string, actor: Actor): Promise<OrderObject> {
    const { state } = await this.load(id);
    const order = state.order;
    assertOwned(order, owner, `No such marketplace order: '${id}'`, 'orderId');
    if (state.status === 'requires_payment') {
      const intent = await this.deps.paymentIntents.load(order.paymentIntentId);
      const status = intent.state.status;
      if (status === 'requires_payment_method' || status === 'requires_action') {
        await this.deps.paymentIntents.cancel(owner, order.paymentIntentId, 'requested_by_customer', actor);
      } else if (status === 'processing' || status === 'succeeded') {
        throw new Refusal('IKW-MKT-004', `The order's payment is ${status}; it cannot be canceled`, 'orderId');
      }
    }
    const result = await this.run(id, { type: 'cancel', owner, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, id, actor));
    return toOrderObject(result.state);
  }

  /**
   * The success of an order's payment intent (platform metadata `internal.marketplace_order`) as
   * steps of the intent's commit: the order is paid and its money split on the marketplace funds,
   * together with the intent's outcome. Idempotent (a repeated callback decides nothing). Null
   * when the intent pays no order of this owner, so the payment is the merchant's as usual.
   */
  readonly paymentRecipient: PaymentRecipient = {
    name: 'marketplace_order',
    moneyOf: async ({ intent, fee, clearing }, meta) => {
      const orderId = intent.metadata[MARKETPLACE_ORDER_METADATA_KEY];
      if (orderId === undefined) return null;
      const owner = { merchantId: intent.merchantId, environment: intent.environment };
      const { state } = await this.load(orderId);
      const order = state.order;
      if (!isOwned(order, owner) || order.paymentIntentId !== intent.id) return null;
      const shares = sellerShares(order.lines).map((s) => ({ sellerRef: s.sellerRef, sellerId: s.sellerId, amount: s.amountMinor }));
      const at = this.deps.clock.now();
      const ref = { ...owner, currency: order.currency };
      const steps = [
        step({ streamId: orderStream(order.id), decider: orderAggregate, command: { type: 'mark_paid', owner, at, fee }, metadata: meta }),
        ledgerStep(this.deps, ref, postOrderPayment({ orderId: order.id, clearing, amount: intent.amount, fee, shares, commission: order.commissionMinor }), meta),
      ];
      return { steps, after: null };
    },
    // An order's payment is its sellers' and the commission's, not the merchant's balance (docs/marketplace.md).
    assertRefundable: async ({ intent }) => {
      const orderId = intent.metadata[MARKETPLACE_ORDER_METADATA_KEY];
      if (orderId === undefined || !(await this.load(orderId)).state.order) return;
      throw new Refusal('IKW-MKT-008', `Payment ${intent.id} pays marketplace order ${orderId}; refund it with POST /api/v1/marketplace/refunds`, 'paymentId');
    },
  };

  /**
   * Refunds part or all (`amountMinor` left out) of a paid order. The order's refundable remainder
   * and the sellers' funds are checked and the reversal posted in one commit; parallel refunds decide
   * again on what the others left (never 409), so together they never exceed the amount paid.
   * Returns the refund's id.
   */
  async refund(owner: Owner, input: RefundOrderInput, actor: Actor, requestRef?: string): Promise<string> {
    const { state } = await this.load(input.orderId);
    const order = state.order;
    assertOwned(order, owner, `No such marketplace order: '${input.orderId}'`, 'orderId');
    const refundId = requestRef === undefined ? newUuid() : derivedUuid(`marketplace_refund|${owner.merchantId}|${owner.environment}|${requestRef}`);
    if (state.refunds.has(refundId)) return refundId;
    const amountMinor = input.amountMinor ?? order.amountMinor - state.refundedMinor;
    if (amountMinor < 1) throw new Refusal('IKW-MKT-004', `Order ${order.id} is ${state.status}; nothing remains to refund`, 'orderId');
    const meta = auditMetadata(this.deps.clock, owner, order.id, actor);
    const at = this.deps.clock.now();
    await handleSteps(
      this.deps.store,
      [
        step({ streamId: orderStream(order.id), decider: orderAggregate, command: { type: 'refund', owner, at, refundId, amountMinor, reason: input.reason ?? null }, metadata: meta }),
        ledgerStep(this.deps, { ...owner, currency: order.currency }, refundOrder({ refundId, orderId: order.id, amount: amountMinor }), meta),
      ],
      { onConflict: 'contended' },
    );
    return refundId;
  }

  /**
   * Moves the sellers' shares that are due (by each seller's settlement mode and delay) from
   * pending to available, at most `maxItems` of them, oldest payment first.
   */
  async processDue(owner: Owner, input: { currency?: string; maxItems: number }, actor: Actor): Promise<SettlementRun> {
    const at = this.deps.clock.now();
    const due = await this.deps.dueShares.dueShares(owner, input.currency?.toLowerCase(), at, input.maxItems + 1);
    const settled: MarketplaceEntry[] = [];
    for (const share of due.slice(0, input.maxItems)) {
      const result = await runLedger(
        this.deps,
        owner.merchantId,
        owner.environment,
        share.currency,
        settleShare({ orderId: share.orderId, sellerRef: share.sellerRef }),
        auditMetadata(this.deps.clock, owner, share.orderId, actor),
        'contended',
      );
      settled.push(...result.events.map((e) => e.data as MarketplaceEntry));
    }
    return { settled, hasMore: due.length > input.maxItems };
  }
}
