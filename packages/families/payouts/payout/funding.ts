import type { AnyStep } from '#packages/eventstore/command-handler.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import type { LedgerAction } from '#packages/ledger/decider.js';
import { holdOnAvailable } from './postings.js';
import type { PayoutCreated } from './events.js';

/**
 * Where a payout's money comes from. A source says which payouts are its own (from what the payout
 * recorded), how they hold (its family's recipe taking amount + fee from `available`, a batch's
 * hold, a contract's escrow, a seller's available funds: their postings.ts), and where the
 * money of one that fails or is canceled returns besides the ledger giving the hold back to the
 * account it came from: the steps committed with the failure (an escrow contract taking its release
 * back). Payouts offer `available`; the payout engine, the marketplace and escrow register theirs
 * from their own folders (their manifests' registrations).
 */
export interface FundingSource {
  readonly kind: string;
  /** Whether the payout is paid out of this source. */
  funds(p: PayoutCreated): boolean;
  /** The payout's hold of amount + fee on the funds it comes out of. */
  hold(p: PayoutCreated): LedgerAction;
  /** The steps committed with the payout's failure or cancel, after the ledger's release. */
  returnSteps?(p: PayoutCreated, at: Date, meta: EventMetadata): AnyStep[];
}

/** The merchant's available balance: every payout that names no other source. */
const available: FundingSource = {
  kind: 'available',
  funds: (p) => !p.batch && !p.funding && !p.escrow && p.source !== 'escrow',
  hold: (p) => holdOnAvailable({ source: p.id, amount: p.amount, fee: p.fee }),
};

/**
 * The funding sources payouts know: their own and those registered. Exactly one source funds a
 * payout; a payout no registered source funds is refused (so a family's money never falls back
 * to the merchant's balance because its source was not registered). A kind registers once.
 */
export class PayoutFundingSources {
  private readonly registered: FundingSource[] = [available];

  constructor(...sources: FundingSource[]) {
    this.register(...sources);
  }

  /** Adds the sources other families offer (their manifests' registrations). */
  register(...sources: FundingSource[]): void {
    for (const s of sources) {
      if (this.registered.some((x) => x.kind === s.kind)) throw new Error(`Payout funding source ${s.kind} is registered twice`);
      this.registered.push(s);
    }
  }

  /** The source a payout is paid out of. */
  of(p: PayoutCreated): FundingSource {
    const sources = this.registered.filter((s) => s.funds(p));
    if (sources.length !== 1) throw new Error(`Payout ${p.id} is funded by ${sources.length === 0 ? 'no registered source' : sources.map((s) => s.kind).join(' and ')}`);
    return sources[0]!;
  }

  hold(p: PayoutCreated): LedgerAction {
    return this.of(p).hold(p);
  }

  returnSteps(p: PayoutCreated, at: Date, meta: EventMetadata): AnyStep[] {
    return this.of(p).returnSteps?.(p, at, meta) ?? [];
  }
}
