/**
 * The Invoices page's switch of reminders (docs/billing.md, "Reminders"; issue 65, item 1): turned
 * on with the merchant's days, it is the ready-made automation, enabled, in the browser's time
 * zone; turned off it is disabled and kept; on again, the same one. In English and French.
 */
import t from '#tap';
import { accessibilityProblems, navigate, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';

const { svc, signedIn } = await startDashboard(t);

t.test('reminders: on with the merchant’s days, off, on again: one automation', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Reminding shop');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const automations = async () => (await svc.request('GET', '/api/v1/automations', { key })).body.data as { id: string; status: string; trigger: { cron: string; timezone: string }; steps: { action: string; params: object }[] }[];
  await navigate(page, 'Invoices');
  const reminders = page.getByRole('region', { name: 'Reminders' });
  const form = reminders.getByRole('form', { name: 'Reminders' });
  await form.getByLabel('Days before the due date').fill('2');
  await form.getByLabel('Days after it').fill('5');
  t.same(await accessibilityProblems(page), [], 'the switch: no serious or critical axe violation');
  await form.getByRole('button', { name: 'Turn reminders on' }).click();
  await reminders
    .getByRole('status')
    .filter({ hasText: /^On: customers are reminded 2 days before an invoice is due and 5 days after, each morning at 9 \(.+\)\.$/ })
    .waitFor();
  const zone = await page.evaluate('Intl.DateTimeFormat().resolvedOptions().timeZone');
  const [made, ...others] = await automations();
  t.same(others, [], 'one automation');
  t.match(
    made,
    { status: 'enabled', trigger: { cron: '0 9 * * *', timezone: zone }, steps: [{ action: 'send_invoice_reminders', params: { daysBefore: 2, daysAfter: 5 } }] },
    'the ready-made automation with the days given, in the browser’s time zone',
  );

  await reminders.getByRole('button', { name: 'Turn reminders off' }).click();
  await reminders.getByRole('status').filter({ hasText: 'Off: customers are not reminded.' }).waitFor();
  t.match(await automations(), [{ id: made!.id, status: 'disabled' }], 'disabled, kept');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  const relances = page.getByRole('region', { name: 'Relances' });
  await relances.getByRole('button', { name: 'Activer les relances' }).click();
  await relances
    .getByRole('status')
    .filter({ hasText: /^Activées : les clients sont relancés 2 jours avant/ })
    .waitFor();
  t.match(await automations(), [{ id: made!.id, status: 'enabled' }], 'the same automation on again');
  t.equal((await automations()).length, 1, 'still one');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
