/**
 * The hosted checkout in a real browser (chromium, phone-sized): a payment link opened, an
 * operator picked, a sandbox number typed, the page waiting while the operator answers and then
 * sending the customer to the merchant's success URL; the link opened again returning to the same
 * session; a failure shown and tried again; cancel; a
 * single-use link that refuses a second payment, also when three phones pay at once; 320 px without
 * horizontal scroll; the whole flow by keyboard alone; French from the browser's language; the
 * merchant named in the header and title (this merchant has no logo).
 */
import t, { type Test } from '#tap';
import type { Page } from 'playwright-core';
import { createLink, snNumber } from '../../support/checkout.js';
import { assertMerchantShown } from '../../support/page-merchant.js';
import { operatorAnswers } from '../../support/payments.js';
import { closeAtEnd, openPage, startBrowser, startMerchantSite } from '../../support/browser.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const { key } = await svc.sandboxMerchant('Mango stall');
const shop = await startMerchantSite(t);
const browser = await startBrowser(t);

/** A link whose sessions return to the test's merchant site. */
async function link(body: Record<string, unknown> = {}) {
  const l = await createLink(svc, key, { successUrl: `${shop}/thanks`, cancelUrl: `${shop}/cart`, ...body });
  return { ...l, payUrl: `${svc.baseUrl}/pay/${l.slug}` };
}

/** Opens the link: the customer lands on the hosted page of a new session. */
async function openLinkPage(t: Test, payUrl: string) {
  const { page, problems } = await openPage(browser);
  closeAtEnd(t, page);
  await page.goto(payUrl);
  t.match(page.url(), /\/checkout\/session\/cs_\w+$/, 'on the session page');
  return { page, problems, sessionId: /cs_\w+$/.exec(page.url())![0] };
}

async function payWith(page: Page, operator: string, phone: string) {
  await page.getByLabel('Mobile money operator').selectOption(operator);
  await page.getByLabel('Mobile money number').fill(phone);
  await page.getByRole('button', { name: /^Pay/ }).click();
}

t.test('pay a link: pick an operator, type a number, wait for the operator, land on the success page', async (t) => {
  const l = await link({ amount: 10_000 });
  const { page, problems } = await openLinkPage(t, l.payUrl);
  t.equal(await page.locator('h1').textContent(), 'Payment: Basket of mangoes');
  await assertMerchantShown(t, page, 'Mango stall', { logo: false });
  t.equal(await page.locator('#amount').textContent(), new Intl.NumberFormat('en-US', { style: 'currency', currency: 'XOF' }).format(10_000), 'the amount formatted for XOF');
  t.same(await page.locator('#operator option').allTextContents(), ['Choose your operator', 'Orange Money', 'Wave', 'Free Money', 'Expresso E-Money'], 'the operators of Senegal');
  await payWith(page, 'orange_money', snNumber('05'));
  await page.locator('#status').waitFor();
  t.match(await page.locator('#status').textContent(), /Approve the payment on your phone/);
  await operatorAnswers(svc);
  await page.waitForURL(/\/thanks\?/);
  const url = new URL(page.url());
  t.equal(url.searchParams.get('status'), 'succeeded');
  t.match(url.searchParams.get('payment_intent'), /^pi_/);
  t.match(url.searchParams.get('operation_id'), /^op_/);
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('opening the link again brings the browser back to its session, not a new one', async (t) => {
  const l = await link();
  const first = await openLinkPage(t, l.payUrl);
  const again = await openLinkPage(t, l.payUrl);
  t.equal(again.sessionId, first.sessionId, 'the same session');
  await first.page.getByRole('button', { name: /^Cancel/ }).click();
  await first.page.waitForURL(/\/cart\?status=canceled$/);
  t.not((await openLinkPage(t, l.payUrl)).sessionId, first.sessionId, 'once it is canceled, a new one');
});

t.test('a failing number shows the failure and lets the customer try again', async (t) => {
  const l = await link();
  const { page, problems } = await openLinkPage(t, l.payUrl);
  await payWith(page, 'wave', snNumber('01'));
  await page.locator('#status').waitFor();
  await operatorAnswers(svc);
  await page.locator('#error').waitFor();
  t.match(await page.locator('#error').textContent(), /did not go through/);
  await payWith(page, 'orange_money', snNumber('05'));
  await page.locator('#status').waitFor();
  await operatorAnswers(svc);
  await page.waitForURL(/\/thanks\?status=succeeded/);
  t.same(problems, []);
});

t.test('a number libphonenumber refuses is shown before anything is paid', async (t) => {
  const l = await link();
  const { page } = await openLinkPage(t, l.payUrl);
  await payWith(page, 'orange_money', '12345');
  await page.locator('#error').waitFor();
  t.match(await page.locator('#error').textContent(), /This mobile money number is not valid/);
  t.equal(await page.getByLabel('Mobile money number').inputValue(), '12345', 'what was typed is kept');
});

t.test('cancel lands on the cancel URL', async (t) => {
  const l = await link();
  const { page } = await openLinkPage(t, l.payUrl);
  await page.getByRole('button', { name: /^Cancel/ }).click();
  await page.waitForURL(/\/cart\?status=canceled$/);
  t.pass('on the cancel URL');
});

t.test('a single-use link refuses a second payment, also when three phones pay at once', async (t) => {
  const l = await link({ isSingleUse: true });
  // Three phones are three browsers: none has the cookie that brings a browser back to its session.
  const phones = [];
  for (let i = 0; i < 3; i++) {
    await browser.clearCookies();
    phones.push(await openLinkPage(t, l.payUrl));
  }
  t.equal(new Set(phones.map((p) => p.sessionId)).size, 3, 'a session each');
  await Promise.all(phones.map((p) => p.page.getByLabel('Mobile money operator').selectOption('orange_money')));
  await Promise.all(phones.map((p) => p.page.getByLabel('Mobile money number').fill(snNumber('05'))));
  await Promise.all(phones.map((p) => p.page.getByRole('button', { name: /^Pay/ }).click()));
  await Promise.all(phones.map((p) => p.page.locator('#status, #error').first().waitFor()));
  const waiting = await Promise.all(phones.map((p) => p.page.locator('#status').count()));
  t.equal(waiting.filter((n) => n === 1).length, 1, 'one phone pays');
  for (const p of phones.filter((_, i) => waiting[i] === 0)) t.match(await p.page.locator('#error').textContent(), /being paid in another session/);
  await operatorAnswers(svc);
  const winner = phones[waiting.indexOf(1)]!;
  await winner.page.waitForURL(/\/thanks\?status=succeeded/);
  const { page } = await openPage(browser);
  closeAtEnd(t, page);
  const answer = await page.goto(l.payUrl);
  t.equal(answer?.status(), 409);
  t.equal(await page.locator('h1').textContent(), 'This payment link is no longer available.');
});

t.test('320 px wide: no horizontal scroll, every field reachable', async (t) => {
  const l = await link({ description: 'A rather long description of a basket of mangoes from the Casamance, sent anywhere in Dakar' });
  const { page } = await openLinkPage(t, l.payUrl);
  await page.setViewportSize({ width: 320, height: 640 });
  const widths = await page.evaluate<{ scroll: number; client: number }>('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })');
  t.ok(widths.scroll <= widths.client, `no horizontal scroll (${widths.scroll} <= ${widths.client})`);
  for (const id of ['operator', 'phone', 'pay', 'cancel']) {
    const box = await page.locator(`#${id}`).boundingBox();
    t.ok(box && box.x >= 0 && box.x + box.width <= 320, `#${id} inside the screen`);
  }
});

t.test('the whole flow by keyboard alone', async (t) => {
  const l = await link();
  const { page } = await openLinkPage(t, l.payUrl);
  const focused = () => page.evaluate<string>("document.activeElement ? document.activeElement.id : ''");
  for (let i = 0; i < 10 && (await focused()) !== 'operator'; i++) await page.keyboard.press('Tab');
  t.equal(await focused(), 'operator', 'Tab reaches the operator list');
  await page.keyboard.press('ArrowDown');
  t.equal(await page.locator('#operator').inputValue(), 'orange_money', 'chosen with the arrow key');
  await page.keyboard.press('Tab');
  t.equal(await focused(), 'phone', 'then the number');
  await page.keyboard.type(snNumber('05'));
  await page.keyboard.press('Enter');
  await page.locator('#status').waitFor();
  await operatorAnswers(svc);
  await page.waitForURL(/\/thanks\?status=succeeded/);
  t.pass('paid without a pointer');
});

t.test('French from the browser\u2019s language', async (t) => {
  const l = await link();
  const { page } = await openPage(browser);
  closeAtEnd(t, page);
  await page.setExtraHTTPHeaders({ 'accept-language': 'fr-SN,fr;q=0.9,en;q=0.5' });
  await page.goto(l.payUrl);
  t.equal(await page.getAttribute('html', 'lang'), 'fr');
  t.equal(await page.locator('#amount').textContent(), '5\u202f000\u00a0F\u202fCFA');
  t.match(await page.getByRole('button', { name: /^Payer/ }).textContent(), /Payer 5\u202f000/);
  t.ok(await page.getByLabel('Numéro mobile money').isVisible());
});
