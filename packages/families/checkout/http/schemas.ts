import type { CheckoutSessionView } from '../read/checkout-sessions.js';
import { resourceSchema } from '#packages/http/route-kit.js';

/** `:sessionId` of the checkout page and its API: public by the session's unguessable id. */
export const sessionIdParams = { type: 'object', properties: { sessionId: { type: 'string', pattern: '^cs_[0-9A-Za-z]{24}$' } }, required: ['sessionId'] };

/** The payment method types a checkout session or payment link accepts. */
/** How a payer may pay, in words: the checkout's and the payment links' methods. */
export const CHECKOUT_METHOD_WORDS = { mobile_money: 'Mobile money: the customer approves on their phone', card: 'A card' };

export const checkoutMethodTypesSchema = { type: 'array', minItems: 1, maxItems: 2, items: { enum: ['mobile_money', 'card'], 'x-enumDescriptions': CHECKOUT_METHOD_WORDS } };

export const checkoutSessionSchema = resourceSchema('checkout.session', ['url', 'status', 'paymentStatus', 'amount', 'currency', 'country', 'expiresAt', 'livemode', 'created'], {
  url: { type: 'string' },
  status: { enum: ['open', 'complete', 'canceled', 'expired'] },
  paymentStatus: { enum: ['unpaid', 'processing', 'paid', 'failed'] },
  amount: { type: 'integer' },
  amountTotal: { type: ['integer', 'null'] },
  currency: { type: 'string' },
  country: { type: 'string' },
  description: { type: ['string', 'null'] },
  paymentMethodTypes: { type: 'array', items: { type: 'string' } },
  successUrl: { type: ['string', 'null'] },
  cancelUrl: { type: ['string', 'null'] },
  customerEmail: { type: ['string', 'null'] },
  customerPhone: { type: ['string', 'null'] },
  paymentLinkId: { type: ['string', 'null'] },
  feeMode: { enum: ['merchant', 'customer'] },
  deferPaymentIntentCreation: { type: 'boolean' },
  paymentIntentId: { type: ['string', 'null'] },
  metadata: { type: 'object' },
  expiresAt: { type: 'string', format: 'date-time' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});

/** The merchant's page a customer returns to, with the parameters the interface fixes: status, payment_intent, operation_id. */
export function sessionReturnUrl(url: string, status: string, intent: { id: string; latest_operation: string | null } | null): string {
  const out = new URL(url);
  out.searchParams.set('status', status);
  if (intent) out.searchParams.set('payment_intent', intent.id);
  if (intent?.latest_operation) out.searchParams.set('operation_id', intent.latest_operation);
  return out.toString();
}

/** Where the customer goes now: the success URL once paid, the cancel URL once canceled; null while the page has more to show. */
export function nextUrl(view: CheckoutSessionView): string | null {
  const s = view.session;
  if (s.status === 'complete' && s.successUrl) return sessionReturnUrl(s.successUrl, 'succeeded', view.intent);
  if (s.status === 'canceled' && s.cancelUrl) return sessionReturnUrl(s.cancelUrl, 'canceled', view.intent);
  return null;
}
