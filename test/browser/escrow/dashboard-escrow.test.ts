/**
 * The dashboard's escrow pages in Chromium: a contract funded from the balance, a beneficiary and
 * a milestone added, the milestone delivered and its release executed (the money reaches the
 * balance again), a dispute opened (releases frozen) and resolved with a refund to the payer, each
 * held by the API; another merchant's contract is not found.
 */
import t from '#tap';
import { accessibilityProblems, homeBalance, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { balance, fund } from '../../support/payouts.js';

const { svc, signedIn } = await startDashboard(t);

t.test('escrow: fund from the balance, a milestone delivered and released, a dispute resolved by a refund', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Chantier Fall');
  const refused = refusals(page);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  await fund(svc, merchant.id, 100_000);
  await navigate(page, 'Escrow');
  await page.getByText('No escrow contract in this environment yet.').waitFor();

  const form = page.getByRole('form', { name: 'New contract' });
  await form.getByLabel('Amount').fill('30000');
  await form.getByRole('button', { name: 'Create the contract' }).click();
  await page.getByRole('heading', { name: /^Contract/, level: 1 }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const facts = page.locator('dl.facts');
  t.match(await facts.textContent(), /StatusFunded.*Held\D*30,000/, 'funded at once from the balance');
  t.equal((await balance(svc, key)).available, 70_000, 'the balance gave the 30,000');
  t.match(await homeBalance(page, 'xof'), { available: 70_000 }, 'the home page shows the 30,000 gone from the balance into the contract');
  await page.goBack();
  await page.getByRole('heading', { name: /^Contract/, level: 1 }).waitFor();

  const participant = page.getByRole('form', { name: 'Add the participant' });
  await participant.getByLabel('Name').fill('Moussa Fall');
  await participant.getByRole('button', { name: 'Add the participant' }).click();
  await page.getByText('Beneficiary: Moussa Fall').waitFor();

  const milestone = page.getByRole('form', { name: 'Add the milestone' });
  await milestone.getByLabel('Milestone').fill('Foundations');
  await milestone.getByLabel(/Amount/).fill('10000');
  await milestone.getByRole('button', { name: 'Add the milestone' }).click();
  await page.getByRole('button', { name: 'Mark delivered: Foundations' }).click();
  await page.getByRole('row', { name: /Foundations.*Delivered/ }).waitFor();

  const release = page.getByRole('form', { name: 'Release funds' });
  await release.getByLabel('For milestone').selectOption({ label: 'Foundations' });
  await release.getByRole('button', { name: 'Release' }).click();
  await page.getByRole('button', { name: /^Execute: / }).click();
  await page.getByRole('row', { name: /Executed/ }).waitFor();
  t.equal(
    await page
      .getByRole('row', { name: /Executed/ })
      .locator('.badge')
      .textContent(),
    'Executed',
    'the release executed, said in words as a badge',
  );
  await facts.filter({ hasText: /Held\D*20,000/ }).waitFor();
  t.match(await facts.textContent(), /Released\D*10,000/, 'the milestone released');
  t.equal((await balance(svc, key)).available, 80_000, 'its 10,000 back on the balance');
  t.match(await homeBalance(page, 'xof'), { available: 80_000 }, 'and on the home page');
  await page.goBack();
  await page.getByRole('heading', { name: /^Contract/, level: 1 }).waitFor();

  const dispute = page.getByRole('form', { name: 'Open a dispute' });
  await dispute.getByLabel('Reason').fill('The walls are not straight');
  await dispute.getByRole('button', { name: 'Open a dispute' }).click();
  await facts.filter({ hasText: 'Disputed' }).waitFor();
  await release.getByLabel(/Amount/).fill('1000');
  await release.getByRole('button', { name: 'Release' }).click();
  t.match(await page.getByRole('alert').textContent(), /dispute/i, 'no release while the dispute is open');

  t.same(await accessibilityProblems(page), [], 'a contract: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'escrow-contract');

  const disputes = page.getByRole('region', { name: 'Disputes' });
  t.match(await disputes.getByRole('listitem').first().textContent(), /^The walls are not straight Open/, 'the dispute, its status in words');
  const resolve = page.getByRole('form', { name: 'Resolve: The walls are not straight' });
  await resolve.getByLabel('Outcome').selectOption('refund_to_payer');
  await resolve.getByRole('button', { name: 'Resolve' }).click();
  await facts.filter({ hasText: /Refunded\D*20,000/ }).waitFor();
  await disputes.locator('.badge', { hasText: 'Resolved' }).waitFor();
  t.match((await svc.request('GET', `/api/v1/escrow/contracts/${id}`, { key })).body, { heldMinor: 0, releasedMinor: 10_000, refundedMinor: 20_000 }, 'the API holds the outcome');

  await page.getByRole('link', { name: 'All contracts' }).click();
  await page.getByRole('row', { name: new RegExp(id) }).waitFor();
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No escrow contract in this environment yet.').waitFor();
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(
    refused.map((r) => r.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')),
    ['409 POST /api/v1/escrow/releases/contract/:id'],
    'no refused request but the release while a dispute is open',
  );
});

t.test("escrow: another merchant's contract is not found", async (t) => {
  const other = await svc.sandboxMerchant('Other builder');
  await fund(svc, other.merchant.id, 5_000);
  const theirs = (await svc.request('POST', '/api/v1/escrow/contracts', { key: other.key, body: { currency: 'XOF', amountMinor: 5_000, fundingSourceType: 'merchant_balance' } })).body;
  const { page } = await signedIn(t, 'Curious builder');
  await page.goto(`${svc.baseUrl}/dashboard/escrow/${theirs.id}`);
  await page.getByRole('alert').filter({ hasText: 'No such escrow contract in this environment.' }).waitFor();
  t.pass('not found, as the API says');
});
