/** The subscription Decider on its own: renewals and their invoices, usage, past_due, cancel; and period arithmetic. */
import t from 'tap';
import { ApiError } from '../../packages/core/errors.js';
import { fold } from '../../packages/core/decider.js';
import { subscriptionDecider, toSubscriptionObject, type SubscriptionCommand } from '../../packages/domain/subscription/decider.js';
import type { SubscriptionCreated, SubscriptionEvent, UsageRecord } from '../../packages/domain/subscription/events.js';
import { addInterval } from '../../packages/domain/subscription/periods.js';

const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const d = (iso: string) => new Date(iso);
const subscription: SubscriptionCreated = {
  id: 'sub_1', merchantId: 'acct_1', environment: 'sandbox', customer: 'cus_1', currency: 'xof', interval: 'month', intervalCount: 1,
  items: [
    { id: 'si_1', price: 'price_1', product: 'prod_1', quantity: 2, unit_amount: 1_000, usage_type: 'licensed' },
    { id: 'si_2', price: 'price_2', product: 'prod_1', quantity: 1, unit_amount: 3, usage_type: 'metered' },
  ],
  billingPlanId: null, metadata: {}, daysUntilDue: 7, cancelAtPeriodEnd: false,
  currentPeriodStart: '2026-01-31T00:00:00.000Z', currentPeriodEnd: '2026-02-28T00:00:00.000Z', billingCycleAnchor: '2026-01-31T00:00:00.000Z', intervalsToFirstEnd: 1, trialEnd: null, invoice: null, createdAt: '2026-01-31T00:00:00.000Z',
};
const run = (history: SubscriptionEvent[], command: SubscriptionCommand) => [...history, ...subscriptionDecider.decide(command, fold(subscriptionDecider, history))];
const state = (h: SubscriptionEvent[]) => fold(subscriptionDecider, h);
const renew = (periodEnd: string, at = periodEnd, invoiceId = `in_${periodEnd.slice(0, 10)}`): SubscriptionCommand => ({ type: 'renew', owner, at: d(at), periodEnd, invoiceId });
const usage = (id: string, quantity: number, keys: { idempotencyKey?: string; externalId?: string } = {}, meterKey = 'calls'): SubscriptionCommand => {
  const record: UsageRecord = { id, subscriptionId: 'sub_1', meterKey, quantity, occurredAt: '2026-02-01T00:00:00.000Z', externalId: keys.externalId ?? null, idempotencyKey: keys.idempotencyKey ?? null, createdAt: '2026-02-01T00:00:00.000Z' };
  return { type: 'record_usage', owner, at: d('2026-02-01T00:00:00Z'), record };
};
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? [err.code, err.param] : ['not an ApiError'];
  }
  return ['no error'];
};

t.test('periods count from the anchor, clamped to the month, without drift', async (t) => {
  const anchor = d('2026-01-31T10:00:00Z');
  t.same([1, 2, 3, 13].map((n) => addInterval(anchor, 'month', n).toISOString()), ['2026-02-28T10:00:00.000Z', '2026-03-31T10:00:00.000Z', '2026-04-30T10:00:00.000Z', '2027-02-28T10:00:00.000Z']);
  t.equal(addInterval(d('2028-02-29T00:00:00Z'), 'year', 1).toISOString(), '2029-02-28T00:00:00.000Z');
  t.equal(addInterval(d('2026-01-01T00:00:00Z'), 'week', 2).toISOString(), '2026-01-15T00:00:00.000Z');
  t.equal(addInterval(d('2026-01-01T00:00:00Z'), 'day', 45).toISOString(), '2026-02-15T00:00:00.000Z');
  t.equal(addInterval(d('2026-11-30T00:00:00Z'), 'month', 3).toISOString(), '2027-02-28T00:00:00.000Z');
});

t.test('renewal: licensed items in advance, usage of the closed period in arrears, once per period', async (t) => {
  let h = run([], { type: 'create', subscription });
  h = run(h, usage('u1', 10));
  h = run(h, usage('u2', 5, {}, 'sms'));
  t.same(subscriptionDecider.decide(renew('2026-02-28T00:00:00.000Z', '2026-02-27T23:59:59Z'), state(h)), [], 'not before the period ends');
  h = run(h, renew('2026-02-28T00:00:00.000Z', '2026-03-02T00:00:00Z'));
  const renewed = h.at(-1)!;
  t.equal(renewed.type, 'subscription.renewed');
  t.match(renewed.data, {
    periodStart: '2026-02-28T00:00:00.000Z',
    periodEnd: '2026-03-31T00:00:00.000Z',
    invoice: {
      id: 'in_2026-02-28',
      amountDue: 2_000 + 30 + 15,
      dueAt: '2026-03-07T00:00:00.000Z',
      lines: [{ price: 'price_1', quantity: 2, amount: 2_000 }, { meter_key: 'calls', quantity: 10, amount: 30 }, { meter_key: 'sms', quantity: 5, amount: 15 }],
    },
  });
  t.same(subscriptionDecider.decide(renew('2026-02-28T00:00:00.000Z', '2026-03-05T00:00:00Z'), state(h)), [], 'a repeated job renews nothing');
  h = run(h, renew('2026-03-31T00:00:00.000Z'));
  t.match(h.at(-1)!.data, { periodEnd: '2026-04-30T00:00:00.000Z', invoice: { amountDue: 2_000, lines: [{ price: 'price_1' }] } }, 'usage was reset');
  t.match(toSubscriptionObject(state(h)), { latest_invoice: 'in_2026-03-31', current_period_end: Date.parse('2026-04-30T00:00:00Z') / 1000 });
});

t.test('usage: idempotent on idempotencyKey and externalId, refused without a metered price or once canceled', async (t) => {
  let h = run([], { type: 'create', subscription });
  h = run(h, usage('u1', 10, { idempotencyKey: 'k' }));
  t.same(subscriptionDecider.decide(usage('u2', 10, { idempotencyKey: 'k' }), state(h)), []);
  t.same(code(() => run(h, usage('u2', 11, { idempotencyKey: 'k' }))), ['IKW-IDM-002', 'idempotencyKey']);
  h = run(h, usage('u3', 1, { externalId: 'e' }));
  t.same(subscriptionDecider.decide(usage('u4', 1, { externalId: 'e' }), state(h)), []);
  t.equal(state(h).usage.get('calls'), 11);
  const licensedOnly = run([], { type: 'create', subscription: { ...subscription, items: [subscription.items[0]!] } });
  t.same(code(() => run(licensedOnly, usage('u1', 1))), ['IKW-BIL-011', 'subscriptionId']);
  const canceled = run(h, { type: 'cancel', owner, at: d('2026-02-10T00:00:00Z'), atPeriodEnd: false, invoiceId: 'in_last' });
  t.match(canceled.at(-1)!, { type: 'subscription.canceled', data: { invoice: { id: 'in_last', amountDue: 33, lines: [{ meter_key: 'calls', quantity: 11 }] } } }, 'usage not invoiced goes on a last invoice');
  t.same(code(() => run(canceled, usage('u9', 1))), ['IKW-BIL-011', 'subscriptionId']);
});

t.test('statuses: trialing → active; active ⇄ past_due; canceled is final', async (t) => {
  let h = run([], { type: 'create', subscription: { ...subscription, trialEnd: subscription.currentPeriodEnd, billingCycleAnchor: subscription.currentPeriodEnd, intervalsToFirstEnd: 0 } });
  t.equal(state(h).status, 'trialing');
  h = run(h, renew(subscription.currentPeriodEnd));
  t.equal(state(h).status, 'active');
  h = run(h, { type: 'invoice_overdue', owner, at: d('2026-03-08T00:00:00Z'), invoiceId: 'in_a' });
  h = run(h, { type: 'invoice_overdue', owner, at: d('2026-03-08T00:00:00Z'), invoiceId: 'in_b' });
  t.equal(state(h).status, 'past_due');
  t.same(subscriptionDecider.decide({ type: 'invoice_overdue', owner, at: d('2026-03-09T00:00:00Z'), invoiceId: 'in_a' }, state(h)), []);
  h = run(h, { type: 'invoice_settled', owner, at: d('2026-03-09T00:00:00Z'), invoiceId: 'in_a' });
  t.equal(state(h).status, 'past_due', 'still one overdue invoice');
  h = run(h, { type: 'invoice_settled', owner, at: d('2026-03-09T00:00:00Z'), invoiceId: 'in_b' });
  t.equal(state(h).status, 'active');
  t.same(subscriptionDecider.decide({ type: 'invoice_settled', owner, at: d('2026-03-09T00:00:00Z'), invoiceId: 'in_b' }, state(h)), []);
  h = run(h, { type: 'cancel', owner, at: d('2026-03-10T00:00:00Z'), atPeriodEnd: true, invoiceId: 'x' });
  t.match(toSubscriptionObject(state(h)), { status: 'active', cancel_at_period_end: true });
  h = run(h, renew(state(h).currentPeriodEnd));
  t.match(toSubscriptionObject(state(h)), { status: 'canceled' });
  t.same(code(() => run(h, { type: 'cancel', owner, at: d('2026-05-01T00:00:00Z'), atPeriodEnd: false, invoiceId: 'y' })), ['IKW-BIL-001', 'id']);
  t.same(subscriptionDecider.decide(renew(state(h).currentPeriodEnd, '2027-01-01T00:00:00Z'), state(h)), []);
  t.same(subscriptionDecider.decide({ type: 'invoice_overdue', owner, at: d('2027-01-01T00:00:00Z'), invoiceId: 'in_c' }, state(h)), []);
  t.same(code(() => subscriptionDecider.decide({ type: 'cancel', owner: { merchantId: 'acct_2', environment: 'sandbox' }, at: d('2026-05-01T00:00:00Z'), atPeriodEnd: false, invoiceId: 'z' }, state(h))), ['IKW-RES-001', 'id']);
});
