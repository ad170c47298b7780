/** The refunds-per-payment Decider on its own: the remainder, status changes, idempotency, ownership. */
import t from 'tap';
import { ApiError } from '../../packages/core/errors.js';
import { fold } from '../../packages/core/decider.js';
import { paymentRefundsDecider, refundable, toRefundObject, type RefundCommand } from '../../packages/domain/refund/decider.js';
import type { RefundedPayment, RefundEvent } from '../../packages/domain/refund/events.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const payment: RefundedPayment = { id: 'pi_1', merchantId: 'acct_1', environment: 'sandbox', amount: 10_000, currency: 'xof', clearing: 'operator_clearing:orange_money' };
const create = (refundId: string, amount: number): RefundCommand => ({ type: 'create', owner, at, payment, refundId, amount, reason: 'requested_by_customer' });
const run = (history: RefundEvent[], command: RefundCommand) => [...history, ...paymentRefundsDecider.decide(command, fold(paymentRefundsDecider, history))];
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? [err.code, err.param] : ['not an ApiError'];
  }
  return ['no error'];
};

t.test('refunds fit in the amount paid; pending ones count, failed ones free their amount', async (t) => {
  let h = run([], create('re_1', 6_000));
  t.equal(h[0]!.type, 'refund.created');
  t.match(h[0]!.data, { object: { id: 're_1', status: 'pending', amount: 6_000, currency: 'xof', payment_intent: 'pi_1' } });
  t.equal(refundable(fold(paymentRefundsDecider, h)), 4_000);
  t.same(code(() => run(h, create('re_2', 4_001))), ['IKW-BIL-003', 'amount']);
  h = run(h, { type: 'fail', owner, at, refundId: 're_1', failureReason: 'insufficient_funds' });
  t.equal(refundable(fold(paymentRefundsDecider, h)), 10_000);
  t.match(toRefundObject(fold(paymentRefundsDecider, h), 're_1'), { status: 'failed', failure_reason: 'insufficient_funds' });
  h = run(h, create('re_2', 10_000));
  h = run(h, { type: 'succeed', owner, at, refundId: 're_2' });
  t.equal(refundable(fold(paymentRefundsDecider, h)), 0);
  t.same(code(() => run(h, create('re_3', 1))), ['IKW-BIL-003', 'amount']);
});

t.test('idempotent: the same refund id twice, succeed or fail of a refund that is not pending', async (t) => {
  let h = run([], create('re_1', 1_000));
  t.same(paymentRefundsDecider.decide(create('re_1', 1_000), fold(paymentRefundsDecider, h)), []);
  h = run(h, { type: 'succeed', owner, at, refundId: 're_1' });
  t.same(paymentRefundsDecider.decide({ type: 'succeed', owner, at, refundId: 're_1' }, fold(paymentRefundsDecider, h)), []);
  t.same(paymentRefundsDecider.decide({ type: 'fail', owner, at, refundId: 're_1', failureReason: 'x' }, fold(paymentRefundsDecider, h)), []);
  t.same(paymentRefundsDecider.decide({ type: 'succeed', owner, at, refundId: 're_nope' }, fold(paymentRefundsDecider, h)), []);
});

t.test("another merchant's or environment's payment is no such payment", async (t) => {
  const h = run([], create('re_1', 1_000));
  t.same(code(() => paymentRefundsDecider.decide({ ...create('re_2', 1), owner: { merchantId: 'acct_2', environment: 'sandbox' } }, fold(paymentRefundsDecider, h))), ['IKW-RES-001', 'id']);
  t.same(code(() => paymentRefundsDecider.decide({ ...create('re_2', 1), owner: { merchantId: 'acct_1', environment: 'live' } }, fold(paymentRefundsDecider, []))), ['IKW-RES-001', 'id']);
});
