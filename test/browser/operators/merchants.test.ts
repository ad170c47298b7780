/**
 * The console's merchants (docs/operator.md, "Merchants"; "Limits and holds"), in Chromium: the
 * list searched by name, e-mail and id and filtered by where the application stands; a merchant's
 * page; the risk team freezing payouts, setting a maximum per transaction and a rolling reserve,
 * suspending with a reason and reinstating, each checked through the API the merchant reads; a
 * reviewer sees no controls; an unknown id; French; axe and 320 px.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { approvedMerchant } from '../../support/activation.js';
import { startConsole } from '../../support/console.js';
import { accessibilityProblems, overflowAt, screenshot, scriptProblems, withHeader } from '../../support/dashboard.js';
import { fund } from '../../support/payouts.js';

const { svc, operator } = await startConsole(t);

// Newest last: the list shows the newest first.
const kora = await createMerchant(svc.system.store, svc.clock, 'Kora Foods', 'test', 'hello@kora.example');
svc.clock.advance(1_000);
const baobab = await svc.merchant('Baobab Tech');
svc.clock.advance(1_000);
const awa = await svc.merchant('Boutique Awa');
await approvedMerchant(svc, awa.api_keys.sandbox, awa.id);
await fund(svc, awa.id, 250_000, 'live');
const payment = await svc.request('POST', '/api/v1/payment-intents', { key: awa.api_keys.sandbox, body: { amount: 5000, currency: 'xof', transaction_country: 'SN' } });
if (payment.status !== 200) throw new Error(`a sandbox payment: ${payment.text}`);

const console_ = (path: string) => `${svc.baseUrl}/console${path}`;

/** The list's rows (their names), once they are `expected` or after a few seconds: the last seen. */
async function rowsOf(page: Page, expected: string[]): Promise<string[]> {
  const names = page.locator('table.merchants tbody th[scope="row"]');
  let seen: string[] = [];
  for (let tries = 0; tries < 50; tries++) {
    seen = (await names.allTextContents()).map((s) => s.trim());
    if (JSON.stringify(seen) === JSON.stringify(expected)) break;
    await page.waitForTimeout(100);
  }
  return seen;
}

async function search(page: Page, words: string, status = '') {
  await page.getByLabel('Name, e-mail or id').fill(words);
  await page.getByLabel('Application').selectOption(status);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
}

/** The merchant's limits and holds in live, as the merchant itself reads them. */
const liveLimits = async () => (await svc.request('GET', '/api/v1/limits', { key: awa.api_keys.live })).body;
const activation = async () => (await svc.request('GET', '/api/v1/merchant/activation', { key: awa.api_keys.sandbox })).body;

t.test('the list: every merchant, searched by name, e-mail and id, filtered by application status', async (t) => {
  const reviewer = await operator(t, 'reviewer');
  const { page } = reviewer;
  await page.goto(console_('/merchants'));
  t.same(await rowsOf(page, ['Boutique Awa', 'Baobab Tech', 'Kora Foods']), ['Boutique Awa', 'Baobab Tech', 'Kora Foods'], 'newest first');
  t.match(await page.locator('table.merchants tbody tr').first().textContent(), /Active.*Live/, "the approved merchant's application and live statuses");
  t.match(await page.locator('table.merchants tbody tr').last().textContent(), /hello@kora\.example.*Not submitted.*Not activated/, 'the e-mail, and an application never submitted');

  await search(page, 'KORA');
  t.same(await rowsOf(page, ['Kora Foods']), ['Kora Foods'], 'by words of the name, any case');
  await search(page, 'hello@kora');
  t.same(await rowsOf(page, ['Kora Foods']), ['Kora Foods'], 'by e-mail');
  await search(page, baobab.id);
  t.same(await rowsOf(page, ['Baobab Tech']), ['Baobab Tech'], 'by id');
  await search(page, '', 'active');
  t.same(await rowsOf(page, ['Boutique Awa']), ['Boutique Awa'], 'by application status');
  await search(page, '', 'not_submitted');
  t.same(await rowsOf(page, ['Baobab Tech', 'Kora Foods']), ['Baobab Tech', 'Kora Foods'], 'never applied');
  await search(page, 'kora', 'active');
  await page.getByText('No merchant matches this search.').waitFor();
  t.same(await rowsOf(page, []), [], 'both must hold: none, said in words');

  await page.reload();
  t.equal(await page.getByLabel('Name, e-mail or id').inputValue(), 'kora', 'the search is kept in the address');
  await page.getByRole('button', { name: 'Clear' }).click();
  t.same(await rowsOf(page, ['Boutique Awa', 'Baobab Tech', 'Kora Foods']), ['Boutique Awa', 'Baobab Tech', 'Kora Foods'], 'cleared');
  t.same([await page.getByLabel('Name, e-mail or id').inputValue(), await page.getByLabel('Application').inputValue()], ['', ''], 'the form emptied too');
  t.same(await accessibilityProblems(page), [], 'the list: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'the list: no horizontal scroll at 320 px');
  await screenshot(page, 'console-merchants');

  await page.getByRole('link', { name: 'Kora Foods' }).click();
  await page.getByRole('heading', { name: 'Kora Foods' }).waitFor();
  t.equal(new URL(page.url()).pathname, `/console/merchants/${kora.id}`, "a row leads to the merchant's page");
  t.same(scriptProblems(reviewer.problems), [], 'no CSP violation or script error');
});

t.test('a risk operator freezes payouts, sets a maximum and a reserve, suspends and reinstates', async (t) => {
  const risk = await operator(t, 'risk');
  const { page } = risk;
  await page.goto(console_(`/merchants/${awa.id}`));
  await page.getByRole('heading', { name: 'Boutique Awa' }).waitFor();
  const profile = page.locator('section[aria-labelledby="merchant-profile"]');
  t.equal(await profile.locator('.badge').first().textContent(), 'Live', 'the live status');
  t.match(await page.locator('section[aria-labelledby="merchant-balances"]').textContent(), /Live.*XOF.*250[\s\u202f\u00a0,.]?000/, 'the live balance');
  t.match(await page.locator('section[aria-labelledby="merchant-payments"]').textContent(), new RegExp(payment.body.id), 'the sandbox payment');
  t.ok(await page.getByRole('link', { name: 'Open the application' }).isVisible(), 'a link to its application');

  await page.getByLabel('Why payouts are frozen (the merchant reads it)').fill('Chargebacks under review');
  await page.getByRole('button', { name: 'Freeze payouts' }).click();
  await page.getByRole('button', { name: 'Lift the freeze' }).waitFor();
  t.match((await liveLimits()).payoutFreeze, { reason: 'Chargebacks under review' }, "the merchant's live payouts are frozen, with the reason");
  t.match(await page.locator('dl.limits').textContent(), /Frozen.*Chargebacks under review/);

  await page.getByRole('textbox', { name: 'Currency' }).fill('ABC');
  await page.getByLabel('Maximum per transaction').fill('5000');
  await page.getByRole('button', { name: 'Save the limits' }).click();
  t.match(await page.locator('[role="group"][aria-labelledby="control-amounts"] [role="alert"]').textContent(), /currency/i, 'an unknown currency is refused in words');
  t.same((await liveLimits()).transactionMaximums, {}, 'and nothing was set');
  await page.getByRole('textbox', { name: 'Currency' }).fill('XOF');
  await page.getByLabel('Maximum per transaction').fill('50000');
  await page.getByRole('button', { name: 'Save the limits' }).click();
  await page
    .locator('dl.limits')
    .getByText(/50[\s\u202f\u00a0,.]?000/)
    .waitFor();
  t.same((await liveLimits()).transactionMaximums, { xof: 50_000 }, 'a maximum per transaction in XOF');

  await page.getByLabel('Percentage held').fill('10');
  await page.getByLabel('Days held').fill('7');
  await page.getByRole('button', { name: 'Set the reserve' }).click();
  await page.getByRole('button', { name: 'Remove the reserve' }).waitFor();
  t.match((await liveLimits()).rollingReserve, { percent: 10, days: 7 }, 'a rolling reserve of 10 % for 7 days');

  await page.getByLabel('Why (the merchant reads it)').fill('Card acquirer reported fraud');
  await page.getByRole('button', { name: 'Suspend the merchant' }).click();
  await page.getByRole('button', { name: 'Reinstate the merchant' }).waitFor();
  t.match(await activation(), { status: 'suspended', decision: { decision: 'suspended', reason: 'Card acquirer reported fraud' } }, 'suspended, the merchant reads why');
  t.match(await page.locator('section[aria-labelledby="merchant-activation"]').textContent(), /Suspended/);
  t.match(await page.locator('section[aria-labelledby="merchant-audit"]').textContent(), /activation\.suspended.*operator:opr_/, 'in the audit trail with the operator');
  t.same(await accessibilityProblems(page), [], 'the page: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'the page: no horizontal scroll at 320 px');
  await screenshot(page, 'console-merchant');

  await page.getByRole('button', { name: 'Reinstate the merchant' }).click();
  await page.getByRole('button', { name: 'Suspend the merchant' }).waitFor();
  t.match(await activation(), { status: 'active' }, 'reinstated');
  await page.getByRole('button', { name: 'Lift the freeze' }).click();
  await page.getByRole('button', { name: 'Freeze payouts' }).waitFor();
  t.equal((await liveLimits()).payoutFreeze, null, 'the freeze lifted');
  t.same(scriptProblems(risk.problems), [], 'no CSP violation or script error');
});

t.test('a reviewer reads the limits and holds, with no control', async (t) => {
  const reviewer = await operator(t, 'reviewer');
  const { page } = reviewer;
  await page.goto(console_(`/merchants/${awa.id}`));
  await page.getByRole('heading', { name: 'Boutique Awa' }).waitFor();
  await page.locator('dl.limits').waitFor();
  t.match(await page.locator('dl.limits').textContent(), /10 % of each payment, held 7 days/, 'the reserve the risk operator set');
  t.ok(await page.getByText('Only the risk team and admins change limits and holds').isVisible(), 'says who may change them');
  for (const name of ['Freeze payouts', 'Save the limits', 'Set the reserve', 'Suspend the merchant']) t.equal(await page.getByRole('button', { name }).count(), 0, `no ${name}`);
  await page.getByRole('link', { name: 'Open the application' }).click();
  await page.waitForURL(`**/console/applications/${awa.id}`);
  t.pass("the application's page");
  t.same(scriptProblems(reviewer.problems), [], 'no CSP violation or script error');
});

t.test('an unknown merchant; the pages in French', async (t) => {
  const finance = await operator(t, 'finance');
  const { page } = finance;
  await page.goto(console_('/merchants/acct_000000000000000000000000'));
  t.match(await page.getByRole('alert').textContent(), /No merchant has this id/, 'not found, in words');
  await page.getByRole('link', { name: 'All merchants' }).click();
  await page.getByRole('heading', { name: 'Merchants' }).waitFor();

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Marchands' }).waitFor();
  t.same(await rowsOf(page, ['Boutique Awa', 'Baobab Tech', 'Kora Foods']), ['Boutique Awa', 'Baobab Tech', 'Kora Foods']);
  t.match(await page.locator('table.merchants tbody tr').last().textContent(), /Non soumise/, 'the statuses in French');
  t.same(await accessibilityProblems(page), [], 'the list in French: no serious or critical axe violation');
  await page.getByRole('link', { name: 'Boutique Awa' }).click();
  await page.getByRole('heading', { name: 'Limites et blocages' }).waitFor();
  await page.getByText('Seuls l’équipe risque et les admins modifient').waitFor();
  t.pass('finance reads the limits, in French, with no control');
  t.same(await accessibilityProblems(page), [], 'the page in French: no serious or critical axe violation');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  t.same(scriptProblems(finance.problems), [], 'no CSP violation or script error');
});
