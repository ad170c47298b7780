/**
 * A template's own page in Chromium: opened from the list; what is typed in the editor previewed
 * before it is saved (the e-mail's HTML in a sandboxed frame, styled under the dashboard's CSP,
 * running nothing); a Liquid error shown in the API's words; saved as version 2, published, deleted
 * (once confirmed); a built-in template as the starting point of a document, its PDF downloaded;
 * an SMS with its length; another merchant's template and the other environment's "not found";
 * axe-core, 320 px, screenshots.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { downloaded } from '../../support/browser.js';

const { svc, signedIn } = await startDashboard(t);
const BASE = '/api/template-engine/templates';

const orderReady = {
  kind: 'email',
  name: 'Order ready',
  variables: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  locales: {
    en: {
      subject: 'Hello {{ name }}',
      text: 'Your order is ready, {{ name }}.',
      // An inline style and a style element (which the dashboard's policy refuses as markup), a handler and a script (which must never run).
      html: '<style>p.ready { font-weight: 700 }</style><h1 style="color: rgb(0, 128, 0)">Hello {{ name }}</h1><p class="ready" onclick="parent.document.title = \'ran\'">Ready</p><script>parent.document.title = "ran"</script>',
    },
  },
  sampleData: { name: 'Awa' },
};

async function apiKeyOf(merchantId: string) {
  return (await svc.apiKey(merchantId, ['*'])).secret;
}

/** The browser's getComputedStyle as the test's TypeScript (without DOM types) may call it. */
type Styles = { getComputedStyle(e: unknown): { color: string; fontWeight: string } };

/** The rendered subject the preview shows. */
const previewSubject = (page: Page) => page.getByRole('region', { name: 'Preview' }).getByRole('definition');

t.test('a template: live preview, a Liquid error, save, publish, delete', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Tamarind shop');
  const refused = refusals(page);
  const key = await apiKeyOf(merchant.id);
  const created = await svc.request('POST', BASE, { key, body: orderReady });
  const id = created.body.id as string;

  await navigate(page, 'Templates');
  await page.getByRole('link', { name: 'Order ready' }).click();
  await page.getByRole('heading', { level: 1, name: 'Order ready' }).waitFor();
  t.equal(new URL(page.url()).pathname, `/dashboard/templates/${id}`, 'the template has its own address');
  t.match(await page.locator('dl.facts').first().textContent(), /KindE-mail.*Latest version1.*Published versionnone/);

  const preview = page.getByRole('region', { name: 'Preview' });
  await previewSubject(page).filter({ hasText: 'Hello Awa' }).waitFor();
  const frame = page.frameLocator('iframe[title="The e-mail’s HTML body"]');
  const heading = frame.getByRole('heading', { name: 'Hello Awa' });
  await heading.waitFor();
  t.equal(await heading.evaluate((h) => (globalThis as unknown as Styles).getComputedStyle(h).color), 'rgb(0, 128, 0)', 'the inline style applies under the strict CSP');
  t.equal(await frame.getByText('Ready').evaluate((p) => (globalThis as unknown as Styles).getComputedStyle(p).fontWeight), '700', 'the style element applies too');
  t.equal(await frame.locator('script, [onclick]').count(), 0, 'the script and the handler are left out of the frame');
  t.not(await page.title(), 'ran', 'and nothing ran');
  t.equal(await page.locator('iframe.email-frame').getAttribute('sandbox'), 'allow-same-origin', 'sandboxed, no script allowed');

  const editor = page.getByRole('form', { name: 'Editor' });
  await editor.getByLabel('Subject').fill('Your order, {{ name }}');
  await editor.getByLabel('HTML body (optional)').fill('<h1>Ready for {{ name }}</h1>');
  await previewSubject(page).filter({ hasText: 'Your order, Awa' }).waitFor();
  await frame.getByRole('heading', { name: 'Ready for Awa' }).waitFor();
  await editor.getByLabel('Sample data (JSON)').fill('{"name": "Moussa"}');
  await previewSubject(page).filter({ hasText: 'Your order, Moussa' }).waitFor();
  t.equal((await svc.request('GET', `${BASE}/${id}`, { key })).body.latestVersion, 1, 'previewed before anything was saved');

  await editor.getByLabel('Text body').fill('Hello {{ name');
  const alert = preview.getByRole('alert');
  await alert.waitFor();
  const words = await svc.request('POST', `${BASE}/${id}/preview`, {
    key,
    body: { content: { locales: { en: { subject: 'Your order, {{ name }}', text: 'Hello {{ name', html: '<h1>Ready for {{ name }}</h1>' } } } },
  });
  t.equal(words.body.code, 'IKW-TPL-001');
  t.equal(await alert.textContent(), words.body.message, "the Liquid error in the API's words");
  t.same(refused, [`400 POST ${BASE}/${id}/preview`], 'the refused preview, once');
  refused.length = 0;
  await editor.getByLabel('Text body').fill('Hello {{ name }}, your order is ready.');
  await preview.getByText('Hello Moussa, your order is ready.').waitFor();
  await editor.getByLabel('Sample data (JSON)').fill('{"name": ');
  await preview.getByRole('alert').filter({ hasText: 'Sample data (JSON): not valid JSON' }).waitFor();
  await editor.getByRole('button', { name: 'Save as a new version' }).click();
  await editor.getByRole('alert').filter({ hasText: 'Sample data (JSON): not valid JSON' }).waitFor();
  t.same(refused, [], 'JSON that does not parse is said by the page, nothing sent');
  await editor.getByLabel('Sample data (JSON)').fill('{"name": "Moussa"}');
  await preview.getByText('Hello Moussa, your order is ready.').waitFor();

  await editor.getByRole('button', { name: 'Save as a new version' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved as version 2' }).waitFor();
  // The section and, inside it, the table's scrolling region are both named by the heading.
  const versions = page.getByRole('region', { name: 'Versions' }).last();
  await versions.getByRole('row', { name: /^2 / }).waitFor();
  t.match(await versions.getByRole('row', { name: /^2 / }).textContent(), /Not published/);
  const saved = (await svc.request('GET', `${BASE}/${id}`, { key })).body;
  t.match(saved, { latestVersion: 2, publishedVersion: null, sampleData: { name: 'Moussa' }, locales: { en: { subject: 'Your order, {{ name }}', text: 'Hello {{ name }}, your order is ready.', html: '<h1>Ready for {{ name }}</h1>' } } });

  await versions.getByRole('button', { name: 'Publish version 2' }).click();
  await page.getByRole('status').filter({ hasText: 'Version 2 published' }).waitFor();
  await versions.getByRole('row', { name: /^2 .*Published/ }).waitFor();
  t.equal(await versions.getByRole('button', { name: 'Publish version 2' }).count(), 0, 'the published version has no publish button');
  t.match(await page.locator('dl.facts').first().textContent(), /Latest version2.*Published version2/);
  t.equal((await svc.request('GET', `${BASE}/${id}`, { key })).body.publishedVersion, 2, 'the API publishes it');
  await versions.getByRole('button', { name: 'Publish version 1' }).click();
  await versions.getByRole('row', { name: /^1 .*Published/ }).waitFor();
  t.match(await versions.getByRole('row', { name: /^2 / }).textContent(), /Not published/, 'a rollback to version 1');

  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'template');

  await page.getByRole('button', { name: 'Delete the template' }).click();
  const confirm = page.getByRole('group', { name: 'Delete the template' });
  t.match(await confirm.textContent(), /Delete Order ready\? It cannot be undone\./);
  await confirm.getByRole('button', { name: 'Keep it' }).click();
  t.equal((await svc.request('GET', `${BASE}/${id}`, { key })).status, 200, 'kept');
  await page.getByRole('button', { name: 'Delete the template' }).click();
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
  await page.getByText('No template in this environment yet.').waitFor();
  t.equal((await svc.request('GET', `${BASE}/${id}`, { key })).status, 404, 'the API deleted it');
  t.same(refused, [], 'no other request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error: the e-mail’s styles, handler and script reported nothing');
});

t.test('a document from its built-in template, with its PDF; an SMS with its length', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Baobab books');
  const refused = refusals(page);
  const key = await apiKeyOf(merchant.id);
  await navigate(page, 'Templates');
  const form = page.getByRole('form', { name: 'New template' });
  await form.getByLabel('Name').fill('Our invoice');
  await form.getByLabel('Kind').selectOption('invoice');
  await form.getByRole('button', { name: 'Create the template' }).click();
  await page.getByRole('status').getByRole('link', { name: 'Our invoice' }).click();
  await page.getByRole('heading', { level: 1, name: 'Our invoice' }).waitFor();

  const preview = page.getByRole('region', { name: 'Preview' });
  await preview.getByRole('heading', { name: 'Invoice' }).waitFor();
  const builtIn = page.getByRole('group', { name: 'Start from a built-in template' });
  t.equal(await builtIn.getByRole('combobox').inputValue(), 'invoice', 'the built-in invoice is offered');
  await builtIn.getByRole('button', { name: 'Use it in the editor' }).click();
  const defaults = (await svc.request('GET', '/api/template-engine/defaults', { key })).body.data as { purpose: string; variables: object; locales: Record<string, { title: string }>; defaultLocale: string; sampleData: object }[];
  const invoice = defaults.find((d) => d.purpose === 'invoice')!;
  t.equal(await page.getByRole('form', { name: 'Editor' }).getByLabel('Title').inputValue(), invoice.locales[invoice.defaultLocale]!.title, 'its texts are in the editor');
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const { variables, locales, defaultLocale, sampleData } = invoice;
  const rendered = (await svc.request('POST', `${BASE}/${id}/preview`, { key, body: { content: { variables, locales, defaultLocale, sampleData } } })).body;
  await preview.getByRole('heading', { name: rendered.title }).waitFor();
  t.equal(await preview.locator('pre').textContent(), rendered.text, 'the built-in invoice rendered with its sample data, unsaved');
  const [download] = await Promise.all([page.waitForEvent('download'), preview.getByRole('button', { name: 'Download the PDF' }).click()]);
  t.equal(download.suggestedFilename(), 'Our invoice.pdf');
  t.equal((await downloaded(download)).subarray(0, 5).toString('latin1'), '%PDF-', 'the PDF the API rendered');
  t.same(await accessibilityProblems(page), [], 'a document: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'template-invoice');

  const sms = await svc.request('POST', BASE, {
    key,
    body: { kind: 'sms', name: 'Pickup code', variables: { type: 'object', properties: { code: { type: 'string' } } }, locales: { en: { text: 'Code {{ code }}' } }, sampleData: { code: '4821' } },
  });
  await page.goto(`${svc.baseUrl}/dashboard/templates/${sms.body.id}`);
  await page.getByRole('heading', { level: 1, name: 'Pickup code' }).waitFor();
  await preview.getByText('9 characters').waitFor();
  await page.getByRole('form', { name: 'Editor' }).getByLabel('Text').fill('Your pickup code: {{ code }}. Éléphant 🐘');
  await preview.getByText('Your pickup code: 4821. Éléphant 🐘').waitFor();
  await preview.getByText('34 characters').waitFor();
  t.equal(await page.getByRole('group', { name: 'Start from a built-in template' }).count(), 0, 'no built-in SMS to start from');
  t.same(refused, [], 'no request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test("another merchant's template, and the other environment's, are not found", async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Shea market');
  const refused = refusals(page);
  const other = await svc.merchant('Other market');
  const theirs = await svc.request('POST', BASE, { key: await apiKeyOf(other.id), body: orderReady });
  await page.goto(`${svc.baseUrl}/dashboard/templates/${theirs.body.id}`);
  await page.getByText('No such template in this environment.').waitFor();
  t.same(refused, [`404 GET ${BASE}/${theirs.body.id}`], 'asked once, not found');
  refused.length = 0;
  t.same(await accessibilityProblems(page), [], 'not found: no serious or critical axe violation');

  const ours = await svc.request('POST', BASE, { key: await apiKeyOf(merchant.id), body: orderReady });
  await page.goto(`${svc.baseUrl}/dashboard/templates/${ours.body.id}`);
  await page.getByRole('heading', { level: 1, name: 'Order ready' }).waitFor();
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No such template in this environment.').waitFor();
  t.same(refused, [`404 GET ${BASE}/${ours.body.id}`], 'a sandbox template is not found in live');
  await (await withHeader(page)).getByRole('radio', { name: 'Sandbox' }).check();
  await page.getByRole('heading', { level: 1, name: 'Order ready' }).waitFor();
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
