/**
 * Issue 69's whole journey in Chromium, through the dashboard's and the console's pages only (the
 * test reads e-mails from the service's outbox and plays the payer and pawaPay): a new merchant
 * signs up and applies to go live; the first admin, made by `bin/sika operator users create` on the
 * server, joins from the link and invites a reviewer from the console's Team page; the reviewer asks
 * for information, the merchant corrects the field and submits again, the reviewer approves; the
 * merchant takes its first live payment, collected by pawaPay's stand-in; the console shows the
 * decisions in the merchant's audit trail.
 */
import t, { type Test } from '#tap';
import { closeAtEnd, openPage, startBrowser } from '../../support/browser.js';
import { startProcess } from '../../support/child-process.js';
import { invitationLink, joinFromInvitation, openSection } from '../../support/console.js';
import { navigate, scriptProblems, signUp, withHeader } from '../../support/dashboard.js';
import { startPawapayLive } from '../../support/live.js';
import { snNumber } from '../../support/payments.js';

const { svc, standin } = await startPawapayLive(t);
const browser = await startBrowser(t);
const origin = svc.publicUrl;
const EMAIL = 'awa@boutique-awa.example';
const PASSWORD = 'a long journey password';
const ID_PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** A page of its own, closed when `t` ends (the merchant's, the admin's and the customer's share a browser: their sessions are different cookies). */
async function pageOf(t: Test) {
  const opened = await openPage(browser);
  closeAtEnd(t, opened.page);
  await opened.page.route(`${origin}/favicon.ico`, (route) => route.fulfill({ status: 204 }));
  return opened;
}

t.test('from sign-up to a first live payment, reviewed in the console', async (t) => {
  // The merchant signs up, proving the address, and applies from the checklist's last step.
  const merchant = await pageOf(t);
  const page = merchant.page;
  await signUp(svc, page, origin, { email: EMAIL, name: 'Awa Diop', business: 'Boutique Awa', password: PASSWORD });
  await page.getByRole('link', { name: 'Do it: Activate live payments' }).click();
  const form = page.getByRole('form', { name: 'Go live' });
  await form.getByLabel('Legal name').fill('Awa Diop');
  await form.getByLabel('Country').first().selectOption('SN');
  await form.getByLabel('Registration number', { exact: true }).fill('SN-DKR-2024-A-1234');
  await form.getByLabel('Street and number').fill('BP 1234');
  await form.getByLabel('City').fill('Dakar');
  await form.getByLabel('What you sell').fill('Wax fabrics and tailoring');
  await form.getByLabel('Representative’s full name').fill('Awa Diop');
  await form.getByLabel('Date of birth').first().fill('1990-04-12');
  await form.getByLabel('Identity document').setInputFiles({ name: 'passport.pdf', mimeType: 'application/pdf', buffer: ID_PDF });
  await form.getByLabel('Mobile money number').fill('+221771234567');
  await form.getByLabel('Amount a month').fill('2500000');
  await form.getByRole('button', { name: 'Submit for review' }).click();
  const state = page.getByRole('region', { name: 'Going live' });
  await state.getByText('Under review', { exact: true }).waitFor();

  // The first admin, made on the server with the service's database.
  const cli = startProcess('bin/cli.js', { DATABASE_URL: svc.databaseUrl, LOG_LEVEL: 'silent', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') }, [
    'operator',
    'users',
    'create',
    '--email',
    'ada@ops.example',
    '--role',
    'admin',
    '--json',
  ]);
  t.equal(await cli.exit, 0, 'bin/sika operator users create');
  const made = JSON.parse(cli.output().trim().split('\n').pop()!) as { invitation_url: string };
  const admin = await pageOf(t);
  await joinFromInvitation(svc, admin.page, made.invitation_url, origin);
  t.pass('the CLI-made admin joined from the link, adding the authenticator app');

  // The admin invites a reviewer from the Team page; the reviewer joins from the e-mailed link.
  await openSection(admin.page, 'Team');
  const invite = admin.page.getByRole('form', { name: 'Invite an operator' });
  await invite.getByLabel('Name').fill('Rita Reviewer');
  await invite.getByLabel('E-mail address').fill('rita@ops.example');
  await invite.getByLabel('Role').selectOption('reviewer');
  await invite.getByRole('button', { name: 'Invite' }).click();
  await admin.page.getByRole('row', { name: /Rita Reviewer/ }).waitFor();
  // The reviewer's own browser: an operator session is one cookie per browser.
  const reviewer = await openPage(await startBrowser(t));
  closeAtEnd(t, reviewer.page);
  await joinFromInvitation(svc, reviewer.page, await invitationLink(svc, 'rita@ops.example'), origin);
  const review = reviewer.page;

  // The reviewer finds the application in the queue and asks for the address again.
  await review.getByRole('heading', { name: 'Review queue' }).waitFor();
  await review.locator('main tbody a').filter({ hasText: 'Awa Diop' }).click();
  await review.getByRole('heading', { name: 'Awa Diop', level: 1 }).waitFor();
  const merchantId = new URL(review.url()).pathname.split('/').pop()!;
  await review.getByRole('button', { name: 'Request information' }).click();
  await review.getByRole('checkbox', { name: 'Address' }).check();
  await review.getByLabel('Message about: Address').fill('Give the shop’s street address, not a post box');
  await review.getByRole('button', { name: 'Send the request' }).click();
  await review.getByText('Information requested: the merchant is told what to give again.').waitFor();

  // The merchant reads the request beside the field, corrects it and submits again.
  await page.reload();
  await page.getByRole('heading', { name: 'What Sika asks' }).waitFor();
  const asked = form.locator('.field.asked', { has: page.getByLabel('Street and number') });
  t.match(await asked.textContent(), /Give the shop’s street address, not a post box/, "the reviewer's message beside the field");
  await form.getByLabel('Street and number').fill('14 avenue Cheikh Anta Diop');
  await form.getByRole('button', { name: 'Submit again' }).click();
  await state.getByText('Under review', { exact: true }).waitFor();

  // The reviewer reads the new submission and approves.
  await review.reload();
  await review
    .locator('section[aria-labelledby="application-business"]')
    .getByText(/14 avenue Cheikh Anta Diop/)
    .waitFor();
  await review.getByRole('button', { name: 'Approve' }).click();
  await review.getByRole('button', { name: 'Yes, approve' }).click();
  await review.getByText('Approved: the merchant’s live environment is open.').waitFor();

  // Live is open: the merchant's first live payment link, paid by a customer, collected by pawaPay.
  await navigate(page, 'Home');
  await state.getByText('Live is open', { exact: true }).waitFor();
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await navigate(page, 'Payment links');
  const linkForm = page.getByRole('form', { name: 'New payment link' });
  await linkForm.getByLabel(/Amount/).fill('7500');
  await linkForm.getByLabel('What it is for').fill('Wax fabric, 3 yards');
  await linkForm.getByRole('button', { name: 'Create the link' }).click();
  const created = page.getByRole('status').filter({ hasText: 'Payment link created' });
  await created.waitFor();
  const url = (await created.getByRole('link').textContent())!;
  const customer = await pageOf(t);
  await customer.page.goto(`${origin}${new URL(url).pathname}`);
  await customer.page.getByLabel('Mobile money operator').selectOption('orange_money');
  await customer.page.getByLabel('Mobile money number').fill(snNumber('05'));
  await customer.page.getByRole('button', { name: /^Pay/ }).click();
  await customer.page.getByText(/Approve the payment on your phone/).waitFor();
  const deposit = standin.requests.filter((r) => r.method === 'POST' && r.path === '/v2/deposits').map((r) => JSON.parse(r.body) as { depositId: string; amount: string; currency: string });
  t.equal(deposit.length, 1, 'one live deposit asked of pawaPay');
  t.match(deposit[0], { amount: '7500', currency: 'XOF' });
  standin.settle('deposits', deposit[0]!.depositId, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', deposit[0]!.depositId), 200, "pawaPay's signed callback accepted");
  await svc.system.scheduler.runUntilIdle();
  await customer.page.getByText('Payment received. Thank you!').waitFor();
  t.pass("the customer's page says the payment was received");
  await navigate(page, 'Payments');
  await page.getByRole('region', { name: 'Payments' }).getByRole('row', { name: /7,500/ }).getByText('Succeeded').waitFor();
  t.pass("the merchant's first live payment succeeded");

  // The console's merchant page: the decisions in the audit trail, with their operator.
  await openSection(review, 'Merchants');
  await review.locator('main a').filter({ hasText: 'Boutique Awa' }).first().click();
  const audit = review.locator('section[aria-labelledby="merchant-audit"]');
  await audit.getByText('activation.approved').first().waitFor();
  const reviewerId = (await svc.system
    .knex('events')
    .where({ type: 'activation.approved', stream_id: `activation-${merchantId}` })
    .first<{ metadata: { actor: string } }>('metadata'))!.metadata.actor;
  t.match(reviewerId, /^operator:opr_/, 'the approval is the reviewer’s, as its actor');
  t.match(await audit.textContent(), new RegExp(`activation\\.approved.*${reviewerId}`), 'the approval in the audit trail, with its operator');
  t.match(await audit.textContent(), /activation\.information_requested/, 'the request for information too');
  t.same(standin.takeDeviations(), [], "every request followed pawaPay's contract");
  t.same(scriptProblems(reviewer.problems), [], 'the reviewer met no CSP violation or script error');
  t.same(scriptProblems(merchant.problems), [], 'the merchant met no CSP violation or script error');
});
