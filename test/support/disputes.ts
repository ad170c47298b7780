/**
 * Disputes of live card payments for the suites (docs/disputes.md): a card payment Paystack's
 * stand-in collected and Sika verified, then a dispute the card network opens on it, told to the
 * service by the stand-in's signed webhook and read back by the `dispute.read` job, as in
 * production.
 */
import { paystackReference } from '#packages/connectors/paystack/index.js';
import { fund } from './payouts.js';
import { confirm, createIntent } from './payments.js';
import type { Dispute, PaystackStandin } from './paystack-standin.js';
import type { TestService } from './system.js';

/** A live NGN card payment Paystack collected and Sika verified, and `funds` more available for a dispute to hold. */
export async function paidCard(svc: TestService, standin: PaystackStandin, merchantId: string, key: string, amount = 500_000, funds = 1_000_000): Promise<{ paymentId: string; reference: string }> {
  const intent = await createIntent(svc, key, { amount, currency: 'ngn', transaction_country: 'NG', customer_email: 'ada@example.com' });
  const res = await confirm(svc, key, intent.id, { payment_method: { type: 'card', card: {} } });
  if (res.status !== 200) throw new Error(res.text);
  const reference = paystackReference(res.body.latest_operation as string);
  standin.checkout(reference);
  if ((await standin.sendChargeWebhook(reference)) !== 200) throw new Error('charge webhook refused');
  await svc.system.scheduler.runUntilIdle();
  await fund(svc, merchantId, funds, 'live', 'ngn');
  return { paymentId: intent.id as string, reference };
}

/** The card network opens a dispute on the payment of `reference`; Paystack tells Sika by webhook, and the read job runs. */
export async function openDispute(svc: TestService, standin: PaystackStandin, reference: string, options: { dueInMs?: number; refundAmount?: number; category?: string } = {}): Promise<Dispute> {
  const dispute = standin.openDispute(reference, { now: svc.clock.now(), category: 'fraud', ...options });
  if ((await standin.sendDisputeWebhook('charge.dispute.create', dispute)) !== 200) throw new Error('dispute webhook refused');
  await svc.system.scheduler.runUntilIdle();
  return dispute;
}
