import { ApiError } from '../../core/errors.js';
import type { Decider } from '../../core/decider.js';
import { PersistentMap } from '../../core/persistent-map.js';
import type { Environment } from '../merchant/events.js';
import { escrowAccount, type Account, type EntryKind, type EntryPosted, type LedgerEvent, type Line } from './events.js';

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
    | { type: 'hold_payout'; source: string; amount: number; fee: number }
    | { type: 'complete_payout'; source: string; clearing: Account }
    | { type: 'release_payout'; source: string }
    | { type: 'refund'; source: string; payment: string; clearing: Account; amount: number }
    | { type: 'hold_batch'; source: string; amount: number; fee: number }
    | { type: 'allocate_batch_payout'; source: string; batch: string; amount: number; fee: number }
    | { type: 'release_batch'; source: string }
    | { type: 'fund_escrow'; source: string; contract: string; amount: number }
    | { type: 'release_escrow'; source: string; contract: string; amount: number }
    | { type: 'hold_escrow_payout'; source: string; contract: string; amount: number; fee: number }
    | { type: 'refund_escrow'; source: string; contract: string; amount: number; to: Account }
    | { type: 'move_campaign_funds'; campaign: string; moves: CampaignMove[] }
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

interface PendingPayment {
  source: string;
  net: number;
  availableOn: string;
}

/** Funds reserved for a payout in flight: amount + fee, the fee part, and where they go back should it fail. */
interface Hold {
  total: number;
  fee: number;
  /** `available`, or the escrow contract's account the payout of a release was held from. */
  returnTo: Account;
  contract?: string;
}

export interface LedgerState {
  /** Persistent, like `posted`: one per campaign and escrow contract too, so it grows with the merchant. */
  balances: PersistentMap<number, Account>;
  /** `kind:source` of every entry posted: commands are idempotent per object. Persistent: copying it per entry made the stream's fold quadratic. */
  posted: PersistentMap<true>;
  pending: PendingPayment[];
  holds: Map<string, Hold>;
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
  amounts: { amount: number; fee: number; net: number; batch?: string; contract?: string; campaign?: string },
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
  initialState: { balances: PersistentMap.empty(), posted: PersistentMap.empty(), pending: [], holds: new Map() },

  evolve(state, event) {
    const e = event.data;
    let balances = state.balances;
    for (const line of e.lines) balances = balances.set(line.account, (balances.get(line.account) ?? 0) + line.amount);
    const posted = state.posted.set(`${e.kind}:${e.source}`, true);
    let { pending, holds } = state;
    switch (e.kind) {
      case 'payment':
        pending = [...pending, { source: e.source, net: e.net, availableOn: e.availableOn }];
        break;
      case 'payment_settlement':
        pending = pending.filter((p) => p.source !== e.source);
        break;
      case 'payout_hold':
      case 'batch_hold':
        holds = new Map(holds).set(e.source, { total: -e.net, fee: e.fee, returnTo: 'available' });
        break;
      case 'escrow_payout_hold':
        // The payout's hold came out of escrow: the payout sends `total - fee`, as complete_payout
        // posts it, and a failure gives it back to the contract's escrow.
        holds = new Map(holds).set(e.source, { total: -e.net, fee: e.fee, returnTo: escrowAccount(e.contract!), contract: e.contract! });
        break;
      case 'batch_allocation': {
        // The payout's hold is carved out of its batch's: the reserved total does not change.
        holds = new Map(holds).set(e.source, { total: -e.net, fee: e.fee, returnTo: 'available' });
        const batch = holds.get(e.batch!)!;
        holds.set(e.batch!, { ...batch, total: batch.total + e.net, fee: batch.fee - e.fee });
        break;
      }
      case 'payout_paid':
      case 'payout_release':
      case 'escrow_payout_release':
      case 'batch_release':
        holds = new Map(holds);
        holds.delete(e.source);
        break;
      case 'refund':
      case 'escrow_funding':
      case 'escrow_release':
      case 'escrow_refund':
      case 'campaign_contribution':
      case 'campaign_refund':
      case 'campaign_release':
        break;
    }
    return { balances, posted, pending, holds };
  },

  decide(command, state) {
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
      case 'hold_payout': {
        if (state.posted.has(`payout_hold:${command.source}`)) return [];
        assertAmounts(command.amount, command.fee);
        const total = command.amount + command.fee;
        const available = balanceOf(state, 'available');
        if (available < total) {
          throw new ApiError(
            'IKW-BAL-001',
            `Available balance ${available} ${command.currency.toLowerCase()} does not cover the amount plus fees (${total})`,
            'amount',
          );
        }
        return [
          entry(command, 'payout_hold', command.source, [
            { account: 'available', amount: -total },
            { account: 'reserved', amount: total },
          ], { amount: -command.amount, fee: command.fee, net: -total }),
        ];
      }
      case 'complete_payout': {
        const hold = state.holds.get(command.source);
        if (!hold) return []; // already completed or released: idempotent
        const amount = hold.total - hold.fee;
        return [
          entry(command, 'payout_paid', command.source, [
            { account: 'reserved', amount: -hold.total },
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
          throw new ApiError('IKW-BAL-001', `Available balance ${available} ${command.currency.toLowerCase()} does not cover the batch total plus fees (${total})`);
        }
        return [
          entry(command, 'batch_hold', command.source, [
            { account: 'available', amount: -total },
            { account: 'reserved', amount: total },
          ], { amount: -command.amount, fee: command.fee, net: -total }),
        ];
      }
      case 'allocate_batch_payout': {
        if (state.posted.has(`batch_allocation:${command.source}`)) return [];
        assertAmounts(command.amount, command.fee);
        const total = command.amount + command.fee;
        const batch = state.holds.get(command.batch);
        // The batch hold covered every item at execution; running short means a bug, not a refusal.
        if (!batch || batch.total < total || batch.fee < command.fee) throw new Error(`Batch hold ${command.batch} does not cover payout ${command.source}`);
        return [
          entry(command, 'batch_allocation', command.source, [
            { account: 'reserved', amount: -total },
            { account: 'reserved', amount: total },
          ], { amount: -command.amount, fee: command.fee, net: -total, batch: command.batch }),
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
        return [
          entry(command, hold.contract !== undefined ? 'escrow_payout_release' : 'payout_release', command.source, [
            { account: 'reserved', amount: -hold.total },
            { account: hold.returnTo, amount: hold.total },
          ], { amount: hold.total - hold.fee, fee: -hold.fee, net: hold.total, ...(hold.contract !== undefined ? { contract: hold.contract } : {}) }),
        ];
      }
      case 'fund_escrow': {
        if (state.posted.has(`escrow_funding:${command.source}`)) return [];
        assertAmounts(command.amount);
        const available = balanceOf(state, 'available');
        if (available < command.amount) {
          throw new ApiError('IKW-BAL-001', `Available balance ${available} ${command.currency.toLowerCase()} does not cover the escrow funding (${command.amount})`, 'amountMinor');
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
      case 'hold_escrow_payout': {
        if (state.posted.has(`escrow_payout_hold:${command.source}`)) return [];
        assertAmounts(command.fee);
        assertEscrowCovers(state, command);
        if (command.fee >= command.amount) throw new Error(`The payout fee ${command.fee} leaves nothing of ${command.amount} to send`);
        return [
          entry(command, 'escrow_payout_hold', command.source, [
            { account: escrowAccount(command.contract), amount: -command.amount },
            { account: 'reserved', amount: command.amount },
          ], { amount: -(command.amount - command.fee), fee: command.fee, net: -command.amount, contract: command.contract }),
        ];
      }
      case 'refund_escrow': {
        if (state.posted.has(`escrow_refund:${command.source}`)) return [];
        assertEscrowCovers(state, command);
        return [
          entry(command, 'escrow_refund', command.source, [
            { account: escrowAccount(command.contract), amount: -command.amount },
            { account: command.to, amount: command.amount },
          ], { ...signed(command.to === 'available' ? command.amount : -command.amount), contract: command.contract }),
        ];
      }
      case 'refund': {
        if (state.posted.has(`refund:${command.source}`)) return [];
        assertAmounts(command.amount);
        const available = balanceOf(state, 'available');
        if (available < command.amount) {
          throw new ApiError('IKW-BAL-001', `Available balance ${available} does not cover the refund (${command.amount})`, 'amount');
        }
        return [
          entry(command, 'refund', command.source, [
            { account: 'available', amount: -command.amount },
            { account: command.clearing, amount: command.amount },
          ], { amount: -command.amount, fee: 0, net: -command.amount }),
        ];
      }
      case 'move_campaign_funds':
        return campaignMoves(command, state);
    }
  },
};

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
          { account: move.clearing, amount: move.amount },
        ], { amount: -move.amount, fee: 0, net: 0, campaign }));
        break;
      case 'refund_released': {
        if (s.posted.has(`refund:${move.source}`)) break;
        const available = balanceOf(s, 'available');
        if (available < move.amount) throw new ApiError('IKW-BAL-001', `Available balance ${available} does not cover the refund (${move.amount})`, 'id');
        post(entry(command, 'refund', move.source, [
          { account: 'available', amount: -move.amount },
          { account: move.clearing, amount: move.amount },
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
