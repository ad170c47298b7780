import type { Decider, Fact } from '../../core/decider.js';
import { unixSeconds } from '../../core/clock.js';
import { present } from '../aggregate.js';
import type { ContractObject, EscrowEvent } from './events.js';
import { contractStatus, type EscrowCommand, escrowDecider, type EscrowState, heldMinor, milestoneStatus, pendingReleaseMinor } from './decider.js';

/** The public escrow: what the API answers and what its events carry (`data.object`). */
export function toContractObject(s: EscrowState): ContractObject {
  const c = present(s.contract, 'escrow contract');
  return {
    id: c.id,
    object: 'escrow_contract',
    livemode: c.environment === 'live',
    created: unixSeconds(new Date(c.createdAt)),
    status: contractStatus(s),
    currency: c.currency,
    amountMinor: c.amountMinor,
    fundedMinor: s.fundedMinor,
    releasedMinor: s.releasedMinor,
    refundedMinor: s.refundedMinor,
    heldMinor: heldMinor(s),
    pendingReleaseMinor: pendingReleaseMinor(s),
    fundingSourceType: c.fundingSourceType,
    fundingSourceLedgerAccountCode: c.fundingSourceLedgerAccountCode,
    paymentIntentId: s.paymentIntentId,
    defaultReleaseMode: c.defaultReleaseMode,
    ledgerDestinationType: c.ledgerDestinationType,
    ledgerDestinationAccountCode: c.ledgerDestinationAccountCode,
    defaultPayoutMethodId: c.defaultPayoutMethodId,
    autoReleaseAtUtc: c.autoReleaseAtUtc,
    metadata: c.metadata,
    participants: s.participants,
    milestones: s.milestones.map((m) => ({ ...m, status: milestoneStatus(s, m) })),
    openDisputeId: s.openDisputeId,
    fundedAt: s.fundedAt,
    canceledAt: s.canceledAt,
  };
}

/** The escrow aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const escrowAggregate: Decider<EscrowCommand, EscrowState, Fact<EscrowEvent>> = { ...escrowDecider, render: { object: toContractObject } };
