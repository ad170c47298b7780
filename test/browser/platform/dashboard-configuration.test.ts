/**
 * The dashboard's configuration page in Chromium: a country's payouts turned off and its amounts
 * bounded (the API then refuses what the setting forbids), back to the catalog; a payment method
 * disabled, suspended with a reason, resumed and removed; each in the environment shown.
 */
import t from '#tap';
import { accessibilityProblems, listsAt, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { mobileMoney, postPayout, fund } from '../../support/payouts.js';
import { createAdminKey } from '#packages/families/platform/platform-admin/commands.js';

const { svc, signedIn } = await startDashboard(t);

t.test('configuration: a country bounded and its payouts off, then back; a method disabled, suspended, resumed, removed', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Quincaillerie Ba');
  const pageRefusals = refusals(page);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  await fund(svc, merchant.id, 100_000);
  await navigate(page, 'Configuration');
  const senegal = page.getByRole('region', { name: 'Countries' }).getByRole('row', { name: /^Senegal/ });
  await senegal.waitFor();
  t.match(await senegal.textContent(), /Catalog default/);
  t.equal(await senegal.locator('summary').textContent(), 'Not available in live yet', 'no live rail configured: nothing in live, in words');
  await senegal.locator('summary').click();
  t.equal(await page.getByRole('list', { name: 'In live: Senegal' }).getByRole('listitem').first().textContent(), 'Orange Money, payments in: not available in live yet', 'each method, folded under the line');
  t.notMatch(await senegal.textContent(), /IKW-/, 'no error code');

  await senegal.getByRole('button', { name: 'Configure Senegal' }).click();
  const form = page.getByRole('form', { name: 'Configure Senegal' });
  await form.getByLabel('Payouts').uncheck();
  await form.getByLabel(/Largest amount/).fill('50000');
  await form.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: 'Senegal saved.' }).waitFor();
  await senegal.filter({ hasText: 'Payouts off' }).waitFor();
  t.match(await senegal.textContent(), /Payments in on · Payouts off · Amounts — to F\s?CFA\s50,000/, 'the setting, as the list shows it');
  const refused = await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination: mobileMoney() });
  t.equal(refused.body.code, 'IKW-CFG-001', 'the API now refuses payouts in Senegal');
  const big = await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 60_000, currency: 'xof', transaction_country: 'SN' } });
  t.equal(big.body.code, 'IKW-CFG-002', 'and payments above the bound');

  await form.waitFor({ state: 'detached' });
  await senegal.getByRole('button', { name: 'Configure Senegal' }).click();
  await form.getByLabel(/Smallest amount/).fill('60000');
  await form.getByRole('button', { name: 'Save' }).click();
  t.match(await page.getByRole('alert').textContent(), /min|max|amount/i, "the API's refusal of a smallest amount above the largest");
  await form.getByRole('button', { name: 'Cancel' }).click();

  await senegal.getByRole('button', { name: 'Back to the catalog: Senegal' }).click();
  await senegal.filter({ hasText: 'Catalog default' }).waitFor();
  t.equal((await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination: mobileMoney() })).status, 200, 'payouts in Senegal again');

  const methods = page.getByRole('form', { name: 'Set a payment method' });
  await methods.getByLabel('Country').selectOption('SN');
  await methods.getByLabel('Method').selectOption('card');
  await methods.getByRole('button', { name: 'Save the method' }).click();
  const card = page.getByRole('region', { name: 'Payment methods' }).getByRole('row', { name: /^Card/ });
  await card.waitFor();
  t.match(await card.textContent(), /CardSenegalEvery operatoronActive/);
  await card.getByRole('button', { name: 'Disable: Card Senegal' }).click();
  await card.filter({ hasText: 'off' }).waitFor();
  page.once('dialog', (dialog) => void dialog.accept('Chargebacks under review'));
  await card.getByRole('button', { name: 'Suspend: Card Senegal' }).click();
  await card.filter({ hasText: 'Suspended (Chargebacks under review)' }).waitFor();
  const stored = (await svc.request('GET', '/api/v1/payment_capabilities', { key })).body.data;
  t.match(stored, [{ country: 'SN', payment_method_type: 'card', is_enabled: false, status: 'suspended', suspension_reason: 'Chargebacks under review' }], 'the API holds it');
  await card.getByRole('button', { name: 'Resume: Card Senegal' }).click();
  await card.filter({ hasText: 'Active' }).waitFor();

  t.same(await accessibilityProblems(page), [], 'configuration: no serious or critical axe violation');
  t.same((await listsAt(page, 1280)).cut, [], 'at 1280 px no column cut (countries and payment methods)');
  const narrow = await listsAt(page, 320);
  t.ok(narrow.cards, 'at 320 px every row is a card');
  t.same(narrow.unlabelled, [], 'each value labelled by its column');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'configuration');

  await card.getByRole('button', { name: 'Remove: Card Senegal' }).click();
  await page.getByText('Every method follows the catalog in this environment.').waitFor();
  t.same((await svc.request('GET', '/api/v1/payment_capabilities', { key })).body.data, [], 'removed in the API');
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await senegal.filter({ hasText: 'Catalog default' }).waitFor();
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(
    pageRefusals.map((r) => r.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')),
    ['400 PUT /api/v1/configuration/activations/:id'],
    'no refused request but the smallest amount above the largest',
  );
});

t.test('features: the flags Sika set for everyone and for this account, read-only, per account', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Flagged shop');
  const other = await svc.merchant('Other flagged shop');
  const admin = await createAdminKey(svc.system.store, svc.clock, 'ops', 'test');
  const flag = (body: Record<string, unknown>) => svc.request('POST', '/api/v1/configuration/feature-flags', { key: admin.secret, body });
  t.equal((await flag({ key: 'batch_payouts', isEnabled: true, description: 'Bulk payouts' })).status, 200);
  t.equal((await flag({ key: 'batch_payouts', isEnabled: false, merchantId: merchant.id })).status, 200);
  t.equal((await flag({ key: 'secret_beta', isEnabled: true, merchantId: other.id })).status, 200);
  await navigate(page, 'Configuration');
  const features = page.getByRole('region', { name: 'Features' });
  await features
    .getByRole('row', { name: /batch_payouts/ })
    .first()
    .waitFor();
  const rows = await features.getByRole('row').allTextContents();
  t.ok(
    rows.some((r) => /batch_payouts.*Off.*Your account/.test(r)),
    'the override of this account',
  );
  t.notOk(
    rows.some((r) => /secret_beta/.test(r)),
    "another account's flag is not shown",
  );
  t.equal(await features.getByRole('button').count(), 0, 'nothing to change here');
  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test('a country Sika set for this account says so and offers nothing to change', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Bounded shop');
  const admin = await createAdminKey(svc.system.store, svc.clock, 'ops', 'test');
  const set = await svc.request('POST', '/api/v1/configuration/activations', { key: admin.secret, body: { countryCode: 'SN', maxAmount: 50_000, merchantId: merchant.id } });
  t.equal(set.status, 200);
  await navigate(page, 'Configuration');
  const senegal = page.getByRole('region', { name: 'Countries' }).getByRole('row', { name: /^Senegal/ });
  await senegal.filter({ hasText: 'Set by Sika' }).waitFor();
  t.equal(await senegal.getByRole('button').count(), 0, 'neither configure nor back to the catalog');
  t.equal(await page.getByRole('button', { name: 'Configure Mali' }).count(), 1, 'other countries stay the merchant’s');
  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
