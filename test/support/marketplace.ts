/**
 * Helpers of the marketplace suites: requests to /api/v1/marketplace, sellers and rules made in
 * one call, and an order paid through its payment intent by the sandbox operator.
 */
import { confirm, mobileMoney, snNumber } from './payments.js';
import { advance, type TestResponse, type TestService } from './system.js';

export const MARKETPLACE = '/api/v1/marketplace';

/** A marketplace request with, if given, an Idempotency-Key. */
export function mkt(svc: TestService, key: string, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<TestResponse> {
  return svc.request(method, `${MARKETPLACE}${path}`, {
    key,
    ...(body !== undefined ? { body } : {}),
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });
}

async function created(res: TestResponse, what: string) {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res.body;
}

export const createSeller = async (svc: TestService, key: string, sellerId: string, extra: Record<string, unknown> = {}) =>
  created(await mkt(svc, key, 'POST', '/sellers', { sellerId, displayName: `Seller ${sellerId}`, settlementMode: 'rolling', settlementDelayDays: 0, ...extra }), 'seller');

export const createRule = async (svc: TestService, key: string, body: Record<string, unknown> = {}) =>
  created(await mkt(svc, key, 'POST', '/commission-rules', { name: 'Standard', percentBasisPoints: 1000, fixedFeeMinor: 0, currency: 'xof', ...body }), 'rule');

export interface Line {
  sellerId: string;
  amountMinor: number;
  commissionRuleId?: string;
  description?: string;
}

export const createOrder = async (svc: TestService, key: string, lines: Line[], extra: Record<string, unknown> = {}) =>
  created(await mkt(svc, key, 'POST', '/orders', { currency: 'xof', transactionCountry: 'SN', lines, ...extra }), 'order');

/** Confirms the order's payment intent with a sandbox wallet that succeeds, and lets the operator answer. */
export async function payOrder(svc: TestService, key: string, order: { id: string; paymentIntentId: string }) {
  const res = await confirm(svc, key, order.paymentIntentId, { payment_method: mobileMoney(snNumber('67')) });
  if (res.status !== 200) throw new Error(`confirm failed: ${res.status} ${res.text}`);
  await advance(svc);
  return (await mkt(svc, key, 'GET', `/orders/${order.id}`)).body;
}
