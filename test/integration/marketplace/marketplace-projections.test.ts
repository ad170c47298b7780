/**
 * The marketplace funds' read model, the marketplace's entries of the one ledger in and rows out: account balances, each seller's share
 * of each order with what is still pending (what settlements are due from), settlements, and the
 * entries the balance's seller_funds sum over; a refund's reversals fill in the refund row.
 */
import { holdOnSeller, postOrderPayment, refundOrder, settleShare } from '#packages/families/marketplace/marketplace-order/postings.js';
import t from '#tap';
import { fold, rendered, type Fact } from '#packages/core/decider.js';
import type { LedgerAction } from '#packages/ledger/decider.js';
import type { LedgerCommand } from '#packages/ledger/decider.js';
import { familiesLedger } from '../../support/ledger.js';
import type { LedgerEvent } from '#packages/families/ledger/events.js';
import { orderAggregate } from '#packages/families/marketplace/marketplace-order/render.js';
import type { OrderCommand } from '#packages/families/marketplace/marketplace-order/decider.js';
import type { OrderCreated, OrderEvent } from '#packages/families/marketplace/marketplace-order/events.js';
import { marketplaceFundsProjection } from '#packages/families/marketplace/read/marketplace-funds.js';
import { marketplaceRefundsProjection } from '#packages/families/marketplace/read/marketplace-refunds.js';
import { projectionSpec } from '../../support/projection-spec.js';
// The ledger's decider checks postings against the chart of accounts, which the family list assembles.
import '#packages/families/index.js';

const owner = { merchantId: 'acct_p', environment: 'sandbox' as const };
const at = new Date('2026-03-02T10:00:00Z');
let n = 0;
const funds = (action: LedgerAction, events: LedgerEvent[]) => familiesLedger.decider.decide({ ...action, ...owner, currency: 'xof', at, newEntryId: () => `entry-${++n}` } as LedgerCommand, fold(familiesLedger.decider, events));
const metadata = { merchant_id: owner.merchantId, environment: owner.environment };

t.test('payment, refund, settlement and a seller payout, as rows', async (t) => {
  const spec = await projectionSpec(t, marketplaceFundsProjection, marketplaceRefundsProjection);
  const log: LedgerEvent[] = [];
  const post = async (action: LedgerAction) => {
    const events = funds(action, log);
    log.push(...events);
    await spec.given(events.map((e) => ({ ...e, metadata })));
  };
  await post(
    postOrderPayment({
      orderId: 'o1',
      clearing: 'card_clearing',
      amount: 10_000,
      fee: 300,
      shares: [
        { sellerRef: 'ra', sellerId: 'a', amount: 6_000 },
        { sellerRef: 'rb', sellerId: 'b', amount: 2_000 },
      ],
      commission: 2_000,
    }),
  );
  await spec.thenRows(t, 'read.marketplace_shares', [
    { order_id: 'o1', seller_ref: 'ra', seller_id: 'a', pending: '6000' },
    { order_id: 'o1', seller_ref: 'rb', seller_id: 'b', pending: '2000' },
  ]);

  const order: OrderCreated = {
    id: 'o1',
    ...owner,
    currency: 'xof',
    transactionCountry: 'SN',
    idempotencyKey: null,
    buyerName: null,
    buyerEmail: null,
    paymentIntentId: 'pi_1',
    lines: [],
    amountMinor: 10_000,
    commissionMinor: 2_000,
    createdAt: at.toISOString(),
  };
  // What the command handler appends: the order's facts, each with the order after it.
  const decide = (command: OrderCommand, history: Fact<OrderEvent>[]) => {
    const state = fold(orderAggregate, history);
    return rendered(orderAggregate, state, orderAggregate.decide(command, state));
  };
  const created = decide({ type: 'create', order }, []);
  const paid = decide({ type: 'mark_paid', owner, at, fee: 300 }, created);
  const refunded = decide({ type: 'refund', owner, at, refundId: 'f1', amountMinor: 1_000, reason: 'late' }, [...created, ...paid]);
  await spec.given(refunded.map((e) => ({ ...e, metadata })));
  await post(refundOrder({ refundId: 'f1', orderId: 'o1', amount: 1_000 }));
  const [refund] = await spec.thenRows(t, 'read.marketplace_refunds', [{ id: 'f1', order_id: 'o1', merchant_id: 'acct_p', status: 'succeeded' }]);
  t.match(refund!.object, {
    amountMinor: 1_000,
    reason: 'late',
    commissionReversedMinor: 200,
    sellerReversals: [
      { sellerId: 'a', amountMinor: 600, fromPendingMinor: 600 },
      { sellerId: 'b', amountMinor: 200, fromPendingMinor: 200 },
    ],
  });

  await post(settleShare({ orderId: 'o1', sellerRef: 'ra' }));
  await post(holdOnSeller({ source: 'po_1', amount: 5_000, fee: 100, seller: { sellerRef: 'ra', sellerId: 'a' } }));
  await spec.thenRows(t, 'read.marketplace_shares', [
    { order_id: 'o1', seller_ref: 'ra', pending: '0' },
    { order_id: 'o1', seller_ref: 'rb', pending: '1800' },
  ]);
  const [settlement] = await spec.thenRows(t, 'read.marketplace_settlements', [{ seller_ref: 'ra', currency: 'xof', status: 'settled' }]);
  t.match(settlement!.object, { object: 'marketplace_settlement', orderId: 'o1', sellerId: 'a', amountMinor: 5_400 });
  const entries = await spec.rows('read.marketplace_entries');
  t.same(
    entries.map((e) => [e.kind, e.seller_pending, e.seller_available]),
    [
      ['order_payment', '8000', '0'],
      ['order_refund', '-800', '0'],
      ['seller_settlement', '-5400', '5400'],
      ['seller_payout_hold', '0', '-5100'],
    ],
  );
});
