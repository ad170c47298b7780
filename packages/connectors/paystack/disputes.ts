import type { RailDisputeStage } from '../disputes.js';

/**
 * Where a Paystack dispute stands, in Sika's words (docs/disputes.md, "Paystack"): its `status`
 * (`awaiting-merchant-feedback`, `awaiting-bank-feedback`, `pending`, `resolved`) and, once
 * resolved, its `resolution`. `declined` (the merchant's answer held) is won; `merchant-accepted`
 * is accepted; any other resolution (`auto-accepted` after the due date, the bank's ruling) is lost.
 * Null for a status Sika does not know: the dispute is left as it was.
 */
export function disputeStageOf(status: unknown, resolution: unknown): RailDisputeStage | null {
  switch (status) {
    case 'awaiting-merchant-feedback':
      return 'needs_response';
    case 'awaiting-bank-feedback':
    case 'pending':
      return 'under_review';
    case 'resolved':
      if (resolution === 'declined' || resolution === 'auto-declined') return 'won';
      if (resolution === 'merchant-accepted') return 'accepted';
      return 'lost';
    default:
      return null;
  }
}

/** The events of Paystack's that are news of a dispute. */
export const DISPUTE_EVENTS = /^charge\.dispute\.(create|remind|resolve)$/;
