/**
 * The public event types merchants can subscribe to, what emits each, and what `data` holds.
 * docs/events.md is this list in prose; a unit test keeps them in step.
 */
export interface PublicEventType {
  type: string;
  emittedBy: string;
  data: string;
}

export const PUBLIC_EVENT_TYPES: readonly PublicEventType[] = [
  { type: 'payment_intent.created', emittedBy: 'POST /api/v1/payment-intents', data: 'the PaymentIntent' },
  { type: 'payment_intent.processing', emittedBy: 'confirm, when the operator or acquirer accepted the payment', data: 'the PaymentIntent' },
  { type: 'payment_intent.requires_action', emittedBy: 'confirm, when the customer must approve (next_action set)', data: 'the PaymentIntent' },
  { type: 'payment_intent.succeeded', emittedBy: 'the operator confirming the payment', data: 'the PaymentIntent' },
  { type: 'payment_intent.payment_failed', emittedBy: 'the operator refusing the payment (last_payment_error set)', data: 'the PaymentIntent' },
  { type: 'payment_intent.canceled', emittedBy: 'POST /api/v1/payment-intents/{id}/cancel', data: 'the PaymentIntent' },
  { type: 'payout.created', emittedBy: 'POST /api/v1/payouts, POST /api/v1/merchant/payouts', data: 'the Payout' },
  { type: 'payout.updated', emittedBy: 'the operator accepting the payout (status in_transit)', data: 'the Payout' },
  { type: 'payout.delayed', emittedBy: 'the operator reporting trouble, or expected_by passing (delay_state delayed)', data: 'the Payout' },
  { type: 'payout.paid', emittedBy: 'the operator confirming the transfer', data: 'the Payout' },
  { type: 'payout.failed', emittedBy: 'the operator refusing or failing the transfer (failure_code set)', data: 'the Payout' },
  { type: 'payout.canceled', emittedBy: 'a pending payout canceled before it reached the operator', data: 'the Payout' },
];

const TYPES = new Set(PUBLIC_EVENT_TYPES.map((e) => e.type));

export function isPublicEventType(type: string): boolean {
  return TYPES.has(type);
}

/** `*` or a known type. */
export function isSubscribableType(type: string): boolean {
  return type === '*' || TYPES.has(type);
}
