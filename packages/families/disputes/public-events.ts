import { testId, statusOf, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { DisputeObject } from './events.js';

/** Card disputes' public events (docs/disputes.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const disputePublicEvents: PublicEvents = {
  types: [
    { type: 'dispute.created', emittedBy: "the card network's dispute of a live card payment, read from Paystack after its verified webhook", data: 'the Dispute (status needs_response)' },
    { type: 'dispute.updated', emittedBy: 'POST /api/v1/disputes/{id}/evidence, or news of the dispute read from Paystack (a new status or due date)', data: 'the Dispute' },
    { type: 'dispute.closed', emittedBy: 'POST /api/v1/disputes/{id}/accept, or the outcome read from Paystack', data: 'the Dispute (status won, lost or accepted)' },
  ],
  example: disputeExample,
};

function disputeExample(type: string, created: number, livemode: boolean): DisputeObject {
  const at = new Date(created * 1000).toISOString();
  const change = statusOf(type);
  return {
    id: testId('dp'),
    object: 'dispute',
    livemode,
    status: change === 'created' ? 'needs_response' : change === 'updated' ? 'under_review' : 'won',
    reason: 'fraud',
    amount: 50000,
    currency: CURRENCY,
    fee: 0,
    shortfall: 0,
    payment_intent: testId('pi'),
    evidence_due_by: new Date(created * 1000 + 7 * 86_400_000).toISOString(),
    evidence: null,
    created: at,
    closed_at: change === 'closed' ? at : null,
  };
}
