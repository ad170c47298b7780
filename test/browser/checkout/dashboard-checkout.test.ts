/**
 * The dashboard's checkout sessions and customer portal settings in Chromium: sessions opened
 * through the API as a merchant's server does, listed and filtered, one paid in a second tab on
 * the hosted checkout and seen paid with its fee; another expired (confirmed) and its hosted page
 * saying so; the API's refusal of an expiry said by the page; another merchant's session not
 * found; paging; the other environment's list. The customer portal's link copied, a setting
 * changed and the portal (signed in in a second tab) honouring it; the API's refusal of a return
 * URL. axe-core and 320 px on each page.
 */
import t, { type Test } from '#tap';
import type { Page } from 'playwright-core';
import { closeAtEnd, openPage } from '../../support/browser.js';
import { createProduct, createSubscription } from '../../support/billing.js';
import { createSession, openLink, payByMobileMoney } from '../../support/checkout.js';
import { accessibilityProblems, homeBalance, listsAt, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { operatorAnswers, snNumber } from '../../support/payments.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';
import { copiedBy } from '../../support/clipboard.js';

const { svc, browser, signedIn } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });
const xof = (minor: number) => new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'XOF' }).format(minor);
/** A hosted page's address on the test's service (its `url` names the service's PUBLIC_URL, which the test's service does not listen on). */
const local = (url: string) => `${svc.baseUrl}${new URL(url).pathname}`;

/** The customer's tab: a page of the same browser, closed when the test ends. */
async function secondTab(t: Test): Promise<Page> {
  const { page } = await openPage(browser);
  closeAtEnd(t, page);
  return page;
}

t.test('checkout sessions: listed, one paid in a second tab, another expired, a refusal, another merchant’s not found', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Corner shop');
  const refused = refusals(page);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  // Opened by the merchant's server, as an order would.
  const toPay = await createSession(svc, key, { amount: 7_500, customerEmail: 'awa@example.com' });
  const toExpire = await createSession(svc, key, { amount: 2_500 });
  await navigate(page, 'Checkout');
  await page.getByRole('heading', { name: 'Checkout sessions', level: 1 }).waitFor();
  const rowOf = (id: string) => page.getByRole('row', { name: new RegExp(id) });
  await rowOf(toPay.id).waitFor();
  const sessionIds = page.getByRole('button', { name: /^Copy the id: cs_/ });
  const ids = await page.getByRole('row').filter({ has: sessionIds }).allTextContents();
  t.match(ids, [new RegExp(toExpire.id), new RegExp(toPay.id)], 'newest first');
  const list = page.getByRole('region', { name: 'Sessions' });
  t.same(await list.getByRole('columnheader').allTextContents(), ['Session', 'Amount', 'Status', 'Created', 'Hosted page', 'Id'], 'what the merchant recognises first, the id last');
  t.equal(await rowOf(toPay.id).getByRole('rowheader').textContent(), 'awa@example.com', 'a session without a description led by its customer (linking to its page)');
  t.equal(await rowOf(toExpire.id).getByRole('rowheader').textContent(), 'Session', 'one without a description or a customer is a session');
  t.equal(
    await rowOf(toPay.id)
      .getByRole('button', { name: `Copy the id: ${toPay.id}` })
      .count(),
    1,
    'the id last, copyable',
  );
  // A payment link's session carries the link's description, which leads it.
  const link = (await svc.request('POST', '/api/v1/payment_links', { key, body: { amount: 3_000, currency: 'XOF', country: 'SN', description: 'Basket of mangoes' } })).body as { slug: string };
  const fromLink = (await openLink(svc, link.slug)).sessionId!;
  await page.reload();
  t.equal(await rowOf(fromLink).getByRole('rowheader').textContent(), 'Basket of mangoes', 'a session with a description led by it');
  t.same((await listsAt(page, 1280)).cut, [], 'at 1280 px no column cut');
  const narrow = await listsAt(page, 320);
  t.ok(narrow.cards, 'at 320 px each session is a card');
  t.same(narrow.unlabelled, [], 'each value labelled by its column');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await list.getByRole('columnheader', { name: 'Identifiant' }).waitFor();
  t.match(await list.getByRole('columnheader').allTextContents(), ['Session', 'Montant', /./, /./, /./, 'Identifiant'], 'in French');
  t.equal(await rowOf(toPay.id).getByRole('rowheader').textContent(), 'awa@example.com', 'still led by its customer');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  t.match(await rowOf(toPay.id).textContent(), new RegExp(`${xof(7_500)}.*Open.*Unpaid`));
  t.equal(
    await rowOf(toPay.id)
      .getByRole('link', { name: `Open the page of ${toPay.id}` })
      .getAttribute('href'),
    toPay.url,
    'links to its hosted page',
  );
  t.same(await accessibilityProblems(page), [], 'the list: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'checkout-sessions');

  await rowOf(toPay.id).getByRole('link', { name: 'awa@example.com' }).click();
  await page.getByRole('heading', { name: `awa@example.com · ${xof(7_500)}`, level: 1 }).waitFor();
  t.equal(
    await page
      .locator('.object-heading')
      .getByRole('button', { name: `Copy the id: ${toPay.id}` })
      .count(),
    1,
    "the session's heading: its customer and amount, then its id, copyable",
  );
  t.match(await page.locator('dl.facts').first().textContent(), /StatusOpen.*PaymentUnpaid.*awa@example\.com/);
  const fees = page.getByRole('region', { name: 'Its fee by operator' });
  const orange = fees.getByRole('row', { name: /^Orange Money/ });
  const quote = (await svc.request('POST', `/api/v1/checkout/sessions/${toPay.id}/fee_quote`, { key, body: { operator: 'orange_money' } })).body;
  await orange.getByText(xof(7_500 - quote.fee)).waitFor();
  t.match(await orange.textContent(), `${xof(quote.fee)}${xof(7_500)}${xof(7_500 - quote.fee)}`, "Orange Money's fee and what reaches the balance, as the API quotes them");

  // The customer pays on the hosted checkout, in a second tab.
  const customer = await secondTab(t);
  await customer.goto(local(toPay.url));
  await customer.getByLabel('Mobile money operator').selectOption('orange_money');
  await customer.getByLabel('Mobile money number').fill(snNumber('05'));
  await customer.getByRole('button', { name: /^Pay/ }).click();
  await customer.getByText(/Approve the payment on your phone/).waitFor();
  await operatorAnswers(svc);
  await page.reload();
  await page.getByText('Complete', { exact: true }).waitFor();
  t.match(await page.locator('dl.facts').first().textContent(), /StatusComplete.*PaymentPaid/, 'seen paid');
  const paid = (await svc.request('GET', `/api/v1/payment-intents/${toPay.paymentIntentId}`, { key })).body;
  const payment = page.getByRole('region', { name: 'Its payment' });
  await payment.getByRole('link', { name: toPay.paymentIntentId }).waitFor();
  t.match(await payment.textContent(), `Payment statusSucceededFee${xof(paid.fee)}You receive${xof(paid.amount_received - paid.fee)}`, 'its payment, with the fee taken from it');
  t.equal(await page.getByRole('button', { name: 'Expire now' }).count(), 0, 'a paid session cannot be expired');
  t.same(await accessibilityProblems(page), [], "a session's page: no serious or critical axe violation");
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'checkout-session');

  // Another is expired from its page, confirmed first.
  await page.getByRole('link', { name: 'All checkout sessions' }).click();
  await rowOf(toExpire.id).getByRole('link', { name: 'Session', exact: true }).click();
  await page.getByRole('button', { name: 'Expire now' }).click();
  await page.getByRole('button', { name: 'Keep it open' }).click();
  t.match((await svc.request('GET', `/api/v1/checkout/sessions/${toExpire.id}`, { key })).body, { status: 'open' }, 'kept open: nothing sent');
  await page.getByRole('button', { name: 'Expire now' }).click();
  await page.getByRole('group', { name: 'Expire now' }).getByRole('button', { name: 'Expire the session' }).click();
  await page.getByRole('status').filter({ hasText: 'The session has expired.' }).waitFor();
  t.match(await page.locator('dl.facts').first().textContent(), /StatusExpired/);
  t.match((await svc.request('GET', `/api/v1/checkout/sessions/${toExpire.id}`, { key })).body, { status: 'expired' }, 'expired in the API');
  await customer.goto(local(toExpire.url));
  await customer.getByText('This payment page has expired.').waitFor();
  t.pass('its hosted page says it expired');

  // Paid meanwhile by the customer: the API refuses the expiry, and the page says why in its words.
  const raced = await createSession(svc, key, { amount: 1_200 });
  await page.goto(`${svc.baseUrl}/dashboard/checkout/${raced.id}`);
  await page.getByRole('button', { name: 'Expire now' }).click();
  await payByMobileMoney(svc, raced.id, snNumber('05'));
  await operatorAnswers(svc);
  await page.getByRole('button', { name: 'Expire the session' }).click();
  await page.getByRole('alert').filter({ hasText: 'The checkout session is complete' }).waitFor();
  await page.getByText('Complete', { exact: true }).waitFor();
  t.pass("the API's refusal, and the session as it now stands");

  await navigate(page, 'Checkout');
  await page.getByLabel('Show').selectOption('expired');
  await rowOf(toExpire.id).waitFor();
  t.equal(await page.getByRole('button', { name: /^Copy the id: cs_/ }).count(), 1, 'the expired one only');
  await page.getByLabel('Show').selectOption('complete');
  await rowOf(toPay.id).waitFor();
  t.equal(await page.getByRole('button', { name: /^Copy the id: cs_/ }).count(), 2, 'the two paid');
  // Their money on the home page, as the API's balance has it (sandbox payments settle at once).
  const balance = (await svc.request('GET', '/api/v1/balance', { key, headers: { 'x-environment': 'sandbox' } })).body as { available: { currency: string; amount: number }[] };
  const available = balance.available.find((b) => b.currency === 'xof')?.amount ?? 0;
  const received = async (id: string) => {
    const intent = (await svc.request('GET', `/api/v1/payment-intents/${id}`, { key })).body as { amount_received: number; fee: number };
    return intent.amount_received - intent.fee;
  };
  t.equal(available, (await received(toPay.paymentIntentId!)) + (await received(raced.paymentIntentId!)), 'the two payments, less their fees, are available');
  t.match(await homeBalance(page, 'XOF'), { available, reserved: 0 }, "the payments' money on the home page");
  await navigate(page, 'Checkout');
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No checkout session in this environment yet.').waitFor();
  t.pass('live has its own sessions');

  const other = await svc.sandboxMerchant('Other shop');
  const theirs = await createSession(svc, other.key);
  await page.goto(`${svc.baseUrl}/dashboard/checkout/${theirs.id}`);
  await page.getByText('No such checkout session in this environment.').waitFor();
  t.pass("another merchant's session is not found");
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['409 POST /api/v1/checkout/sessions/' + raced.id + '/expire', `404 GET /api/v1/checkout/sessions/${theirs.id}`], 'no refused request but those asked for');
});

t.test('checkout sessions: eleven page by page', async (t) => {
  const { merchant, page } = await signedIn(t, 'Many sessions');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const made = [];
  for (let n = 1; n <= 11; n++) made.push(await createSession(svc, key, { amount: 100 * n }));
  await navigate(page, 'Checkout');
  const pager = page.getByRole('navigation', { name: 'Pages of checkout sessions' });
  await page.getByRole('row', { name: new RegExp(made[10]!.id) }).waitFor();
  t.ok(await pager.getByRole('button', { name: 'Previous' }).isDisabled(), 'the first page has no previous');
  await pager.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('row', { name: new RegExp(made[0]!.id) }).waitFor();
  t.equal(await page.getByRole('button', { name: /^Copy the id: cs_/ }).count(), 1, 'the oldest alone on page two');
  t.ok(await pager.getByRole('button', { name: 'Next' }).isDisabled(), 'and no page three');
  await pager.getByRole('button', { name: 'Previous' }).click();
  await page.getByRole('row', { name: new RegExp(made[10]!.id) }).waitFor();
});

t.test('customer portal settings: the link copied, a setting changed, the portal honouring it', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Portal shop');
  const refused = refusals(page);
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.baseUrl });
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const customer = (await svc.request('POST', '/api/v1/merchant/customers', { key, body: { email: 'awa@example.com', name: 'Awa' } })).body;
  const product = await createProduct(svc, key);
  await createSubscription(svc, key, { customer: customer.id, items: [{ price: product.prices[0].id }] });

  await navigate(page, 'Customers');
  const portal = page.getByRole('region', { name: 'Customer portal' });
  const url = `${svc.system.config.publicUrl}/portal/sandbox/${merchant.id}`;
  const link = portal.getByRole('link', { name: url });
  await link.waitFor();
  t.equal(await link.getAttribute('href'), url, "the portal's public link");
  const copied = await copiedBy(page, async () => {
    await portal.getByRole('button', { name: 'Copy the portal’s link' }).click();
    await portal.getByText('Copied').waitFor();
  });
  t.equal(copied, url, 'copied');
  const form = page.getByRole('form', { name: 'What customers may do in the portal' });
  t.ok(await form.getByLabel('Cancel their subscriptions (at the end of the period)').isChecked(), 'on by default');

  // The customer signs in to the portal in a second tab, with the code the outbox keeps.
  const tab = await secondTab(t);
  await tab.goto(local(url));
  await tab.getByLabel('E-mail address').fill('awa@example.com');
  await tab.getByRole('button', { name: 'Send me a code' }).click();
  await tab.getByLabel('Code from the e-mail').waitFor();
  const [mail] = await svc.system.outbox.kept({ channel: 'email', recipient: 'awa@example.com', purpose: 'customer_portal_code' }, 1);
  await tab.getByLabel('Code from the e-mail').fill(/Your code: (\d{6})/.exec(mail?.text ?? '')?.[1] ?? '');
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.getByRole('button', { name: 'Cancel at the end of the period' }).waitFor();
  t.pass('before: the customer may cancel');

  // A return URL the API refuses: its words on the page.
  await form.getByLabel('Your site (optional)').fill('ftp://shop.example/account');
  await form.getByRole('button', { name: 'Save the portal settings' }).click();
  t.match(await portal.getByRole('alert').textContent(), /return_url/, "the API's refusal, by the form");

  await form.getByLabel('Cancel their subscriptions (at the end of the period)').uncheck();
  await form.getByLabel('Your site (optional)').fill('https://shop.example/account');
  await form.getByRole('button', { name: 'Save the portal settings' }).click();
  await portal.getByRole('status').filter({ hasText: 'Customer portal settings saved.' }).waitFor();
  t.match((await svc.request('GET', '/api/v1/merchant/settings/customer-portal', { key })).body, { subscription_cancel: false, customer_update: true, return_url: 'https://shop.example/account' }, 'the API holds them');

  await tab.reload();
  await tab.locator('#subscriptions').waitFor();
  t.equal(await tab.getByRole('button', { name: 'Cancel at the end of the period' }).count(), 0, 'the portal no longer offers to cancel');
  t.equal(await tab.getByRole('link', { name: 'Back to Portal shop' }).getAttribute('href'), 'https://shop.example/account', 'and links back to the shop');

  t.same(await accessibilityProblems(page), [], 'customers with the portal settings: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'customer-portal-settings');

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await portal.getByRole('link', { name: `${svc.system.config.publicUrl}/portal/live/${merchant.id}` }).waitFor();
  t.ok(await form.getByLabel('Cancel their subscriptions (at the end of the period)').isChecked(), 'live keeps its own settings');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['400 PATCH /api/v1/merchant/settings/customer-portal'], 'no refused request but the refused return URL');
});
