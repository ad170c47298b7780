/**
 * The Risk rules page (docs/dashboard.md, docs/risk.md), in Chromium: Sika's rules (set by the
 * platform's risk team) shown as they apply; the merchant adds its own rule and the API answers it;
 * it blocks a payer's number and removes the entry again; another environment's rules are apart;
 * French; axe-core, 320 px, no CSP violation or script error.
 */
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';

const { svc, signedIn } = await startDashboard(t, { clockStart: Date.now() });

t.test("Sika's rules, the merchant's own, and its blocklist", async (t) => {
  await svc.system.platformRiskRules.setRules({ amountCeiling: { amounts: { xof: 5_000_000 }, action: 'block' } }, { actor: 'operator:opr_test' });
  const { merchant, page, problems } = await signedIn(t, 'Maison Ndiaye');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);

  await navigate(page, 'Risk rules');
  await page.getByRole('heading', { name: 'Risk rules', level: 1 }).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/risk-rules');
  const platform = page.getByRole('region', { name: 'Sika’s rules' });
  await platform.getByRole('definition').first().waitFor();
  t.match(await platform.textContent(), /Amount ceiling per currency\s*above xof 5000000 · Block/, "Sika's rule as the risk team set it");

  const own = page.locator('fieldset[data-rule="payerPaymentsPerHour"]');
  t.match(await own.textContent(), /Sika’s rule: 10 allowed · Only record/, "Sika's rule beside the merchant's own");
  t.notOk(await own.getByRole('checkbox', { name: 'My own rule' }).isChecked(), 'no rule of its own yet');
  await own.getByRole('checkbox', { name: 'My own rule' }).check();
  await own.getByLabel('Attempts allowed').fill('3');
  await own.getByRole('combobox').selectOption('block');
  await page.getByRole('button', { name: 'Save my rules' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  const rules = (await svc.request('GET', '/api/v1/risk/rules', { key })).body;
  t.same(rules.customized, ['payerPaymentsPerHour'], 'only the rule ticked is the merchant’s');
  t.same(rules.rules.payerPaymentsPerHour, { limit: 3, action: 'block' });

  const blocklist = page.getByRole('region', { name: 'Blocklist' });
  await blocklist.getByText('Nothing is blocked.').waitFor();
  await blocklist.getByLabel('Kind').selectOption('phone');
  await blocklist.getByLabel('Value').fill('+221 77 123 45 67');
  await blocklist.getByLabel('Note').fill('chargeback on order 42');
  await blocklist.getByRole('button', { name: 'Block', exact: true }).click();
  const row = blocklist.getByRole('row', { name: /221771234567/ });
  await row.waitFor();
  t.match(await row.textContent(), /Payer’s number221771234567chargeback on order 42/, 'the entry as compared, with its note');
  t.match((await svc.request('GET', '/api/v1/risk/blocklist', { key })).body.data, [{ kind: 'phone', value: '221771234567' }]);

  await blocklist.getByLabel('Value').fill('not a number');
  await blocklist.getByRole('button', { name: 'Block', exact: true }).click();
  await blocklist.getByRole('alert').waitFor();
  t.match(await blocklist.getByRole('alert').textContent(), /international number/, 'a refusal in the API’s words');

  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'risk-rules');

  await row.getByRole('button', { name: 'Remove 221771234567 from the blocklist' }).click();
  await blocklist.getByText('Nothing is blocked.').waitFor();
  t.same((await svc.request('GET', '/api/v1/risk/blocklist', { key })).body.data, [], 'removed');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Règles de risque', level: 1 }).waitFor();
  t.match(await page.getByRole('region', { name: 'Les règles de Sika' }).textContent(), /Plafond de montant par devise\s*au-dessus de xof 5000000 · Bloquer/, 'in French');
  await page.getByRole('button', { name: 'Enregistrer mes règles' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'in French: no serious or critical axe violation');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
