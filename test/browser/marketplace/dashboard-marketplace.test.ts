/**
 * The dashboard's marketplace pages in Chromium: two sellers registered and a 10 % commission rule
 * made in the page; an order split between them, paid through its payment intent, partly refunded
 * (shares and commission give back in proportion); the due settlements run; a seller's available
 * funds paid out; the other environment; another merchant's order is not found.
 */
import t from '#tap';
import { accessibilityProblems, homeBalance, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { mkt, payOrder } from '../../support/marketplace.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';

const { svc, signedIn } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('marketplace: sellers, a rule, an order split and paid, a partial refund, settlements, a seller paid out', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Marché Sandaga');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const refused = refusals(page);
  await navigate(page, 'Marketplace');
  await page.getByText('No seller yet.').waitFor();

  const register = page.getByRole('form', { name: 'Register the seller' });
  for (const [id, name] of [
    ['awa-tissus', 'Awa Tissus'],
    ['baye-cuir', 'Baye Cuir'],
  ]) {
    await register.getByLabel('Your id for the seller').fill(id!);
    await register.getByLabel('Name').fill(name!);
    await register.getByLabel('Delay in days').fill('0');
    await register.getByRole('button', { name: 'Register the seller' }).click();
    await page.getByRole('link', { name: name! }).waitFor();
  }
  const rule = page.getByRole('form', { name: 'Create the rule' });
  await rule.getByLabel('Rule').fill('Standard');
  await rule.getByLabel(/Percentage/).fill('10');
  await rule.getByRole('button', { name: 'Create the rule' }).click();
  await page.getByRole('row', { name: /Standard.*10%.*on/ }).waitFor();

  const order = page.getByRole('form', { name: 'New order' });
  await order.getByLabel('Buyer (optional)').fill('Fatou');
  await order.getByLabel('Commission rule').selectOption({ label: 'Standard' });
  await order.getByLabel('Seller of line 1').selectOption({ label: 'Awa Tissus' });
  await order.getByLabel(/Amount of line 1/).fill('10000');
  await order.getByRole('button', { name: 'Add a line' }).click();
  await order.getByLabel('Seller of line 2').selectOption({ label: 'Baye Cuir' });
  await order.getByLabel(/Amount of line 2/).fill('5000');
  await order.getByRole('button', { name: 'Create the order' }).click();
  await page.getByRole('heading', { name: 'Order Fatou' }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const facts = page.locator('dl.facts');
  t.match(await facts.textContent(), /StatusAwaiting payment.*Amount\D*15,000.*commission\D*1,500/, 'split with the 10 % commission');

  const stored = (await mkt(svc, key, 'GET', `/orders/${id}`)).body;
  await payOrder(svc, key, stored);
  await page.reload();
  await facts.filter({ hasText: 'Paid' }).waitFor();
  const held = ((await svc.request('GET', '/api/v1/balance', { key })).body.held as { amount: number; currency: string }[]).find((h) => h.currency === 'xof')?.amount ?? 0;
  t.ok(held > 0, 'the sellers’ shares are held for them');
  t.match(await homeBalance(page, 'xof'), { held }, 'and the home page shows them held');
  await page.goBack();
  await facts.filter({ hasText: 'Paid' }).waitFor();
  const refund = page.getByRole('form', { name: 'Refund' });
  await refund.getByLabel(/Amount/).fill('3000');
  await refund.getByLabel('Reason').fill('One scarf returned');
  await refund.getByRole('button', { name: 'Refund' }).click();
  await facts.filter({ hasText: 'Partly refunded' }).waitFor();
  t.match(await page.getByRole('region', { name: 'Refunds' }).textContent(), /3,000 — One scarf returned/);
  t.same(await accessibilityProblems(page), [], 'an order: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'marketplace-order');

  await navigate(page, 'Marketplace');
  await page.getByRole('button', { name: 'Settle what is due' }).click();
  await page.getByRole('status').filter({ hasText: '2 shares settled.' }).waitFor();
  await page
    .getByRole('region', { name: 'Settlements' })
    .getByRole('row', { name: /awa-tissus/ })
    .waitFor();
  t.same(await accessibilityProblems(page), [], 'the marketplace: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'marketplace');

  await page.getByRole('link', { name: 'Awa Tissus' }).click();
  await page.getByRole('heading', { name: 'Awa Tissus', level: 1 }).waitFor();
  const sellerBalance = page.getByRole('region', { name: 'Balance' }).getByRole('row', { name: /XOF/ });
  await sellerBalance.waitFor();
  const before = (await sellerBalance.textContent())!;
  t.match(before, /^XOF\D*0\D+[1-9]/, 'nothing pending, some available');
  const payout = page.getByRole('form', { name: 'Pay the seller' });
  // The countries and operators are the catalog's (as every payout form's), not a list of the page's own.
  type Catalog = { id: string; operators: { name: string; directions: string[] }[] }[];
  const catalog = (await svc.request('GET', '/api/v1/geography/countries?direction=payout', { key })).body.data as Catalog;
  const operatorsOf = (country: string) =>
    catalog
      .find((c) => c.id === country)!
      .operators.filter((o) => o.directions.includes('payout'))
      .map((o) => o.name);
  t.equal(await payout.getByLabel('Country').inputValue(), 'SN', 'Senegal first');
  t.same(await payout.getByLabel('Operator').locator('option').allTextContents(), operatorsOf('SN'), "Senegal's operators, as the catalog names them");
  const elsewhere = catalog.find((c) => c.id !== 'SN' && operatorsOf(c.id).length > 0)!;
  await payout.getByLabel('Country').selectOption(elsewhere.id);
  await payout
    .getByLabel('Operator')
    .locator('option', { hasText: operatorsOf(elsewhere.id)[0]! })
    .waitFor({ state: 'attached' });
  t.same(await payout.getByLabel('Operator').locator('option').allTextContents(), operatorsOf(elsewhere.id), `another country (${elsewhere.id}): its own operators`);
  await payout.getByLabel('Country').selectOption('SN');
  await payout.getByLabel('Operator').selectOption('orange_money');
  await payout.getByLabel(/Amount/).fill('2000');
  await payout.getByLabel('Mobile money number').fill('+221771234567');
  await payout.getByRole('button', { name: 'Pay the seller' }).click();
  const paid = page.getByRole('region', { name: 'Pay the seller' }).getByRole('row', { name: /2,000/ });
  await paid.waitFor();
  t.match(await paid.textContent(), /2,000.*(Pending|In transit|Paid)$/, 'the seller’s payout with its status in words');
  t.equal(await paid.locator('.badge').count(), 1, 'as a badge');
  t.match(
    (await mkt(svc, key, 'GET', '/payouts')).body.data,
    [{ amountMinor: 2_000, destination: { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } }],
    'one payout to the seller in the API, to the chosen country and operator',
  );

  // The same page in live: the sandbox seller is not there, and the page says so.
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No such object in this environment.').waitFor();
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(
    refused.map((r) => r.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')),
    ['404 GET /api/v1/marketplace/sellers/:id'],
    'no refused request but the sandbox seller asked for in live',
  );
});

t.test("marketplace: another merchant's order is not found", async (t) => {
  const other = await svc.sandboxMerchant('Other market');
  await mkt(svc, other.key, 'POST', '/sellers', { sellerId: 's1', displayName: 'S1' });
  const theirs = (await mkt(svc, other.key, 'POST', '/orders', { currency: 'xof', transactionCountry: 'SN', lines: [{ sellerId: 's1', amountMinor: 1_000 }] })).body;
  const { page } = await signedIn(t, 'Curious market');
  await page.goto(`${svc.baseUrl}/dashboard/marketplace/orders/${theirs.id}`);
  await page.getByRole('alert').filter({ hasText: 'No such object in this environment.' }).waitFor();
  t.pass('not found, as the API says');
});
