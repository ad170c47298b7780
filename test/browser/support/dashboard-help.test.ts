/**
 * The dashboard's help page (apps/dashboard/src/families/support/Help.tsx) in a real browser: a member writes
 * to support; the ticket's reference is shown, it is recorded with the page it came from and the
 * related object, e-mailed to the support address (read from a test SMTP server) with Reply-To the
 * address given; a double click records one ticket; a refusal is shown in the API's words; axe-core,
 * 320 px, no console problems.
 */
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard } from '../../support/dashboard.js';
import { startSmtp } from '../../support/webhooks.js';

const smtp = await startSmtp(t);
const { svc, signedIn } = await startDashboard(t, { env: { SMTP_URL: smtp.url, SUPPORT_EMAIL: 'help@sika.example' } });

t.test('a member writes to support and gets a reference; one ticket per message, e-mailed with the context', async (t) => {
  const { merchant, email, page, problems } = await signedIn(t, 'Boutique Help');
  const refused = refusals(page);
  await navigate(page, 'Help');
  const form = page.getByRole('form', { name: 'Help' });
  await form.getByLabel('Your name').waitFor();
  t.equal(await form.getByLabel('Where to answer').inputValue(), email, 'the answer goes to the user by default');
  await form.getByLabel('About').selectOption({ label: 'Payouts' });
  await form.getByLabel('Subject').fill('Payout not received');
  await form.getByLabel('Message').fill('Our payout of yesterday has not arrived.');
  await form.getByLabel(/Payment, payout or other id/).fill('po_123');
  await form.getByRole('button', { name: 'Send to support' }).dblclick();
  const sent = page.getByRole('status').filter({ hasText: /Your reference is/ });
  await sent.waitFor();
  const id = /reference is (\S+) ;?/.exec((await sent.textContent())!)![1]!.replace(/;$/, '');
  const tickets = await svc.system.knex('events').where('stream_id', 'like', 'support_ticket-%').where('type', 'support_ticket.submitted').count<{ count: string }[]>('* as count');
  t.equal(Number(tickets[0]!.count), 1, 'a double click records one ticket');
  const [submitted] = await svc.system.store.readStream(`support_ticket-${id}`);
  t.match(submitted!.data, { merchantId: merchant.id, category: 'payouts', context: { page: '/dashboard/help', relatedObject: 'po_123' } }, 'recorded with the page and the object');
  await svc.system.drain();
  const mail = smtp.mails.find((m) => m.raw.replace(/=\r?\n/g, '').includes(id));
  t.same(mail?.to, ['help@sika.example'], 'e-mailed to support');
  t.match(mail?.raw, new RegExp(`Reply-To: ${email.replace(/\./g, '\\.')}`, 'i'));
  t.equal(await form.getByLabel('Subject').inputValue(), '', 'the form is ready for another message');

  await form.getByLabel('Where to answer').fill('not-an-address@');
  await form.getByLabel('Subject').fill('x');
  await form.getByLabel('Message').fill('y');
  await form.getByRole('button', { name: 'Send to support' }).click();
  t.ok(await form.getByLabel('Where to answer').evaluate((i) => !(i as unknown as { validity: { valid: boolean } }).validity.valid), 'a malformed address is not sent');

  await screenshot(page, 'help');
  t.same(await overflowAt(page), [], 'nothing overflows at 320 px');
  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, [], 'no refused request');
});
