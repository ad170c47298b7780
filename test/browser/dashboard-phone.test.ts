/**
 * Issue 65 §5, the dashboard on a 390 px phone in Chromium: a one-line header whose Menu holds the
 * environment, the language and the account; a list's filters folded behind a button; payments as
 * two-line cards (what, amount; status, date) with the first one above the fold; Home's recent
 * activity naming what each transaction is for, not its id; axe-core clean.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { accessibilityProblems, navigate, startDashboard } from '../support/dashboard.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../support/payments.js';
import { fund, mobileMoney as payoutDestination, payout } from '../support/payouts.js';
import { OPERATOR_DELAY_MS } from '../support/system.js';

const PHONE = { width: 390, height: 844 };

const { svc, signedIn } = await startDashboard(t, { clockStart: Date.now(), env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

/** The bounding box of the element `selector` finds, in CSS pixels of the viewport. */
const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;

t.test('a phone: compact header, folded filters, two-line cards, the first payment above the fold, named activity', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Mobile');
  await page.setViewportSize(PHONE);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  await fund(svc, merchant.id, 50_000);
  const intents: { id: string }[] = [];
  for (const description of ['Basket of mangoes', 'Red shoes', 'Straw hat']) {
    const intent = await createIntent(svc, key, { amount: 12_500, description });
    t.equal((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('00')) })).status, 200);
    intents.push(intent);
  }
  await operatorAnswers(svc);
  const paid = await payout(svc, key, { amount: 2_000, destination: payoutDestination('41') });
  await operatorAnswers(svc);
  await page.reload();

  const header = await box(page, 'header.top');
  const menu = await box(page, 'header .menu-toggle');
  t.ok(header.height < 2 * menu.height, `the header is one line (${header.height} px high, its Menu button ${menu.height})`);
  t.notOk(await page.getByRole('radio', { name: 'Live' }).isVisible(), 'the environment switch is behind Menu');
  t.notOk(await page.getByLabel('Language').isVisible(), 'so is the language');
  t.match(await page.locator('header.top').innerText(), /Sandbox/, 'the header still names the environment');
  await page.getByRole('button', { name: 'Menu' }).click();
  for (const control of [page.getByRole('radio', { name: 'Live' }), page.getByLabel('Language'), page.getByRole('button', { name: 'Sign out' })]) t.ok(await control.isVisible(), 'Menu shows the environment, the language and the account');
  t.same(await accessibilityProblems(page), [], 'the open menu: no serious or critical axe violation');

  const activity = page.getByRole('region', { name: 'Recent activity' });
  const links = await activity.getByRole('link').allTextContents();
  t.ok(links.includes('Straw hat'), 'a payment is named by its description');
  t.ok(
    links.some((name) => /Orange Money/.test(name) && name.includes(paid.destination.msisdn.slice(-2))),
    'a payout by its recipient',
  );
  // (The balance the test funds by hand has no payment behind it: that one shows its source.)
  t.notOk(
    links.some((name) => [...intents.map((i) => i.id), paid.id].includes(name)),
    `no id for a name (${links.join(', ')})`,
  );

  await navigate(page, 'Payments');
  const list = page.getByRole('region', { name: 'Payments' });
  await list.getByRole('link', { name: 'Straw hat' }).waitFor();
  t.notOk(await page.getByRole('search', { name: 'Filter payments' }).isVisible(), 'the filters are folded');
  const filters = page.getByRole('button', { name: 'Filters' });
  t.equal(await filters.getAttribute('aria-expanded'), 'false');
  const first = await box(page, 'main table tbody tr');
  t.ok(first.y + first.height <= PHONE.height, `the first payment is above the fold (its bottom at ${first.y + first.height} px)`);
  const cells = await list
    .locator('tbody tr')
    .first()
    .evaluate((row) =>
      Array.from((row as unknown as { children: ArrayLike<unknown> }).children)
        .map((cell) => cell as { getBoundingClientRect(): { top: number; height: number }; textContent: string })
        .filter((cell) => cell.getBoundingClientRect().height > 0)
        .map((cell) => ({ top: Math.round(cell.getBoundingClientRect().top), text: cell.textContent })),
    );
  t.equal(cells.length, 4, 'a card shows four things');
  t.equal(new Set(cells.map((c) => c.top)).size, 2, 'on two lines');
  t.match(
    cells.map((c) => c.text),
    [/^Straw hat/, /12,500/, /Succeeded/, /\d/],
    'what and the amount, then the status and the date',
  );
  t.same(await accessibilityProblems(page), [], 'the payments as cards: no serious or critical axe violation');

  await filters.click();
  const form = page.getByRole('search', { name: 'Filter payments' });
  await form.getByLabel('Search').fill('mangoes');
  await form.getByRole('button', { name: 'Apply' }).click();
  await list.getByRole('link', { name: 'Basket of mangoes' }).waitFor();
  t.equal(await list.locator('tbody tr').count(), 1, 'the unfolded filters filter');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
