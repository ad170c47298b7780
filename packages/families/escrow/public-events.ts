import { testId, statusOf, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { ContractObject } from './events.js';

/** Escrow contracts' public events (docs/escrow.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const escrowContractPublicEvents: PublicEvents = {
  types: [
    { type: 'escrow_contract.created', emittedBy: 'POST /api/v1/escrow/contracts', data: 'the EscrowContract' },
    { type: 'escrow_contract.funded', emittedBy: "funds arriving in escrow: the contract's payment intent succeeding, or creation funded from the merchant balance", data: 'the EscrowContract (fundedMinor, heldMinor)' },
    { type: 'escrow_contract.release_executed', emittedBy: 'POST /api/v1/escrow/releases/{id}/execute, a release in immediate mode, the auto-release timer', data: 'the EscrowContract (releasedMinor)' },
    { type: 'escrow_contract.release_returned', emittedBy: "a release's payout failing: its amount goes back to the contract's escrow", data: 'the EscrowContract (releasedMinor, heldMinor)' },
    { type: 'escrow_contract.refunded', emittedBy: 'POST /api/v1/escrow/contracts/{id}/refund, a cancel or a dispute outcome giving funds back to the payer', data: 'the EscrowContract (refundedMinor)' },
    { type: 'escrow_contract.dispute_opened', emittedBy: 'POST /api/v1/escrow/disputes/contract/{contractId}', data: 'the EscrowContract (status disputed)' },
    { type: 'escrow_contract.dispute_resolved', emittedBy: 'POST /api/v1/escrow/disputes/{id}/resolve', data: 'the EscrowContract' },
    { type: 'escrow_contract.canceled', emittedBy: 'POST /api/v1/escrow/contracts/{id}/cancel', data: 'the EscrowContract (status canceled)' },
  ],
  example: escrowContract,
};

function escrowContract(type: string, created: number, livemode: boolean): ContractObject {
  const change = statusOf(type);
  const at = new Date(created * 1000).toISOString();
  const funded = change !== 'created' && change !== 'canceled' ? 50000 : 0;
  const released = change === 'release_executed' ? 20000 : 0;
  const refunded = change === 'refunded' ? 50000 : 0;
  const status = change === 'created' ? 'pending_funding' : change === 'canceled' ? 'canceled' : change === 'dispute_opened' ? 'disputed' : change === 'refunded' ? 'completed' : 'funded';
  return {
    id: testId('esc'),
    object: 'escrow_contract',
    livemode,
    created,
    status,
    currency: CURRENCY,
    amountMinor: 50000,
    fundedMinor: funded,
    releasedMinor: released,
    refundedMinor: refunded,
    heldMinor: funded - released - refunded,
    pendingReleaseMinor: 0,
    fundingSourceType: 'payment_intent',
    fundingSourceLedgerAccountCode: null,
    paymentIntentId: testId('pi'),
    defaultReleaseMode: 'manual',
    ledgerDestinationType: 'merchant_balance',
    ledgerDestinationAccountCode: null,
    defaultPayoutMethodId: null,
    autoReleaseAtUtc: null,
    metadata: null,
    participants: [
      { id: testId('par'), role: 'payer', displayName: 'Awa Diop', email: 'awa.diop@example.com', addedAt: at },
      { id: testId('par'), role: 'beneficiary', displayName: 'Moussa Ndiaye', email: 'moussa.ndiaye@example.com', addedAt: at },
    ],
    milestones: [],
    openDisputeId: change === 'dispute_opened' ? testId('dsp') : null,
    fundedAt: funded > 0 ? at : null,
    canceledAt: status === 'canceled' ? at : null,
  };
}
