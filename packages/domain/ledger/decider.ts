import { Refusal } from '../../core/refusal.js';
import type { Decider } from '../../core/decider.js';
import { PersistentMap } from '../../core/persistent-map.js';
import { mayGoNegative } from './accounts.js';
import { allocateRefund } from './allocation.js';
import {
  assertRefundableThrough,
  escrowAccount,
  railClearing,
  refundLeg,
  sellerAvailable,
  sellerPending,
  type Account,
  type ClearingAccount,
  type EntryKind,
  type EntryPosted,
  type LedgerEvent,
  type Line,
  type RefundReversal,
  type SellerPart,
} from './events.js';
import type { Environment } from '../../core/owner.js';

export interface LedgerContext {
  merchantId: string;
  environment: Environment;
  currency: string;
  at: Date;
  /** Id for each new entry, supplied by the caller so the decider stays pure. */
  newEntryId: () => string;
}

export type LedgerCommand = LedgerContext &
  (
    | { type: 'post_payment'; source: string; clearing: Account; amount: number; fee: number; availableOn: Date; escrowContract?: string }
    | { type: 'settle_due' }
    // A payout's hold of amount (what it sends) + fee, on the account it is funded from (`from`, default `available`).
    | { type: 'hold_payout'; source: string; amount: number; fee: number; from?: PayoutFunds }
    | { type: 'complete_payout'; source: string; clearing: Account }
    | { type: 'release_payout'; source: string }
    | { type: 'refund'; source: string; payment: string; clearing: Account; amount: number }
    // The rail's answer to a refund sent through it (docs/ledger.md, "Refunds through a rail"): sent, or returned where it came from.
    | { type: 'end_rail_refund'; source: string; outcome: 'sent' | 'returned' }
    | { type: 'hold_batch'; source: string; amount: number; fee: number }
    | { type: 'release_batch'; source: string }
    | { type: 'fund_escrow'; source: string; contract: string; amount: number }
    | { type: 'release_escrow'; source: string; contract: string; amount: number }
    | { type: 'refund_escrow'; source: string; contract: string; amount: number; to: Account }
    | { type: 'move_campaign_funds'; campaign: string; moves: CampaignMove[] }
    // Marketplace funds (docs/marketplace.md): an order's payment split among its sellers and the commission, refunds, settlements, payouts to sellers.
    | { type: 'post_order_payment'; orderId: string; clearing: ClearingAccount; amount: number; fee: number; shares: SellerPart[]; commission: number }
    | { type: 'refund_order'; refundId: string; orderId: string; amount: number }
    | { type: 'settle_share'; orderId: string; sellerRef: string }
  );

/**
 * One movement of a funding campaign's held funds (docs/funding.md): a contribution comes in
 * (gross, from the payment's clearing), goes back (from the campaign's account, or from
 * `available` once released), or the campaign's funds are released to the organizer.
 */
export type CampaignMove =
  | { kind: 'contribution'; source: string; clearing: Account; amount: number }
  | { kind: 'refund'; source: string; clearing: Account; amount: number }
  | { kind: 'refund_released'; source: string; clearing: Account; amount: number }
  | { kind: 'release'; source: string; amount: number; fee: number };

/**
 * Where a payout's money comes from: the merchant's available balance, a payout batch's hold (the
 * batch reserved every item at execution), an escrow contract (a release paid out), or a
 * marketplace seller's available funds. The one hold of the ledger takes any of them.
 */
export type PayoutFunds =
  | { kind: 'available' }
  | { kind: 'batch'; batch: string }
  | { kind: 'escrow'; contract: string }
  | { kind: 'seller'; seller: Omit<SellerPart, 'amount'> };

interface PendingPayment {
  source: string;
  net: number;
  availableOn: string;
}

/**
 * Funds held for a payout in flight (or a batch's execution): amount + fee, the fee part, the
 * account they wait on, and where they go back should the payout fail.
 */
interface Hold {
  total: number;
  fee: number;
  /** `reserved`, or `seller_payouts` for a payout to a marketplace seller. */
  heldIn: Account;
  /** `available`, the escrow contract's account a release's payout came from, or the seller's available funds. */
  returnTo: Account;
  contract?: string;
  seller?: SellerPart;
}

/** A seller's share of one paid order: what is not refunded yet, and of that what is still pending. */
interface Share {
  sellerRef: string;
  sellerId: string;
  unrefunded: number;
  pending: number;
}

/** The marketplace funds of one paid order: where its money came through, its shares, the commission not refunded yet. */
interface OrderFunds {
  clearing: ClearingAccount;
  shares: Share[];
  commission: number;
}

/** A refund entry whose money waits on a rail's refunds in flight for the rail's answer: its lines, to reverse should it fail. */
interface RailRefund {
  kind: EntryKind;
  lines: Line[];
  amount: number;
  net: number;
  /** The rail: `rail_refunds:<connector>` holds the money, `rail_clearing:<connector>` takes it when sent. */
  connector: string;
}

export interface LedgerState {
  /** Persistent, like `posted`: one per campaign and escrow contract too, so it grows with the merchant. */
  balances: PersistentMap<number, Account>;
  /** `kind:source` of every entry posted: commands are idempotent per object. Persistent: copying it per entry made the stream's fold quadratic. */
  posted: PersistentMap<true>;
  pending: PendingPayment[];
  holds: Map<string, Hold>;
  /** Paid marketplace orders (persistent: they grow with the merchant). */
  orders: PersistentMap<OrderFunds>;
  /** Refunds sent through a rail and not answered yet, by source (few at a time, like `holds`). */
  railRefunds: Map<string, RailRefund>;
}

export function balanceOf(state: LedgerState, account: Account): number {
  return state.balances.get(account) ?? 0;
}

export function isBalanced(lines: readonly Line[]): boolean {
  return lines.reduce((sum, l) => sum + l.amount, 0) === 0 && lines.every((l) => Number.isSafeInteger(l.amount));
}

function entry(
  ctx: LedgerContext,
  kind: EntryKind,
  source: string,
  lines: Line[],
  amounts: Pick<EntryPosted, 'amount' | 'fee' | 'net' | 'batch' | 'contract' | 'campaign' | 'orderId' | 'shares' | 'commission' | 'reversals' | 'seller'>,
  availableOn = ctx.at,
): LedgerEvent {
  if (!isBalanced(lines)) throw new Error(`Unbalanced ${kind} entry for ${source}`);
  const data: EntryPosted = {
    entryId: ctx.newEntryId(),
    kind,
    source,
    merchantId: ctx.merchantId,
    environment: ctx.environment,
    currency: ctx.currency.toLowerCase(),
    lines: lines.filter((l) => l.amount !== 0),
    ...amounts,
    availableOn: availableOn.toISOString(),
    postedAt: ctx.at.toISOString(),
  };
  return { type: 'ledger.entry_posted', data };
}

function settlements(state: LedgerState, ctx: LedgerContext, at: Date): LedgerEvent[] {
  return state.pending
    .filter((p) => new Date(p.availableOn).getTime() <= at.getTime())
    .map((p) =>
      entry(ctx, 'payment_settlement', p.source, [
        { account: 'pending', amount: -p.net },
        { account: 'available', amount: p.net },
      ], { amount: p.net, fee: 0, net: p.net }),
    );
}

function assertAmounts(...amounts: number[]): void {
  for (const a of amounts) if (!Number.isSafeInteger(a) || a < 0) throw new Error(`Ledger amounts must be non-negative integers, got ${a}`);
}

/** The amounts of an entry without fee, as the merchant's balance sees them. */
const signed = (amount: number) => ({ amount, fee: 0, net: amount });

/**
 * A movement out of a contract's escrow: the contract decided it, so running short means the two
 * disagree, a bug rather than a refusal; the escrow account never goes below zero.
 */
function assertEscrowCovers(state: LedgerState, command: { contract: string; amount: number }): void {
  assertAmounts(command.amount);
  const held = balanceOf(state, escrowAccount(command.contract));
  if (held < command.amount) throw new Error(`Escrow ${command.contract} holds ${held}, less than ${command.amount}`);
}

/**
 * The balance of one merchant × environment × currency as a Decider. Every entry balances;
 * `available` never goes below zero (a payout hold that would overdraw it is refused). Because the
 * balance is one stream, a hold and its balance check are one append with an expected version.
 */
export const ledgerDecider: Decider<LedgerCommand, LedgerState, LedgerEvent> = {
  initialState: { balances: PersistentMap.empty(), posted: PersistentMap.empty(), pending: [], holds: new Map(), orders: PersistentMap.empty(), railRefunds: new Map() },

  evolve(state, event) {
    const e = event.data;
    let balances = state.balances;
    for (const line of e.lines) balances = balances.set(line.account, (balances.get(line.account) ?? 0) + line.amount);
    const posted = state.posted.set(`${e.kind}:${e.source}`, true);
    let { pending, holds, orders, railRefunds } = state;
    const order = e.orderId === undefined ? undefined : orders.get(e.orderId);
    switch (e.kind) {
      case 'payment':
        pending = [...pending, { source: e.source, net: e.net, availableOn: e.availableOn }];
        break;
      case 'payment_settlement':
        pending = pending.filter((p) => p.source !== e.source);
        break;
      case 'payout_hold':
      case 'batch_hold':
        holds = new Map(holds).set(e.source, { total: -e.net, fee: e.fee, heldIn: 'reserved', returnTo: 'available' });
        break;
      case 'escrow_payout_hold':
        // The payout's hold came out of escrow: the payout sends `total - fee`, as complete_payout
        // posts it, and a failure gives it back to the contract's escrow.
        holds = new Map(holds).set(e.source, { total: -e.net, fee: e.fee, heldIn: 'reserved', returnTo: escrowAccount(e.contract!), contract: e.contract! });
        break;
      case 'seller_payout_hold':
        holds = new Map(holds).set(e.source, { total: e.amount, fee: e.fee, heldIn: 'seller_payouts', returnTo: sellerAvailable(e.seller!.sellerRef), seller: e.seller! });
        break;
      case 'batch_allocation': {
        // The payout's hold is carved out of its batch's: the reserved total does not change.
        holds = new Map(holds).set(e.source, { total: -e.net, fee: e.fee, heldIn: 'reserved', returnTo: 'available' });
        const batch = holds.get(e.batch!)!;
        holds.set(e.batch!, { ...batch, total: batch.total + e.net, fee: batch.fee - e.fee });
        break;
      }
      case 'payout_paid':
      case 'payout_release':
      case 'escrow_payout_release':
      case 'seller_payout_paid':
      case 'seller_payout_release':
      case 'batch_release':
        holds = new Map(holds);
        holds.delete(e.source);
        break;
      case 'order_payment':
        orders = orders.set(e.orderId!, {
          // The first line: the clearing account the buyer's money came through.
          clearing: e.lines[0]!.account as ClearingAccount,
          shares: (e.shares ?? []).map((s) => ({ sellerRef: s.sellerRef, sellerId: s.sellerId, unrefunded: s.amount, pending: s.amount })),
          commission: e.commission ?? 0,
        });
        break;
      case 'order_refund': {
        const reversals = new Map((e.reversals ?? []).map((r) => [r.sellerRef, r]));
        orders = orders.set(e.orderId!, {
          ...order!,
          shares: order!.shares.map((s) => {
            const r = reversals.get(s.sellerRef);
            return r ? { ...s, unrefunded: s.unrefunded - r.amount, pending: s.pending - r.fromPending } : s;
          }),
          commission: order!.commission - (e.commission ?? 0),
        });
        break;
      }
      case 'seller_settlement': {
        const moved = e.shares?.[0];
        orders = orders.set(e.orderId!, { ...order!, shares: order!.shares.map((s) => (s.sellerRef === moved?.sellerRef ? { ...s, pending: s.pending - moved.amount } : s)) });
        break;
      }
      case 'refund':
      case 'campaign_refund':
      case 'escrow_refund': {
        const inFlight = e.lines.find((l) => l.account.startsWith('rail_refunds:'));
        if (inFlight) railRefunds = new Map(railRefunds).set(e.source, { kind: e.kind, lines: e.lines, amount: e.amount, net: e.net, connector: inFlight.account.slice('rail_refunds:'.length) });
        break;
      }
      case 'rail_refund_sent':
      case 'refund_reversal':
        railRefunds = new Map(railRefunds);
        railRefunds.delete(e.source);
        break;
      case 'escrow_funding':
      case 'escrow_release':
      case 'campaign_contribution':
      case 'campaign_release':
        break;
    }
    return { balances, posted, pending, holds, orders, railRefunds };
  },

  decide(command, state) {
    return withinChart(state, decideEntries(command, state));
  },
};

/**
 * The one invariant every posting keeps besides balancing (entry() checks that): an account the
 * chart of accounts says may not go negative never does. Refusals on the merits (IKW-BAL-001…) are
 * decided before; reaching this is a bug, and nothing is appended.
 */
function withinChart(state: LedgerState, events: LedgerEvent[]): LedgerEvent[] {
  const after = new Map<string, number>();
  for (const e of events) {
    for (const line of e.data.lines) {
      const balance = (after.get(line.account) ?? balanceOf(state, line.account)) + line.amount;
      after.set(line.account, balance);
    }
  }
  for (const [account, balance] of after) if (balance < 0 && !mayGoNegative(account)) throw new Error(`Account ${account} would go below zero (${balance})`);
  return events;
}

function decideEntries(command: LedgerCommand, state: LedgerState): LedgerEvent[] {
    switch (command.type) {
      case 'post_payment': {
        if (state.posted.has(`payment:${command.source}`) || state.posted.has(`escrow_funding:${command.source}`)) return [];
        assertAmounts(command.amount, command.fee);
        if (command.fee > command.amount) throw new Error('A payment fee cannot exceed the amount');
        const net = command.amount - command.fee;
        if (command.escrowContract !== undefined) {
          // The buyer's money goes to the contract's escrow, never to pending or available.
          return [
            entry(command, 'escrow_funding', command.source, [
              { account: command.clearing, amount: -command.amount },
              { account: escrowAccount(command.escrowContract), amount: net },
              { account: 'fees', amount: command.fee },
            ], { amount: command.amount, fee: command.fee, net, contract: command.escrowContract }),
          ];
        }
        const payment = entry(command, 'payment', command.source, [
          { account: command.clearing, amount: -command.amount },
          { account: 'pending', amount: net },
          { account: 'fees', amount: command.fee },
        ], { amount: command.amount, fee: command.fee, net }, command.availableOn);
        const after = ledgerDecider.evolve(state, payment);
        return [payment, ...settlements(after, command, command.at)];
      }
      case 'settle_due':
        return settlements(state, command, command.at);
      case 'hold_payout':
        return payoutHold(command, state);
      case 'complete_payout': {
        const hold = state.holds.get(command.source);
        if (!hold) return []; // already completed or released: idempotent
        const amount = hold.total - hold.fee;
        if (hold.seller) {
          return [
            entry(command, 'seller_payout_paid', command.source, [
              { account: hold.heldIn, amount: -hold.total },
              { account: command.clearing, amount },
              { account: 'fees', amount: hold.fee },
            ], { amount: hold.total, fee: hold.fee, net: 0, seller: hold.seller }),
          ];
        }
        return [
          entry(command, 'payout_paid', command.source, [
            { account: hold.heldIn, amount: -hold.total },
            { account: command.clearing, amount },
            { account: 'fees', amount: hold.fee },
          ], { amount: -amount, fee: hold.fee, net: -hold.total }),
        ];
      }
      case 'hold_batch': {
        if (state.posted.has(`batch_hold:${command.source}`)) return [];
        assertAmounts(command.amount, command.fee);
        const total = command.amount + command.fee;
        const available = balanceOf(state, 'available');
        if (available < total) {
          throw new Refusal('IKW-BAL-001', `Available balance ${available} ${command.currency.toLowerCase()} does not cover the batch total plus fees (${total})`);
        }
        return [
          entry(command, 'batch_hold', command.source, [
            { account: 'available', amount: -total },
            { account: 'reserved', amount: total },
          ], { amount: -command.amount, fee: command.fee, net: -total }),
        ];
      }
      case 'release_batch': {
        const hold = state.holds.get(command.source);
        if (!hold || hold.total === 0) return [];
        return [
          entry(command, 'batch_release', command.source, [
            { account: 'reserved', amount: -hold.total },
            { account: 'available', amount: hold.total },
          ], { amount: hold.total - hold.fee, fee: -hold.fee, net: hold.total }),
        ];
      }
      case 'release_payout': {
        const hold = state.holds.get(command.source);
        if (!hold) return [];
        const lines = [
          { account: hold.heldIn, amount: -hold.total },
          { account: hold.returnTo, amount: hold.total },
        ];
        if (hold.seller) return [entry(command, 'seller_payout_release', command.source, lines, { amount: hold.total, fee: hold.fee, net: 0, seller: hold.seller })];
        if (hold.contract !== undefined) return [entry(command, 'escrow_payout_release', command.source, lines, { amount: hold.total - hold.fee, fee: -hold.fee, net: hold.total, contract: hold.contract })];
        return [entry(command, 'payout_release', command.source, lines, { amount: hold.total - hold.fee, fee: -hold.fee, net: hold.total })];
      }
      case 'fund_escrow': {
        if (state.posted.has(`escrow_funding:${command.source}`)) return [];
        assertAmounts(command.amount);
        const available = balanceOf(state, 'available');
        if (available < command.amount) {
          throw new Refusal('IKW-BAL-001', `Available balance ${available} ${command.currency.toLowerCase()} does not cover the escrow funding (${command.amount})`, 'amountMinor');
        }
        return [
          entry(command, 'escrow_funding', command.source, [
            { account: 'available', amount: -command.amount },
            { account: escrowAccount(command.contract), amount: command.amount },
          ], { amount: -command.amount, fee: 0, net: -command.amount, contract: command.contract }),
        ];
      }
      case 'release_escrow': {
        if (state.posted.has(`escrow_release:${command.source}`)) return [];
        assertEscrowCovers(state, command);
        return [
          entry(command, 'escrow_release', command.source, [
            { account: escrowAccount(command.contract), amount: -command.amount },
            { account: 'available', amount: command.amount },
          ], { amount: command.amount, fee: 0, net: command.amount, contract: command.contract }),
        ];
      }
      case 'refund_escrow': {
        if (state.posted.has(`escrow_refund:${command.source}`)) return [];
        assertEscrowCovers(state, command);
        return [
          entry(command, 'escrow_refund', command.source, [
            { account: escrowAccount(command.contract), amount: -command.amount },
            { account: refundLeg(command.to), amount: command.amount },
          ], { ...signed(command.to === 'available' ? command.amount : -command.amount), contract: command.contract }),
        ];
      }
      case 'refund': {
        if (state.posted.has(`refund:${command.source}`)) return [];
        assertAmounts(command.amount);
        const available = balanceOf(state, 'available');
        if (available < command.amount) {
          throw new Refusal('IKW-BAL-001', `Available balance ${available} does not cover the refund (${command.amount})`, 'amount');
        }
        return [
          entry(command, 'refund', command.source, [
            { account: 'available', amount: -command.amount },
            { account: refundLeg(command.clearing), amount: command.amount },
          ], { amount: -command.amount, fee: 0, net: -command.amount }),
        ];
      }
      case 'end_rail_refund':
        return endRailRefund(command, state);
      case 'move_campaign_funds':
        return campaignMoves(command, state);
      case 'post_order_payment':
        return orderPayment(command, state);
      case 'refund_order':
        return orderRefund(command, state);
      case 'settle_share': {
        const share = state.orders.get(command.orderId)?.shares.find((s) => s.sellerRef === command.sellerRef);
        if (!share || share.pending === 0) return [];
        const moved = { sellerRef: share.sellerRef, sellerId: share.sellerId, amount: share.pending };
        return [
          entry(command, 'seller_settlement', `${command.orderId}:${command.sellerRef}`, [
            { account: sellerPending(share.sellerRef), amount: -share.pending },
            { account: sellerAvailable(share.sellerRef), amount: share.pending },
          ], { amount: share.pending, fee: 0, net: 0, orderId: command.orderId, shares: [moved] }),
        ];
      }
    }
}

/**
 * The rail's answer to a refund sent through it, once (docs/ledger.md, "Refunds through a rail"):
 * sent, its money leaves through the rail's clearing account; returned (refused, failed), its
 * entry is reversed line by line, so the money is back on the account it came from.
 */
function endRailRefund(command: Extract<LedgerCommand, { type: 'end_rail_refund' }>, state: LedgerState): LedgerEvent[] {
  const refund = state.railRefunds.get(command.source);
  if (!refund) return []; // already answered: idempotent
  const { connector } = refund;
  const amount = refund.lines.find((l) => l.account === refundLeg(railClearing(connector)))!.amount;
  if (command.outcome === 'sent') {
    return [
      entry(command, 'rail_refund_sent', command.source, [
        { account: refundLeg(railClearing(connector)), amount: -amount },
        { account: railClearing(connector), amount },
      ], { amount, fee: 0, net: 0 }),
    ];
  }
  return [
    entry(command, 'refund_reversal', command.source, refund.lines.map((l) => ({ account: l.account, amount: -l.amount })), { amount: -refund.amount, fee: 0, net: -refund.net }),
  ];
}

/**
 * The hold of a payout on the account it is funded from, amount + fee, once per payout. Only the
 * accounts a client draws on directly can refuse for funds: `available` (IKW-BAL-001) and a
 * seller's (IKW-MKT-007); a batch's hold and a contract's escrow were checked by their own
 * aggregate, so running short there is a bug. The entry's kind names the source for the reports.
 */
function payoutHold(command: Extract<LedgerCommand, { type: 'hold_payout' }>, state: LedgerState): LedgerEvent[] {
  const from = command.from ?? { kind: 'available' };
  assertAmounts(command.amount, command.fee);
  const total = command.amount + command.fee;
  const amounts = { amount: -command.amount, fee: command.fee, net: -total };
  switch (from.kind) {
    case 'available': {
      if (state.posted.has(`payout_hold:${command.source}`)) return [];
      const available = balanceOf(state, 'available');
      if (available < total) throw new Refusal('IKW-BAL-001', `Available balance ${available} ${command.currency.toLowerCase()} does not cover the amount plus fees (${total})`, 'amount');
      return [entry(command, 'payout_hold', command.source, [{ account: 'available', amount: -total }, { account: 'reserved', amount: total }], amounts)];
    }
    case 'batch': {
      if (state.posted.has(`batch_allocation:${command.source}`)) return [];
      const batch = state.holds.get(from.batch);
      if (!batch || batch.total < total || batch.fee < command.fee) throw new Error(`Batch hold ${from.batch} does not cover payout ${command.source}`);
      // Carved out of the batch's hold: the reserved total does not change.
      return [entry(command, 'batch_allocation', command.source, [{ account: 'reserved', amount: -total }, { account: 'reserved', amount: total }], { ...amounts, batch: from.batch })];
    }
    case 'escrow': {
      if (state.posted.has(`escrow_payout_hold:${command.source}`)) return [];
      if (command.amount === 0) throw new Error(`The payout ${command.source} of a release sends nothing`);
      assertEscrowCovers(state, { contract: from.contract, amount: total });
      return [entry(command, 'escrow_payout_hold', command.source, [{ account: escrowAccount(from.contract), amount: -total }, { account: 'reserved', amount: total }], { ...amounts, contract: from.contract })];
    }
    case 'seller': {
      if (state.posted.has(`seller_payout_hold:${command.source}`)) return [];
      const seller = { ...from.seller, amount: command.amount };
      const available = balanceOf(state, sellerAvailable(seller.sellerRef));
      if (available < total) {
        throw new Refusal('IKW-MKT-007', `Seller '${seller.sellerId}' has ${available} ${command.currency.toLowerCase()} available, less than the amount plus the fee (${total})`, 'amountMinor');
      }
      return [entry(command, 'seller_payout_hold', command.source, [{ account: sellerAvailable(seller.sellerRef), amount: -total }, { account: 'seller_payouts', amount: total }], { amount: total, fee: command.fee, net: 0, seller })];
    }
  }
}

/** An order's payment: the buyer's money split into its sellers' pending funds and the commission, which pays the processing fee. */
function orderPayment(command: Extract<LedgerCommand, { type: 'post_order_payment' }>, state: LedgerState): LedgerEvent[] {
  if (state.posted.has(`order_payment:${command.orderId}`)) return [];
  assertAmounts(...command.shares.map((s) => s.amount), command.commission, command.fee);
  if (command.shares.reduce((s, p) => s + p.amount, 0) + command.commission !== command.amount) {
    throw new Error(`The shares and commission of order ${command.orderId} do not add up to its amount`);
  }
  return [
    entry(command, 'order_payment', command.orderId, [
      { account: command.clearing, amount: -command.amount },
      ...command.shares.map((s) => ({ account: sellerPending(s.sellerRef), amount: s.amount })),
      // The platform pays the processing fee out of its commission.
      { account: 'commission', amount: command.commission - command.fee },
      { account: 'fees', amount: command.fee },
    ], { amount: command.amount, fee: command.fee, net: 0, orderId: command.orderId, shares: command.shares, commission: command.commission }),
  ];
}

/**
 * A refund of part of an order, split among its sellers and the commission in proportion to what
 * each has not had refunded (allocateRefund); each seller's part comes out of their pending funds
 * first, then their available funds, which must cover it (IKW-MKT-006).
 */
function orderRefund(command: Extract<LedgerCommand, { type: 'refund_order' }>, state: LedgerState): LedgerEvent[] {
  if (state.posted.has(`order_refund:${command.refundId}`)) return [];
  const order = state.orders.get(command.orderId);
  if (!order) throw new Error(`Refund of order ${command.orderId}, whose payment was never posted`);
  assertRefundableThrough(order.clearing);
  const allocation = allocateRefund([...order.shares.map((s) => s.unrefunded), order.commission], command.amount);
  const reversals: RefundReversal[] = [];
  const lines: Line[] = [];
  order.shares.forEach((share, i) => {
    const amount = allocation[i]!;
    if (amount === 0) return;
    const fromPending = Math.min(amount, share.pending);
    const fromAvailable = amount - fromPending;
    if (balanceOf(state, sellerAvailable(share.sellerRef)) < fromAvailable) {
      throw new Refusal('IKW-MKT-006', `Seller '${share.sellerId}' no longer has the ${amount} ${command.currency.toLowerCase()} of this refund that is theirs to return`, 'amountMinor');
    }
    reversals.push({ sellerRef: share.sellerRef, sellerId: share.sellerId, amount, fromPending });
    lines.push({ account: sellerPending(share.sellerRef), amount: -fromPending }, { account: sellerAvailable(share.sellerRef), amount: -fromAvailable });
  });
  const commission = allocation[order.shares.length]!;
  lines.push({ account: 'commission', amount: -commission }, { account: order.clearing, amount: command.amount });
  return [entry(command, 'order_refund', command.refundId, lines, { amount: command.amount, fee: 0, net: 0, orderId: command.orderId, reversals, commission })];
}

/**
 * The entries of a campaign's moves, each once per source (a move already posted is skipped).
 * The campaign's decider moves only what it holds, so a campaign account running short is a bug;
 * a refund after release draws on `available` and is refused (IKW-BAL-001) when it cannot cover it.
 */
function campaignMoves(command: LedgerContext & { campaign: string; moves: CampaignMove[] }, state: LedgerState): LedgerEvent[] {
  const held = `campaign:${command.campaign}` as const;
  const out: LedgerEvent[] = [];
  let s = state;
  const post = (e: LedgerEvent) => {
    out.push(e);
    s = ledgerDecider.evolve(s, e);
  };
  for (const move of command.moves) {
    assertAmounts(move.amount);
    const campaign = command.campaign;
    switch (move.kind) {
      case 'contribution':
        if (s.posted.has(`campaign_contribution:${move.source}`)) break;
        post(entry(command, 'campaign_contribution', move.source, [
          { account: move.clearing, amount: -move.amount },
          { account: held, amount: move.amount },
        ], { amount: move.amount, fee: 0, net: 0, campaign }));
        break;
      case 'refund':
        if (s.posted.has(`campaign_refund:${move.source}`)) break;
        if (balanceOf(s, held) < move.amount) throw new Error(`Campaign ${campaign} holds less than refund ${move.source}`);
        post(entry(command, 'campaign_refund', move.source, [
          { account: held, amount: -move.amount },
          { account: refundLeg(move.clearing), amount: move.amount },
        ], { amount: -move.amount, fee: 0, net: 0, campaign }));
        break;
      case 'refund_released': {
        if (s.posted.has(`refund:${move.source}`)) break;
        const available = balanceOf(s, 'available');
        if (available < move.amount) throw new Refusal('IKW-BAL-001', `Available balance ${available} does not cover the refund (${move.amount})`, 'id');
        post(entry(command, 'refund', move.source, [
          { account: 'available', amount: -move.amount },
          { account: refundLeg(move.clearing), amount: move.amount },
        ], { amount: -move.amount, fee: 0, net: -move.amount, campaign }));
        break;
      }
      case 'release': {
        if (s.posted.has(`campaign_release:${move.source}`)) break;
        assertAmounts(move.fee);
        if (move.fee > move.amount || balanceOf(s, held) < move.amount) throw new Error(`Campaign ${campaign} cannot release ${move.amount}`);
        const net = move.amount - move.fee;
        post(entry(command, 'campaign_release', move.source, [
          { account: held, amount: -move.amount },
          { account: 'available', amount: net },
          { account: 'fees', amount: move.fee },
        ], { amount: move.amount, fee: move.fee, net, campaign }));
        break;
      }
    }
  }
  return out;
}
