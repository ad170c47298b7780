/**
 * The dashboard's funding pages in Chromium: a campaign created as a draft, published (its public
 * page opens), contributions shown with the progress toward the target, an update posted and
 * deleted, a contribution refunded, the contributors exported as CSV, the campaign closed (its
 * funds released to the balance, which the home page shows) and paid out to a saved destination.
 */
import t from '#tap';
import { accessibilityProblems, homeBalance, navigate, overflowAt, screenshot, startDashboard, withHeader } from '../../support/dashboard.js';
import { contribute, settle } from '../../support/funding.js';
import { saveDestination } from '../../support/payouts.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';
import { downloaded } from '../../support/browser.js';

const { svc, signedIn } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('funding: create, publish, contributions and progress, an update, a refund, CSV, close and pay out', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Association Teranga');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  await navigate(page, 'Funding');
  await page.getByText('No campaign in this environment yet.').waitFor();

  const form = page.getByRole('form', { name: 'New campaign' });
  await form.getByLabel('Title').fill('School roof');
  await form.getByLabel(/Target/).fill('40000');
  await form.getByRole('button', { name: 'Create the campaign' }).click();
  await page.getByRole('heading', { name: 'School roof', level: 1 }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop()!;
  t.match((await svc.request('GET', `/api/v1/funding/campaigns/${id}`, { key })).body, { status: 'draft', targetAmountMinor: 40_000 }, 'a draft in the API');
  await page.getByText('Edit the campaign').click();
  const edit = page.getByRole('form', { name: 'Edit the campaign' });
  await edit.getByLabel('Title').fill('School roof and walls');
  await edit.getByLabel(/Target/).fill('50000');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { name: 'School roof and walls', level: 1 }).waitFor();
  t.match((await svc.request('GET', `/api/v1/funding/campaigns/${id}`, { key })).body, { title: 'School roof and walls', targetAmountMinor: 50_000 }, 'the draft edited');
  await edit.getByLabel('Title').fill('School roof');
  await edit.getByLabel(/Target/).fill('40000');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { name: 'School roof', level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Publish' }).click();
  const publicLink = page.getByRole('link', { name: /\/funding\// });
  await publicLink.waitFor();
  const publicPage = await fetch((await publicLink.getAttribute('href'))!);
  t.equal(publicPage.status, 200, 'its public page opens');

  for (const [amount, name] of [
    [10_000, 'Awa'],
    [6_000, 'Moussa'],
  ] as const) {
    t.equal((await contribute(svc, key, id, { amountMinor: amount, contributorName: name })).status, 200);
  }
  await settle(svc, OPERATOR_DELAY_MS);
  await page.reload();
  const facts = page.locator('dl.facts').first();
  await facts.filter({ hasText: '16,000' }).waitFor();
  t.match(await facts.textContent(), /Raised\D*16,000 of \D*40,000Contributors2/, 'raised of the target, and the contributors');
  t.equal(await page.getByRole('progressbar', { name: 'Progress toward the target' }).getAttribute('value'), '16000', 'the progress bar');
  t.match(await page.getByRole('img', { name: /Contributions per day/ }).getAttribute('aria-label'), /16,000/);
  const homeBefore = await homeBalance(page, 'xof');
  t.equal(homeBefore.held, 16_000, 'on the home page the contributions are held for the campaign');
  await page.goBack();
  const ledger = page.getByRole('region', { name: 'Ledger' });
  t.match(await ledger.locator('dl').textContent(), new RegExp(`Accountcampaign:${id}Balance\\D*16,000`), "the campaign's ledger account holds the contributions");
  t.equal(await ledger.getByRole('row').count(), 3, 'an entry per contribution');
  t.notOk(
    await page
      .getByRole('form', { name: 'Edit the campaign' })
      .getByLabel(/Target/)
      .count(),
    'the target no longer changes once active',
  );

  const update = page.getByRole('form', { name: 'Post the update' });
  await update.getByLabel('Update title').fill('Tiles bought');
  await update.getByLabel('What is new').fill('The first half of the tiles is here.');
  await update.getByRole('button', { name: 'Post the update' }).click();
  await page.getByRole('heading', { name: 'Tiles bought' }).waitFor();
  t.match(await (await fetch((await publicLink.getAttribute('href'))!)).text(), /Tiles bought/, 'on the public page too');
  await page.getByRole('button', { name: 'Delete: Tiles bought' }).click();
  await page.getByText('No update posted yet.').waitFor();

  await page.getByRole('button', { name: /^Refund: Moussa/ }).click();
  await page.getByRole('row', { name: /Moussa.*Refunded/ }).waitFor();
  t.match(await page.getByRole('row', { name: /Awa/ }).textContent(), /10,000Succeeded/, 'each contribution’s status in words');
  t.equal(await page.getByRole('region', { name: 'Contributions' }).first().locator('.badge').count(), 2, 'as badges');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('row', { name: /Moussa.*Remboursée/ }).waitFor();
  t.match(await page.getByRole('row', { name: /Awa/ }).textContent(), /Réussie/, 'and in French');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export contributors (CSV)' }).click()]);
  const csv = (await downloaded(download)).toString('utf8');
  t.match(csv, /Awa/, 'the contributors as CSV');
  t.match(csv, /Moussa/);

  t.same(await accessibilityProblems(page), [], 'a campaign: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'funding-campaign');

  await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' });
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Close and release the funds' }).click();
  await page.getByRole('form', { name: 'Pay out what remains' }).waitFor();
  t.match((await svc.request('GET', `/api/v1/funding/campaigns/${id}`, { key })).body, { status: 'closed', releasedAmountMinor: 10_000 }, 'closed, the remaining 10,000 released');
  await page.getByRole('button', { name: 'Pay out' }).click();
  await page.getByRole('region', { name: 'Payouts of the released funds' }).getByRole('row').nth(1).waitFor();
  const paidOut = (await svc.request('GET', `/api/v1/funding/campaigns/${id}/payouts`, { key })).body.data;
  t.equal(paidOut.length, 1, 'one payout of the released funds');
  t.match(await page.getByRole('region', { name: 'Payouts of the released funds' }).getByRole('row').nth(1).locator('.badge').textContent(), /^(Requested|Sent)$/, 'its status in words, as a badge');
  const homeAfter = await homeBalance(page, 'xof');
  t.equal(homeAfter.held, 0, 'on the home page nothing is held any more: refunded or released');
  await page.goBack();

  await page.getByRole('link', { name: 'All campaigns' }).click();
  t.match(await page.getByRole('row', { name: /School roof/ }).textContent(), /Closed/);
  await screenshot(page, 'funding');
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No campaign in this environment yet.').waitFor();
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test("funding: another merchant's campaign is not found", async (t) => {
  const other = await svc.sandboxMerchant('Other association');
  const theirs = (await svc.request('POST', '/api/v1/funding/campaigns', { key: other.key, body: { title: 'Theirs', currency: 'XOF', country: 'SN' } })).body;
  const { page } = await signedIn(t, 'Curious association');
  await page.goto(`${svc.baseUrl}/dashboard/funding/${theirs.id}`);
  await page.getByRole('alert').filter({ hasText: 'No such campaign in this environment.' }).waitFor();
  t.pass('not found, as the API says');
});
