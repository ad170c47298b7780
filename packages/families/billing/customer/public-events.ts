import { testId, CURRENCY, MSISDN, type PublicEvents } from '#packages/core/public-events.js';
import { initialCustomerState } from './decider.js';
import { toCustomerObject } from './render.js';
import type { CustomerObject } from './events.js';

/** Customers' public events (docs/billing.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const customerPublicEvents: PublicEvents = {
  types: [
    { type: 'customer.created', emittedBy: 'a payment intent or billing request naming a new customer (customer_email, customer_phone)', data: 'the Customer' },
    { type: 'customer.updated', emittedBy: 'a billing request giving the name of a customer that had none', data: 'the Customer' },
    { type: 'customer.balance_credited', emittedBy: 'POST /api/v1/merchant/billing/wallet/customers/{id}/credit, a voided invoice giving back its wallet payments, an invoice overpayment', data: 'the Customer (balance after)' },
    { type: 'customer.balance_applied', emittedBy: 'POST /api/v1/merchant/billing/wallet/invoices/{invoiceId}/apply', data: 'the Customer (balance after)' },
    { type: 'customer.balance_returned', emittedBy: 'a wallet application the invoice could not take (paid or voided meanwhile)', data: 'the Customer (balance after)' },
  ],
  example: customer,
};

/** A customer as its events leave it, rendered as they render it (toCustomerObject). */
function customer(type: string, created: number, livemode: boolean): CustomerObject {
  const wallet = type.startsWith('customer.balance_');
  const createdAt = new Date(created * 1000).toISOString();
  const c = { id: testId('cus'), merchantId: testId('acct'), environment: livemode ? ('live' as const) : ('sandbox' as const), name: 'Awa Diop', email: 'awa.diop@example.com', phone: MSISDN, currency: null, metadata: {}, createdAt };
  return toCustomerObject({ ...initialCustomerState, customer: c, name: c.name, phone: c.phone, walletCurrency: wallet ? CURRENCY : null, balance: wallet ? 2500 : 0 });
}
