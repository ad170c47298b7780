import { step } from '#packages/eventstore/command-handler.js';
import type { FundingSource } from '#packages/families/payouts/index.js';
import type { PayoutCreated } from '#packages/families/payouts/index.js';
import { escrowAggregate } from './render.js';
import { escrowContractStream } from './events.js';
import { holdOnEscrow } from './postings.js';

/** The escrow release a payout pays; payouts created before `escrow` was recorded name it in their metadata. */
function escrowReleaseOf(p: PayoutCreated): { contractId: string; releaseId: string } | null {
  if (p.escrow) return p.escrow;
  const contractId = p.metadata['escrow_contract'];
  const releaseId = p.metadata['escrow_release'];
  return p.source === 'escrow' && contractId && releaseId ? { contractId, releaseId } : null;
}

/**
 * The payout of an escrow release (docs/escrow.md): held out of the contract's escrow account, and
 * should it fail, the contract takes the release back in the commit of the failure.
 */
export const escrowPayoutFunding: FundingSource = {
  kind: 'escrow',
  funds: (p) => p.escrow !== undefined || p.source === 'escrow',
  hold: (p) => {
    const release = escrowReleaseOf(p);
    if (!release) throw new Error(`Payout ${p.id} names no escrow release`);
    return holdOnEscrow({ source: p.id, contract: release.contractId, amount: p.amount, fee: p.fee });
  },
  returnSteps: (p, at, meta) => {
    const release = escrowReleaseOf(p);
    return release ? [step({ streamId: escrowContractStream(release.contractId), decider: escrowAggregate, command: { type: 'return_release', at, releaseId: release.releaseId, payoutId: p.id } as const, metadata: meta })] : [];
  },
};
