/**
 * The review in the console (docs/operator.md, "The review"), in Chromium: a merchant applies, a
 * reviewer finds it in the queue, reads it with its identity document, asks for a field again; the
 * merchant corrects it and the reviewer approves: live opens. Another is rejected with a reason, after
 * a decision another reviewer made meanwhile is refused in words. Risk reads without deciding,
 * finance is refused; an unknown merchant is not found. French, axe and 320 px.
 */
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import type { Page } from 'playwright-core';
import t from '#tap';
import { applicationBody, ID_PDF, REVIEWER, submitApplication, uploadDocument } from '../../support/activation.js';
import { startConsole } from '../../support/console.js';
import { accessibilityProblems, overflowAt, screenshot, scriptProblems, withHeader } from '../../support/dashboard.js';
import type { TestService } from '../../support/system.js';
import { downloaded } from '../../support/browser.js';

const { svc, operator } = await startConsole(t);

/**
 * A PNG of an identity card's shape (a photo on the left, lines of text on the right), made here so
 * the page has a real image to decode and show.
 */
function identityCardPng(width = 360, height = 228): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framing = Buffer.alloc(8);
    framing.writeUInt32BE(data.length, 0);
    framing.writeUInt32BE(zlib.crc32(typed), 4);
    return Buffer.concat([framing.subarray(0, 4), typed, framing.subarray(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const photo = x >= 20 && x < 120 && y >= 50 && y < 180;
      const text = x >= 140 && x < 330 && y >= 60 && y < 170 && (y - 60) % 24 < 10;
      const band = y < 34;
      const [r, g, b] = photo ? [150, 160, 175] : text ? [80, 90, 110] : band ? [27, 107, 54] : [232, 238, 246];
      rows.set([r, g, b], y * (width * 3 + 1) + 1 + x * 3);
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** An application whose identity document is a photo (`png`), under another legal name than the support's. */
async function applyWithPhoto(svc: TestService, key: string, legalName: string, png: Buffer): Promise<void> {
  const sha256 = createHash('sha256').update(png).digest('hex');
  const created = await svc.request('POST', '/api/v1/assets', { key, body: { name: 'id-card.png', purpose: 'onboarding_document', contentType: 'image/png', size: png.length, sha256 } });
  const id = created.body.id as string;
  await svc.request('PUT', `/api/v1/assets/${id}/content`, { key, rawBody: png, headers: { 'content-type': 'application/octet-stream' } });
  await svc.request('POST', `/api/v1/assets/${id}/complete`, { key });
  const body = applicationBody(id) as { business: Record<string, unknown> };
  const res = await svc.request('POST', '/api/v1/merchant/activation', { key, body: { ...body, business: { ...body.business, legal_name: legalName, trading_name: 'Teranga' } } });
  if (res.status !== 200) throw new Error(`application refused: ${res.text}`);
}

const applicationLink = (page: Page, merchantId: string) => page.locator(`main a[href="/console/applications/${merchantId}"]`);
const statusBadge = (page: Page) => page.locator('section[aria-labelledby="application-status"] .badge');
const stored = async (merchantId: string) => (await svc.system.activationApplications.application(merchantId)).object;

t.test('a reviewer asks for a field again, the merchant corrects it, the reviewer approves: live opens', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Boutique Awa');
  const intent = await svc.request('POST', '/api/v1/payment-intents', { key, headers: { 'idempotency-key': 'review-intent' }, body: { amount: 5000, currency: 'XOF', transaction_country: 'SN' } });
  t.equal(intent.status, 200, 'the merchant tried its integration in sandbox');
  await submitApplication(svc, key);
  const reviewer = await operator(t, 'reviewer');
  const { page } = reviewer;

  await page.getByRole('heading', { name: 'Review queue' }).waitFor();
  await applicationLink(page, merchant.id).waitFor();
  t.match(
    await page
      .locator('main tbody tr')
      .filter({ has: page.locator(`a[href="/console/applications/${merchant.id}"]`) })
      .textContent(),
    /Awa Diop.*Senegal.*Individual.*Awaiting a decision/,
    'the queue lists it: business, country, type, status',
  );
  t.same(await accessibilityProblems(page), [], 'the queue: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'the queue: no horizontal scroll at 320 px');

  await applicationLink(page, merchant.id).click();
  await page.getByRole('heading', { name: 'Awa Diop', level: 1 }).waitFor();
  t.equal(new URL(page.url()).pathname, `/console/applications/${merchant.id}`, "the application's own address");
  const business = await page.locator('section[aria-labelledby="application-business"]').textContent();
  t.match(business, /Boutique Awa/, 'the trading name');
  t.match(business, /SN-DKR-2024-A-1234/, 'the registration number');
  t.match(business, /12 rue Carnot, Dakar/, 'the address');
  t.match(business, /Wax fabrics/, 'what it sells');
  t.match(await page.locator('section[aria-labelledby="application-representative"]').textContent(), /Awa Diop.*12 Apr 1990/, 'the representative and their date of birth');
  t.match(await page.locator('section[aria-labelledby="application-settlement"]').textContent(), /\+221771234567/, 'the settlement destination');
  t.match(await page.locator('section[aria-labelledby="application-settlement"] .destination-check').textContent(), /\S/, "the rail's check, kept for the reviewer");
  const payments = page.locator('section[aria-labelledby="application-sandbox"] tbody tr').first();
  t.match(await payments.locator('th').textContent(), /Payment intents/, 'the sandbox activity');
  t.equal(await payments.locator('td').first().textContent(), '1', 'with the payment intent it made');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download passport.pdf' }).click()]);
  t.equal(download.suggestedFilename(), 'passport.pdf', 'the identity document (a PDF) is offered as its file');
  t.same(await downloaded(download), ID_PDF, 'with the bytes the merchant uploaded');

  await page.getByRole('button', { name: 'Request information' }).click();
  await page.getByRole('checkbox', { name: 'Address' }).check();
  await page.getByLabel('Message about: Address').fill('The street number is missing.');
  t.same(await accessibilityProblems(page), [], 'the application with the request form: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'the application: no horizontal scroll at 320 px');
  await page.getByRole('button', { name: 'Send the request' }).click();
  await page.getByText('Information requested: the merchant is told what to give again.').waitFor();
  t.equal(await statusBadge(page).textContent(), 'Information requested', 'the page shows the new status');
  const asked = await stored(merchant.id);
  t.equal(asked.status, 'information_requested', 'the application waits for the merchant');
  t.same(asked.decisions.at(-1)?.fields, [{ field: 'business.address', message: 'The street number is missing.' }], 'the field asked, with its message');
  t.match(await page.locator('section[aria-labelledby="application-history"]').textContent(), /Information requested.*by you.*Address: The street number is missing\./, 'the history says who asked what');

  await page.getByRole('link', { name: 'Back to the review queue' }).click();
  await page.getByLabel('Show').selectOption('information_requested');
  await applicationLink(page, merchant.id).waitFor();
  t.pass('the queue filtered by status lists it among those waiting for information');

  await submitApplication(svc, key);
  await applicationLink(page, merchant.id).click();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('button', { name: 'Yes, approve' }).click();
  await page.getByText('Approved: the merchant’s live environment is open.').waitFor();
  t.equal(await statusBadge(page).textContent(), 'Approved: live', 'the page shows the merchant live');
  t.equal((await stored(merchant.id)).status, 'active', 'the application is approved');
  const activation = await svc.request('GET', '/api/v1/merchant/activation', { key });
  t.equal(activation.body.status, 'active', "the merchant's activation is active: live is open");
  t.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0, 'no decision is offered on an approved application');

  const header = await withHeader(page);
  await header.getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Décisions' }).waitFor();
  t.equal(await statusBadge(page).textContent(), 'Approuvée : en production', 'the status in French');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  t.same(scriptProblems(reviewer.problems), [], 'no CSP violation or script error');
});

t.test('a decision made meanwhile is refused in words; then a rejection with its reason', async (t) => {
  const tailor = await svc.sandboxMerchant('Teranga Tailoring');
  await applyWithPhoto(svc, tailor.key, 'Teranga Tailoring SARL', identityCardPng());
  const other = await svc.sandboxMerchant('Boutique Awa 2');
  await submitApplication(svc, other.key);
  const reviewer = await operator(t, 'reviewer');
  const { page } = reviewer;
  await applicationLink(page, tailor.merchant.id).waitFor();
  await applicationLink(page, other.merchant.id).waitFor();
  await screenshot(page, 'console-review-queue');

  await applicationLink(page, tailor.merchant.id).click();
  const photo = page.getByRole('img', { name: /identity document/ });
  await photo.waitFor();
  t.equal(await page.evaluate('document.querySelector(".identity-document img").naturalWidth'), 360, 'the identity document (a photo) is shown, decoded, in the page');
  t.match(await photo.getAttribute('src'), /^data:image\/png;base64,/, 'as a data: URL, which the CSP allows');
  await screenshot(page, 'console-application');

  // Another reviewer asks for information while this one reads.
  await svc.system.activationApplications.requestInformation(tailor.merchant.id, [{ field: 'representative.identity_document', message: 'The photo is blurred.' }], REVIEWER);
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('button', { name: 'Yes, approve' }).click();
  const refusal = page.locator('section[aria-labelledby="application-decide"] [role="alert"]');
  await refusal.waitFor();
  t.match(await refusal.textContent(), /information requested cannot be approved/, "the refusal (IKW-ACT-004) is said in the API's words");
  await statusBadge(page).filter({ hasText: 'Information requested' }).waitFor();
  t.pass('the page then shows the status as it is');
  t.equal((await stored(tailor.merchant.id)).status, 'information_requested', 'and nothing was approved');

  await page.getByRole('button', { name: 'Reject' }).click();
  await page.getByRole('button', { name: 'Reject the application' }).click();
  t.match(await refusal.textContent(), /reason/, 'a rejection needs its reason');
  await page.getByLabel('Reason, which the merchant reads').fill('We cannot verify the identity of the representative.');
  await page.getByRole('button', { name: 'Reject the application' }).click();
  await page.getByText('Rejected: the merchant is told the reason.').waitFor();
  t.equal(await statusBadge(page).textContent(), 'Rejected', 'the page shows the rejection');
  const rejected = await stored(tailor.merchant.id);
  t.equal(rejected.status, 'rejected', 'the application is rejected');
  t.equal(rejected.decisions.at(-1)?.reason, 'We cannot verify the identity of the representative.', 'the reason is stored as written');
  t.match(await page.locator('section[aria-labelledby="application-history"]').textContent(), /Reason: We cannot verify/, 'and shown in the history');
  t.same(scriptProblems(reviewer.problems), [], 'no CSP violation or script error');
});

t.test("risk reads a company's application without deciding; finance is refused", async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Kora Foods');
  const document = await uploadDocument(svc, key);
  const body = applicationBody(document) as { business: Record<string, unknown> };
  const owners = [
    { name: 'Kofi Mensah', date_of_birth: '1980-02-03', ownership_percent: 60 },
    { name: 'Ama Owusu', ownership_percent: 40 },
  ];
  const applied = await svc.request('POST', '/api/v1/merchant/activation', { key, body: { ...body, business: { ...body.business, legal_name: 'Kora Foods SARL', type: 'company' }, owners } });
  t.equal(applied.status, 200, 'a company applies, with its owners');

  const risk = await operator(t, 'risk');
  await applicationLink(risk.page, merchant.id).click();
  await risk.page.getByRole('link', { name: 'Download passport.pdf' }).waitFor();
  t.match(await risk.page.locator('section[aria-labelledby="application-owners"]').textContent(), /Kofi Mensah.*3 Feb 1980.*60 %.*Ama Owusu.*40 %/, "the company's owners, with their shares");
  t.equal(await risk.page.getByRole('button', { name: /Approve|Reject|Request information/ }).count(), 0, 'no decision buttons for risk');
  t.equal(await risk.page.getByRole('heading', { name: 'Decide' }).count(), 0, 'nor a Decide section');
  t.same(scriptProblems(risk.problems), [], 'no CSP violation or script error');

  const finance = await operator(t, 'finance');
  await finance.page.goto(`${svc.baseUrl}/console/applications/${merchant.id}`);
  const alert = finance.page.locator('main [role="alert"]');
  await alert.waitFor();
  t.match(await alert.textContent(), /role/i, "finance reads no application: the API's refusal in words");
  t.equal(await finance.page.getByRole('button', { name: 'Approve' }).count(), 0, 'and no decision');
});

t.test('an unknown merchant is not found, with the way back to the queue', async (t) => {
  const { page, problems } = await operator(t, 'reviewer');
  await page.goto(`${svc.baseUrl}/console/applications/acct_unknown`);
  await page.getByRole('heading', { name: 'No such application' }).waitFor();
  t.match(await page.getByRole('alert').textContent(), /no merchant with this id/, 'said in words');
  await page.getByRole('link', { name: 'Back to the review queue' }).click();
  await page.getByRole('heading', { name: 'Review queue' }).waitFor();
  t.equal(new URL(page.url()).pathname, '/console/', 'back at the queue');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
