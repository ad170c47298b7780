/**
 * Going live in the dashboard (docs/dashboard.md, "Going live"), in Chromium: a new merchant
 * applies from the checklist's last step, sees its application under review; the platform asks
 * for information (its use case, as the operator console will call it) and the form shows the
 * field asked with the platform's message; the merchant submits again, is approved and Home says
 * live is open. A company gives its owners; a rejection and a suspension are said in words; live
 * refusing a payment link before activation points to the Go live page.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { ID_PDF, REVIEWER } from '../../support/activation.js';
import { accessibilityProblems, navigate, overflowAt, screenshot, startDashboard, withHeader } from '../../support/dashboard.js';

const { svc, signedIn } = await startDashboard(t);
const applications = svc.system.activationApplications;

/** The Go live form's part every business fills, as a Senegalese sole trader would. */
async function fillCommon(page: Page, name: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Go live' });
  await form.getByLabel('Legal name').fill(name);
  await form.getByLabel('Country').first().selectOption('SN');
  await form.getByLabel('Street and number').fill('12 rue Carnot');
  await form.getByLabel('City').fill('Dakar');
  await form.getByLabel('What you sell').fill('Wax fabrics and tailoring');
  await form.getByLabel('Representative’s full name').fill(name);
  await form.getByLabel('Date of birth').first().fill('1990-04-12');
  await form.getByLabel('Identity document').setInputFiles({ name: 'passport.pdf', mimeType: 'application/pdf', buffer: ID_PDF });
  await form.getByLabel('Mobile money number').fill('+221771234567');
  await form.getByLabel('Amount a month').fill('2500000');
}

const goLiveForm = (page: Page) => page.getByRole('form', { name: 'Go live' });
const state = (page: Page) => page.getByRole('region', { name: 'Going live' });

t.test('a sole trader applies, is asked for information, submits again, is approved, then suspended', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Awa');
  t.match(await state(page).textContent(), /Not applied yet/, 'Home says there is no application yet');
  await page.getByRole('link', { name: 'Do it: Activate live payments' }).click();
  await page.getByRole('heading', { name: 'Go live', level: 1 }).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/go-live', "the checklist's last step opens the Go live page, not Configuration");

  await fillCommon(page, 'Awa Diop');
  const form = goLiveForm(page);
  t.equal(await form.getByRole('group', { name: 'Owners of 25 % or more' }).count(), 0, 'an individual names no owners');
  // What the country and type require, asked of the API as they change: Senegal registers sole traders, Ghana does not; a Nigerian company gives its website.
  const registrationNumber = form.getByLabel('Registration number', { exact: true });
  await registrationNumber.waitFor();
  t.equal(await registrationNumber.evaluate((e) => (e as unknown as { required: boolean }).required), true, 'a Senegalese sole trader must give a registration number, before any submission');
  await form.getByLabel('Country').first().selectOption('GH');
  await form.getByLabel('Registration number (optional)', { exact: true }).waitFor();
  t.equal(await form.getByLabel('Registration number (optional)').evaluate((e) => (e as unknown as { required: boolean }).required), false, 'a Ghanaian one need not');
  await form.getByLabel('Country').first().selectOption('NG');
  await form.getByLabel('A registered company').check();
  await form.getByLabel('Website', { exact: true }).waitFor();
  t.equal(await form.getByLabel('Website', { exact: true }).evaluate((e) => (e as unknown as { required: boolean }).required), true, 'a Nigerian company must give its website');
  await form.getByLabel('An individual').check();
  await form.getByLabel('Country').first().selectOption('SN');
  await registrationNumber.waitFor();
  await form.getByLabel('Mobile money number').fill('+221771234567');
  // Sent without the number (the browser's own check off, as a page sent before the requirements answered): the API names every missing field in `errors`, which the form marks.
  await registrationNumber.evaluate((e) => ((e as unknown as { required: boolean }).required = false));
  await form.getByRole('button', { name: 'Submit for review' }).click();
  const registration = form.locator('.field.asked', { has: page.getByLabel('Registration number', { exact: true }) });
  await registration.waitFor();
  t.match(await registration.textContent(), /Your business must give this/, 'a field the country requires is marked when the API says it is missing');
  t.match(await page.getByRole('alert').textContent(), /Some fields your business must give are missing/);
  // A refusal with a field is said beside the field.
  await form.getByLabel('Date of birth').first().fill('2015-01-01');
  await registrationNumber.fill('SN-DKR-2024-A-1234');
  await form.getByRole('button', { name: 'Submit for review' }).click();
  const dob = form.locator('.field.asked', { has: page.getByLabel('Date of birth') });
  await dob.waitFor();
  t.match(await dob.textContent(), /18 or older/, "the API's refusal is beside the date of birth");
  t.equal(await form.getByLabel('Date of birth').first().getAttribute('aria-invalid'), 'true', 'which is marked invalid');
  await form.getByLabel('Date of birth').first().fill('1990-04-12');
  await form.getByRole('button', { name: 'Submit for review' }).click();
  await state(page).getByText('Under review', { exact: true }).waitFor();
  t.equal(await goLiveForm(page).count(), 0, 'under review: no form, the status in words');
  t.match(await state(page).textContent(), /Sika is reviewing your application/);

  await applications.requestInformation(merchant.id, [{ field: 'business.address', message: 'Give the shop’s street address, not a post box' }], REVIEWER);
  await page.reload();
  await page.getByRole('heading', { name: 'What Sika asks' }).waitFor();
  t.match(await state(page).textContent(), /Information requested/);
  const address = goLiveForm(page).locator('.field.asked', { has: page.getByLabel('Street and number') });
  t.match(await address.textContent(), /Give the shop’s street address, not a post box/, 'the field asked is marked with the message beside it');
  t.equal(await goLiveForm(page).getByLabel('Street and number').inputValue(), '12 rue Carnot', 'the form holds what was submitted');
  t.equal(await goLiveForm(page).locator('.field.asked').count(), 1, 'only the field asked is marked');
  t.same(await accessibilityProblems(page), [], 'the form with a request: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'go-live-information-requested');

  await goLiveForm(page).getByLabel('Street and number').fill('14 avenue Cheikh Anta Diop');
  await goLiveForm(page).getByRole('button', { name: 'Submit again' }).click();
  await state(page).getByText('Under review', { exact: true }).waitFor();
  t.equal((await applications.application(merchant.id)).object.details?.business.address.line1, '14 avenue Cheikh Anta Diop', 'the correction was submitted, with the document on file');

  await applications.approve(merchant.id, REVIEWER);
  await navigate(page, 'Home');
  await state(page).getByText('Live is open', { exact: true }).waitFor();
  t.match(await state(page).textContent(), /Your live payments and payouts move real money/, 'Home says live is open');

  await applications.suspend(merchant.id, 'Chargebacks above the agreed rate', REVIEWER);
  await page.reload();
  await state(page).getByText('Suspended', { exact: true }).waitFor();
  t.match(await state(page).textContent(), /Reason given: Chargebacks above the agreed rate/, 'a suspension is said with its reason');
  await state(page).getByRole('link', { name: 'See why' }).click();
  t.match(await state(page).textContent(), /new live payments and payouts are refused/, 'the Go live page says it too');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Passer en production', level: 1 }).waitFor();
  t.match(await page.getByRole('region', { name: 'Passage en production' }).textContent(), /Suspendu.*Motif donné : Chargebacks/s, 'in French');
  t.same(
    problems.filter((p) => !p.startsWith('Failed to load resource')),
    [],
    'no CSP violation or script error',
  );
});

t.test('a company names its owners; live refuses a payment link with the way to go live; a rejection in words', async (t) => {
  const { merchant, page } = await signedIn(t, 'Dakar Textiles SA');
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  const banner = page.locator('.banner.live-closed');
  t.match(await banner.textContent(), /Live payments open once Sika approves your application/, "live's banner says what opens it");
  t.notMatch(await banner.textContent(), /operator|IKW-|POST/, 'in no operator-facing or API words');
  await navigate(page, 'Payment links');
  const linkForm = page.getByRole('form', { name: /new payment link/i });
  await linkForm.getByLabel(/^Amount/).fill('5000');
  await linkForm.getByRole('button', { name: 'Create the link' }).click();
  const refusal = page.getByRole('alert');
  await refusal.getByText(/Live payments are not open for your account yet/).waitFor();
  t.notMatch(await refusal.textContent(), /operator|POST|IKW-/, 'no operator-facing words, no API words');
  await refusal.getByRole('link', { name: 'Apply to go live' }).click();
  await page.getByRole('heading', { name: 'Go live', level: 1 }).waitFor();

  await fillCommon(page, 'Dakar Textiles SA');
  const form = goLiveForm(page);
  await form.getByLabel('A registered company').check();
  await form.getByLabel('Registration number').fill('SN-DKR-2019-B-777');
  const owners = form.getByRole('group', { name: 'Owners of 25 % or more' });
  await owners.waitFor();
  await owners.getByRole('group', { name: 'Owner 1' }).getByLabel('Full name').fill('Moussa Ndiaye');
  await owners.getByRole('group', { name: 'Owner 1' }).getByLabel('Share held (%)').fill('60');
  await owners.getByRole('button', { name: 'Add an owner' }).click();
  await owners.getByRole('group', { name: 'Owner 2' }).getByLabel('Full name').fill('Fatou Sow');
  await owners.getByRole('group', { name: 'Owner 2' }).getByLabel('Share held (%)').fill('40');
  t.equal(await form.getByLabel('Legal name').inputValue(), 'Dakar Textiles SA', 'choosing the type keeps what was typed');
  t.same(await accessibilityProblems(page), [], 'the company form: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px with owners');
  await screenshot(page, 'go-live');
  await form.getByRole('button', { name: 'Submit for review' }).click();
  await state(page).getByText('Under review', { exact: true }).waitFor();
  const submitted = (await applications.application(merchant.id)).object.details;
  t.same(
    submitted?.owners.map((o) => [o.name, o.ownership_percent]),
    [
      ['Moussa Ndiaye', 60],
      ['Fatou Sow', 40],
    ],
    'the owners were submitted',
  );
  t.equal(submitted?.business.type, 'company');

  await applications.reject(merchant.id, 'The business sells goods Sika cannot accept', REVIEWER);
  await page.reload();
  await state(page).getByText('Not approved', { exact: true }).waitFor();
  t.match(await state(page).textContent(), /Reason given: The business sells goods Sika cannot accept/, 'a rejection is said with its reason');
  t.equal(await goLiveForm(page).count(), 0, 'a rejection is final: no form');
});
