/**
 * A funding campaign's public page in a real browser (chromium, phone-sized): the progress shown,
 * a contribution by mobile money (operator, number, wait while the operator answers, thanks), the
 * page counting it; an anonymous contribution unnamed; a mistake shown with what was typed kept; an
 * ended campaign without a form; 320 px without horizontal scroll; French from the browser's
 * language; the merchant named, with its logo. No CSP violation or script error anywhere.
 */
import t, { type Test } from '#tap';
import type { Page } from 'playwright-core';
import { activeCampaign, getCampaign, settle } from '../../support/funding.js';
import { closeAtEnd, openPage, startBrowser } from '../../support/browser.js';
import { assertMerchantShown, uploadLogo } from '../../support/page-merchant.js';
import { OPERATOR_DELAY_MS, startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const { key } = await svc.sandboxMerchant('Association des parents');
await uploadLogo(svc, key);
const browser = await startBrowser(t);

async function open(t: Test, slug: string) {
  const { page, problems } = await openPage(browser);
  closeAtEnd(t, page);
  await page.goto(`${svc.baseUrl}/funding/${slug}`);
  return { page, problems };
}

async function contributeOn(page: Page, fields: { amount: string; name?: string; operator?: string; phone: string; anonymous?: boolean }) {
  await page.getByLabel('Amount').fill(fields.amount);
  if (fields.name) await page.getByLabel('Your name').fill(fields.name);
  if (fields.anonymous) await page.getByLabel('Do not show my name on the page').check();
  await page.getByLabel('Mobile money operator').selectOption(fields.operator ?? 'orange_money');
  await page.getByLabel('Mobile money number').fill(fields.phone);
  await page.getByRole('button', { name: 'Contribute' }).click();
}

t.test('contribute by mobile money: the page waits for the operator, thanks, and counts it', async (t) => {
  const campaign = await activeCampaign(svc, key, { targetAmountMinor: 40_000 });
  const { page, problems } = await open(t, campaign.slug);
  t.equal(await page.locator('h1').textContent(), 'School roof');
  await assertMerchantShown(t, page, 'Association des parents', { logo: true });
  t.equal(await page.locator('#raised').textContent(), new Intl.NumberFormat('en-US', { style: 'currency', currency: 'XOF' }).format(0));
  t.equal(await page.locator('#progress').getAttribute('max'), '40000');
  await contributeOn(page, { amount: '10000', name: 'Aminata', phone: '+221771234567' });
  await page.locator('#status').waitFor();
  t.match(page.url(), /\?contribution=[0-9a-f-]{36}$/);
  t.match(await page.locator('#status').textContent(), /Approve the payment on your phone/);
  await settle(svc, OPERATOR_DELAY_MS);
  await page.locator('#thanks').waitFor();
  t.equal(await page.locator('#raised').textContent(), new Intl.NumberFormat('en-US', { style: 'currency', currency: 'XOF' }).format(10_000));
  t.match(await page.locator('#percent').textContent(), /25/);
  t.match(await page.locator('#recent').textContent(), /Aminata/);
  t.equal(await page.locator('#progress').getAttribute('value'), '10000');
  t.match(await getCampaign(svc, key, campaign.id), { raisedAmountMinor: 10_000, contributorCount: 1 });
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('an anonymous contribution is shown without its name', async (t) => {
  const campaign = await activeCampaign(svc, key);
  const { page, problems } = await open(t, campaign.slug);
  await contributeOn(page, { amount: '2500', name: 'Discreet Donor', anonymous: true, phone: '+221771234568' });
  await page.locator('#status').waitFor();
  await settle(svc, OPERATOR_DELAY_MS);
  await page.locator('#thanks').waitFor();
  t.match(await page.locator('#recent').textContent(), /Anonymous/);
  t.notMatch(await page.content(), /Discreet Donor/);
  t.same(problems, []);
});

t.test('a mistake is shown, and what was typed is kept', async (t) => {
  const campaign = await activeCampaign(svc, key);
  const { page } = await open(t, campaign.slug);
  await contributeOn(page, { amount: '1000', name: 'Ousmane', phone: '12345' });
  await page.locator('#error').waitFor();
  t.match(await page.locator('#error').textContent(), /This mobile money number is not valid/);
  t.equal(await page.getByLabel('Mobile money number').inputValue(), '12345');
  t.equal(await page.getByLabel('Your name').inputValue(), 'Ousmane');
  t.equal((await getCampaign(svc, key, campaign.id)).raisedAmountMinor, 0);
});

t.test('a payment that fails is shown, and the contributor can try again', async (t) => {
  const campaign = await activeCampaign(svc, key);
  const { page, problems } = await open(t, campaign.slug);
  await contributeOn(page, { amount: '1000', phone: '+221771234501' });
  await page.locator('#status').waitFor();
  await settle(svc, OPERATOR_DELAY_MS);
  await page.locator('#error').waitFor();
  t.match(await page.locator('#error').textContent(), /did not go through/);
  await contributeOn(page, { amount: '1000', phone: '+221771234505' });
  await page.locator('#status').waitFor();
  await settle(svc, OPERATOR_DELAY_MS);
  await page.locator('#thanks').waitFor();
  t.same(problems, []);
});

t.test('an ended campaign shows why and takes nothing', async (t) => {
  const campaign = await activeCampaign(svc, key);
  await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/close`, { key });
  const { page } = await open(t, campaign.slug);
  t.match(await page.locator('#ended').textContent(), /has ended/);
  t.equal(await page.locator('form').count(), 0);
});

t.test('320 px wide: no horizontal scroll, every field reachable', async (t) => {
  const campaign = await activeCampaign(svc, key, { title: 'Une très longue campagne pour la bibliothèque du quartier de Médina' });
  const { page } = await open(t, campaign.slug);
  await page.setViewportSize({ width: 320, height: 640 });
  const widths = await page.evaluate<{ scroll: number; client: number }>('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })');
  t.ok(widths.scroll <= widths.client, `no horizontal scroll (${widths.scroll} ≤ ${widths.client})`);
  for (const id of ['amount', 'name', 'email', 'operator', 'phone', 'contribute']) {
    const box = await page.locator(`#${id}`).boundingBox();
    t.ok(box && box.x >= 0 && box.x + box.width <= 320, `#${id} inside the screen`);
  }
});

t.test("French from the browser's language", async (t) => {
  const campaign = await activeCampaign(svc, key, { fundingModel: 'all_or_nothing', deadline: new Date(svc.clock.now().getTime() + 10 * 86_400_000).toISOString() });
  const { page } = await openPage(browser);
  closeAtEnd(t, page);
  await page.setExtraHTTPHeaders({ 'accept-language': 'fr-SN,fr;q=0.9,en;q=0.5' });
  await page.goto(`${svc.baseUrl}/funding/${campaign.slug}`);
  t.equal(await page.getAttribute('html', 'lang'), 'fr');
  t.match(await page.locator('body').textContent(), /Tout ou rien/);
  t.equal(await page.getByRole('button', { name: 'Contribuer' }).count(), 1);
  t.match(await page.locator('#deadline').textContent(), /Se termine le/);
});
