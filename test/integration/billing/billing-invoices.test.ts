/**
 * Invoices and the customer wallet against the real server: drafts from prices or an amount, the
 * documented status transitions and the refused ones, the hosted page, wallet apply (partial,
 * whole, empty wallet, another currency, racing applies, a void giving the wallet back, the crash
 * mend), tenant isolation, bad input with its code and param, and the events in the store.
 */
import t from '#tap';
import { customerStream } from '#packages/families/billing/customer/events.js';
import { invoiceStream } from '#packages/families/billing/invoice/events.js';
import { assertError, assertOk, rawRequest } from '../../support/payments.js';
import { createInvoice, createProduct, creditWallet, DAY_MS, get, openInvoice, setInvoiceStatus, walletBalance } from '../../support/billing.js';
import { loseAnswerInCrash, startService } from '../../support/system.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

const svc = await startService(t);

const apply = (key: string, id: string, body: Record<string, unknown> = {}, idempotencyKey?: string) =>
  svc.request('POST', `/api/v1/merchant/billing/wallet/invoices/${id}/apply`, { key, body, ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}) });

t.test('a draft from prices: fields, totals, hosted page, list with status filter', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const product = await createProduct(svc, key, {
    prices: [
      { currency: 'xof', unit_amount: 2_500 },
      { currency: 'xof', unit_amount: 1_000, recurring: { interval: 'month' } },
    ],
  });
  const inv = await createInvoice(svc, key, {
    customer_email: 'buyer@example.com',
    customer_name: 'Buyer',
    items: [{ price: product.prices[0].id, quantity: 2 }, { price: product.prices[1].id }],
    description: 'Order 7',
    days_until_due: 10,
    metadata: { order: '7' },
  });
  t.same(Object.keys(inv), [
    'id',
    'object',
    'customer',
    'subscription',
    'status',
    'currency',
    'amount_due',
    'amount_paid',
    'amount_remaining',
    'due_date',
    'hosted_invoice_url',
    'description',
    'lines',
    'period_start',
    'period_end',
    'payment_intent',
    'status_transitions',
    'metadata',
    'created',
    'livemode',
  ]);
  t.match(inv, {
    id: /^in_/,
    object: 'invoice',
    customer: /^cus_/,
    subscription: null,
    status: 'draft',
    currency: 'xof',
    amount_due: 6_000,
    amount_paid: 0,
    amount_remaining: 6_000,
    due_date: new Date(svc.clock.now().getTime() + 10 * DAY_MS).toISOString().slice(0, 10),
    description: 'Order 7',
    payment_intent: null,
    metadata: { order: '7' },
    livemode: false,
  });
  t.equal(inv.hosted_invoice_url, `${svc.system.config.publicUrl}/hosted/invoices/${inv.id}`);
  t.same(
    inv.lines.map((l: { price: string; quantity: number; unit_amount: number; amount: number }) => [l.price, l.quantity, l.unit_amount, l.amount]),
    [
      [product.prices[0].id, 2, 2_500, 5_000],
      [product.prices[1].id, 1, 1_000, 1_000],
    ],
  );
  t.same(await get(svc, key, `/api/v1/merchant/invoices/${inv.id}`), inv);
  t.equal((await get(svc, key, `/api/v1/merchant/customers/${inv.customer}`)).name, 'Buyer');

  t.equal((await rawRequest(svc, 'GET', `/hosted/invoices/${inv.id}`)).status, 404, 'a draft has no hosted page yet');
  const open = await setInvoiceStatus(svc, key, inv.id, 'open');
  t.match(open, { status: 'open', status_transitions: { finalized_at: Math.floor(svc.clock.now().getTime() / 1000), paid_at: null } });
  const page = await rawRequest(svc, 'GET', new URL(inv.hosted_invoice_url).pathname);
  t.equal(page.status, 200);
  t.match(page.text, /F\sCFA\s6,000/);

  const other = await createInvoice(svc, key, { customer: inv.customer, currency: 'XOF', amount_due: 700 });
  t.match(other, { status: 'draft', amount_due: 700, currency: 'xof', lines: [{ price: null, quantity: 1, amount: 700 }] });
  const ids = async (q = '') => (await get(svc, key, `/api/v1/merchant/invoices${q}`)).data.map((i: { id: string }) => i.id);
  t.same(await ids(), [other.id, inv.id]);
  t.same(await ids('?status=open'), [inv.id]);
  t.same(await ids('?status=draft'), [other.id]);
  t.same(await ids('?status=paid'), []);
});

t.test('free-text lines: several, with their unit amounts and quantities, alone or beside prices; half a line refused', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const product = await createProduct(svc, key, { name: 'Tissu', prices: [{ currency: 'xof', unit_amount: 2_500 }] });
  const price = product.prices[0].id as string;
  const post = (body: Record<string, unknown>) => svc.request('POST', '/api/v1/merchant/invoices', { key, body });
  const text = await post({
    customer_email: 'lines@example.com',
    currency: 'xof',
    items: [
      { description: 'Couture', unit_amount: 7_000 },
      { description: 'Livraison', unit_amount: 1_500, quantity: 2 },
    ],
  });
  assertOk(t, text);
  t.match(text.body, {
    currency: 'xof',
    amount_due: 10_000,
    lines: [
      { description: 'Couture', price: null, quantity: 1, unit_amount: 7_000, amount: 7_000 },
      { description: 'Livraison', price: null, quantity: 2, unit_amount: 1_500, amount: 3_000 },
    ],
  });
  const mixed = await post({
    customer_email: 'lines@example.com',
    items: [
      { price, quantity: 2 },
      { description: 'Retouches', unit_amount: 1_000 },
    ],
  });
  assertOk(t, mixed);
  t.match(
    mixed.body,
    {
      currency: 'xof',
      amount_due: 6_000,
      lines: [
        { description: 'Tissu', price, amount: 5_000 },
        { description: 'Retouches', price: null, amount: 1_000 },
      ],
    },
    'a price line beside free text: the currency is the price’s',
  );
  assertError(t, await post({ customer_email: 'lines@example.com', items: [{ description: 'Couture', unit_amount: 7_000 }] }), 'IKW-VAL-001', 'currency');
  assertError(t, await post({ customer_email: 'lines@example.com', currency: 'xof', items: [{ description: 'Couture' }] }), 'IKW-VAL-001', 'items.0.unit_amount');
  assertError(t, await post({ customer_email: 'lines@example.com', currency: 'xof', items: [{ description: 'Couture', unit_amount: 999_999_999_999, quantity: 1_000_000 }] }), 'IKW-VAL-001', 'items.0.unit_amount');
  assertError(t, await post({ customer_email: 'lines@example.com', currency: 'xof', items: [{ unit_amount: 100 }] }), 'IKW-VAL-001', 'items.0.description');
  assertError(t, await post({ customer_email: 'lines@example.com', items: [{ price, description: 'Autre nom' }] }), 'IKW-VAL-002', 'items.0.description');
  assertError(t, await post({ customer_email: 'lines@example.com', currency: 'xof', items: [{ description: '', unit_amount: 100 }] }), 'IKW-VAL-001', 'items.0.description');
});

t.test('status transitions: draft → open → paid | void | uncollectible; uncollectible → paid | void; the rest refused', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const draft = () => createInvoice(svc, key, { customer_email: 'c@example.com', currency: 'xof', amount_due: 1_000 });
  const patch = (id: string, status: string) => svc.request('PATCH', `/api/v1/merchant/invoices/${id}/status`, { key, body: { status } });

  const a = await draft();
  for (const to of ['paid', 'void', 'uncollectible', 'draft']) {
    const res = await patch(a.id, to);
    assertError(t, res, 'IKW-BIL-001', 'status');
    t.match(res.body.message, `from draft to ${to}`);
  }
  await setInvoiceStatus(svc, key, a.id, 'open');
  assertError(t, await patch(a.id, 'open'), 'IKW-BIL-001', 'status');
  assertError(t, await patch(a.id, 'draft'), 'IKW-BIL-001', 'status');
  const paid = await setInvoiceStatus(svc, key, a.id, 'paid');
  t.match(paid, { status: 'paid', amount_paid: 1_000, amount_remaining: 0 });
  t.ok(paid.status_transitions.paid_at);
  for (const to of ['open', 'void', 'uncollectible', 'draft', 'paid']) assertError(t, await patch(a.id, to), 'IKW-BIL-001', 'status');

  const b = await draft();
  await setInvoiceStatus(svc, key, b.id, 'open');
  t.match(await setInvoiceStatus(svc, key, b.id, 'void'), { status: 'void', amount_paid: 0 });
  for (const to of ['open', 'paid', 'uncollectible']) assertError(t, await patch(b.id, to), 'IKW-BIL-001', 'status');

  const c = await draft();
  await setInvoiceStatus(svc, key, c.id, 'open');
  t.match(await setInvoiceStatus(svc, key, c.id, 'uncollectible'), { status: 'uncollectible' });
  assertError(t, await patch(c.id, 'open'), 'IKW-BIL-001', 'status');
  t.match(await setInvoiceStatus(svc, key, c.id, 'paid'), { status: 'paid', amount_paid: 1_000 });

  const d = await draft();
  await setInvoiceStatus(svc, key, d.id, 'open');
  await setInvoiceStatus(svc, key, d.id, 'uncollectible');
  t.match(await setInvoiceStatus(svc, key, d.id, 'void'), { status: 'void' });

  const zero = await createInvoice(svc, key, { customer_email: 'c@example.com', currency: 'xof', amount_due: 0 });
  t.match(await setInvoiceStatus(svc, key, zero.id, 'open'), { status: 'paid' }, 'nothing to pay: paid when finalized');

  const types = (await svc.system.store.readStream(invoiceStream(a.id))).map((e) => e.type);
  t.same(types, ['invoice.created', 'invoice.finalized', 'invoice.paid']);
  t.same(
    (await svc.system.store.readStream(invoiceStream(c.id))).map((e) => e.type),
    ['invoice.created', 'invoice.finalized', 'invoice.marked_uncollectible', 'invoice.paid'],
  );
  t.same(
    (await svc.system.store.readStream(invoiceStream(b.id))).map((e) => e.type),
    ['invoice.created', 'invoice.finalized', 'invoice.voided'],
  );
  assertError(t, await svc.request('PATCH', `/api/v1/merchant/invoices/${a.id}/status`, { key, body: { status: 'closed' } }), 'IKW-VAL-001', 'status');
});

t.test('invoice bad input: unknown customer or price, quantity zero, inactive product, currencies, amount and items', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const product = await createProduct(svc, key, {
    prices: [
      { currency: 'xof', unit_amount: 100 },
      { currency: 'ghs', unit_amount: 100 },
    ],
  });
  const [xof, ghs] = product.prices.map((p: { id: string }) => p.id);
  const post = (body: Record<string, unknown>) => svc.request('POST', '/api/v1/merchant/invoices', { key, body });
  assertError(t, await post({ customer: 'cus_nope', currency: 'xof', amount_due: 100 }), 'IKW-BIL-006', 'customer');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price: 'price_nope' }] }), 'IKW-BIL-007', 'items.0.price');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price: xof, quantity: 0 }] }), 'IKW-VAL-001', 'items.0.quantity');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price: xof }, { price: ghs }] }), 'IKW-BIL-008', 'items.1.price');
  assertError(t, await post({ customer_email: 'a@example.com', currency: 'ghs', items: [{ price: xof }] }), 'IKW-BIL-008', 'items.0.price');
  assertError(t, await post({ customer_email: 'a@example.com', amount_due: 100 }), 'IKW-VAL-001', 'currency');
  assertError(t, await post({ customer_email: 'a@example.com', currency: 'xof' }), 'IKW-VAL-001', 'items');
  assertError(t, await post({ customer_email: 'a@example.com', currency: 'xof', amount_due: 1, items: [{ price: xof }] }), 'IKW-VAL-002', 'amount_due');
  assertError(t, await post({ currency: 'xof', amount_due: 100 }), 'IKW-VAL-001', 'customer');
  assertError(t, await post({ customer: 'cus_x', customer_email: 'a@example.com', currency: 'xof', amount_due: 100 }), 'IKW-VAL-002', 'customer_email');
  assertError(t, await post({ customer_email: 'a@example.com', currency: 'xof', amount_due: -1 }), 'IKW-VAL-001', 'amount_due');
  assertError(t, await post({ customer_email: 'a@example.com', currency: 'zzz', amount_due: 1 }), 'IKW-VAL-003', 'currency');
  assertError(t, await post({ customer_email: 'a@example.com', currency: 'xof', amount_due: 1, due_date: 'tomorrow' }), 'IKW-VAL-001', 'due_date');
  assertError(t, await post({ customer_email: 'a@example.com', currency: 'xof', amount_due: 1, subscription: 'sub_nope' }), 'IKW-VAL-001', 'subscription');
  await svc.request('PATCH', `/api/v1/merchant/products/${product.id}/active`, { key, body: { active: false } });
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price: xof }] }), 'IKW-BIL-008', 'items.0.price');
  const byDate = await createInvoice(svc, key, { customer_email: 'a@example.com', currency: 'xof', amount_due: 1, due_date: '2026-03-01' });
  t.equal(byDate.due_date, '2026-03-01', 'a date string, as the interface says (due at the end of that day, UTC)');
});

t.test('wallet apply: partial, then whole; an empty wallet is refused; events on both streams', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const inv = await openInvoice(svc, key, { customer_email: 'w@example.com', currency: 'xof', amount_due: 5_000 });
  assertError(t, await apply(key, inv.id), 'IKW-BIL-005', 'invoiceId');
  await creditWallet(svc, key, inv.customer, 3_000);

  const partial = await apply(key, inv.id);
  assertOk(t, partial);
  t.match(partial.body, { id: inv.id, status: 'open', amount_paid: 3_000, amount_remaining: 2_000 });
  t.equal(await walletBalance(svc, key, inv.customer), 0);
  assertError(t, await apply(key, inv.id), 'IKW-BIL-005', 'invoiceId');

  await creditWallet(svc, key, inv.customer, 4_500);
  const some = await apply(key, inv.id, { amount: 500 });
  t.match(some.body, { amount_paid: 3_500, amount_remaining: 1_500 });
  assertError(t, await apply(key, inv.id, { amount: 1_501 }), 'IKW-VAL-001', 'amount');
  const whole = await apply(key, inv.id);
  t.match(whole.body, { status: 'paid', amount_paid: 5_000, amount_remaining: 0 });
  t.equal(await walletBalance(svc, key, inv.customer), 2_500, 'only what the invoice needed');
  assertError(t, await apply(key, inv.id), 'IKW-BIL-009', 'invoiceId');
  t.equal(await walletBalance(svc, key, inv.customer), 2_500);

  t.same(
    (await svc.system.store.readStream(invoiceStream(inv.id))).map((e) => e.type),
    ['invoice.created', 'invoice.finalized', 'invoice.updated', 'invoice.updated', 'invoice.paid'],
  );
  const paid = (await svc.system.store.readStream(invoiceStream(inv.id)))[4]!;
  t.match(paid.data, { payment: { source: 'wallet', amount: 1_500, offered: 1_500, ref: /^wapp_/ }, object: { status: 'paid' } });
  t.same(
    (await svc.system.store.readStream(customerStream(inv.customer))).map((e) => e.type),
    ['customer.created', 'customer.balance_credited', 'customer.balance_applied', 'customer.balance_credited', 'customer.balance_applied', 'customer.balance_applied'],
  );
});

t.test('wallet apply retried after a crash lost its answer: the first application answered, nothing more taken from the wallet', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const inv = await openInvoice(svc, key, { customer_email: 'crash@example.com', currency: 'xof', amount_due: 5_000 });
  await creditWallet(svc, key, inv.customer, 10_000);
  const first = await apply(key, inv.id, { amount: 1_000 }, 'apply-crash-1');
  assertOk(t, first);
  t.match(first.body, { amount_paid: 1_000, amount_remaining: 4_000 });
  await loseAnswerInCrash(svc, 'apply-crash-1');
  const retried = await apply(key, inv.id, { amount: 1_000 }, 'apply-crash-1');
  assertOk(t, retried);
  t.same(retried.body, first.body, 'the invoice as the first application left it');
  t.equal(await walletBalance(svc, key, inv.customer), 9_000, 'the wallet paid once');

  // All that remains, which pays the invoice: the retry answers the paid invoice rather than "not open for payment".
  const rest = await apply(key, inv.id, {}, 'apply-crash-2');
  t.match(rest.body, { status: 'paid', amount_paid: 5_000 });
  await loseAnswerInCrash(svc, 'apply-crash-2');
  const restRetried = await apply(key, inv.id, {}, 'apply-crash-2');
  assertOk(t, restRetried);
  t.same(restRetried.body, rest.body);
  t.equal(await walletBalance(svc, key, inv.customer), 5_000);
  const applied = (await svc.system.store.readStream(customerStream(inv.customer))).filter((e) => e.type === 'customer.balance_applied');
  t.equal(applied.length, 2, 'two applications, one per request');
  const other = await svc.sandboxMerchant();
  assertError(t, await apply(other.key, inv.id, {}, 'apply-crash-2'), 'IKW-RES-001', 'invoiceId');
});

t.test('wallet apply refusals: a draft, another currency, another merchant', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const inv = await createInvoice(svc, key, { customer_email: 'd@example.com', currency: 'xof', amount_due: 5_000 });
  await creditWallet(svc, key, inv.customer, 3_000);
  assertError(t, await apply(key, inv.id), 'IKW-BIL-009', 'invoiceId');
  const ghs = await openInvoice(svc, key, { customer: inv.customer, currency: 'ghs', amount_due: 5_000 });
  assertError(t, await apply(key, ghs.id), 'IKW-BIL-010', 'invoiceId');
  const stranger = await svc.merchant('Stranger');
  assertError(t, await apply(stranger.api_keys.sandbox, ghs.id), 'IKW-RES-001', 'invoiceId');
  assertError(t, await svc.request('GET', `/api/v1/merchant/invoices/${ghs.id}`, { key: stranger.api_keys.sandbox }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('PATCH', `/api/v1/merchant/invoices/${ghs.id}/status`, { key: stranger.api_keys.sandbox, body: { status: 'void' } }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', `/api/v1/merchant/invoices/${ghs.id}`, { key: m.api_keys.live }), 'IKW-RES-001', 'id');
  t.same((await get(svc, stranger.api_keys.sandbox, '/api/v1/merchant/invoices')).data, []);
  assertError(t, await apply(key, 'in_nope'), 'IKW-RES-001', 'invoiceId');
  assertError(t, await apply(key, inv.id, { amount: 0 }), 'IKW-VAL-001', 'amount');
  t.equal(await walletBalance(svc, key, inv.customer), 3_000, 'nothing taken');
});

t.test('voiding an invoice gives the wallet back what it paid', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const inv = await openInvoice(svc, key, { customer_email: 'v@example.com', currency: 'xof', amount_due: 5_000 });
  await creditWallet(svc, key, inv.customer, 2_000);
  await apply(key, inv.id);
  t.equal(await walletBalance(svc, key, inv.customer), 0);
  await setInvoiceStatus(svc, key, inv.id, 'void');
  t.equal(await walletBalance(svc, key, inv.customer), 2_000);
  const last = (await svc.system.store.readStream(customerStream(inv.customer))).at(-1)!;
  t.match(last, { type: 'customer.balance_credited', data: { reason: 'invoice_voided', source: inv.id, amount: 2_000 } });
});

t.test('racing applies: one wallet never pays more than it holds, one invoice never takes more than it is owed', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const a = await openInvoice(svc, key, { customer_email: 'r@example.com', currency: 'xof', amount_due: 4_000 });
  const b = await openInvoice(svc, key, { customer: a.customer, currency: 'xof', amount_due: 4_000 });
  await creditWallet(svc, key, a.customer, 5_000);
  const results = await Promise.all([apply(key, a.id), apply(key, b.id)]);
  for (const r of results) assertOk(t, r);
  const paid = (await get(svc, key, `/api/v1/merchant/invoices/${a.id}`)).amount_paid + (await get(svc, key, `/api/v1/merchant/invoices/${b.id}`)).amount_paid;
  t.equal(paid, 5_000, 'the invoices got exactly the wallet');
  t.equal(await walletBalance(svc, key, a.customer), 0);

  const c = await openInvoice(svc, key, { customer: a.customer, currency: 'xof', amount_due: 4_000 });
  await creditWallet(svc, key, a.customer, 20_000);
  const five = await Promise.all(Array.from({ length: 5 }, () => apply(key, c.id)));
  t.equal(five.filter((r) => r.status === 200).length, 1, 'one apply pays it');
  for (const r of five.filter((x) => x.status !== 200)) assertError(t, r, 'IKW-BIL-009', 'invoiceId');
  t.match(await get(svc, key, `/api/v1/merchant/invoices/${c.id}`), { status: 'paid', amount_paid: 4_000 });
  t.equal(await walletBalance(svc, key, a.customer), 16_000, 'the losers took nothing');
});

t.test('crash mend: a wallet debit whose invoice step never ran is completed by its job, or given back', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const inv = await openInvoice(svc, key, { customer_email: 'crash@example.com', currency: 'xof', amount_due: 3_000 });
  await creditWallet(svc, key, inv.customer, 5_000);
  const owner = { merchantId: m.id, environment: 'sandbox' as const };
  const meta = auditMetadata(svc.clock, owner, inv.id, { actor: 'test' });
  // The process dies right after the wallet's decision.
  await svc.system.billing.customers.applyToInvoice(owner, inv.customer, { applicationId: 'wapp_crash-1', invoiceId: inv.id, currency: 'xof', maxAmount: 3_000 }, meta);
  await svc.system.billing.customers.applyToInvoice(owner, inv.customer, { applicationId: 'wapp_crash-2', invoiceId: inv.id, currency: 'xof', maxAmount: 3_000 }, meta);
  t.equal(await walletBalance(svc, key, inv.customer), 0, 'both debits happened');
  const job = { ...owner, customerId: inv.customer, invoiceId: inv.id };
  await svc.system.billing.invoiceWalletPayments.completeApplication({ ...job, applicationId: 'wapp_crash-1' }, meta);
  await svc.system.billing.invoiceWalletPayments.completeApplication({ ...job, applicationId: 'wapp_crash-2' }, meta);
  await svc.system.billing.invoiceWalletPayments.completeApplication({ ...job, applicationId: 'wapp_crash-2' }, meta);
  t.match(await get(svc, key, `/api/v1/merchant/invoices/${inv.id}`), { status: 'paid', amount_paid: 3_000 });
  t.equal(await walletBalance(svc, key, inv.customer), 2_000, 'the second debit came back, once');
  const returned = (await svc.system.store.readStream(customerStream(inv.customer))).filter((e) => e.type === 'customer.balance_returned');
  t.equal(returned.length, 1);
  t.match(returned[0]!.data, { applicationId: 'wapp_crash-2', amount: 2_000 });
  // The scheduled mend of a normal apply is harmless once it has finished.
  const res = await apply(key, (await createInvoice(svc, key, { customer: inv.customer, currency: 'xof', amount_due: 100 })).id);
  assertError(t, res, 'IKW-BIL-009', 'invoiceId');
  svc.clock.advance(120_000);
  await svc.system.drain();
  t.equal(await walletBalance(svc, key, inv.customer), 2_000);
});
