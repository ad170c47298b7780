/** The customer Decider on its own: idempotent creation, the wallet's credits, applications and returns. */
import t from 'tap';
import { ApiError } from '../../packages/core/errors.js';
import { fold } from '../../packages/core/decider.js';
import { customerDecider, toCustomerObject, type CustomerCommand } from '../../packages/domain/customer/decider.js';
import type { CustomerCreated, CustomerEvent } from '../../packages/domain/customer/events.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const customer: CustomerCreated = { id: 'cus_1', merchantId: 'acct_1', environment: 'sandbox', name: null, email: 'a@example.com', phone: null, currency: null, metadata: {}, createdAt: at.toISOString() };
const run = (history: CustomerEvent[], command: CustomerCommand) => [...history, ...customerDecider.decide(command, fold(customerDecider, history))];
const state = (h: CustomerEvent[]) => fold(customerDecider, h);
const credit = (creditId: string, amount: number, currency = 'xof'): Extract<CustomerCommand, { type: 'credit' }> => ({ type: 'credit', owner, at, creditId, amount, currency, reason: 'merchant_credit', source: null });
const applyTo = (applicationId: string, maxAmount: number, currency = 'xof'): CustomerCommand => ({ type: 'apply_to_invoice', owner, at, applicationId, invoiceId: 'in_1', currency, maxAmount });
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? [err.code, err.param] : ['not an ApiError'];
  }
  return ['no error'];
};

t.test('creation is idempotent; a later name fills an empty one', async (t) => {
  let h = run([], { type: 'create', customer });
  t.equal(h.length, 1);
  t.match(h[0]!.data, { object: { id: 'cus_1', object: 'customer', balance: 0, name: null, livemode: false } });
  t.same(customerDecider.decide({ type: 'create', customer }, state(h)), []);
  h = run(h, { type: 'create', customer: { ...customer, name: 'Ada' } });
  t.equal(h[1]!.type, 'customer.updated');
  t.equal(toCustomerObject(state(h)).name, 'Ada');
  t.same(customerDecider.decide({ type: 'create', customer: { ...customer, name: 'Other' } }, state(h)), [], 'a name is never overwritten');
});

t.test('the wallet: credits in one currency, applications up to the balance, returns once', async (t) => {
  let h = run([], { type: 'create', customer });
  t.same(code(() => run(h, applyTo('a0', 100))), ['IKW-BIL-005', 'invoiceId'], 'empty wallet');
  h = run(h, credit('c1', 3_000));
  t.same(customerDecider.decide(credit('c1', 3_000), state(h)), [], 'credits are idempotent');
  t.same(code(() => run(h, credit('c2', 10, 'ghs'))), ['IKW-BIL-010', 'currency']);
  t.same(code(() => run(h, credit('c3', 0))), ['IKW-VAL-001', 'amount']);
  t.same(code(() => run(h, applyTo('a0', 100, 'ghs'))), ['IKW-BIL-010', 'invoiceId']);
  t.match(toCustomerObject(state(h)), { balance: 3_000, currency: 'xof' });

  h = run(h, applyTo('a1', 5_000));
  t.match(h.at(-1)!.data, { amount: 3_000, object: { balance: 0 } }, 'at most the balance');
  t.same(customerDecider.decide(applyTo('a1', 5_000), state(h)), [], 'an application id is used once');
  h = run(h, { type: 'settle_application', owner, at, applicationId: 'a1', accepted: 1_000 });
  t.match(h.at(-1)!, { type: 'customer.balance_returned', data: { amount: 2_000, object: { balance: 2_000 } } });
  t.same(customerDecider.decide({ type: 'settle_application', owner, at, applicationId: 'a1', accepted: 1_000 }, state(h)), [], 'returned once');
  t.same(customerDecider.decide({ type: 'settle_application', owner, at, applicationId: 'nope', accepted: 0 }, state(h)), []);
});

t.test("another merchant's customer is no such customer", async (t) => {
  const h = run([], { type: 'create', customer });
  t.same(code(() => customerDecider.decide({ ...credit('c1', 1), owner: { merchantId: 'acct_2', environment: 'sandbox' } }, state(h))), ['IKW-RES-001', 'customer']);
  t.same(code(() => customerDecider.decide({ ...credit('c1', 1), owner: { merchantId: 'acct_1', environment: 'live' } }, state(h))), ['IKW-RES-001', 'customer']);
});
