/** The subscription Decider on its own: renewals and their invoices, usage, past_due, cancel; and period arithmetic. */
import t from '#tap';
import type { SubscriptionCommand } from '#packages/families/billing/subscription/decider.js';
import { subscriptionAggregate, toSubscriptionObject } from '#packages/families/billing/subscription/render.js';
import type { SubscriptionCreated, UsageRecord } from '#packages/families/billing/subscription/events.js';
import { addInterval } from '#packages/families/billing/subscription/periods.js';
import { spec } from '../../support/decider-spec.js';

const subscriptions = spec(subscriptionAggregate);
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const d = (iso: string) => new Date(iso);
const subscription: SubscriptionCreated = {
  id: 'sub_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  customer: 'cus_1',
  currency: 'xof',
  interval: 'month',
  intervalCount: 1,
  items: [
    { id: 'si_1', price: 'price_1', product: 'prod_1', quantity: 2, unit_amount: 1_000, usage_type: 'licensed' },
    { id: 'si_2', price: 'price_2', product: 'prod_1', quantity: 1, unit_amount: 3, usage_type: 'metered' },
  ],
  billingPlanId: null,
  metadata: {},
  daysUntilDue: 7,
  cancelAtPeriodEnd: false,
  currentPeriodStart: '2026-01-31T00:00:00.000Z',
  currentPeriodEnd: '2026-02-28T00:00:00.000Z',
  billingCycleAnchor: '2026-01-31T00:00:00.000Z',
  intervalsToFirstEnd: 1,
  trialEnd: null,
  invoice: null,
  createdAt: '2026-01-31T00:00:00.000Z',
};
const create = (of: SubscriptionCreated = subscription): SubscriptionCommand => ({ type: 'create', subscription: of });
const renew = (periodEnd: string, at = periodEnd, invoiceId = `in_${periodEnd.slice(0, 10)}`): SubscriptionCommand => ({ type: 'renew', owner, at: d(at), periodEnd, invoiceId });
const usage = (id: string, quantity: number, keys: { idempotencyKey?: string; externalId?: string } = {}, meterKey = 'calls'): SubscriptionCommand => {
  const record: UsageRecord = {
    id,
    subscriptionId: 'sub_1',
    meterKey,
    quantity,
    occurredAt: '2026-02-01T00:00:00.000Z',
    externalId: keys.externalId ?? null,
    idempotencyKey: keys.idempotencyKey ?? null,
    createdAt: '2026-02-01T00:00:00.000Z',
  };
  return { type: 'record_usage', owner, at: d('2026-02-01T00:00:00Z'), record };
};
const cancel = (at: string, atPeriodEnd: boolean, invoiceId: string): SubscriptionCommand => ({ type: 'cancel', owner, at: d(at), atPeriodEnd, invoiceId });
const overdue = (at: string, invoiceId: string): SubscriptionCommand => ({ type: 'invoice_overdue', owner, at: d(at), invoiceId });
const settled = (at: string, invoiceId: string): SubscriptionCommand => ({ type: 'invoice_settled', owner, at: d(at), invoiceId });

t.test('periods count from the anchor, clamped to the month, without drift', async (t) => {
  const anchor = d('2026-01-31T10:00:00Z');
  t.same(
    [1, 2, 3, 13].map((n) => addInterval(anchor, 'month', n).toISOString()),
    ['2026-02-28T10:00:00.000Z', '2026-03-31T10:00:00.000Z', '2026-04-30T10:00:00.000Z', '2027-02-28T10:00:00.000Z'],
  );
  t.equal(addInterval(d('2028-02-29T00:00:00Z'), 'year', 1).toISOString(), '2029-02-28T00:00:00.000Z');
  t.equal(addInterval(d('2026-01-01T00:00:00Z'), 'week', 2).toISOString(), '2026-01-15T00:00:00.000Z');
  t.equal(addInterval(d('2026-01-01T00:00:00Z'), 'day', 45).toISOString(), '2026-02-15T00:00:00.000Z');
  t.equal(addInterval(d('2026-11-30T00:00:00Z'), 'month', 3).toISOString(), '2027-02-28T00:00:00.000Z');
});

t.test('renewal: licensed items in advance, usage of the closed period in arrears, once per period', async (t) => {
  const used = subscriptions.history(create(), usage('u1', 10), usage('u2', 5, {}, 'sms'));
  subscriptions.given(used).when(renew('2026-02-28T00:00:00.000Z', '2026-02-27T23:59:59Z')).thenNothing(t, 'not before the period ends');
  const renewed = subscriptions
    .given(used)
    .when(renew('2026-02-28T00:00:00.000Z', '2026-03-02T00:00:00Z'))
    .thenMatch(t, [
      {
        type: 'subscription.renewed',
        data: {
          periodStart: '2026-02-28T00:00:00.000Z',
          periodEnd: '2026-03-31T00:00:00.000Z',
          invoice: {
            id: 'in_2026-02-28',
            amountDue: 2_000 + 30 + 15,
            dueAt: '2026-03-07T00:00:00.000Z',
            lines: [
              { price: 'price_1', quantity: 2, amount: 2_000 },
              { meter_key: 'calls', quantity: 10, amount: 30 },
              { meter_key: 'sms', quantity: 5, amount: 15 },
            ],
          },
        },
      },
    ]);
  subscriptions.given(renewed).when(renew('2026-02-28T00:00:00.000Z', '2026-03-05T00:00:00Z')).thenNothing(t, 'a repeated job renews nothing');
  subscriptions
    .given(renewed)
    .when(renew('2026-03-31T00:00:00.000Z'))
    .thenState((s, decided) => {
      t.match(decided.at(-1)?.data, { periodEnd: '2026-04-30T00:00:00.000Z', invoice: { amountDue: 2_000, lines: [{ price: 'price_1' }] } }, 'usage was reset');
      t.match(toSubscriptionObject(s), { latest_invoice: 'in_2026-03-31', current_period_end: Date.parse('2026-04-30T00:00:00Z') / 1000 });
    });
});

t.test('usage: idempotent on idempotencyKey and externalId, refused without a metered price or once canceled', async (t) => {
  const keyed = subscriptions.history(create(), usage('u1', 10, { idempotencyKey: 'k' }));
  subscriptions
    .given(keyed)
    .when(usage('u2', 10, { idempotencyKey: 'k' }))
    .thenNothing(t);
  subscriptions
    .given(keyed)
    .when(usage('u2', 11, { idempotencyKey: 'k' }))
    .thenThrows(t, { code: 'IKW-IDM-002', param: 'idempotencyKey' });
  const external = subscriptions.given(keyed).history(usage('u3', 1, { externalId: 'e' }));
  subscriptions
    .given(external)
    .when(usage('u4', 1, { externalId: 'e' }))
    .thenNothing(t);
  t.equal(subscriptions.state(external).usage.get('calls'), 11);
  const licensedOnly = subscriptions.history(create({ ...subscription, items: [subscription.items[0]!] }));
  subscriptions.given(licensedOnly).when(usage('u1', 1)).thenThrows(t, { code: 'IKW-BIL-011', param: 'subscriptionId' });
  const canceled = subscriptions
    .given(external)
    .when(cancel('2026-02-10T00:00:00Z', false, 'in_last'))
    .thenState((_, decided) => {
      t.match(decided.at(-1), { type: 'subscription.canceled', data: { invoice: { id: 'in_last', amountDue: 33, lines: [{ meter_key: 'calls', quantity: 11 }] } } }, 'usage not invoiced goes on a last invoice');
    });
  subscriptions.given(canceled).when(usage('u9', 1)).thenThrows(t, { code: 'IKW-BIL-011', param: 'subscriptionId' });
});

t.test('statuses: trialing → active; active ⇄ past_due; canceled is final', async (t) => {
  const trialing = subscriptions.history(create({ ...subscription, trialEnd: subscription.currentPeriodEnd, billingCycleAnchor: subscription.currentPeriodEnd, intervalsToFirstEnd: 0 }));
  t.equal(subscriptions.state(trialing).status, 'trialing');
  const active = subscriptions.given(trialing).history(renew(subscription.currentPeriodEnd));
  t.equal(subscriptions.state(active).status, 'active');
  const pastDue = subscriptions.given(active).history(overdue('2026-03-08T00:00:00Z', 'in_a'), overdue('2026-03-08T00:00:00Z', 'in_b'));
  t.equal(subscriptions.state(pastDue).status, 'past_due');
  subscriptions.given(pastDue).when(overdue('2026-03-09T00:00:00Z', 'in_a')).thenNothing(t);
  const oneSettled = subscriptions.given(pastDue).history(settled('2026-03-09T00:00:00Z', 'in_a'));
  t.equal(subscriptions.state(oneSettled).status, 'past_due', 'still one overdue invoice');
  const bothSettled = subscriptions.given(oneSettled).history(settled('2026-03-09T00:00:00Z', 'in_b'));
  t.equal(subscriptions.state(bothSettled).status, 'active');
  subscriptions.given(bothSettled).when(settled('2026-03-09T00:00:00Z', 'in_b')).thenNothing(t);
  const cancelAtEnd = subscriptions.given(bothSettled).history(cancel('2026-03-10T00:00:00Z', true, 'x'));
  t.match(toSubscriptionObject(subscriptions.state(cancelAtEnd)), { status: 'active', cancel_at_period_end: true });
  const canceled = subscriptions.given(cancelAtEnd).history(renew(subscriptions.state(cancelAtEnd).currentPeriodEnd));
  const end = subscriptions.state(canceled);
  t.match(toSubscriptionObject(end), { status: 'canceled' });
  subscriptions
    .given(canceled)
    .when(cancel('2026-05-01T00:00:00Z', false, 'y'))
    .thenThrows(t, { code: 'IKW-BIL-001', param: 'subscriptionId' });
  subscriptions.given(canceled).when(renew(end.currentPeriodEnd, '2027-01-01T00:00:00Z')).thenNothing(t);
  subscriptions.given(canceled).when(overdue('2027-01-01T00:00:00Z', 'in_c')).thenNothing(t);
  subscriptions
    .given(canceled)
    .when({ type: 'cancel', owner: { merchantId: 'acct_2', environment: 'sandbox' }, at: d('2026-05-01T00:00:00Z'), atPeriodEnd: false, invoiceId: 'z' })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'subscriptionId' });
});
