/**
 * A payout to a bank account from the dashboard (docs/dashboard.md, "Payouts"; issue 65, item 7):
 * the banks of the country's currency from the rail, the bank's name for the holder shown before
 * confirming, the payout naming the holder as the bank does; an account no bank knows is refused at
 * review, nothing paid. In sandbox, at 1280 and 390 px, in English and French.
 */
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { fund } from '../../support/payouts.js';

const { svc, signedIn } = await startDashboard(t);

t.test('a bank payout: the bank from the list, the holder as the bank names them, confirmed and paid to that name', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Lagos Fabrics');
  await fund(svc, merchant.id, 5_000_000, 'sandbox', 'ngn');
  const refused = refusals(page);
  await navigate(page, 'Payouts');
  const form = page.getByRole('form', { name: 'New payout' });
  await form.getByRole('radio', { name: 'A bank account' }).check();
  await form.getByLabel('Country').selectOption('NG');
  const bank = form.getByLabel(/^Bank/);
  await bank.locator('option', { hasText: 'Guaranty Trust Bank' }).waitFor({ state: 'attached' });
  t.same(await bank.locator('option').allTextContents(), ['Access Bank', 'First Bank of Nigeria', 'Guaranty Trust Bank', 'United Bank For Africa', 'Zenith Bank'], "the sandbox's Nigerian banks, by name");
  t.equal(await form.getByLabel('Mobile money number').count(), 0, 'no wallet fields for a bank account');

  // An account no bank knows: refused at review, nothing to confirm.
  await bank.selectOption({ label: 'Guaranty Trust Bank' });
  await form.getByLabel('Account number').fill('0123456701');
  await form.getByLabel(/Amount/).fill('25000');
  await form.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('alert').filter({ hasText: 'does not know account 0123456701' }).waitFor();
  t.equal(await page.getByRole('button', { name: 'Confirm payout' }).count(), 0, 'nothing to confirm');

  await form.getByLabel('Account number').fill('0123 456 789');
  await form.getByRole('button', { name: 'Review' }).click();
  const review = page.getByRole('group', { name: 'Review the payout' });
  await review.waitFor();
  const facts = await review.locator('dl').textContent();
  t.match(facts, /RecipientGuaranty Trust Bank ••6789/, 'the bank and the account’s last digits');
  t.match(facts, /Account holderTEST ACCOUNT HOLDER/, 'the holder as the bank names them, before confirming');
  t.match(facts, /Amount\D*25,000/);
  t.same(await accessibilityProblems(page), [], 'the review: no serious or critical axe violation');
  await screenshot(page, 'payouts-bank-review');
  await review.getByRole('button', { name: 'Confirm payout' }).click();
  await page.getByRole('status').filter({ hasText: 'Payout created' }).waitFor();
  await page.getByRole('row', { name: /TEST ACCOUNT HOLDER · ••6789/ }).waitFor();

  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const made = (await svc.request('GET', '/api/v1/merchant/payouts', { key })).body.data;
  t.match(made, [{ amount: 2_500_000, currency: 'ngn', destination: { type: 'bank', bank_code: '058', account_number: '0123456789', account_name: 'TEST ACCOUNT HOLDER' } }], 'one payout, to the account under the bank’s name');
  t.same(await overflowAt(page, 390), [], 'no horizontal scroll on a phone');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['422 POST /api/v1/banks/account-holder'], 'no refused request but the unknown account');
});

t.test('in French: the form and the review speak French', async (t) => {
  const { merchant, page } = await signedIn(t, 'Tissus de Lagos');
  await fund(svc, merchant.id, 5_000_000, 'sandbox', 'ngn');
  await navigate(page, 'Payouts');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  const form = page.getByRole('form', { name: 'Nouveau virement' });
  await form.getByRole('radio', { name: 'Un compte bancaire' }).check();
  await form.getByLabel('Pays').selectOption('NG');
  await form.getByLabel(/^Banque/).selectOption({ label: 'Access Bank' });
  await form.getByLabel('Numéro de compte').fill('0987654321');
  await form.getByLabel(/Montant/).fill('1000');
  await form.getByRole('button', { name: 'Vérifier' }).click();
  const facts = await page.locator('dl.facts').first().textContent();
  t.match(facts, /Titulaire du compteTEST ACCOUNT HOLDER/, 'the holder under its French label');
  t.match(facts, /Access Bank ••4321/);
});
