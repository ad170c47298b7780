/**
 * Helpers shared by the billing suites: succeeded sandbox payments to refund, products with
 * prices, subscriptions, invoices and wallet credits, each failing loudly when the setup fails.
 */
import type { TestResponse, TestService } from './system.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from './payments.js';

/** The body of a 200 answer (as loosely typed as TestResponse's), or an error saying what failed. */
async function ok(res: Promise<TestResponse>, what: string): Promise<TestResponse['body']> {
  const r = await res;
  if (r.status !== 200) throw new Error(`${what} failed: ${r.status} ${r.text}`);
  return r.body;
}

/** A sandbox mobile money payment that succeeded (XOF in Senegal); its net is in the merchant's available balance. */
export async function succeededPayment(svc: TestService, key: string, amount = 10_000) {
  const intent = await createIntent(svc, key, { amount, customer_email: 'payer@example.com' });
  await ok(confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) }), 'confirm');
  await operatorAnswers(svc);
  const res = await svc.request('GET', `/api/v1/payment-intents/${intent.id}`, { key });
  if (res.body.status !== 'succeeded') throw new Error(`payment did not succeed: ${res.text}`);
  return res.body;
}

/** A sandbox payment the operator refused (MSISDN ending in 01). */
export async function failedPayment(svc: TestService, key: string, amount = 10_000) {
  const intent = await createIntent(svc, key, { amount });
  await ok(confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('01')) }), 'confirm');
  await operatorAnswers(svc);
  return intent;
}

export const monthly = (unitAmount: number, extra: Record<string, unknown> = {}) => ({
  currency: 'xof',
  unit_amount: unitAmount,
  recurring: { interval: 'month', interval_count: 1, ...extra },
});

export function createProduct(svc: TestService, key: string, body: Record<string, unknown> = {}) {
  return ok(svc.request('POST', '/api/v1/merchant/products', { key, body: { name: 'Pro plan', prices: [monthly(5_000)], ...body } }), 'create product');
}

export function createSubscription(svc: TestService, key: string, body: Record<string, unknown>) {
  return ok(svc.request('POST', '/api/v1/merchant/subscriptions', { key, body }), 'create subscription');
}

export function createInvoice(svc: TestService, key: string, body: Record<string, unknown>) {
  return ok(svc.request('POST', '/api/v1/merchant/invoices', { key, body }), 'create invoice');
}

export function setInvoiceStatus(svc: TestService, key: string, id: string, status: string) {
  return ok(svc.request('PATCH', `/api/v1/merchant/invoices/${id}/status`, { key, body: { status } }), `invoice ${id} → ${status}`);
}

/** An invoice created and finalized at once: open, so it takes payments. */
export async function openInvoice(svc: TestService, key: string, body: Record<string, unknown>) {
  const invoice = await createInvoice(svc, key, body);
  await setInvoiceStatus(svc, key, invoice.id, 'open');
  return invoice;
}

export function creditWallet(svc: TestService, key: string, customer: string, amount: number, currency = 'xof') {
  return ok(svc.request('POST', `/api/v1/merchant/billing/wallet/customers/${customer}/credit`, { key, body: { amount, currency } }), 'wallet credit');
}

export function get(svc: TestService, key: string, path: string) {
  return ok(svc.request('GET', path, { key }), `GET ${path}`);
}

/** The customer's wallet balance, as the Customer object shows it. */
export async function walletBalance(svc: TestService, key: string, customer: string): Promise<number> {
  return (await get(svc, key, `/api/v1/merchant/customers/${customer}`)).balance;
}

export const DAY_MS = 86_400_000;
