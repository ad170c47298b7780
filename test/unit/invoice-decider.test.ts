/** The invoice Decider on its own: the transition table, payments up to what remains, idempotent refs. */
import t from 'tap';
import { ApiError } from '../../packages/core/errors.js';
import { fold } from '../../packages/core/decider.js';
import { amountRemaining, INVOICE_TRANSITIONS, invoiceDecider, toInvoiceObject, type InvoiceCommand } from '../../packages/domain/invoice/decider.js';
import { INVOICE_STATUSES, type InvoiceCreated, type InvoiceEvent, type InvoiceStatus } from '../../packages/domain/invoice/events.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const invoice: InvoiceCreated = {
  id: 'in_1', merchantId: 'acct_1', environment: 'sandbox', customer: 'cus_1', subscription: null, currency: 'xof',
  lines: [{ description: 'x', price: null, quantity: 1, unit_amount: 5_000, amount: 5_000, meter_key: null }],
  amountDue: 5_000, description: null, metadata: {}, dueAt: null, periodStart: null, periodEnd: null, hostedUrl: 'https://sika.test/hosted/invoices/in_1', createdAt: at.toISOString(),
};
const run = (history: InvoiceEvent[], command: InvoiceCommand) => [...history, ...invoiceDecider.decide(command, fold(invoiceDecider, history))];
const state = (h: InvoiceEvent[]) => fold(invoiceDecider, h);
const to = (status: InvoiceStatus): Extract<InvoiceCommand, { type: 'transition' }> => ({ type: 'transition', owner, at, to: status });
const pay = (ref: string, amount: number, source: 'wallet' | 'payment_intent' = 'wallet'): InvoiceCommand => ({ type: 'record_payment', owner, at, ref, source, amount });
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? [err.code, err.param] : ['not an ApiError'];
  }
  return ['no error'];
};

/** The history that leaves an invoice in `status`. */
function reach(status: InvoiceStatus): InvoiceEvent[] {
  const h = run([], { type: 'create', invoice, finalize: false, at });
  if (status === 'draft') return h;
  const open = run(h, to('open'));
  if (status === 'open') return open;
  if (status === 'uncollectible') return run(open, to('uncollectible'));
  return run(open, to(status));
}

t.test('every transition of the table is allowed, every other one is IKW-BIL-001 on status', async (t) => {
  for (const from of INVOICE_STATUSES) {
    for (const target of INVOICE_STATUSES) {
      const allowed = INVOICE_TRANSITIONS[from].includes(target);
      const result = code(() => run(reach(from), to(target)));
      if (allowed) t.same(result, ['no error'], `${from} → ${target} allowed`);
      else t.same(result, ['IKW-BIL-001', 'status'], `${from} → ${target} refused`);
    }
  }
  t.same(INVOICE_TRANSITIONS, { draft: ['open'], open: ['paid', 'void', 'uncollectible'], uncollectible: ['paid', 'void'], paid: [], void: [] });
});

t.test('payments: partial then whole, at most what remains, once per ref; none once paid or void', async (t) => {
  let h = reach('open');
  t.same(invoiceDecider.decide(pay('pi_x', 100, 'payment_intent'), state(h)), [], 'a payment intent the invoice did not create pays nothing');
  h = run(h, pay('w1', 2_000));
  t.match(h.at(-1)!, { type: 'invoice.updated', data: { payment: { amount: 2_000, offered: 2_000 } } });
  t.same(invoiceDecider.decide(pay('w1', 2_000), state(h)), []);
  h = run(h, pay('w2', 9_000));
  t.match(h.at(-1)!, { type: 'invoice.paid', data: { payment: { amount: 3_000, offered: 9_000 } } });
  t.match(toInvoiceObject(state(h)), { status: 'paid', amount_paid: 5_000, amount_remaining: 0 });
  t.equal(state(h).walletApplied, 5_000);
  t.same(invoiceDecider.decide(pay('w3', 1), state(h)), []);
  t.equal(amountRemaining(state(reach('void'))), 5_000);
  t.same(invoiceDecider.decide(pay('w3', 1), state(reach('void'))), []);
  t.same(invoiceDecider.decide(pay('w3', 1), state(reach('draft'))), [], 'drafts take no payment');
  t.equal(run(reach('uncollectible'), pay('w3', 5_000)).at(-1)!.type, 'invoice.paid', 'uncollectible still takes payments');
});

t.test('payment intents: attached once per key, only while payable; then they pay it', async (t) => {
  let h = reach('open');
  h = run(h, { type: 'attach_payment_intent', owner, at, key: 'k1', paymentIntentId: 'pi_1' });
  t.same(invoiceDecider.decide({ type: 'attach_payment_intent', owner, at, key: 'k1', paymentIntentId: 'pi_2' }, state(h)), []);
  t.equal(toInvoiceObject(state(h)).payment_intent, 'pi_1');
  h = run(h, pay('pi_1', 5_000, 'payment_intent'));
  t.equal(toInvoiceObject(state(h)).status, 'paid');
  t.same(code(() => run(h, { type: 'attach_payment_intent', owner, at, key: 'k2', paymentIntentId: 'pi_3' })), ['IKW-BIL-009', 'id']);
});

t.test('creation: finalize at once, zero invoices are paid when finalized, creating twice is a no-op, other owners 404', async (t) => {
  const h = run([], { type: 'create', invoice, finalize: true, at });
  t.same(h.map((e) => e.type), ['invoice.created', 'invoice.finalized']);
  t.same(invoiceDecider.decide({ type: 'create', invoice, finalize: true, at }, state(h)), []);
  const zero = run([], { type: 'create', invoice: { ...invoice, amountDue: 0, lines: [] }, finalize: true, at });
  t.same(zero.map((e) => e.type), ['invoice.created', 'invoice.finalized', 'invoice.paid']);
  t.same(code(() => invoiceDecider.decide({ ...to('open'), owner: { merchantId: 'acct_2', environment: 'sandbox' } }, state(h))), ['IKW-RES-001', 'id']);
});
