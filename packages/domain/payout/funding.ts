import type { AnyStep } from '../../eventstore/command-handler.js';
import type { EventMetadata } from '../../eventstore/port.js';
import type { PayoutFunds } from '../ledger/decider.js';
import type { PayoutCreated } from './events.js';

/**
 * Where a payout's money comes from. A source says which payouts are its own (from what the payout
 * recorded), how they hold (the funds the ledger's one hold, hold_payout, takes amount + fee from:
 * `available`, a batch's hold, a contract's escrow, a seller's available funds), and where the
 * money of one that fails or is canceled returns besides the ledger giving the hold back to the
 * account it came from: the steps committed with the failure (an escrow contract taking its release
 * back). Payouts offer `available` and `seller`; the payout engine and escrow register theirs from
 * their own folders (their manifests' registrations).
 */
export interface FundingSource<K extends PayoutFunds['kind'] = PayoutFunds['kind']> {
  readonly kind: K;
  /** Whether the payout is paid out of this source. */
  funds(p: PayoutCreated): boolean;
  /** The funds the payout's hold comes out of. */
  holdFrom(p: PayoutCreated): Extract<PayoutFunds, { kind: K }>;
  /** The steps committed with the payout's failure or cancel, after the ledger's release. */
  returnSteps?(p: PayoutCreated, at: Date, meta: EventMetadata): AnyStep[];
}

/** Any one funding source. */
export type AnyFundingSource = { [K in PayoutFunds['kind']]: FundingSource<K> }[PayoutFunds['kind']];

/** The merchant's available balance: every payout that names no other source. */
const available: FundingSource<'available'> = {
  kind: 'available',
  funds: (p) => !p.batch && !p.funding && !p.escrow && p.source !== 'escrow',
  holdFrom: () => ({ kind: 'available' }),
};

/** A marketplace seller's available funds (docs/marketplace.md); IKW-MKT-007 when short. */
const seller: FundingSource<'seller'> = {
  kind: 'seller',
  funds: (p) => p.funding?.kind === 'marketplace_seller',
  holdFrom: (p) => ({ kind: 'seller', seller: { sellerRef: p.funding!.sellerRef, sellerId: p.funding!.sellerId } }),
};

/**
 * The funding sources payouts know: their own and those registered. Exactly one source funds a
 * payout; a payout no registered source funds is refused (so a family's money never falls back
 * to the merchant's balance because its source was not registered). A kind registers once.
 */
export class PayoutFundingSources {
  private readonly registered: AnyFundingSource[] = [available, seller];

  constructor(...sources: AnyFundingSource[]) {
    this.register(...sources);
  }

  /** Adds the sources other families offer (their manifests' registrations). */
  register(...sources: AnyFundingSource[]): void {
    for (const s of sources) {
      if (this.registered.some((x) => x.kind === s.kind)) throw new Error(`Payout funding source ${s.kind} is registered twice`);
      this.registered.push(s);
    }
  }

  /** The source a payout is paid out of. */
  of(p: PayoutCreated): AnyFundingSource {
    const sources = this.registered.filter((s) => s.funds(p));
    if (sources.length !== 1) throw new Error(`Payout ${p.id} is funded by ${sources.length === 0 ? 'no registered source' : sources.map((s) => s.kind).join(' and ')}`);
    return sources[0]!;
  }

  holdFrom(p: PayoutCreated): PayoutFunds {
    return this.of(p).holdFrom(p);
  }

  returnSteps(p: PayoutCreated, at: Date, meta: EventMetadata): AnyStep[] {
    return this.of(p).returnSteps?.(p, at, meta) ?? [];
  }
}
