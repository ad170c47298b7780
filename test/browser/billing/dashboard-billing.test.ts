/**
 * The dashboard's billing pages in Chromium: a customer, a product and its monthly price made in
 * the pages (a negative amount refused first); the customer subscribed with a double click (one
 * subscription); the period's invoice opened, its hosted page, its PDF, marked paid (the API holds
 * it paid, and no money moved on the balance); cancel at period end, then now; the customer's page
 * with both; usage recorded on a metered subscription; an open invoice collected by mobile money
 * (declined, then approved: paid by the payment, its money on the home page); live empty; another
 * merchant's customer is not found; axe-core and 320 px on every page.
 */
import type { Page } from 'playwright-core';
import t, { type Test } from '#tap';
import { accessibilityProblems, homeBalance, listsAt, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { operatorAnswers, snNumber } from '../../support/payments.js';
import { settle } from '../../support/webhooks.js';
import { createProduct, createSubscription, get } from '../../support/billing.js';
import { balance } from '../../support/payouts.js';
import { knexCardBook } from '../../../services/rail-recipients.js';
import { closeAtEnd, downloaded } from '../../support/browser.js';
import { copiedBy } from '../../support/clipboard.js';

const { svc, browser, signedIn } = await startDashboard(t);
await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.baseUrl });

const clean = async (t: Test, page: Page, what: string) => {
  t.same(await accessibilityProblems(page), [], `${what}: no serious or critical axe violation`);
  t.same(await overflowAt(page), [], `${what}: no horizontal scroll at 320 px`);
};

/** A list's rows at 320 px are cards, each value labelled by its column (and at 1280 px no column is cut). */
const cardsAt320 = async (t: Test, page: Page, what: string) => {
  t.same((await listsAt(page, 1280)).cut, [], `${what}: at 1280 px no column cut`);
  const narrow = await listsAt(page, 320);
  t.ok(narrow.cards, `${what}: at 320 px every row is a card`);
  t.same(narrow.unlabelled, [], `${what}: each value labelled by its column`);
};

t.test('billing: a customer, a product and price, a subscription, its invoice paid, cancel at period end then now', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Awa');
  const refused = refusals(page);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);

  await navigate(page, 'Customers');
  await page.getByText('No customer yet.').waitFor();
  const add = page.getByRole('form', { name: 'Add a customer' });
  await add.getByLabel('E-mail address').fill('fatou@example.com');
  await add.getByLabel('Name (optional)').fill('Fatou Ndiaye');
  await add.getByRole('button', { name: 'Add a customer' }).click();
  await page.getByRole('heading', { name: 'Fatou Ndiaye', level: 1 }).waitFor();
  const customers = (await get(svc, key, '/api/v1/merchant/customers')).data;
  t.match(customers, [{ email: 'fatou@example.com', name: 'Fatou Ndiaye' }], 'the customer, held by the API');
  const customerId = customers[0].id as string;
  t.equal(new URL(page.url()).pathname, `/dashboard/customers/${customerId}`);

  await navigate(page, 'Products');
  await page.getByText('No product yet.').waitFor();
  const product = page.getByRole('form', { name: 'New product' });
  await product.getByLabel('Name').fill('Abonnement Pro');
  await product.getByLabel('Amount').fill('-5000');
  await product.getByRole('button', { name: 'Create the product' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /unit_amount/ })
    .waitFor();
  await product.getByLabel('Amount').fill('5000');
  await product.getByLabel('Billed').selectOption({ label: 'every month' });
  await product.getByRole('button', { name: 'Create the product' }).click();
  await page.getByRole('heading', { name: 'Abonnement Pro', level: 3 }).waitFor();
  await page
    .getByRole('region', { name: 'Abonnement Pro' })
    .getByRole('row', { name: /5,000 every month/ })
    .waitFor();
  const products = (await get(svc, key, '/api/v1/merchant/products')).data;
  t.match(products, [{ name: 'Abonnement Pro', prices: [{ currency: 'xof', unit_amount: 5_000, recurring: { interval: 'month', usage_type: 'licensed' } }] }]);
  await page.locator('summary').filter({ hasText: 'Add a price' }).click();
  const addPrice = page.getByRole('form', { name: 'Add a price to Abonnement Pro' });
  await addPrice.getByLabel('Amount').fill('50000');
  await addPrice.getByLabel('Billed').selectOption({ label: 'every year' });
  await addPrice.getByRole('button', { name: 'Add a price' }).click();
  await page.getByRole('row', { name: /50,000 every year/ }).waitFor();
  t.equal((await get(svc, key, `/api/v1/merchant/products/${products[0].id}`)).prices.length, 2, 'a second price, held by the API');
  await clean(t, page, 'products');

  await navigate(page, 'Subscriptions');
  await page.getByText('No subscription.').waitFor();
  const subscribe = page.getByRole('form', { name: 'Subscribe a customer' });
  await subscribe.getByLabel('Customer').selectOption({ label: 'Fatou Ndiaye (fatou@example.com)' });
  await subscribe.getByLabel('Price').selectOption(products[0].prices.find((p: { recurring: { interval: string } }) => p.recurring.interval === 'month').id);
  await subscribe.getByRole('button', { name: 'Subscribe' }).dblclick();
  await page.getByRole('heading', { name: 'Fatou Ndiaye · Abonnement Pro', level: 1 }).waitFor();
  const subs = (await get(svc, key, '/api/v1/merchant/subscriptions')).data;
  t.equal(
    await page
      .locator('.object-heading')
      .getByRole('button', { name: `Copy the id: ${subs[0].id}` })
      .count(),
    1,
    "the subscription's heading: its customer and product, then its id, copyable",
  );
  t.equal(subs.length, 1, 'a double click subscribes once');
  t.match(subs[0], { customer: customerId, status: 'active', items: [{ price: products[0].prices[0].id, quantity: 1 }] });
  const facts = page.locator('dl.facts');
  t.match(await facts.textContent(), /StatusActive/);
  await facts.filter({ hasText: /Abonnement Pro — F\sCFA\s5,000 every month × 1/ }).waitFor();
  t.match(await page.getByRole('region', { name: 'Usage' }).textContent(), /no metered price/);

  const invoiceId = subs[0].latest_invoice as string;
  const ofSubscription = page.getByRole('region', { name: 'Invoices' }).getByRole('row', { name: new RegExp(invoiceId) });
  t.equal(await ofSubscription.getByRole('rowheader').textContent(), 'Abonnement Pro', "a subscription's invoices, each led by what it is for (its product)");
  await ofSubscription.getByRole('link', { name: 'Abonnement Pro' }).click();
  await page.getByRole('heading', { name: 'Fatou Ndiaye · Abonnement Pro', level: 1 }).waitFor();
  t.equal(new URL(page.url()).pathname, `/dashboard/invoices/${invoiceId}`, "the invoice's page");
  t.equal(
    await page
      .locator('.object-heading')
      .getByRole('button', { name: `Copy the id: ${invoiceId}` })
      .count(),
    1,
    "the invoice's heading: its customer and what it is for, then its id, copyable",
  );
  const invoiceFacts = page.locator('dl.facts');
  t.match(await invoiceFacts.textContent(), /StatusOpen.*Amount dueF\sCFA\s5,000.*PaidF\sCFA\s0.*RemainingF\sCFA\s5,000/);
  t.match(await page.getByRole('region', { name: 'Lines' }).getByRole('row').nth(1).textContent(), /1 × Abonnement Pro1F\sCFA\s5,000F\sCFA\s5,000/);
  const hosted = await copiedBy(page, () => page.getByRole('button', { name: 'Copy the hosted invoice link' }).click());
  t.equal(hosted, `${svc.system.config.publicUrl}/hosted/invoices/${invoiceId}`, 'the hosted link copied');
  t.equal(await page.getByRole('link', { name: hosted }).getAttribute('href'), hosted, 'and linked');
  // The customer opens it (the link names the service's PUBLIC_URL; the test's service listens elsewhere).
  const popup = await browser.newPage();
  closeAtEnd(t, popup);
  await popup.goto(`${svc.baseUrl}${new URL(hosted).pathname}`);
  await popup.getByRole('heading', { name: `Invoice INV-${invoiceId.slice(-8).toUpperCase()}` }).waitFor();
  t.match(await popup.textContent('body'), /Due.*Amount due.*F\sCFA\s5,000/s, 'the hosted page');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the PDF' }).click()]);
  t.equal(download.suggestedFilename(), `${invoiceId}.pdf`);
  t.equal((await downloaded(download)).subarray(0, 5).toString('latin1'), '%PDF-', 'the PDF the API wrote');

  await page.getByRole('button', { name: 'Mark paid' }).click();
  const confirmPaid = page.getByRole('group', { name: 'Mark paid' });
  t.match(await confirmPaid.textContent(), /remaining F\sCFA\s5,000 is recorded as paid outside Sika/);
  await confirmPaid.getByRole('button', { name: 'Confirm' }).click();
  await invoiceFacts.filter({ hasText: 'StatusPaid' }).waitFor();
  t.match(await get(svc, key, `/api/v1/merchant/invoices/${invoiceId}`), { status: 'paid', amount_paid: 5_000, amount_remaining: 0 }, 'paid, held by the API');
  t.same((await get(svc, key, '/api/v1/balance-transactions')).data, [], 'marked paid outside Sika: no money moved on the balance');
  t.match(await balance(svc, key), { available: 0, pending: 0 }, 'and the balance holds nothing');
  t.equal(await page.getByRole('button', { name: 'Mark paid' }).count(), 0, 'a paid invoice takes no more transitions');
  await clean(t, page, 'an invoice');
  await screenshot(page, 'billing-invoice');

  await navigate(page, 'Invoices');
  const invoices = page.getByRole('region', { name: 'Invoices' });
  await invoices.getByRole('row', { name: new RegExp(`Fatou Ndiaye.*Paid.*${invoiceId}`) }).waitFor();
  t.same(await invoices.getByRole('columnheader').allTextContents(), ['Customer', 'Status', 'Amount due', 'Remaining', 'Due on', 'Id'], 'the invoices: the customer first, the id last');
  t.equal(await invoices.getByRole('rowheader').first().textContent(), 'Fatou NdiayeAbonnement Pro', "each led by its customer's name, what it is for under it");
  t.equal(await copiedBy(page, () => invoices.getByRole('button', { name: `Copy the id: ${invoiceId}` }).click()), invoiceId, "the id's button copies it");
  await cardsAt320(t, page, 'invoices');
  await page.getByLabel('Status').selectOption({ label: 'Open' });
  await page.getByText('No invoice.').waitFor();
  await page.getByLabel('Status').selectOption({ label: 'Paid' });
  await invoices.getByRole('row', { name: new RegExp(invoiceId) }).waitFor();
  await clean(t, page, 'invoices');

  await page.goto(`${svc.baseUrl}/dashboard/subscriptions/${subs[0].id}`);
  await page.getByRole('button', { name: 'Cancel at period end' }).click();
  await page.locator('dl.facts').filter({ hasText: 'Ends when the period ends' }).waitFor();
  t.match(await get(svc, key, `/api/v1/merchant/subscriptions/${subs[0].id}`), { status: 'active', cancel_at_period_end: true });
  await clean(t, page, 'a subscription');
  await page.getByRole('button', { name: 'Cancel now' }).click();
  await page.getByRole('group', { name: 'Cancel now' }).getByRole('button', { name: 'Confirm' }).click();
  await page.locator('dl.facts').filter({ hasText: 'StatusCanceled' }).waitFor();
  t.match(await get(svc, key, `/api/v1/merchant/subscriptions/${subs[0].id}`), { status: 'canceled' }, 'canceled, held by the API');
  t.equal(await page.getByRole('button', { name: /^Cancel/ }).count(), 0, 'nothing left to cancel');

  await navigate(page, 'Subscriptions');
  const subscriptionList = page.getByRole('region', { name: 'Subscriptions' });
  await subscriptionList.getByRole('row', { name: new RegExp(`Fatou Ndiaye.*Canceled.*${subs[0].id}`) }).waitFor();
  t.same(await subscriptionList.getByRole('columnheader').allTextContents(), ['Customer', 'Status', 'Period ends', 'Id'], 'the subscriptions: the customer first, the id last');
  t.equal(await subscriptionList.getByRole('rowheader').first().textContent(), 'Fatou NdiayeAbonnement Pro', "each led by its customer's name, the product under it");
  await cardsAt320(t, page, 'subscriptions');
  await clean(t, page, 'subscriptions');
  await screenshot(page, 'billing-subscriptions');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  const abonnements = page.getByRole('region', { name: 'Abonnements' });
  await abonnements.getByRole('columnheader', { name: 'Client' }).waitFor();
  t.same(await abonnements.getByRole('columnheader').allTextContents(), ['Client', 'Statut', 'Fin de période', 'Identifiant'], 'in French');
  t.equal(await abonnements.getByRole('rowheader').first().textContent(), 'Fatou NdiayeAbonnement Pro', 'still led by the customer');
  await page.goto(`${svc.baseUrl}/dashboard/invoices`);
  await page.getByRole('region', { name: 'Factures' }).getByRole('rowheader', { name: 'Fatou Ndiaye' }).waitFor();
  t.equal(await page.getByRole('region', { name: 'Factures' }).getByRole('rowheader').first().textContent(), 'Fatou NdiayeAbonnement Pro', 'the invoices in French, led by the customer (named once the customers are read)');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');

  await navigate(page, 'Customers');
  await page.getByRole('link', { name: 'fatou@example.com' }).waitFor();
  await clean(t, page, 'customers');
  await screenshot(page, 'billing-customers');
  await page.getByRole('link', { name: 'fatou@example.com' }).click();
  await page
    .getByRole('region', { name: 'Subscriptions' })
    .getByRole('row', { name: /Abonnement Pro.*Canceled/ })
    .waitFor();
  await page
    .getByRole('region', { name: 'Invoices' })
    .getByRole('row', { name: new RegExp(`Abonnement Pro.*Paid.*${invoiceId}`) })
    .waitFor();
  const savedCards = page.getByRole('region', { name: 'Saved cards' });
  await savedCards.getByText('No saved card.').waitFor();
  t.pass('no saved card yet: the page says so');
  // Cards are kept from Paystack's authorizations of card payments (paystack-live.test.ts pays one); here the service's own card book keeps two.
  const book = knexCardBook(svc.system.knex, 'sandbox');
  const kept = { merchantId: merchant.id, customerId, email: 'fatou@example.com', expMonth: '12', expYear: '2030' };
  await book.save({ ...kept, authorizationCode: 'AUTH_once', signature: 'SIG_once', brand: 'mastercard', last4: '1111', expMonth: '03', expYear: '2027', reusable: false });
  const visa = await book.save({ ...kept, authorizationCode: 'AUTH_visa', signature: 'SIG_visa', brand: 'visa', last4: '4081', reusable: true });
  await page.reload();
  await savedCards.getByRole('row', { name: /Visa/ }).waitFor();
  t.same(await savedCards.getByRole('columnheader').allTextContents(), ['Card', 'Expires', 'Use', 'Token']);
  const cardRows = await Promise.all((await savedCards.getByRole('row').all()).slice(1).map((row) => row.locator('th, td').allTextContents()));
  t.same(
    cardRows.map((cells) => cells.slice(0, 3)),
    [
      ['Visa •••• 4081', 'Dec 2030', 'Reusable'],
      ['Mastercard •••• 1111', 'Mar 2027', 'Single use'],
    ],
    'each card: brand and last four, its expiry as en-GB writes it, reusable or single use',
  );
  t.equal(await savedCards.getByRole('button', { name: `Copy the id: ${visa}` }).count(), 1, 'its token, copyable');
  await cardsAt320(t, page, 'a customer with saved cards');
  await clean(t, page, 'a customer');
  await screenshot(page, 'billing-customer');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  const cartes = page.getByRole('region', { name: 'Cartes enregistrées' });
  await cartes.getByRole('row', { name: /Visa/ }).waitFor();
  t.same((await cartes.getByRole('row').nth(1).locator('th, td').allTextContents()).slice(0, 3), ['Visa •••• 4081', 'déc. 2030', 'Réutilisable'], 'in French: the expiry as fr-FR writes it');
  t.equal((await cartes.getByRole('row').nth(2).locator('th, td').allTextContents())[2], 'Usage unique');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByRole('alert').filter({ hasText: 'No such object in this environment.' }).waitFor();
  await navigate(page, 'Customers');
  await page.getByText('No customer yet.').waitFor();
  await navigate(page, 'Products');
  await page.getByText('No product yet.').waitFor();
  t.pass('live has its own billing: none');

  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['400 POST /api/v1/merchant/products', '404 GET /api/v1/merchant/customers/' + customerId], 'no refused request but the negative amount and the sandbox customer asked of live');
});

t.test('billing: usage recorded on a metered subscription, a quantity of zero refused; French', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Nuage Dakar');
  const refused = refusals(page);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const product = await createProduct(svc, key, { name: 'Stockage', prices: [{ currency: 'xof', unit_amount: 10, recurring: { interval: 'month', usage_type: 'metered' } }] });
  const sub = await createSubscription(svc, key, { customer_email: 'moussa@example.com', items: [{ price: product.prices[0].id }] });
  await page.goto(`${svc.baseUrl}/dashboard/subscriptions/${sub.id}`);
  const usage = page.getByRole('form', { name: 'Record usage' });
  await usage.getByLabel('Meter').fill('gigabytes');
  await usage.getByLabel('Quantity').fill('0');
  await usage.getByRole('button', { name: 'Record usage' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /quantity/ })
    .waitFor();
  await usage.getByLabel('Quantity').fill('12');
  await usage.getByRole('button', { name: 'Record usage' }).dblclick();
  await page
    .getByRole('region', { name: 'Usage' })
    .getByRole('row', { name: /gigabytes 12/ })
    .waitFor();
  const records = (await get(svc, key, `/api/v1/billing/usage/records?subscriptionId=${sub.id}`)).data;
  t.match(records, [{ meterKey: 'gigabytes', quantity: 12 }], 'one record (a double click records once), held by the API');
  t.equal(records.length, 1);
  await clean(t, page, 'a metered subscription');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Consommation' }).waitFor();
  await page.getByRole('button', { name: 'Résilier en fin de période' }).waitFor();
  await page
    .locator('dl.facts')
    .filter({ hasText: /Stockage — 10\sF\sCFA l’unité, chaque mois/ })
    .waitFor();
  await clean(t, page, 'a subscription in French');

  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['400 POST /api/v1/billing/usage/records'], 'no refused request but the quantity of zero');
});

t.test("billing: another merchant's customer, subscription and invoice are not found", async (t) => {
  const other = await svc.sandboxMerchant('Other shop');
  const product = await createProduct(svc, other.key);
  const sub = await createSubscription(svc, other.key, { customer_email: 'x@example.com', items: [{ price: product.prices[0].id }] });
  const { page } = await signedIn(t, 'Curious shop');
  const refused = refusals(page);
  for (const path of [`customers/${sub.customer}`, `subscriptions/${sub.id}`, `invoices/${sub.latest_invoice}`]) {
    await page.goto(`${svc.baseUrl}/dashboard/${path}`);
    await page.getByRole('alert').filter({ hasText: 'No such object in this environment.' }).waitFor();
  }
  t.equal(refused.length, 3, 'three 404s');
  t.ok(
    refused.every((r) => r.startsWith('404 GET /api/v1/merchant/')),
    refused.join(', '),
  );
});

t.test('billing: an open invoice collected by mobile money (a failed try first); paid by the payment, its money on the home page', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Collecting shop');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const product = await createProduct(svc, key);
  const sub = await createSubscription(svc, key, { customer_email: 'awa@example.com', items: [{ price: product.prices[0].id }] });
  const refused = refusals(page);
  await page.goto(`${svc.baseUrl}/dashboard/invoices/${sub.latest_invoice}`);
  const facts = page.locator('dl.facts');
  await facts.filter({ hasText: 'StatusOpen' }).waitFor();
  const collect = page.getByRole('form', { name: 'Collect by mobile money' });
  t.match(await page.getByRole('region', { name: 'Collect by mobile money' }).textContent(), /approve F\sCFA\s5,000 on their phone/, 'what the customer is asked to approve');
  await clean(t, page, 'an invoice to collect');

  // The operator declines the first number: the page says so, and the invoice stays open.
  await collect.getByLabel('Operator').selectOption('orange_money');
  await collect.getByLabel("Customer's mobile money number").fill(snNumber('01'));
  await collect.getByRole('button', { name: 'Ask the customer to pay' }).click();
  await page.getByRole('status').filter({ hasText: 'waiting for the customer' }).waitFor();
  await operatorAnswers(svc);
  await page.getByRole('status').filter({ hasText: 'did not go through' }).waitFor();
  t.match(await facts.textContent(), /StatusOpen/, 'still open');

  // The customer approves the second.
  await collect.getByLabel("Customer's mobile money number").fill(snNumber('67'));
  await collect.getByRole('button', { name: 'Ask the customer to pay' }).click();
  await page.getByRole('status').filter({ hasText: 'waiting for the customer' }).waitFor();
  await operatorAnswers(svc);
  await settle(svc);
  await facts.filter({ hasText: 'StatusPaid' }).waitFor();
  const invoice = await get(svc, key, `/api/v1/merchant/invoices/${sub.latest_invoice}`);
  t.match(invoice, { status: 'paid', amount_paid: 5_000, amount_remaining: 0 }, 'paid by the payment, as the API holds it');
  const intents = (await get(svc, key, '/api/v1/payment-intents')).data as { status: string; amount_received: number; fee: number }[];
  const paid = intents.find((i) => i.status === 'succeeded')!;
  t.match(await homeBalance(page, 'XOF'), { available: paid.amount_received - paid.fee }, "the payment's money, less its fee, on the home page");
  t.same(refused, [], 'no request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
