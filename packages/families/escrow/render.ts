import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { ContractCreated, ContractObject, Dispute, DisputeObject, EscrowEvent, Release, ReleaseObject } from './events.js';
import { contractStatus, type EscrowCommand, escrowDecider, type EscrowState, heldMinor, milestoneStatus, pendingReleaseMinor } from './decider.js';

/** A release as the API answers it and the contract's object lists it. */
export function toReleaseObject(r: Release, c: Pick<ContractCreated, 'environment' | 'currency'>): ReleaseObject {
  const { createdAt, executedAt, canceledAt, returnedAt, ...rest } = r;
  return { ...rest, object: 'escrow_release', livemode: c.environment === 'live', currency: c.currency, created: unixSeconds(new Date(createdAt)), executedAt, canceledAt, returnedAt: returnedAt ?? null };
}

/** A dispute as the API answers it and the contract's object lists it. */
export function toDisputeObject(d: Dispute, c: Pick<ContractCreated, 'environment'>): DisputeObject {
  const { openedAt, resolvedAt, ...rest } = d;
  return { ...rest, object: 'escrow_dispute', livemode: c.environment === 'live', created: unixSeconds(new Date(openedAt)), resolvedAt };
}

/** The public escrow contract: what the API answers and what its events carry (`data.object`). */
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
