/**
 * The dashboard's templates page in Chromium: a template created (held by the API), listed and
 * filtered by kind; a blank name refused; the other environment's empty list; axe-core and 320 px.
 */
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';

const { svc, signedIn } = await startDashboard(t);

t.test('templates: create, list by kind, live empty', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Mango stall');
  const refused = refusals(page);
  await navigate(page, 'Templates');
  await page.getByText('No template in this environment yet.').waitFor();

  const form = page.getByRole('form', { name: 'New template' });
  await form.getByLabel('Name').fill('   ');
  await form.getByRole('button', { name: 'Create the template' }).click();
  t.match(await form.getByRole('alert').textContent(), /name/i, "a blank name: the API's refusal, by the form");
  t.match(refused, ['400 POST /api/template-engine/templates'], 'refused once');
  refused.length = 0;

  await form.getByLabel('Name').fill('Order shipped');
  await form.getByLabel('Kind').selectOption('sms');
  await form.getByRole('button', { name: 'Create the template' }).click();
  await page.getByRole('status').filter({ hasText: 'Template created: Order shipped' }).waitFor();
  const row = page.getByRole('row', { name: /Order shipped/ });
  await row.waitFor();
  t.match(await row.textContent(), /Order shipped.*SMS.*1.*none/);

  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const listed = (await svc.request('GET', '/api/template-engine/templates', { key })).body.data;
  t.match(listed, [{ name: 'Order shipped', kind: 'sms', latestVersion: 1, publishedVersion: null }], 'the API holds it');

  await page.getByLabel('Show').selectOption('email');
  await page.getByText('No template in this environment yet.').waitFor();
  await page.getByLabel('Show').selectOption('sms');
  await row.waitFor();
  t.same(await accessibilityProblems(page), [], 'templates: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'templates');

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No template in this environment yet.').waitFor();
  t.pass('live has its own templates');
  t.same(refused, [], 'no request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error (the refused name is asserted above)');
});
