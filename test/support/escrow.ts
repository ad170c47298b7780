/**
 * Helpers of the escrow suites: calls to /api/v1/escrow, contracts funded from the merchant
 * balance or by a payment intent through the sandbox operator, and the money invariants checked
 * against the ledger's own stream.
 */
import type { Test } from 'tap';
import { balanceOf } from '#packages/ledger/decider.js';
import { isBalanced } from '#packages/ledger/entry.js';
import { escrowAccount } from '#packages/families/escrow/postings.js';
import type { LedgerEvent } from '#packages/families/ledger/events.js';
import { balanceStream } from '#packages/families/ledger/events.js';
import { confirm, createIntent, mobileMoney, snNumber } from './payments.js';
import { fund, ledgerOf } from './payouts.js';
import { advance, type TestResponse, type TestService } from './system.js';

export const ESCROW = '/api/v1/escrow';

export function escrow(svc: TestService, key: string, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<TestResponse> {
  return svc.request(method, `${ESCROW}${path}`, { key, ...(body !== undefined ? { body } : {}), ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}) });
}

export async function ok(res: TestResponse) {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status} ${res.text}`);
  return res.body;
}

/** A contract of `amount` XOF funded at once from the merchant's available balance (credited first). */
export async function fundedContract(svc: TestService, merchantId: string, key: string, amount: number, extra: Record<string, unknown> = {}) {
  await fund(svc, merchantId, amount);
  return ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'XOF', amountMinor: amount, fundingSourceType: 'merchant_balance', ...extra }));
}

/** A contract funded by a payer's payment intent through the sandbox operator: returns the contract and the intent. */
export async function paidContract(svc: TestService, key: string, amount: number, extra: Record<string, unknown> = {}) {
  const contract = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: amount, ...extra }));
  const intent = await createIntent(svc, key, { amount });
  await ok(await escrow(svc, key, 'POST', `/contracts/${contract.id}/submit-for-funding`, { paymentIntentId: intent.id }));
  const confirmed = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) });
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.text}`);
  await advance(svc);
  await svc.system.drain();
  return { contract: await ok(await escrow(svc, key, 'GET', `/contracts/${contract.id}`)), intent };
}

/**
 * The invariants of one contract: released + refunded ≤ funded, none negative, pending releases
 * covered, the escrow account on the ledger holds exactly heldMinor, and every entry of the
 * merchant's balance stream balances. The first that fails, or null.
 */
export async function invariantViolation(svc: TestService, merchantId: string, key: string, contractId: string): Promise<string | null> {
  const c = await ok(await escrow(svc, key, 'GET', `/contracts/${contractId}`));
  const { state } = await ledgerOf(svc, merchantId);
  const events = (await svc.system.store.readStream(balanceStream(merchantId, 'sandbox', 'xof'))) as unknown as LedgerEvent[];
  if (c.fundedMinor < 0 || c.releasedMinor < 0 || c.refundedMinor < 0 || c.heldMinor < 0) return `a negative amount: ${JSON.stringify(c)}`;
  if (c.releasedMinor + c.refundedMinor > c.fundedMinor) return `released ${c.releasedMinor} + refunded ${c.refundedMinor} > funded ${c.fundedMinor}`;
  if (c.heldMinor !== c.fundedMinor - c.releasedMinor - c.refundedMinor) return `held ${c.heldMinor} is not funded − released − refunded`;
  if (c.pendingReleaseMinor > c.heldMinor) return `pending releases ${c.pendingReleaseMinor} exceed held ${c.heldMinor}`;
  const onLedger = balanceOf(state, escrowAccount(contractId));
  if (onLedger !== c.heldMinor) return `the ledger's escrow account holds ${onLedger}, the contract ${c.heldMinor}`;
  const unbalanced = events.find((e) => !isBalanced(e.data.lines));
  if (unbalanced) return `unbalanced entry ${unbalanced.data.entryId}`;
  return null;
}

export async function assertInvariants(t: Test, svc: TestService, merchantId: string, key: string, contractId: string): Promise<void> {
  t.equal(await invariantViolation(svc, merchantId, key, contractId), null, 'released + refunded ≤ funded, none negative, the ledger agrees, every entry balances');
}
