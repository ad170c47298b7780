/**
 * The intelligence read models, events in and rows out: a payment counted under its day and
 * dimensions, moved to its operator's row when confirmed, its outcome, fee and refunds added; a
 * paying customer's first and last payment; one decision per deciding event.
 */
import t from '#tap';
import { intelligenceDecisionsProjection } from '#packages/families/intelligence/read/intelligence-decisions.js';
import { intelligencePaymentsProjection } from '#packages/families/intelligence/read/intelligence-payments.js';
import { projectionSpec, type GivenEvent } from '../../support/projection-spec.js';

const meta = { merchant_id: 'acct_1', environment: 'sandbox' as const, occurred_at: '2026-03-01T10:00:00.000Z' };
const intent = (id: string, type: string, data: Record<string, unknown>): GivenEvent => ({ type, data, streamId: `payment_intent-${id}`, metadata: meta });
const created = (id: string, amount: number, customer: string | null = null) =>
  intent(id, 'payment_intent.created', { id, merchantId: 'acct_1', environment: 'sandbox', amount, currency: 'xof', transactionCountry: 'sn', customer, createdAt: '2026-03-01T09:00:00.000Z' });
const confirmed = (id: string, operator: string) => intent(id, 'payment_intent.confirmation_started', { operationId: `op_${id}`, paymentMethod: { type: 'mobile_money', country: 'SN', operator, msisdn: '+221771234567' } });
const daily = (operator: string, sums: Record<string, number>) => ({
  merchant_id: 'acct_1',
  environment: 'sandbox',
  currency: 'XOF',
  country: 'SN',
  operator,
  method: operator === '' ? '' : 'mobile_money',
  count: '0',
  succeeded: '0',
  failed: '0',
  volume: '0',
  fees: '0',
  refunds: '0',
  ...Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, String(v)])),
});

t.test('intel_daily: a payment moves to its operator when confirmed, then adds its outcome, fee and refunds', async (t) => {
  const read = await projectionSpec(t, intelligencePaymentsProjection);
  await read.given([created('pi_1', 10_000, 'cus_1'), created('pi_2', 4_000)]);
  await read.thenRows(t, 'read.intel_daily', [daily('', { count: 2 })], 'counted before any confirmation');

  await read.given([confirmed('pi_1', 'orange_money'), confirmed('pi_2', 'wave')]);
  await read.thenRows(t, 'read.intel_daily', [daily('', { count: 0 }), daily('orange_money', { count: 1 }), daily('wave', { count: 1 })], 'moved to their operators');

  await read.given([
    intent('pi_1', 'payment_intent.succeeded', { operationId: 'op_pi_1', fee: 150, at: '2026-03-01T10:05:00.000Z' }),
    intent('pi_2', 'payment_intent.payment_failed', { operationId: 'op_pi_2', failureCode: 'insufficient_funds', failureMessage: 'x', at: '2026-03-01T10:05:00.000Z' }),
    { type: 'refund.created', data: { payment: { id: 'pi_1' }, refund: { id: 're_1', amount: 2_500 } }, streamId: 'payment_refunds-pi_1', metadata: meta },
    { type: 'refund.created', data: { payment: { id: 'pi_1' }, refund: { id: 're_2', amount: 1_000 } }, streamId: 'payment_refunds-pi_1', metadata: meta },
    { type: 'refund.succeeded', data: { refundId: 're_1', at: '2026-03-02T00:00:00.000Z' }, streamId: 'payment_refunds-pi_1', metadata: meta },
    { type: 'refund.failed', data: { refundId: 're_2', failureReason: 'x', at: '2026-03-02T00:00:00.000Z' }, streamId: 'payment_refunds-pi_1', metadata: meta },
  ]);
  const rows = await read.thenRows(t, 'read.intel_daily', [daily('', {}), daily('orange_money', { count: 1, succeeded: 1, volume: 10_000, fees: 150, refunds: 2_500 }), daily('wave', { count: 1, failed: 1 })]);
  t.ok(
    rows.every((r) => String(r.day).length > 0),
    'under the day the payment was created',
  );
  await read.thenRows(t, 'read.intel_customers', [{ customer: 'cus_1', payments: '1' }], 'a paying customer');
});

t.test('intel_decisions: one per deciding event, named from it', async (t) => {
  const read = await projectionSpec(t, intelligenceDecisionsProjection);
  await read.given([confirmed('pi_1', 'orange_money'), created('pi_2', 1)]);
  const [row] = await read.rows('read.intel_decisions');
  t.match(row, { merchant_id: 'acct_1', environment: 'sandbox', kind: 'payment_routing', subject: 'pi_1' });
  t.match(row!.object, { kind: 'payment_routing', outcome: { operator: 'orange_money', rail_country: 'SN', method: 'mobile_money' }, decidedAt: meta.occurred_at });
  t.equal((await read.rows('read.intel_decisions')).length, 1, 'a created payment decides nothing');

  const payout = { id: 'po_1', expected_by: '2026-03-01T10:10:00.000Z' };
  await read.given([{ type: 'payout.delayed', data: { reason: 'operator_timeout', at: '2026-03-01T10:20:00.000Z', object: payout }, streamId: 'payout-po_1', metadata: meta }]);
  const delayed = (await read.rows('read.intel_decisions')).find((r) => r.kind === 'payout_delay');
  t.match(delayed?.object, { subject: 'po_1', outcome: { delay_reason: 'operator_timeout', expected_by: payout.expected_by }, reason: /did not answer in time/, decidedAt: '2026-03-01T10:20:00.000Z' });
});
