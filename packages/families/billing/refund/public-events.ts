import { testId, statusFor, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import { toRefundObject } from './render.js';
import type { RefundObject } from './events.js';

/** Refunds' public events (docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const refundPublicEvents: PublicEvents = {
  types: [
    { type: 'refund.created', emittedBy: 'POST /api/v1/merchant/payments/{id}/refund', data: 'the Refund (status pending)' },
    { type: 'refund.succeeded', emittedBy: "the refund posted to the ledger; through a rail, the rail's word that it refunded the payer", data: 'the Refund' },
    { type: 'refund.failed', emittedBy: 'the available balance not covering the refund; through a rail, the rail refusing or failing it', data: 'the Refund (failure_reason, failure_code set)' },
  ],
  example: refund,
};

/** A refund as its events leave it, rendered as they render it (toRefundObject). */
function refund(type: string, created: number, livemode: boolean): RefundObject {
  const status = statusFor(type, { created: 'pending', succeeded: 'succeeded', failed: 'failed' });
  const id = testId('re');
  const payment = { id: testId('pi'), merchantId: testId('acct'), environment: livemode ? ('live' as const) : ('sandbox' as const), amount: 5000, currency: CURRENCY, clearing: 'operator_clearing:orange' as const };
  const record = { id, amount: 2000, reason: 'requested_by_customer' as const, createdAt: new Date(created * 1000).toISOString(), status, failureReason: status === 'failed' ? 'insufficient_available_balance' : null };
  return toRefundObject({ payment, refunds: new Map([[id, record]]), committed: status === 'failed' ? 0 : 2000 }, id);
}
