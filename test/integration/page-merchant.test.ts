/**
 * What the payer's pages show of the merchant (docs/checkout.md, "The merchant on the payer's
 * pages"), read from the hosted invoice page's HTML: the name, escaped, in the header and title;
 * the logo only from the merchant's own completed `logo` asset (never another purpose, an
 * unfinished upload or another merchant's logo), the one completed last, served on this origin by
 * a signed URL that answers the image; a logo gone between the read model and the signing leaves
 * the page without one; an SVG logo refused when declared.
 */
import { createHash, randomUUID } from 'node:crypto';
import t from '#tap';
import { invoiceNumber } from '#packages/families/billing/invoice/commands.js';
import { assertError, assertOk } from '../support/assertions.js';
import { openInvoice } from '../support/billing.js';
import { LOGO_PNG, uploadLogo } from '../support/page-merchant.js';
import { startService } from '../support/system.js';

const svc = await startService(t);
const { key, merchant } = await svc.sandboxMerchant('Tom & <b>Jerry</b>');
const other = await svc.sandboxMerchant('Other shop');
const invoice = await openInvoice(svc, key, { customer_email: 'buyer@logo.example', currency: 'xof', amount_due: 3_000 });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The hosted invoice page's HTML, and the logo's URL it shows, if any. */
async function invoicePage() {
  const res = await svc.request('GET', new URL(invoice.hosted_invoice_url).pathname);
  if (res.status !== 200) throw new Error(`hosted invoice page: ${res.status}`);
  return { html: res.text, logo: /<img id="merchant-logo" src="([^"]+)"/.exec(res.text)?.[1]?.replaceAll('&amp;', '&') ?? null };
}

/** Declares and uploads an asset without completing it. */
async function uploaded(purpose: string, contentType: string, bytes: Buffer): Promise<string> {
  const created = await svc.request('POST', '/api/v1/assets', { key, body: { name: 'file', purpose, contentType, size: bytes.length, sha256: sha256(bytes) } });
  t.equal(created.status, 201, `${purpose} declared`);
  await svc.request('PUT', `/api/v1/assets/${created.body.id}/content`, { key, rawBody: bytes, headers: { 'content-type': 'application/octet-stream' } });
  return created.body.id as string;
}

t.test('the name, escaped, in the header and the title', async (t) => {
  const { html, logo } = await invoicePage();
  t.match(html, '<strong id="merchant-name">Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;</strong>');
  t.match(html, '<title>Invoice ' + invoiceNumber(invoice.id) + ' · Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;</title>');
  t.notMatch(html, '<b>Jerry', 'never as markup');
  t.equal(logo, null, 'no logo before one is uploaded');
});

t.test('only a completed logo of this merchant is shown', async (t) => {
  const document = await uploaded('onboarding_document', 'image/png', LOGO_PNG);
  assertOk(t, await svc.request('POST', `/api/v1/assets/${document}/complete`, { key }));
  await uploadLogo(svc, other.key);
  const pending = await uploaded('logo', 'image/png', LOGO_PNG);
  t.equal((await invoicePage()).logo, null, "another purpose's image, another merchant's logo and an unfinished logo are not shown");

  const completed = await svc.request('POST', `/api/v1/assets/${pending}/complete`, { key });
  t.equal(completed.status, 200);
  const { logo } = await invoicePage();
  t.match(logo, new RegExp(`^/api/v1/assets/${pending}/download\\?expires=\\d+&signature=[0-9a-f]{64}$`), 'a signed URL on this origin');
  const image = await svc.request('GET', logo!);
  t.equal(image.status, 200);
  t.equal(image.headers.get('content-type'), 'image/png', 'the image itself');
  t.equal(image.headers.get('x-content-type-options'), 'nosniff');

  const newer = await uploadLogo(svc, key);
  t.match((await invoicePage()).logo, `/api/v1/assets/${newer}/`, 'the logo completed last');
  t.equal((await svc.request('DELETE', `/api/v1/assets/${newer}`, { key })).status, 200);
  t.match((await invoicePage()).logo, `/api/v1/assets/${pending}/`, 'its deletion brings back the one before');
});

t.test('a logo deleted between the read model and the signed URL: the page, without a logo', async (t) => {
  // The read model's row of an asset whose stream says nothing (as if deleted meanwhile), completed after every other.
  const id = randomUUID();
  await svc.system.knex('read.assets').insert({
    id,
    seq: '9'.repeat(30),
    merchant_id: merchant.id,
    environment: 'sandbox',
    status: 'ready',
    purpose: 'logo',
    object: JSON.stringify({ id, completedAt: '2999-01-01T00:00:00.000Z' }),
  });
  t.teardown(() => svc.system.knex('read.assets').where({ id }).delete());
  const { html, logo } = await invoicePage();
  t.match(html, 'id="merchant-name"', 'the page is shown');
  t.equal(logo, null, 'without a logo');
});

t.test('an SVG logo is refused (it could carry script)', async (t) => {
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  const res = await svc.request('POST', '/api/v1/assets', { key, body: { name: 'logo.svg', purpose: 'logo', contentType: 'image/svg+xml', size: svg.length, sha256: sha256(svg) } });
  assertError(t, res, 'IKW-AST-001', 'contentType');
});
