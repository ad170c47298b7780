/**
 * The dashboard's disputes in Chromium (docs/disputes.md): live card payments collected through
 * Paystack's stand-in, disputes it opens told by its signed webhook and read back; the list by
 * status, a dispute's page answered with evidence (a ready file among them) and then under
 * review, another accepted once confirmed and closed, and the French words.
 */
import t, { type Test } from '#tap';
import { uploadDocument } from '../../support/activation.js';
import { accessibilityProblems, overflowAt, screenshot, scriptProblems, signInWithPassword, startDashboard, withHeader } from '../../support/dashboard.js';
import { openDispute, paidCard } from '../../support/disputes.js';
import { PAYSTACK_LIVE_KEY } from '../../support/live.js';
import { PaystackStandin } from '../../support/paystack-standin.js';
import { activateLive, freePort } from '../../support/system.js';

const port = await freePort();
const standin = await PaystackStandin.start({ secretKey: PAYSTACK_LIVE_KEY, webhookUrl: `http://127.0.0.1:${port}/connectors/paystack/events` });
t.teardown(() => standin.close());
// The manual clock starts at the real time: the page compares the due date with the browser's.
const { svc, owner } = await startDashboard(t, { clockStart: Date.now(), publicOrigin: port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, PAYSTACK_SECRET_KEY: PAYSTACK_LIVE_KEY, PAYSTACK_API_URL: standin.url } });

/** A live merchant with two disputed card payments (NGN 5,000 and 2,000), signed in on live's Disputes page. */
async function disputed(t: Test, name: string) {
  const opened = await owner(t, name);
  await activateLive(svc, opened.merchant.id);
  const key = opened.merchant.api_keys.live;
  const first = await paidCard(svc, standin, opened.merchant.id, key, 500_000);
  const firstDispute = await openDispute(svc, standin, first.reference);
  const second = await paidCard(svc, standin, opened.merchant.id, key, 200_000);
  await openDispute(svc, standin, second.reference, { category: 'chargeback' });
  const ids = async () => {
    const res = await svc.request('GET', '/api/v1/disputes', { key });
    return new Map((res.body.data as { id: string; payment_intent: string }[]).map((d) => [d.payment_intent, d.id]));
  };
  const byPayment = await ids();
  await opened.page.goto(`${svc.publicUrl}/dashboard/live/disputes`);
  await signInWithPassword(opened.page, opened.email);
  await opened.page.getByRole('heading', { name: 'Disputes', level: 1 }).waitFor();
  return { ...opened, key, first: { ...first, dispute: firstDispute, id: byPayment.get(first.paymentId)! }, second: { ...second, id: byPayment.get(second.paymentId)! } };
}

t.test('disputes: the list, evidence sent and under review, another accepted', async (t) => {
  const { page, problems, key, first, second } = await disputed(t, 'Lagos Cups');
  const file = await uploadDocument(svc, key, { purpose: 'invoice_attachment' });

  await page.getByRole('heading', { name: 'Disputes', level: 1 }).waitFor();
  const list = page.getByRole('region', { name: 'Disputes' });
  const rows = list.getByRole('row');
  await rows.nth(2).waitFor();
  t.equal(await rows.count(), 3, 'two disputes and the header');
  t.match(await rows.nth(1).textContent(), /^ChargebackNGN\s2,000\.00Needs your answer/, 'newest first: the chargeback');
  t.match(await rows.nth(2).textContent(), /^FraudNGN\s5,000\.00Needs your answer/);
  t.ok(await list.getByRole('link', { name: first.paymentId }).isVisible(), 'its payment linked');
  t.same(await accessibilityProblems(page), [], 'the list: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'disputes');

  await list.getByRole('link', { name: 'Fraud' }).click();
  await page.getByRole('heading', { level: 1, name: /^Fraud · / }).waitFor();
  t.equal(new URL(page.url()).pathname, `/dashboard/live/disputes/${first.id}`);
  const facts = page.getByRole('region', { name: 'The dispute', exact: true });
  t.match(await facts.textContent(), /StatusNeeds your answer.*ReasonFraud.*AmountNGN\s5,000\.00/);
  t.match(await page.getByRole('region', { name: 'Evidence sent' }).textContent(), /No evidence sent yet/);
  const answer = page.getByRole('form', { name: 'Submit evidence' });
  await answer.getByLabel('Customer’s e-mail address').fill('ada@example.com');
  await answer.getByLabel('Customer’s name').fill('Ada Obi');
  await answer.getByLabel('Customer’s phone number').fill('08012345678');
  await answer.getByLabel(/^What was sold or delivered/).fill('Two cups, delivered to Lekki');
  await answer.getByLabel('Delivery date (optional)').fill('2026-11-20');
  await answer.getByLabel('passport.pdf').check();
  t.same(await accessibilityProblems(page), [], 'the dispute with its form: no serious or critical axe violation');
  await screenshot(page, 'dispute');
  await answer.getByRole('button', { name: 'Submit the evidence' }).click();
  await page.getByText('The evidence was sent: the dispute is under review.').waitFor();
  await facts.getByText('Under review').waitFor();
  t.equal(await page.getByRole('form', { name: 'Submit evidence' }).count(), 0, 'no form once sent');
  const sent = await page.getByRole('region', { name: 'Evidence sent' }).textContent();
  t.match(sent, /ada@example\.com.*Ada Obi.*08012345678.*Two cups, delivered to Lekki/, 'the evidence as sent');
  t.match(sent, new RegExp(file), 'with its file');
  const read = await svc.request('GET', `/api/v1/disputes/${first.id}`, { key });
  t.match(read.body, { status: 'under_review', evidence: { customer_name: 'Ada Obi', delivery_date: '2026-11-20', files: [file] } }, 'the API says so too');
  t.equal(standin.disputeRequests.filter((r) => r.method === 'POST' && /\/evidence$/.test(r.path)).length, 1, 'sent to Paystack once');
  t.same(standin.deviations, [], "its file uploaded and named as Paystack's contract says");

  await page.getByRole('link', { name: 'All disputes' }).click();
  await list.getByRole('link', { name: 'Chargeback' }).click();
  await page.getByRole('heading', { level: 1, name: /^Chargeback · / }).waitFor();
  let confirmation = '';
  page.once('dialog', (dialog) => {
    confirmation = dialog.message();
    void dialog.dismiss();
  });
  await page.getByRole('button', { name: 'Accept the dispute' }).click();
  t.match(confirmation, /The payer keeps NGN\s2,000\.00/, 'asked first, with the amount');
  t.equal((await svc.request('GET', `/api/v1/disputes/${second.id}`, { key })).body.status, 'needs_response', 'dismissed: nothing sent');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Accept the dispute' }).click();
  await page.getByText('The dispute was accepted and is closed.').waitFor();
  await page.getByRole('region', { name: 'The dispute', exact: true }).getByText('Accepted').waitFor();
  t.equal(await page.getByRole('button', { name: 'Accept the dispute' }).count(), 0, 'nothing more to do on a closed dispute');
  t.equal((await svc.request('GET', `/api/v1/disputes/${second.id}`, { key })).body.status, 'accepted');

  await page.getByRole('link', { name: 'All disputes' }).click();
  await page.getByLabel('Status').selectOption({ label: 'Accepted' });
  await list.getByRole('row').nth(1).getByText('Accepted').waitFor();
  t.equal(await list.getByRole('row').count(), 2, 'by status: the accepted one alone');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('a refusal in the API’s words; the French words', async (t) => {
  const { page, problems, first } = await disputed(t, 'Abuja Plates');
  await page.getByRole('region', { name: 'Disputes' }).getByRole('link', { name: 'Fraud' }).click();
  await page.getByRole('heading', { level: 1, name: /^Fraud · / }).waitFor();
  // Paystack resolved it meanwhile and has not told Sika yet: it refuses the answer, and the API's refusal (IKW-DSP-005) is said by the page.
  standin.resolveDispute(first.dispute, 'declined');
  const answer = page.getByRole('form', { name: 'Submit evidence' });
  await answer.getByLabel('Customer’s e-mail address').fill('ada@example.com');
  await answer.getByLabel('Customer’s name').fill('Ada Obi');
  await answer.getByLabel('Customer’s phone number').fill('08012345678');
  await answer.getByLabel(/^What was sold or delivered/).fill('Two plates');
  await answer.getByRole('button', { name: 'Submit the evidence' }).click();
  await page.getByRole('alert').filter({ hasText: 'The evidence was not taken' }).waitFor();
  t.pass('the API’s words');
  t.same(scriptProblems(problems), [], 'no script error (the refusal is its one failed load)');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Le litige', exact: true }).waitFor();
  t.ok(await page.getByRole('form', { name: 'Envoyer des preuves' }).isVisible(), 'the form in French');
  t.ok(await page.getByText('Attend votre réponse').first().isVisible(), 'the status in French');
  await page.getByRole('link', { name: 'Tous les litiges' }).click();
  await page.getByRole('heading', { name: 'Litiges', level: 1 }).waitFor();
  t.ok(await page.getByRole('navigation', { name: 'Principal', includeHidden: true }).getByRole('link', { name: 'Litiges', includeHidden: true }).count(), 'the navigation’s entry in French');
  t.same(await accessibilityProblems(page), [], 'in French: no serious or critical axe violation');
});
