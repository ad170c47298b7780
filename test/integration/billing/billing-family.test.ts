/**
 * The billing family (/api/v1/billing/*) against the real server: plans, subscriptions, invoices
 * (create, get, list), pay and confirm through payment intents, usage records (idempotent, billed
 * on the next invoice), the camelCase field names of the interface, and the one model it shares
 * with the merchant routes.
 */
import t from '#tap';
import { assertError, assertOk, confirm, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { creditWallet, get, walletBalance } from '../../support/billing.js';
import { loseAnswerInCrash, startPaymentsService, startService } from '../../support/system.js';
import { invoiceStream } from '#packages/families/billing/invoice/events.js';

const svc = await startPaymentsService(t);

const post = (key: string, path: string, body: unknown, idempotencyKey?: string) => svc.request('POST', path, { key, body, ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}) });

async function customer(key: string, email: string): Promise<string> {
  const res = await post(key, '/api/v1/payment-intents', { amount: 100, currency: 'xof', transaction_country: 'SN', customer_email: email });
  return res.body.customer;
}

async function plan(key: string, body: Record<string, unknown> = {}) {
  const res = await post(key, '/api/v1/billing/plans', { name: 'Starter', currency: 'XOF', recurringAmount: 5000, interval: 'month', ...body });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

t.test('plans: a product with a recurring price; camelCase; the plan id is the price id', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const p = await plan(key, { interval: 'monthly', usageBasedEnabled: true, usageUnitAmount: 10, metadata: '{"tier":"starter"}' });
  t.same(Object.keys(p), ['id', 'object', 'productId', 'name', 'currency', 'recurringAmount', 'interval', 'intervalCount', 'usageBasedEnabled', 'usageUnitAmount', 'metadata', 'active', 'created', 'livemode']);
  t.match(p, {
    id: /^price_/,
    object: 'billing_plan',
    productId: /^prod_/,
    name: 'Starter',
    currency: 'xof',
    recurringAmount: 5000,
    interval: 'month',
    intervalCount: 1,
    usageBasedEnabled: true,
    usageUnitAmount: 10,
    metadata: '{"tier":"starter"}',
    active: true,
  });
  const product = await get(svc, key, `/api/v1/merchant/products/${p.productId}`);
  t.match(product.prices, [
    { id: p.id, unit_amount: 5000, recurring: { usage_type: 'licensed' } },
    { unit_amount: 10, recurring: { usage_type: 'metered' } },
  ]);
  const simple = await plan(key, { interval: 'year', usageBasedEnabled: null, metadata: null });
  t.match(simple, { interval: 'year', usageBasedEnabled: false, usageUnitAmount: null, metadata: null });

  assertError(t, await post(key, '/api/v1/billing/plans', { currency: 'xof', recurringAmount: 1, interval: 'month' }), 'IKW-VAL-001', 'name');
  assertError(t, await post(key, '/api/v1/billing/plans', { name: 'x', currency: 'xof', recurringAmount: 10.5, interval: 'month' }), 'IKW-VAL-001', 'recurringAmount');
  assertError(t, await post(key, '/api/v1/billing/plans', { name: 'x', currency: 'xof', recurringAmount: 10, interval: 'fortnightly' }), 'IKW-VAL-001', 'interval');
  assertError(t, await post(key, '/api/v1/billing/plans', { name: 'x', currency: 'zzz', recurringAmount: 10, interval: 'month' }), 'IKW-VAL-003', 'prices.0.currency');
  assertError(t, await post(key, '/api/v1/billing/plans', { name: 'x', currency: 'xof', recurringAmount: 10, interval: 'month', recurring_amount: 1 }), 'IKW-VAL-002', 'recurring_amount');
});

t.test('subscriptions: from a plan and a customer; the same subscription through the merchant routes', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const p = await plan(key);
  const cus = await customer(key, 'bill@example.com');
  const res = await post(key, '/api/v1/billing/subscriptions', { billingPlanId: p.id, customerId: cus, currentPeriodStart: '2026-01-01T00:00:00Z', currentPeriodEnd: '2026-01-20T00:00:00Z', cancelAtPeriodEnd: false });
  assertOk(t, res);
  const s = res.body;
  t.same(Object.keys(s), [
    'id',
    'object',
    'billingPlanId',
    'customerId',
    'status',
    'currency',
    'items',
    'currentPeriodStart',
    'currentPeriodEnd',
    'cancelAtPeriodEnd',
    'canceledAt',
    'trialEnd',
    'latestInvoiceId',
    'metadata',
    'created',
    'livemode',
  ]);
  t.match(s, {
    id: /^sub_/,
    object: 'subscription',
    billingPlanId: p.id,
    customerId: cus,
    status: 'active',
    currency: 'xof',
    currentPeriodStart: '2026-01-01T00:00:00.000Z',
    currentPeriodEnd: '2026-01-20T00:00:00.000Z',
    cancelAtPeriodEnd: false,
    latestInvoiceId: /^in_/,
  });
  t.match(s.items, [{ id: /^si_/, priceId: p.id, quantity: 1 }]);
  const merchantView = await get(svc, key, `/api/v1/merchant/subscriptions/${s.id}`);
  t.match(merchantView, { id: s.id, customer: cus, billing_plan: p.id, latest_invoice: s.latestInvoiceId, current_period_end: Date.parse('2026-01-20T00:00:00Z') / 1000 });
  const invoice = await get(svc, key, `/api/v1/billing/invoices/${s.latestInvoiceId}`);
  t.match(invoice, { subscriptionId: s.id, customerId: cus, status: 'open', amountDue: 5000, periodStart: '2026-01-01T00:00:00.000Z', periodEnd: '2026-01-20T00:00:00.000Z' });

  assertError(t, await post(key, '/api/v1/billing/subscriptions', { billingPlanId: 'price_nope', customerId: cus }), 'IKW-BIL-007', 'billingPlanId');
  assertError(t, await post(key, '/api/v1/billing/subscriptions', { billingPlanId: p.id, customerId: 'cus_nope' }), 'IKW-BIL-006', 'customerId');
  assertError(t, await post(key, '/api/v1/billing/subscriptions', { customerId: cus }), 'IKW-VAL-001', 'billingPlanId');
  assertError(t, await post(key, '/api/v1/billing/subscriptions', { billingPlanId: p.id, customerId: cus, currentPeriodStart: '2026-02-01T00:00:00Z', currentPeriodEnd: '2026-01-01T00:00:00Z' }), 'IKW-VAL-001', 'currentPeriodEnd');
  assertError(t, await post(key, '/api/v1/billing/subscriptions', { billingPlanId: p.id, customerId: cus, currentPeriodStart: 'soon' }), 'IKW-VAL-001', 'currentPeriodStart');
  const stranger = await svc.merchant('Stranger');
  assertError(t, await post(stranger.api_keys.sandbox, '/api/v1/billing/subscriptions', { billingPlanId: p.id, customerId: cus }), 'IKW-BIL-007', 'billingPlanId');
  const theirPlan = await plan(stranger.api_keys.sandbox);
  assertError(t, await post(stranger.api_keys.sandbox, '/api/v1/billing/subscriptions', { billingPlanId: theirPlan.id, customerId: cus }), 'IKW-BIL-006', 'customerId');
});

t.test('invoices: create (open at once), get, list with cursor and filters; the merchant routes see the same invoice', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const cus = await customer(key, 'inv@example.com');
  const res = await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'XOF', amountDue: 7500, periodStart: '2026-01-01T00:00:00Z', periodEnd: '2026-02-01T00:00:00Z', dueDate: '2026-02-10T00:00:00Z' });
  assertOk(t, res);
  const inv = res.body;
  t.same(Object.keys(inv), [
    'id',
    'object',
    'customerId',
    'subscriptionId',
    'status',
    'currency',
    'amountDue',
    'amountPaid',
    'amountRemaining',
    'periodStart',
    'periodEnd',
    'dueDate',
    'hostedInvoiceUrl',
    'paymentIntentId',
    'description',
    'lines',
    'metadata',
    'created',
    'livemode',
  ]);
  t.match(inv, {
    id: /^in_/,
    object: 'invoice',
    customerId: cus,
    subscriptionId: null,
    status: 'open',
    currency: 'xof',
    amountDue: 7500,
    amountPaid: 0,
    amountRemaining: 7500,
    dueDate: '2026-02-10',
    hostedInvoiceUrl: /\/hosted\/invoices\/in_/,
    paymentIntentId: null,
  });
  t.same(await get(svc, key, `/api/v1/billing/invoices/${inv.id}`), inv);
  t.match(await get(svc, key, `/api/v1/merchant/invoices/${inv.id}`), { id: inv.id, customer: cus, amount_due: 7500, status: 'open', hosted_invoice_url: inv.hostedInvoiceUrl });

  const second = (await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 100 })).body;
  await svc.request('PATCH', `/api/v1/merchant/invoices/${second.id}/status`, { key, body: { status: 'void' } });
  const list = await get(svc, key, '/api/v1/billing/invoices?limit=1');
  t.match(list, { object: 'list', has_more: true, url: '/api/v1/billing/invoices' });
  t.same(
    list.data.map((i: { id: string }) => i.id),
    [second.id],
  );
  t.same(
    (await get(svc, key, `/api/v1/billing/invoices?starting_after=${second.id}`)).data.map((i: { id: string }) => i.id),
    [inv.id],
  );
  t.same(
    (await get(svc, key, '/api/v1/billing/invoices?status=open')).data.map((i: { id: string }) => i.id),
    [inv.id],
  );
  t.same((await get(svc, key, `/api/v1/billing/invoices?customerId=${cus}`)).data.length, 2);

  assertError(t, await post(key, '/api/v1/billing/invoices', { currency: 'xof', amountDue: 1 }), 'IKW-VAL-001', 'customerId');
  assertError(t, await post(key, '/api/v1/billing/invoices', { customerId: cus, amountDue: 1 }), 'IKW-VAL-001', 'currency');
  assertError(t, await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof' }), 'IKW-VAL-001', 'amountDue');
  assertError(t, await post(key, '/api/v1/billing/invoices', { customerId: 'cus_nope', currency: 'xof', amountDue: 1 }), 'IKW-BIL-006', 'customerId');
  assertError(t, await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 1, subscriptionId: 'sub_nope' }), 'IKW-VAL-001', 'subscriptionId');
  assertError(t, await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 1, dueDate: 'never' }), 'IKW-VAL-001', 'dueDate');
  assertError(t, await svc.request('GET', '/api/v1/billing/invoices/in_nope', { key }), 'IKW-RES-001', 'id');
  const stranger = await svc.merchant('Stranger');
  assertError(t, await svc.request('GET', `/api/v1/billing/invoices/${inv.id}`, { key: stranger.api_keys.sandbox }), 'IKW-RES-001', 'id');
  t.same((await get(svc, stranger.api_keys.sandbox, '/api/v1/billing/invoices')).data, []);
});

t.test('pay: a payment intent for what remains, idempotent on idempotencyKey; its success pays the invoice', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const cus = await customer(key, 'pay@example.com');
  const inv = (await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 6000 })).body;
  const res = await post(key, `/api/v1/billing/invoices/${inv.id}/pay`, { transactionCountry: 'SN', description: 'June', metadata: { order: '9' }, idempotencyKey: 'pay-1' });
  assertOk(t, res);
  const pi = res.body;
  t.match(pi, { id: /^pi_/, object: 'payment_intent', amount: 6000, currency: 'xof', status: 'requires_payment_method', customer: cus, description: 'June', metadata: { order: '9', invoice_id: inv.id }, transaction_country: 'SN' });
  const again = await post(key, `/api/v1/billing/invoices/${inv.id}/pay`, { transactionCountry: 'SN', idempotencyKey: 'pay-1' });
  t.equal(again.body.id, pi.id, 'same key, same intent');
  t.equal((await get(svc, key, `/api/v1/billing/invoices/${inv.id}`)).paymentIntentId, pi.id);

  assertOk(t, await confirm(svc, key, pi.id, { payment_method: mobileMoney(snNumber('67')) }));
  await operatorAnswers(svc);
  await svc.system.drain();
  t.match(await get(svc, key, `/api/v1/billing/invoices/${inv.id}`), { status: 'paid', amountPaid: 6000, amountRemaining: 0 });
  assertError(t, await post(key, `/api/v1/billing/invoices/${inv.id}/pay`, {}), 'IKW-BIL-009', 'id');

  // A payment intent that only names the invoice in its metadata does not pay it.
  const other = (await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 500 })).body;
  const spoof = (await post(key, '/api/v1/payment-intents', { amount: 500, currency: 'xof', transaction_country: 'SN', metadata: { invoice_id: other.id } })).body;
  assertOk(t, await confirm(svc, key, spoof.id, { payment_method: mobileMoney(snNumber('67')) }));
  await operatorAnswers(svc);
  await svc.system.drain();
  t.equal((await get(svc, key, `/api/v1/billing/invoices/${other.id}`)).status, 'open');

  const draft = (await post(key, '/api/v1/merchant/invoices', { customer: cus, currency: 'xof', amount_due: 10 })).body;
  assertError(t, await post(key, `/api/v1/billing/invoices/${draft.id}/pay`, {}), 'IKW-BIL-009', 'id');
  assertError(t, await post(key, '/api/v1/billing/invoices/in_nope/pay', {}), 'IKW-RES-001', 'id');
  assertError(t, await post(key, `/api/v1/billing/invoices/${other.id}/pay`, { transactionCountry: 'GH' }), 'IKW-VAL-009', 'currency');
});

t.test('confirm: pays with a payment method; an overpayment (the wallet paid part meanwhile) goes to the wallet', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const cus = await customer(key, 'confirm@example.com');
  const inv = (await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 8000 })).body;
  const res = await post(key, `/api/v1/billing/invoices/${inv.id}/confirm`, {
    paymentMethod: { type: 'mobile_money', mobileMoney: { country: 'SN', operator: 'orange_money', msisdn: snNumber('67') } },
    returnUrl: 'https://shop.example/back',
    idempotencyKey: 'c-1',
  });
  assertOk(t, res);
  t.match(res.body, { id: inv.id, object: 'invoice', status: 'open', paymentIntentId: /^pi_/, paymentIntent: { object: 'payment_intent', status: 'processing', amount: 8000, return_url: 'https://shop.example/back' } });
  // While the operator thinks, the customer's wallet pays 3,000 of it.
  await creditWallet(svc, key, cus, 3000);
  assertOk(t, await svc.request('POST', `/api/v1/merchant/billing/wallet/invoices/${inv.id}/apply`, { key }));
  await operatorAnswers(svc);
  await svc.system.drain();
  t.match(await get(svc, key, `/api/v1/billing/invoices/${inv.id}`), { status: 'paid', amountPaid: 8000 });
  t.equal(await walletBalance(svc, key, cus), 3000, 'the 3,000 the payment could not pay went to the wallet');

  const replay = await post(key, `/api/v1/billing/invoices/${inv.id}/confirm`, { paymentMethod: { type: 'card', card: { token: 'tok_visa' } }, idempotencyKey: 'c-1' });
  assertOk(t, replay);
  t.match(replay.body, { status: 'paid', paymentIntent: { id: res.body.paymentIntentId, status: 'succeeded', payment_method: { type: 'mobile_money' } } }, 'the same key answers the intent it made, paid: nothing charged again');
  assertError(t, await post(key, `/api/v1/billing/invoices/${inv.id}/confirm`, { paymentMethod: { type: 'card', card: { token: 'tok_visa' } } }), 'IKW-BIL-009', 'id');
  const another = (await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 100 })).body;
  assertError(t, await post(key, `/api/v1/billing/invoices/${another.id}/confirm`, {}), 'IKW-VAL-001', 'paymentMethod');
  assertError(t, await post(key, `/api/v1/billing/invoices/${another.id}/confirm`, { paymentMethod: { type: 'mobile_money' } }), 'IKW-VAL-001', 'paymentMethod.mobileMoney');
  assertError(
    t,
    await post(key, `/api/v1/billing/invoices/${another.id}/confirm`, { paymentMethod: { type: 'card', card: { token: 'tok_visa' }, mobileMoney: { country: 'SN', operator: 'orange_money', msisdn: snNumber('67') } } }),
    'IKW-VAL-002',
    'paymentMethod.mobileMoney',
  );
  const card = await post(key, `/api/v1/billing/invoices/${another.id}/confirm`, { paymentMethod: { type: 'card', card: { token: 'tok_visa' } } });
  assertOk(t, card);
  t.equal(card.body.paymentIntent.transaction_country, 'BF', 'a card payment defaults to the first country of the currency');
});

/** The payment intents attached to an invoice, in order. */
async function attachedIntents(invoiceId: string): Promise<string[]> {
  const events = await svc.system.store.readStream(invoiceStream(invoiceId));
  return events.filter((e) => e.type === 'invoice.payment_intent_attached').map((e) => (e.data as { paymentIntentId: string }).paymentIntentId);
}

t.test('confirm retried after a crash lost its answer: the intent the first confirmed, the payer charged once', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const cus = await customer(key, 'crash@example.com');
  const inv = (await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 8000 })).body;
  const body = { paymentMethod: { type: 'mobile_money', mobileMoney: { country: 'SN', operator: 'orange_money', msisdn: snNumber('67') } } };
  const first = await post(key, `/api/v1/billing/invoices/${inv.id}/confirm`, body, 'confirm-crash-1');
  assertOk(t, first);
  t.match(first.body, { status: 'open', paymentIntent: { status: 'processing' } });
  await loseAnswerInCrash(svc, 'confirm-crash-1');
  const retried = await post(key, `/api/v1/billing/invoices/${inv.id}/confirm`, body, 'confirm-crash-1');
  assertOk(t, retried);
  t.equal(retried.body.paymentIntent.id, first.body.paymentIntent.id, 'the intent the first attempt confirmed');
  t.same(await attachedIntents(inv.id), [first.body.paymentIntent.id], 'one intent on the invoice');
  await operatorAnswers(svc);
  await svc.system.drain();
  t.match(await get(svc, key, `/api/v1/billing/invoices/${inv.id}`), { status: 'paid', amountPaid: 8000 });
  t.equal(await walletBalance(svc, key, cus), 0, 'the payer paid once: no overpayment');

  // Retried again once the payment paid the invoice: the intent, succeeded, not "not open for payment".
  await loseAnswerInCrash(svc, 'confirm-crash-1');
  const late = await post(key, `/api/v1/billing/invoices/${inv.id}/confirm`, body, 'confirm-crash-1');
  assertOk(t, late);
  t.match(late.body, { status: 'paid', paymentIntent: { id: first.body.paymentIntent.id, status: 'succeeded' } });
  const other = await svc.sandboxMerchant();
  assertError(t, await post(other.key, `/api/v1/billing/invoices/${inv.id}/confirm`, body, 'confirm-crash-1'), 'IKW-RES-001', 'id');
});

t.test('pay retried after a crash lost its answer: the intent the first made, no second one', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const cus = await customer(key, 'pay-crash@example.com');
  const inv = (await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 3000 })).body;
  const first = await post(key, `/api/v1/billing/invoices/${inv.id}/pay`, { transactionCountry: 'SN' }, 'pay-crash-1');
  assertOk(t, first);
  await loseAnswerInCrash(svc, 'pay-crash-1');
  const retried = await post(key, `/api/v1/billing/invoices/${inv.id}/pay`, { transactionCountry: 'SN' }, 'pay-crash-1');
  assertOk(t, retried);
  t.equal(retried.body.id, first.body.id, 'the same intent');
  t.same(await attachedIntents(inv.id), [first.body.id], 'one intent on the invoice');
});

t.test('pay and confirm need payment_intents.write as well as billing.write', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const cus = await customer(key, 'scope@example.com');
  const inv = (await post(key, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 100 })).body;
  const billingOnly = await svc.apiKey(m.id, ['billing.write']);
  const readOnly = await svc.apiKey(m.id, ['billing.read']);
  assertError(t, await post(billingOnly.secret, `/api/v1/billing/invoices/${inv.id}/pay`, {}), 'IKW-AUT-004');
  assertOk(t, await svc.request('GET', `/api/v1/billing/invoices/${inv.id}`, { key: readOnly.secret }));
  assertOk(t, await svc.request('GET', '/api/v1/merchant/customers', { key: readOnly.secret }));
  assertError(t, await post(readOnly.secret, '/api/v1/billing/invoices', { customerId: cus, currency: 'xof', amountDue: 1 }), 'IKW-AUT-004');
  assertError(t, await post(readOnly.secret, '/api/v1/merchant/products', { name: 'x' }), 'IKW-AUT-004');
});

t.test('usage records: idempotent on idempotencyKey and externalId, billed on the next invoice, the rest on the one after', async (t) => {
  const svc2 = await startService(t);
  const { key } = await svc2.sandboxMerchant();
  const p = (await svc2.request('POST', '/api/v1/billing/plans', { key, body: { name: 'API', currency: 'xof', recurringAmount: 1000, interval: 'month', usageBasedEnabled: true, usageUnitAmount: 5 } })).body;
  const cus = (await svc2.request('POST', '/api/v1/payment-intents', { key, body: { amount: 100, currency: 'xof', transaction_country: 'SN', customer_email: 'u@example.com' } })).body.customer;
  const sub = (await svc2.request('POST', '/api/v1/billing/subscriptions', { key, body: { billingPlanId: p.id, customerId: cus } })).body;
  const usage = (body: Record<string, unknown>) => svc2.request('POST', '/api/v1/billing/usage/records', { key, body: { subscriptionId: sub.id, meterKey: 'api_calls', ...body } });

  const first = await usage({ quantity: 100, idempotencyKey: 'u-1', occurredAt: '2026-01-05T10:00:00Z' });
  assertOk(t, first);
  t.same(Object.keys(first.body), ['id', 'object', 'subscriptionId', 'meterKey', 'quantity', 'occurredAt', 'externalId', 'idempotencyKey', 'created', 'replayed']);
  t.match(first.body, { object: 'usage_record', subscriptionId: sub.id, meterKey: 'api_calls', quantity: 100, occurredAt: '2026-01-05T10:00:00.000Z', idempotencyKey: 'u-1', externalId: null, replayed: false });
  const replay = await usage({ quantity: 100, idempotencyKey: 'u-1' });
  t.match(replay.body, { id: first.body.id, replayed: true });
  assertError(t, await usage({ quantity: 101, idempotencyKey: 'u-1' }), 'IKW-IDM-002', 'idempotencyKey');
  assertOk(t, await usage({ quantity: 20, externalId: 'evt-9' }));
  t.match((await usage({ quantity: 20, externalId: 'evt-9' })).body, { replayed: true });
  assertOk(t, await usage({ quantity: 7, meterKey: 'sms' }));
  const parallel = await Promise.all(Array.from({ length: 10 }, () => usage({ quantity: 1, idempotencyKey: 'u-par' })));
  t.equal(new Set(parallel.map((r) => r.body.id)).size, 1, '10 parallel repeats: one record');

  svc2.clock.set(new Date('2026-02-01T00:00:00Z'));
  await svc2.system.drain();
  assertOk(t, await usage({ quantity: 3, idempotencyKey: 'u-late' }));
  const renewed = await svc2.request('GET', `/api/v1/merchant/subscriptions/${sub.id}`, { key });
  const invoice = (await svc2.request('GET', `/api/v1/billing/invoices/${renewed.body.latest_invoice}`, { key })).body;
  t.match(invoice.lines, [
    { priceId: p.id, quantity: 1, unitAmount: 1000, amount: 1000, meterKey: null },
    { quantity: 121, unitAmount: 5, amount: 605, meterKey: 'api_calls' },
    { quantity: 7, unitAmount: 5, amount: 35, meterKey: 'sms' },
  ]);
  t.equal(invoice.lines.length, 3);
  t.equal(invoice.amountDue, 1000 + 121 * 5 + 7 * 5);
  svc2.clock.set(new Date('2026-03-01T00:00:00Z'));
  await svc2.system.drain();
  const next = (await svc2.request('GET', `/api/v1/merchant/subscriptions/${sub.id}`, { key })).body;
  const third = (await svc2.request('GET', `/api/v1/billing/invoices/${next.latest_invoice}`, { key })).body;
  t.equal(third.amountDue, 1000 + 3 * 5, 'usage after the renewal lands on the invoice after');

  assertError(t, await usage({ quantity: 0 }), 'IKW-VAL-001', 'quantity');
  assertError(t, await usage({ quantity: 1, meterKey: '' }), 'IKW-VAL-001', 'meterKey');
  assertError(t, await svc2.request('POST', '/api/v1/billing/usage/records', { key, body: { subscriptionId: 'sub_nope', meterKey: 'x', quantity: 1 } }), 'IKW-RES-001', 'subscriptionId');
  const flat = (await svc2.request('POST', '/api/v1/billing/plans', { key, body: { name: 'Flat', currency: 'xof', recurringAmount: 1000, interval: 'month' } })).body;
  const flatSub = (await svc2.request('POST', '/api/v1/billing/subscriptions', { key, body: { billingPlanId: flat.id, customerId: cus } })).body;
  assertError(t, await svc2.request('POST', '/api/v1/billing/usage/records', { key, body: { subscriptionId: flatSub.id, meterKey: 'x', quantity: 1 } }), 'IKW-BIL-011', 'subscriptionId');
  await svc2.request('POST', `/api/v1/merchant/subscriptions/${sub.id}/cancel`, { key });
  assertError(t, await usage({ quantity: 1 }), 'IKW-BIL-011', 'subscriptionId');
  const stranger = await svc2.merchant('Stranger');
  assertError(t, await svc2.request('POST', '/api/v1/billing/usage/records', { key: stranger.api_keys.sandbox, body: { subscriptionId: flatSub.id, meterKey: 'x', quantity: 1 } }), 'IKW-RES-001', 'subscriptionId');
});
