/** The refunds-per-payment Decider on its own: the remainder, status changes, idempotency, ownership. */
import t from '#tap';
import { refundable, type RefundCommand } from '#packages/families/billing/refund/decider.js';
import { paymentRefundsAggregate, toRefundObject } from '#packages/families/billing/refund/render.js';
import type { RefundedPayment } from '#packages/families/billing/refund/events.js';
import { spec } from '../../support/decider-spec.js';

const refunds = spec(paymentRefundsAggregate);
const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const payment: RefundedPayment = { id: 'pi_1', merchantId: 'acct_1', environment: 'sandbox', amount: 10_000, currency: 'xof', clearing: 'operator_clearing:orange_money' };
const create = (refundId: string, amount: number): RefundCommand => ({ type: 'create', owner, at, payment, refundId, amount, reason: 'requested_by_customer' });
/** A creation decided with the ledger in one commit (packages/families/billing/refund/commands.ts). */
const settled = (refundId: string, amount: number, outcome: { status: 'succeeded' } | { status: 'failed'; failureReason: string }): RefundCommand => ({ type: 'create', owner, at, payment, refundId, amount, reason: null, outcome });
const succeed = (refundId: string): RefundCommand => ({ type: 'succeed', owner, at, refundId });
const fail = (refundId: string, failureReason: string): RefundCommand => ({ type: 'fail', owner, at, refundId, failureReason });

t.test('refunds fit in the amount paid; pending ones count, failed ones free their amount', async (t) => {
  const pending = refunds
    .given()
    .when(create('re_1', 6_000))
    .thenMatch(t, [{ type: 'refund.created', data: { object: { id: 're_1', status: 'pending', amount: 6_000, currency: 'xof', payment_intent: 'pi_1' } } }]);
  t.equal(refundable(refunds.state(pending)), 4_000);
  refunds.given(pending).when(create('re_2', 4_001)).thenThrows(t, { code: 'IKW-BIL-003', param: 'amount' });
  const failed = refunds
    .given(pending)
    .when(fail('re_1', 'insufficient_funds'))
    .thenState((s) => {
      t.equal(refundable(s), 10_000);
      t.match(toRefundObject(s, 're_1'), { status: 'failed', failure_reason: 'insufficient_funds' });
    });
  const all = refunds.given(failed).history(create('re_2', 10_000), succeed('re_2'));
  t.equal(refundable(refunds.state(all)), 0);
  refunds.given(all).when(create('re_3', 1)).thenThrows(t, { code: 'IKW-BIL-003', param: 'amount' });
});

t.test('idempotent: the same refund id twice, succeed or fail of a refund that is not pending', async (t) => {
  const pending = refunds.history(create('re_1', 1_000));
  refunds.given(pending).when(create('re_1', 1_000)).thenNothing(t);
  const succeeded = refunds.given(pending).history(succeed('re_1'));
  refunds.given(succeeded).when(succeed('re_1')).thenNothing(t);
  refunds.given(succeeded).when(fail('re_1', 'x')).thenNothing(t);
  refunds.given(succeeded).when(succeed('re_nope')).thenNothing(t);
});

t.test("another merchant's or environment's payment is no such payment", async (t) => {
  const pending = refunds.history(create('re_1', 1_000));
  refunds
    .given(pending)
    .when({ ...create('re_2', 1), owner: { merchantId: 'acct_2', environment: 'sandbox' } })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'paymentId' });
  refunds
    .given()
    .when({ ...create('re_2', 1), owner: { merchantId: 'acct_1', environment: 'live' } })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'paymentId' });
});

t.test('created with its outcome: succeeded or failed in the same decision, the remainder as for a pending one', async (t) => {
  const succeeded = refunds
    .given()
    .when(settled('re_1', 6_000, { status: 'succeeded' }))
    .thenMatch(t, [
      { type: 'refund.created', data: { object: { id: 're_1', status: 'pending' } } },
      { type: 'refund.succeeded', data: { refundId: 're_1', object: { id: 're_1', status: 'succeeded' } } },
    ]);
  t.equal(refundable(refunds.state(succeeded)), 4_000);
  refunds
    .given(succeeded)
    .when(settled('re_2', 4_001, { status: 'succeeded' }))
    .thenThrows(t, { code: 'IKW-BIL-003', param: 'amount' });
  const failed = refunds
    .given(succeeded)
    .when(settled('re_2', 4_000, { status: 'failed', failureReason: 'insufficient_funds' }))
    .thenMatch(t, [{ type: 'refund.created' }, { type: 'refund.failed', data: { object: { id: 're_2', status: 'failed', failure_reason: 'insufficient_funds' } } }]);
  t.equal(refundable(refunds.state(failed)), 4_000, 'the failed refund frees its amount');
  refunds
    .given(failed)
    .when(settled('re_2', 4_000, { status: 'succeeded' }))
    .thenNothing(t);
});
