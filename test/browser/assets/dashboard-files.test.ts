/**
 * The dashboard's files page in Chromium, with assets in a real S3-compatible bucket (s3rver): a
 * logo uploaded (declared with its SHA-256, sent with progress, completed), downloaded byte for
 * byte, deleted; a file whose bytes are not what it says refused at the check; the other
 * environment's list.
 */
import { randomBytes } from 'node:crypto';
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { startS3 } from '../../support/s3.js';
import { downloaded } from '../../support/browser.js';

const s3 = await startS3(t);
const { svc, signedIn } = await startDashboard(t, { env: s3.env });
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(300_000)]);

t.test('files: upload a logo with progress, download it, a file that lies about its type, delete', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Atelier Sow');
  const refused = refusals(page);
  await navigate(page, 'Files');
  await page.getByText('No file in this environment yet.').waitFor();

  const form = page.getByRole('form', { name: 'Upload a file' });
  await form.getByLabel('File').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
  await form.getByLabel('What it is').selectOption('logo');
  await form.getByRole('button', { name: 'Upload' }).click();
  await page.getByRole('status').filter({ hasText: 'logo.png is uploaded and checked.' }).waitFor();
  const row = page.getByRole('row', { name: /logo\.png/ });
  await row.filter({ hasText: 'Ready' }).waitFor();
  t.match(await row.textContent(), /Logo293 kBReady/, 'listed with its purpose, size and status');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const stored = (await svc.request('GET', '/api/v1/assets', { key })).body.data;
  t.match(stored, [{ name: 'logo.png', purpose: 'logo', contentType: 'image/png', size: PNG.length, status: 'ready' }], 'the API holds it, checked');

  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Download: logo.png' }).click()]);
  t.equal(download.suggestedFilename(), 'logo.png');
  t.ok((await downloaded(download)).equals(PNG), 'the same bytes come back');

  await form.getByLabel('File').setInputFiles({ name: 'invoice.pdf', mimeType: 'application/pdf', buffer: Buffer.from('not a pdf at all') });
  await form.getByLabel('What it is').selectOption('invoice_attachment');
  await form.getByRole('button', { name: 'Upload' }).click();
  t.match(await page.getByRole('alert').textContent(), /type|PDF|magic/i, 'the check refuses bytes that are not what the file says');
  await page.getByRole('row', { name: /invoice\.pdf.*Uploaded, not checked/ }).waitFor();

  t.same(await accessibilityProblems(page), [], 'files: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'files');

  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Delete: logo.png' }).click();
  await row.waitFor({ state: 'detached' });
  t.equal((await svc.request('GET', `/api/v1/assets/${stored[0].id}`, { key })).status, 404, 'deleted in the API');

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No file in this environment yet.').waitFor();
  t.pass('live has its own files');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(
    refused.map((r) => r.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')),
    ['422 POST /api/v1/assets/:id/complete'],
    'no refused request but the check of bytes that are not what the file says',
  );
});
