/** The invoice Decider on its own: the transition table, payments up to what remains, idempotent refs. */
import t from '#tap';
import { amountRemaining, INVOICE_TRANSITIONS, type InvoiceCommand } from '#packages/families/billing/invoice/decider.js';
import { invoiceAggregate, toInvoiceObject } from '#packages/families/billing/invoice/render.js';
import { INVOICE_STATUSES, type InvoiceCreated, type InvoiceEvent, type InvoiceStatus } from '#packages/families/billing/invoice/events.js';
import type { Fact } from '#packages/core/decider.js';
import { spec } from '../../support/decider-spec.js';

const invoices = spec(invoiceAggregate);
const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const invoice: InvoiceCreated = {
  id: 'in_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  customer: 'cus_1',
  subscription: null,
  currency: 'xof',
  lines: [{ description: 'x', price: null, quantity: 1, unit_amount: 5_000, amount: 5_000, meter_key: null }],
  amountDue: 5_000,
  description: null,
  metadata: {},
  dueAt: null,
  periodStart: null,
  periodEnd: null,
  hostedUrl: 'https://sika.test/hosted/invoices/in_1',
  createdAt: at.toISOString(),
};
const create = (finalize: boolean, of: InvoiceCreated = invoice): InvoiceCommand => ({ type: 'create', invoice: of, finalize, at });
const to = (status: InvoiceStatus): Extract<InvoiceCommand, { type: 'transition' }> => ({ type: 'transition', owner, at, to: status });
const pay = (ref: string, amount: number, source: 'wallet' | 'payment_intent' = 'wallet'): InvoiceCommand => ({ type: 'record_payment', owner, at, ref, source, amount });

/** The history that leaves an invoice in `status`. */
function reach(status: InvoiceStatus): Fact<InvoiceEvent>[] {
  if (status === 'draft') return invoices.history(create(false));
  if (status === 'open') return invoices.history(create(false), to('open'));
  return invoices.history(create(false), to('open'), to(status));
}

/** The event each allowed transition decides, by the status it goes to. */
const TRANSITION_EVENT = { open: 'invoice.finalized', paid: 'invoice.paid', void: 'invoice.voided', uncollectible: 'invoice.marked_uncollectible' } as const;

t.test('every transition of the table is allowed, every other one is IKW-BIL-001 on status', async (t) => {
  for (const from of INVOICE_STATUSES) {
    for (const target of INVOICE_STATUSES) {
      const when = invoices.given(reach(from)).when(to(target));
      if (!INVOICE_TRANSITIONS[from].includes(target)) when.thenThrows(t, { code: 'IKW-BIL-001', param: 'status' }, `${from} → ${target} refused`);
      else if (target !== 'draft') when.thenMatch(t, [{ type: TRANSITION_EVENT[target] }], `${from} → ${target} allowed`);
      else t.fail(`${from} → draft: no transition goes back to draft`);
    }
  }
  t.same(INVOICE_TRANSITIONS, { draft: ['open'], open: ['paid', 'void', 'uncollectible'], uncollectible: ['paid', 'void'], paid: [], void: [] });
});

t.test('payments: partial then whole, at most what remains, once per ref; none once paid or void', async (t) => {
  const open = reach('open');
  invoices
    .given(open)
    .when(pay('pi_x', 100, 'payment_intent'))
    .thenNothing(t, 'a payment intent the invoice did not create pays nothing');
  const partly = invoices
    .given(open)
    .when(pay('w1', 2_000))
    .thenMatch(t, [{ type: 'invoice.updated', data: { payment: { amount: 2_000, offered: 2_000 } } }]);
  invoices.given(partly).when(pay('w1', 2_000)).thenNothing(t);
  const paid = invoices
    .given(partly)
    .when(pay('w2', 9_000))
    .thenState((s, decided) => {
      t.match(decided.at(-1), { type: 'invoice.paid', data: { payment: { amount: 3_000, offered: 9_000 } } });
      t.match(toInvoiceObject(s), { status: 'paid', amount_paid: 5_000, amount_remaining: 0 });
      t.equal(s.walletApplied, 5_000);
    });
  invoices.given(paid).when(pay('w3', 1)).thenNothing(t);
  t.equal(amountRemaining(invoices.state(reach('void'))), 5_000);
  invoices.given(reach('void')).when(pay('w3', 1)).thenNothing(t);
  invoices.given(reach('draft')).when(pay('w3', 1)).thenNothing(t, 'drafts take no payment');
  invoices
    .given(reach('uncollectible'))
    .when(pay('w3', 5_000))
    .thenState((_, decided) => {
      t.equal(decided.at(-1)?.type, 'invoice.paid', 'uncollectible still takes payments');
    });
});

t.test('payment intents: attached once per key, only while payable; then they pay it', async (t) => {
  const attached = invoices.given(reach('open')).history({ type: 'attach_payment_intent', owner, at, key: 'k1', paymentIntentId: 'pi_1' });
  invoices.given(attached).when({ type: 'attach_payment_intent', owner, at, key: 'k1', paymentIntentId: 'pi_2' }).thenNothing(t);
  t.equal(toInvoiceObject(invoices.state(attached)).payment_intent, 'pi_1');
  const paid = invoices
    .given(attached)
    .when(pay('pi_1', 5_000, 'payment_intent'))
    .thenState((s) => {
      t.equal(toInvoiceObject(s).status, 'paid');
    });
  invoices.given(paid).when({ type: 'attach_payment_intent', owner, at, key: 'k2', paymentIntentId: 'pi_3' }).thenThrows(t, { code: 'IKW-BIL-009', param: 'invoiceId' });
});

t.test('one payment in flight: a second attempt is refused until the first paid or ended unpaid', async (t) => {
  const start = (paymentIntentId: string, ended: string[] = []): InvoiceCommand => ({ type: 'start_attempt', owner, at, paymentIntentId, ended });
  const attached = invoices.given(reach('open')).history({ type: 'attach_payment_intent', owner, at, key: 'k1', paymentIntentId: 'pi_1' }, { type: 'attach_payment_intent', owner, at, key: 'k2', paymentIntentId: 'pi_2' });
  const inFlight = invoices
    .given(attached)
    .when(start('pi_1'))
    .thenMatch(t, [{ type: 'invoice.payment_attempt_started', data: { paymentIntentId: 'pi_1' } }]);
  invoices.given(inFlight).when(start('pi_1')).thenNothing(t, 'the same attempt again (another tab of the same session) is the same attempt');
  invoices.given(inFlight).when(start('pi_2')).thenThrows(t, { code: 'IKW-BIL-012', param: 'invoiceId' }, 'another attempt while one is in flight');
  invoices
    .given(inFlight)
    .when(start('pi_2', ['pi_1']))
    .thenMatch(t, [{ type: 'invoice.payment_attempt_started', data: { paymentIntentId: 'pi_2' } }], 'the first ended unpaid: the next one starts');
  const partly = invoices
    .given(inFlight)
    .when(pay('pi_1', 2_000, 'payment_intent'))
    .thenMatch(t, [{ type: 'invoice.updated' }]);
  invoices
    .given(partly)
    .when(start('pi_2'))
    .thenMatch(t, [{ type: 'invoice.payment_attempt_started' }], 'a recorded payment frees the invoice for the rest');
  const paid = invoices
    .given(inFlight)
    .when(pay('pi_1', 5_000, 'payment_intent'))
    .thenMatch(t, [{ type: 'invoice.paid' }]);
  invoices.given(paid).when(start('pi_2')).thenThrows(t, { code: 'IKW-BIL-009', param: 'invoiceId' }, 'a paid invoice takes no attempt');
  invoices.given(paid).when(start('pi_1')).thenNothing(t, 'the attempt that paid it, again (a retried confirm): answered as it stands');
});

t.test('creation: finalize at once, zero invoices are paid when finalized, creating twice is a no-op, other owners 404', async (t) => {
  const created = invoices
    .given()
    .when(create(true))
    .thenMatch(t, [{ type: 'invoice.created' }, { type: 'invoice.finalized' }]);
  invoices.given(created).when(create(true)).thenNothing(t);
  invoices
    .given()
    .when(create(true, { ...invoice, amountDue: 0, lines: [] }))
    .thenMatch(t, [{ type: 'invoice.created' }, { type: 'invoice.finalized' }, { type: 'invoice.paid' }]);
  invoices
    .given(created)
    .when({ ...to('open'), owner: { merchantId: 'acct_2', environment: 'sandbox' } })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'invoiceId' });
});
