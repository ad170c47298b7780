import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
export const INVOICE_STATUSES: readonly InvoiceStatus[] = ['draft', 'open', 'paid', 'void', 'uncollectible'];

/** One line of an invoice: a price × quantity, metered usage, or a plain amount. */
export interface InvoiceLine {
  description: string;
  price: string | null;
  quantity: number;
  unit_amount: number;
  amount: number;
  /** The meter of a usage line (billing usage records), else null. */
  meter_key: string | null;
}

/** Where money that settles an invoice came from. */
export type PaymentSource = 'wallet' | 'payment_intent' | 'out_of_band';

export interface InvoicePayment {
  /** Wallet application id, payment intent id, or `out_of_band`: payments are recorded once per ref. */
  ref: string;
  source: PaymentSource;
  /** What the invoice took. */
  amount: number;
  /** What was offered; the difference went back to the customer's wallet. */
  offered: number;
}

/** The Invoice as the merchant routes return it (snake_case); the billing family renders the same record in camelCase. */
export interface InvoiceObject {
  id: string;
  object: 'invoice';
  customer: string;
  subscription: string | null;
  status: InvoiceStatus;
  currency: string;
  amount_due: number;
  amount_paid: number;
  amount_remaining: number;
  due_date: string | null;
  hosted_invoice_url: string;
  description: string | null;
  lines: InvoiceLine[];
  period_start: number | null;
  period_end: number | null;
  payment_intent: string | null;
  status_transitions: { finalized_at: number | null; paid_at: number | null; voided_at: number | null; marked_uncollectible_at: number | null };
  metadata: Record<string, string>;
  created: number;
  livemode: boolean;
}

export interface InvoiceCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  customer: string;
  subscription: string | null;
  currency: string;
  lines: InvoiceLine[];
  amountDue: number;
  description: string | null;
  metadata: Record<string, string>;
  dueAt: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  hostedUrl: string;
  createdAt: string;
}

type WithObject<D> = D & { object: InvoiceObject };

export type InvoiceEvent =
  | DomainEvent<'invoice.created', WithObject<InvoiceCreated>>
  | DomainEvent<'invoice.finalized', WithObject<{ at: string }>>
  // A partial payment (amount_paid changed, amount_remaining still above zero).
  | DomainEvent<'invoice.updated', WithObject<{ payment: InvoicePayment; at: string }>>
  | DomainEvent<'invoice.paid', WithObject<{ payment: InvoicePayment; at: string }>>
  | DomainEvent<'invoice.voided', WithObject<{ at: string }>>
  | DomainEvent<'invoice.marked_uncollectible', WithObject<{ at: string }>>
  // Internal: a payment intent created to pay this invoice (billing pay / confirm), keyed by the client's idempotency key.
  | DomainEvent<'invoice.payment_intent_attached', WithObject<{ key: string; paymentIntentId: string; at: string }>>
  // Internal: the invoice's one payment in flight, decided before its intent is confirmed (docs/billing.md, "One payment of an invoice at a time").
  | DomainEvent<'invoice.payment_attempt_started', WithObject<{ paymentIntentId: string; at: string }>>;

export const invoiceStream = (id: string) => `invoice-${id}`;
