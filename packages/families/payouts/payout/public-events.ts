import { testId, statusOf, statusFor, CURRENCY, MSISDN, type PublicEvents } from '#packages/core/public-events.js';
import { toPayoutObject } from './render.js';
import type { PayoutObject } from './events.js';

/** Payouts' public events (docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const payoutPublicEvents: PublicEvents = {
  types: [
    { type: 'payout.created', emittedBy: 'POST /api/v1/payouts, POST /api/v1/merchant/payouts, the payout engine queuing a batch item', data: 'the Payout' },
    { type: 'payout.updated', emittedBy: 'the operator accepting the payout (status in_transit)', data: 'the Payout' },
    { type: 'payout.delayed', emittedBy: 'the operator reporting trouble, or expected_by passing (delay_state delayed)', data: 'the Payout' },
    { type: 'payout.paid', emittedBy: 'the operator confirming the transfer', data: 'the Payout' },
    { type: 'payout.failed', emittedBy: 'the operator refusing or failing the transfer (failure_code set)', data: 'the Payout' },
    { type: 'payout.canceled', emittedBy: 'a pending payout canceled before it reached the operator (a batch item not yet sent when its batch was canceled)', data: 'the Payout' },
  ],
  example: payout,
};

/** A payout as its events leave it, rendered as they render it (toPayoutObject). */
function payout(type: string, created: number, livemode: boolean): PayoutObject {
  const change = statusOf(type);
  const status = statusFor(type, { created: 'pending', updated: 'in_transit', delayed: 'in_transit', paid: 'paid', failed: 'failed', canceled: 'canceled' });
  const at = new Date(created * 1000).toISOString();
  return toPayoutObject({
    payout: {
      id: testId('po'),
      merchantId: testId('acct'),
      environment: livemode ? 'live' : 'sandbox',
      amount: 20000,
      currency: CURRENCY,
      fee: 200,
      destination: { type: 'mobile_money', currency: CURRENCY, country: 'SN', operator: 'orange', msisdn: MSISDN },
      payoutMethodId: null,
      metadata: { source: 'api' },
      expectedBy: at,
      createdAt: at,
    },
    status,
    delayReason: change === 'delayed' ? 'operator_pending' : null,
    delayedAt: change === 'delayed' ? at : null,
    failure: status === 'failed' ? { code: 'invalid_account', message: 'The operator refused the account' } : null,
    dispatched: status !== 'pending',
  });
}
