/**
 * The console's Risk rules page (docs/risk.md, "The platform's rules"), in Chromium: a risk
 * operator reads the starting values, turns a rule off and changes another, and the API then
 * answers what the page saved (with the operator as the change's actor); a reviewer reads them
 * without a form; French; axe-core, 320 px, no CSP violation or script error.
 */
import t from '#tap';
import { consoleSections, openSection, startConsole } from '../../support/console.js';
import { accessibilityProblems, overflowAt, screenshot, scriptProblems, withHeader } from '../../support/dashboard.js';

const { svc, operator } = await startConsole(t);

t.test('a risk operator changes the platform’s rules', async (t) => {
  const { page, problems } = await operator(t, 'risk');
  t.ok((await consoleSections(page)).includes('Risk rules'), 'the risk role has the section');
  await openSection(page, 'Risk rules');
  await page.getByRole('heading', { name: 'Risk rules', level: 1 }).waitFor();
  await page.getByText('Never changed: the starting values.').waitFor();
  const usual = page.locator('fieldset[data-rule="amountAboveUsual"]');
  t.equal(await usual.getByLabel('Times the median').inputValue(), '10', 'the starting value');
  t.ok(await page.locator('fieldset[data-rule="repeatedPayment"]').getByRole('checkbox', { name: 'On' }).isChecked());

  await page.locator('fieldset[data-rule="repeatedPayment"]').getByRole('checkbox', { name: 'On' }).uncheck();
  await usual.getByLabel('Times the median').fill('20');
  await usual.getByRole('combobox').selectOption('review');
  await page
    .locator('fieldset[data-rule="amountCeiling"]')
    .getByLabel(/Ceilings/)
    .fill('xof 3000000, ghs 5000000');
  await page.getByRole('button', { name: 'Save the platform’s rules' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  await page.getByText(/^Last changed/).waitFor();

  const answer = await svc.system.platformRiskRules.rules();
  t.equal(answer.rules.repeatedPayment, null, 'turned off');
  t.same(answer.rules.amountAboveUsual, { multiple: 20, minimumHistory: 20, action: 'review' });
  t.same(answer.rules.amountCeiling, { amounts: { xof: 3_000_000, ghs: 5_000_000 }, action: 'score' });
  t.same(answer.rules.payerPaymentsPerHour, { limit: 10, action: 'score' }, 'the others as they were');
  const events = await svc.system.store.readStream('risk_platform_rules-platform');
  t.match(events.at(-1)?.metadata.actor, /^operator:opr_/, 'recorded with the operator as its actor');

  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'console-risk-rules');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Règles de risque', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Enregistrer les règles de la plateforme' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'in French: no serious or critical axe violation');
  // The language is kept in the browser: back to English for the next operator's invitation.
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test('a reviewer reads the platform’s rules, without a form', async (t) => {
  const reviewer = await operator(t, 'reviewer');
  await openSection(reviewer.page, 'Risk rules');
  const amountAboveUsual = reviewer.page.getByRole('definition').filter({ hasText: /20 × the median/ });
  await amountAboveUsual.waitFor();
  t.match(await amountAboveUsual.textContent(), /above 20 × the median, after 20 successful · Hold payouts for review/, 'the rule in words');
  t.equal(await reviewer.page.getByRole('button', { name: 'Save the platform’s rules' }).count(), 0, 'no form for a reviewer');
  t.same(scriptProblems(reviewer.problems), [], 'no CSP violation or script error');
});
