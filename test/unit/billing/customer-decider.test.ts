/** The customer Decider on its own: idempotent creation, the wallet's credits, applications and returns, tags. */
import t from '#tap';
import type { CustomerCommand } from '#packages/families/billing/customer/decider.js';
import { customerAggregate, toCustomerObject } from '#packages/families/billing/customer/render.js';
import type { CustomerCreated } from '#packages/families/billing/customer/events.js';
import { spec } from '../../support/decider-spec.js';

const customers = spec(customerAggregate);
const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const customer: CustomerCreated = { id: 'cus_1', merchantId: 'acct_1', environment: 'sandbox', name: null, email: 'a@example.com', phone: null, currency: null, metadata: {}, createdAt: at.toISOString() };
const create: CustomerCommand = { type: 'create', customer };
const credit = (creditId: string, amount: number, currency = 'xof'): Extract<CustomerCommand, { type: 'credit' }> => ({ type: 'credit', owner, at, creditId, amount, currency, reason: 'merchant_credit', source: null });
const applyTo = (applicationId: string, maxAmount: number, currency = 'xof'): CustomerCommand => ({ type: 'apply_to_invoice', owner, at, applicationId, invoiceId: 'in_1', currency, maxAmount });
const settle = (applicationId: string, accepted: number): CustomerCommand => ({ type: 'settle_application', owner, at, applicationId, accepted });

t.test('creation is idempotent; a later name fills an empty one', async (t) => {
  const created = customers
    .given()
    .when(create)
    .thenMatch(t, [{ type: 'customer.created', data: { object: { id: 'cus_1', object: 'customer', balance: 0, name: null, livemode: false } } }]);
  customers.given(created).when(create).thenNothing(t);
  const named = customers
    .given(created)
    .when({ type: 'create', customer: { ...customer, name: 'Ada' } })
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['customer.updated'],
      );
      t.equal(toCustomerObject(s).name, 'Ada');
    });
  customers
    .given(named)
    .when({ type: 'create', customer: { ...customer, name: 'Other' } })
    .thenNothing(t, 'a name is never overwritten');
});

t.test('the wallet: credits in one currency, applications up to the balance, returns once', async (t) => {
  const created = customers.history(create);
  customers.given(created).when(applyTo('a0', 100)).thenThrows(t, { code: 'IKW-BIL-005', param: 'invoiceId' }, 'empty wallet');
  const credited = customers.given(created).history(credit('c1', 3_000));
  customers.given(credited).when(credit('c1', 3_000)).thenNothing(t, 'credits are idempotent');
  customers
    .given(credited)
    .when(credit('c2', 10, 'ghs'))
    .thenThrows(t, { code: 'IKW-BIL-010', param: 'currency' });
  customers.given(credited).when(credit('c3', 0)).thenThrows(t, { code: 'IKW-VAL-001', param: 'amount' });
  customers
    .given(credited)
    .when(applyTo('a0', 100, 'ghs'))
    .thenThrows(t, { code: 'IKW-BIL-010', param: 'invoiceId' });
  t.match(toCustomerObject(customers.state(credited)), { balance: 3_000, currency: 'xof' });

  const applied = customers
    .given(credited)
    .when(applyTo('a1', 5_000))
    .thenMatch(t, [{ type: 'customer.balance_applied', data: { amount: 3_000, object: { balance: 0 } } }], 'at most the balance');
  customers.given(applied).when(applyTo('a1', 5_000)).thenNothing(t, 'an application id is used once');
  const returned = customers
    .given(applied)
    .when(settle('a1', 1_000))
    .thenMatch(t, [{ type: 'customer.balance_returned', data: { amount: 2_000, object: { balance: 2_000 } } }]);
  customers.given(returned).when(settle('a1', 1_000)).thenNothing(t, 'returned once');
  customers.given(returned).when(settle('nope', 0)).thenNothing(t);
});

t.test("another merchant's customer is no such customer", async (t) => {
  const created = customers.history(create);
  customers
    .given(created)
    .when({ ...credit('c1', 1), owner: { merchantId: 'acct_2', environment: 'sandbox' } })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'customer' });
  customers
    .given(created)
    .when({ ...credit('c1', 1), owner: { merchantId: 'acct_1', environment: 'live' } })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'customer' });
});

t.test('a tag joins metadata tags once, sorted', async (t) => {
  const created = customers.history({
    type: 'create',
    customer: { id: 'cus_1', merchantId: 'acct_1', environment: 'sandbox', name: null, email: 'a@example.com', phone: null, currency: null, metadata: { plan: 'gold' }, createdAt: at.toISOString() },
  });
  const tag = (tag: string): CustomerCommand => ({ type: 'tag', owner, at, tag });
  const vip = customers
    .given(created)
    .when(tag('vip'))
    .thenMatch(t, [{ type: 'customer.updated', data: { metadata: { plan: 'gold', tags: 'vip' }, object: { metadata: { plan: 'gold', tags: 'vip' } } } }]);
  customers.given(created, vip).when(tag('vip')).thenNothing(t);
  customers
    .given(created, vip)
    .when(tag('early'))
    .thenState((s) => t.same(toCustomerObject(s).metadata, { plan: 'gold', tags: 'early,vip' }));
  customers
    .given(created)
    .when({ type: 'tag', owner: { merchantId: 'acct_2', environment: 'sandbox' }, at, tag: 'x' })
    .thenThrows(t, 'IKW-RES-001');
});
