/**
 * /api/template-engine through HTTP: templates for e-mail, SMS and documents, their versions and
 * publication, preview and render (the variable schema checked, HTML escaped, PDFs produced and
 * read back), the built-in defaults, separation of merchants, and Idempotency-Key replays.
 */
import { PDFParse } from 'pdf-parse';
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { activateLive, startService, type TestService } from '../../support/system.js';
import { startSmtp } from '../../support/webhooks.js';
import { openInvoice } from '../../support/billing.js';
import { renderPdf } from '#packages/families/templates/pdf.js';

const smtp = await startSmtp(t);
const svc = await startService(t, { env: { SMTP_URL: smtp.url } });
const BASE = '/api/template-engine/templates';

const emailTemplate = {
  kind: 'email',
  name: 'Payment failed',
  variables: { type: 'object', required: ['name', 'amount'], properties: { name: { type: 'string' }, amount: { type: 'integer' } } },
  locales: {
    en: { subject: 'Payment of {{ amount }} failed', text: 'Hello {{ name }}, your payment of {{ amount }} failed.', html: '<p>Hello {{ name }}</p>' },
    fr: { subject: 'Paiement de {{ amount }} refusé', text: 'Bonjour {{ name }}, votre paiement de {{ amount }} a échoué.' },
  },
  defaultLocale: 'en',
  sampleData: { name: 'Awa', amount: 5000 },
};

async function create(s: TestService, key: string, body: unknown = emailTemplate) {
  const res = await s.request('POST', BASE, { key, body });
  if (res.status !== 200) throw new Error(`template create failed: ${res.status} ${res.text}`);
  return res.body as { id: string; latestVersion: number; publishedVersion: number | null };
}

async function pdfText(base64: string): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(Buffer.from(base64, 'base64')) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

t.test('create, retrieve, list: version 1, a draft until published', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const res = await svc.request('POST', BASE, { key, body: emailTemplate });
  assertOk(t, res);
  t.match(res.body, { id: /^tpl_/, object: 'template', kind: 'email', name: 'Payment failed', purpose: null, latestVersion: 1, publishedVersion: null, defaultLocale: 'en', livemode: false });
  t.same(Object.keys(res.body.locales), ['en', 'fr']);
  const got = await svc.request('GET', `${BASE}/${res.body.id}`, { key });
  assertOk(t, got);
  t.same(got.body, res.body, 'retrieve answers what create did');
  const sms = await create(svc, key, { kind: 'sms', name: 'Reminder', variables: { type: 'object', properties: {} }, locales: { en: { text: 'Pay today' } }, publish: true });
  t.equal(sms.publishedVersion, 1, 'publish: true publishes version 1');
  const list = await svc.request('GET', `${BASE}?limit=10`, { key });
  assertOk(t, list);
  t.same(
    list.body.data.map((x: { id: string }) => x.id),
    [sms.id, res.body.id],
    'newest first',
  );
  const onlySms = await svc.request('GET', `${BASE}?kind=sms`, { key });
  t.same(
    onlySms.body.data.map((x: { id: string }) => x.id),
    [sms.id],
    'filtered by kind',
  );
});

t.test('refusals at create: kind fields, Liquid syntax, variable schema, undeclared variables, locales', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const post = (body: unknown) => svc.request('POST', BASE, { key, body });
  assertError(t, await post({ ...emailTemplate, locales: { en: { text: 'no subject' } } }), 'IKW-VAL-001', 'locales.en.subject');
  assertError(t, await post({ ...emailTemplate, kind: 'sms', locales: { en: { text: 'x', subject: 'y' } } }), 'IKW-VAL-002', 'locales.en.subject');
  assertError(t, await post({ ...emailTemplate, locales: { en: { subject: 'x', text: 'Hello {{ name' } } }), 'IKW-TPL-001', 'locales.en.text');
  assertError(t, await post({ ...emailTemplate, locales: { en: { subject: 'x', text: '{% include "/etc/passwd" %}' } } }), 'IKW-TPL-001', 'locales.en.text');
  assertError(t, await post({ ...emailTemplate, locales: { en: { subject: 'x', text: '{{ name | no_such_filter }}' } } }), 'IKW-TPL-001', 'locales.en.text');
  assertError(t, await post({ ...emailTemplate, variables: { type: 'array' } }), 'IKW-TPL-002', 'variables');
  assertError(t, await post({ ...emailTemplate, variables: { type: 'object', properties: { name: { type: 'nonsense' } } } }), 'IKW-TPL-002', 'variables');
  assertError(t, await post({ ...emailTemplate, locales: { en: { subject: '{{ secret }}', text: 'x' } } }), 'IKW-TPL-002', 'locales.en.subject');
  assertError(t, await post({ ...emailTemplate, defaultLocale: 'de' }), 'IKW-TPL-004', 'defaultLocale');
  assertError(t, await post({ ...emailTemplate, locales: { English: { subject: 'x', text: 'y' } } }), 'IKW-VAL-001');
  assertError(t, await post({ ...emailTemplate, purpose: 'no_such_message' }), 'IKW-VAL-001', 'purpose');
  assertError(t, await post({ ...emailTemplate, purpose: 'receipt' }), 'IKW-VAL-001', 'kind');
  assertError(t, await post({ ...emailTemplate, extra: 1 }), 'IKW-VAL-002', 'extra');
  const list = await svc.request('GET', BASE, { key });
  t.equal(list.body.data.length, 0, 'nothing was created');
});

t.test('update adds versions; publish chooses the one renders use; versions lists them', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key);
  const renamed = await svc.request('PATCH', `${BASE}/${tpl.id}`, { key, body: { name: 'Renamed' } });
  assertOk(t, renamed);
  t.match(renamed.body, { name: 'Renamed', latestVersion: 1 }, 'a rename adds no version');
  const v2 = await svc.request('PATCH', `${BASE}/${tpl.id}`, { key, body: { locales: { en: { subject: 'v2 {{ amount }}', text: 'v2 for {{ name }}' } } } });
  assertOk(t, v2);
  t.match(v2.body, { latestVersion: 2, publishedVersion: null, defaultLocale: 'en' });
  t.same(Object.keys(v2.body.locales), ['en']);
  assertError(t, await svc.request('PATCH', `${BASE}/${tpl.id}`, { key, body: { locales: { en: { subject: '{{', text: 'x' } } } }), 'IKW-TPL-001', 'locales.en.subject');

  assertError(t, await svc.request('POST', `${BASE}/${tpl.id}/render`, { key, body: { data: { name: 'A', amount: 1 } } }), 'IKW-TPL-005', 'id');
  const published = await svc.request('POST', `${BASE}/${tpl.id}/versions/1/publish`, { key });
  assertOk(t, published);
  t.equal(published.body.publishedVersion, 1);
  const r1 = await svc.request('POST', `${BASE}/${tpl.id}/render`, { key, body: { data: { name: 'Awa', amount: 5000 } } });
  assertOk(t, r1);
  t.match(r1.body, { object: 'rendered_template', version: 1, locale: 'en', subject: 'Payment of 5000 failed', text: 'Hello Awa, your payment of 5000 failed.' });
  const fr = await svc.request('POST', `${BASE}/${tpl.id}/render`, { key, body: { locale: 'fr', data: { name: 'Awa', amount: 5000 } } });
  t.match(fr.body, { locale: 'fr', subject: 'Paiement de 5000 refusé' });

  await svc.request('POST', `${BASE}/${tpl.id}/versions/2/publish`, { key });
  const r2 = await svc.request('POST', `${BASE}/${tpl.id}/render`, { key, body: { data: { name: 'Awa', amount: 5000 } } });
  t.match(r2.body, { version: 2, subject: 'v2 5000', text: 'v2 for Awa' });
  assertError(t, await svc.request('POST', `${BASE}/${tpl.id}/render`, { key, body: { locale: 'fr', data: { name: 'Awa', amount: 5000 } } }), 'IKW-TPL-004', 'locale');
  assertError(t, await svc.request('POST', `${BASE}/${tpl.id}/versions/9/publish`, { key }), 'IKW-RES-001', 'version');

  const versions = await svc.request('GET', `${BASE}/${tpl.id}/versions`, { key });
  assertOk(t, versions);
  t.same(
    versions.body.data.map((v: { version: number; published: boolean }) => [v.version, v.published]),
    [
      [2, true],
      [1, false],
    ],
  );
});

t.test('parallel content updates: each makes its own version over the one before, or a 409 to retry', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key);
  // Even updates change the sample data, odd ones the default locale: each version must carry every earlier applied change.
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => svc.request('PATCH', `${BASE}/${tpl.id}`, { key, body: i % 2 === 0 ? { sampleData: { name: `n${i}`, amount: i } } : { defaultLocale: i % 4 === 1 ? 'fr' : 'en' } })));
  for (const a of answers) if (a.status !== 200) assertError(t, a, 'IKW-RES-003');
  const applied = answers.filter((a) => a.status === 200);
  t.ok(applied.length >= 1);
  const latest = await svc.request('GET', `${BASE}/${tpl.id}`, { key });
  t.equal(latest.body.latestVersion, 1 + applied.length, 'one version per applied update');
  // The latest version holds the last applied change of each field: a later update never drops an earlier one.
  const expectedLocale = answers
    .map((a, i) => ({ a, i }))
    .filter(({ a, i }) => a.status === 200 && i % 2 === 1)
    .sort((x, y) => x.a.body.latestVersion - y.a.body.latestVersion)
    .pop();
  if (expectedLocale) t.equal(latest.body.defaultLocale, expectedLocale.i % 4 === 1 ? 'fr' : 'en', 'the last applied locale change is kept');
  const expectedSample = answers
    .map((a, i) => ({ a, i }))
    .filter(({ a, i }) => a.status === 200 && i % 2 === 0)
    .sort((x, y) => x.a.body.latestVersion - y.a.body.latestVersion)
    .pop();
  if (expectedSample) t.same(latest.body.sampleData, { name: `n${expectedSample.i}`, amount: expectedSample.i }, 'the last applied sample change is kept');
});

t.test('render checks data against the variable schema: missing or wrong type is a clear 422', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key, { ...emailTemplate, publish: true });
  const render = (data: unknown) => svc.request('POST', `${BASE}/${tpl.id}/render`, { key, body: { data } });
  const missing = await render({ name: 'Awa' });
  assertError(t, missing, 'IKW-TPL-003', 'data.amount');
  t.match(missing.body.message, /Missing variable: data\.amount/);
  const wrong = await render({ name: 'Awa', amount: 'lots' });
  assertError(t, wrong, 'IKW-TPL-003', 'data.amount');
  t.match(wrong.body.message, /must be integer/);
  assertError(t, await render('text'), 'IKW-VAL-001', 'data');
});

t.test('HTML parts escape every value; text parts keep it as written', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key);
  const res = await svc.request('POST', `${BASE}/${tpl.id}/preview`, { key, body: { data: { name: '<script>alert("x")</script>', amount: 1 } } });
  assertOk(t, res);
  t.equal(res.body.html, '<p>Hello &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</p>');
  t.equal(res.body.text, 'Hello <script>alert("x")</script>, your payment of 1 failed.');
  const sample = await svc.request('POST', `${BASE}/${tpl.id}/preview`, { key, body: {} });
  t.match(sample.body, { version: 1, text: 'Hello Awa, your payment of 5000 failed.' }, 'the sample data by default');
});

t.test('preview of unsaved content: rendered as PATCH would store it, checked the same way, nothing stored', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key);
  const preview = (body: unknown, as = key) => svc.request('POST', `${BASE}/${tpl.id}/preview`, { key: as, body });
  const draft = { locales: { en: { subject: 'Draft for {{ name }}', text: 'Owed: {{ amount }}', html: '<b>{{ name }}</b>' } } };
  const res = await preview({ content: draft });
  assertOk(t, res);
  t.same(
    res.body,
    { object: 'rendered_template', template: tpl.id, version: null, kind: 'email', locale: 'en', subject: 'Draft for Awa', text: 'Owed: 5000', html: '<b>Awa</b>' },
    "the unsaved text with the version's sample data; no version number",
  );
  const withData = await preview({ content: { ...draft, sampleData: { name: '<i>Moussa</i>', amount: 7 } } });
  t.match(withData.body, { subject: 'Draft for <i>Moussa</i>', html: '<b>&lt;i&gt;Moussa&lt;/i&gt;</b>' }, "the content's sample data, HTML escaped as a stored version's");
  const given = await preview({ content: draft, data: { name: 'Fatou', amount: 1 } });
  t.match(given.body, { subject: 'Draft for Fatou' }, 'data given wins over the sample data');
  const newVariable = await preview({
    content: { variables: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } }, locales: { fr: { subject: 'À {{ city }}', text: '{{ city | upcase }}' } }, sampleData: { city: 'Dakar' } },
  });
  t.match(newVariable.body, { version: null, locale: 'fr', subject: 'À Dakar', text: 'DAKAR' }, 'new variables and locales; the default locale moves to the first given, as PATCH does');
  const older = await preview({ version: 1, content: { sampleData: { name: 'Ama', amount: 2 } } });
  t.match(older.body, { version: null, subject: 'Payment of 2 failed' }, 'over the version asked for');
  const sms = await create(svc, key, { kind: 'sms', name: 'SMS', variables: { type: 'object', properties: {} }, locales: { en: { text: 'Hi' } } });
  const smsPreview = await svc.request('POST', `${BASE}/${sms.id}/preview`, { key, body: { content: { locales: { en: { text: 'Your code is ready' } } } } });
  t.match(smsPreview.body, { kind: 'sms', version: null, text: 'Your code is ready' });

  const badLiquid = await preview({ content: { locales: { en: { subject: 'Hi', text: 'Hello {{ name' } } } });
  assertError(t, badLiquid, 'IKW-TPL-001', 'locales.en.text');
  t.match(badLiquid.body.message, /^locales\.en\.text: /, "the parser's words, as PATCH says them");
  assertError(t, await preview({ content: { locales: { en: { subject: '{{ secret }}', text: 'x' } } } }), 'IKW-TPL-002', 'locales.en.subject');
  assertError(t, await preview({ content: { locales: { en: { text: 'no subject' } } } }), 'IKW-VAL-001', 'locales.en.subject');
  assertError(t, await preview({ content: { locales: { en: { subject: 'x', text: 'y', title: 'z' } } } }), 'IKW-VAL-002', 'locales.en.title');
  assertError(t, await preview({ content: { defaultLocale: 'de' } }), 'IKW-TPL-004', 'defaultLocale');
  assertError(t, await preview({ content: { name: 'x' } }), 'IKW-VAL-002', 'content.name');
  assertError(t, await preview({ content: { locales: { en: { subject: 'x', text: 'y'.repeat(50_001) } } } }), 'IKW-VAL-001', 'content.locales.en.text');
  assertError(t, await preview({ content: draft, data: { name: 'Awa' } }), 'IKW-TPL-003', 'data.amount');
  const loop = { variables: { type: 'object', properties: { pad: { type: 'string' } } }, locales: { en: { subject: 'x', text: '{% for i in (1..100000) %}{{ pad }}{% endfor %}' } }, sampleData: { pad: 'x'.repeat(100_000) } };
  assertError(t, await preview({ content: loop }), 'IKW-TPL-006', 'locales.en.text');

  const kept = await svc.request('GET', `${BASE}/${tpl.id}`, { key });
  t.match(kept.body, { latestVersion: 1, locales: emailTemplate.locales }, 'nothing was stored');
  const reader = await svc.apiKey(merchant.id, ['templates.read']);
  assertOk(t, await preview({ content: draft }, reader.secret));

  const other = await svc.sandboxMerchant('Other');
  assertError(t, await preview({ content: draft }, other.key), 'IKW-RES-001');
  assertError(t, await preview({ content: draft }, merchant.api_keys.live), 'IKW-RES-001');
  const liveOwn = await svc.request('POST', `${BASE}/${tpl.id}/preview`, { key, headers: { 'x-environment': 'live' }, body: { content: draft } });
  assertError(t, liveOwn, 'IKW-AUT-003');
});

t.test('preview of an unsaved document: its title and text, and the PDF', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key, { kind: 'invoice', name: 'Invoice', variables: { type: 'object', properties: { total: { type: 'string' } } }, locales: { en: { title: 'Invoice', text: 'Total' } } });
  const res = await svc.request('POST', `${BASE}/${tpl.id}/preview`, { key, body: { content: { locales: { en: { title: 'Draft invoice', text: 'Due: {{ total }} XOF' } }, sampleData: { total: '9 000' } } } });
  assertOk(t, res);
  t.match(res.body, { kind: 'invoice', version: null, title: 'Draft invoice', text: 'Due: 9 000 XOF' });
  t.match(await pdfText(res.body.pdf), /Due: 9 000 XOF/);
});

t.test('documents render to a PDF that holds the text', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key, {
    kind: 'receipt',
    name: 'Receipt',
    variables: { type: 'object', required: ['customer', 'total'], properties: { customer: { type: 'string' }, total: { type: 'string' } } },
    locales: { en: { title: 'Receipt for {{ customer }}', text: 'Total paid: {{ total }} XOF\nThank you' } },
    publish: true,
  });
  const res = await svc.request('POST', `${BASE}/${tpl.id}/render`, { key, body: { data: { customer: 'Moussa Diop', total: '12 500' } } });
  assertOk(t, res);
  t.match(res.body, { kind: 'receipt', title: 'Receipt for Moussa Diop' });
  t.equal(Buffer.from(res.body.pdf, 'base64').subarray(0, 5).toString(), '%PDF-');
  const text = await pdfText(res.body.pdf);
  t.match(text, /Receipt for Moussa Diop/);
  t.match(text, /Total paid: 12 500 XOF/);
  t.match(text, /Thank you/);
});

t.test('the built-in defaults: every purpose, each rendering its sample data', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const res = await svc.request('GET', '/api/template-engine/defaults', { key });
  assertOk(t, res);
  t.same(
    res.body.data
      .filter((d: { overridable: boolean }) => d.overridable)
      .map((d: { purpose: string }) => d.purpose)
      .sort(),
    ['automation_disabled', 'customer_portal_code', 'dispute_closed', 'dispute_opened', 'invoice', 'invoice_receipt', 'invoice_reminder', 'invoice_sent', 'receipt', 'webhook_endpoint_failing'],
    'what a merchant may restyle',
  );
  t.ok(
    res.body.data.some((d: { purpose: string; overridable: boolean }) => d.purpose === 'signup_code' && !d.overridable),
    'account messages are listed, not overridable',
  );
  const account = res.body.data.find((d: { purpose: string }) => d.purpose === 'magic_link');
  assertError(t, await svc.request('POST', BASE, { key, body: { kind: 'email', name: 'x', purpose: 'magic_link', variables: account.variables, locales: account.locales } }), 'IKW-VAL-001', 'purpose');
  const invoice = res.body.data.find((d: { purpose: string }) => d.purpose === 'invoice');
  const overriding = await create(svc, key, { kind: 'invoice', name: 'Our invoice', purpose: 'invoice', variables: invoice.variables, locales: invoice.locales, sampleData: invoice.sampleData });
  const pdf = await svc.request('POST', `${BASE}/${overriding.id}/preview`, { key, body: { locale: 'fr' } });
  assertOk(t, pdf);
  t.match(await pdfText(pdf.body.pdf), /Montant dû : 25 000 XOF/);
});

t.test("delete; another merchant's template is a 404 everywhere", async (t) => {
  const { key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant('Other');
  const tpl = await create(svc, key);
  for (const [method, path, body] of [
    ['GET', `${BASE}/${tpl.id}`, undefined],
    ['PATCH', `${BASE}/${tpl.id}`, { name: 'x' }],
    ['GET', `${BASE}/${tpl.id}/versions`, undefined],
    ['POST', `${BASE}/${tpl.id}/versions/1/publish`, undefined],
    ['POST', `${BASE}/${tpl.id}/preview`, {}],
    ['POST', `${BASE}/${tpl.id}/render`, { data: {} }],
    ['DELETE', `${BASE}/${tpl.id}`, undefined],
  ] as const) {
    assertError(t, await svc.request(method, path, { key: other.key, ...(body ? { body } : {}) }), 'IKW-RES-001');
  }
  const live = await svc.request('GET', `${BASE}/${tpl.id}`, { key: (await svc.merchant()).api_keys.live });
  assertError(t, live, 'IKW-RES-001');
  const del = await svc.request('DELETE', `${BASE}/${tpl.id}`, { key });
  assertOk(t, del);
  t.same(del.body, { id: tpl.id, object: 'template', deleted: true });
  assertError(t, await svc.request('GET', `${BASE}/${tpl.id}`, { key }), 'IKW-RES-001');
  assertError(t, await svc.request('DELETE', `${BASE}/${tpl.id}`, { key }), 'IKW-RES-001');
});

t.test('Idempotency-Key: a replayed create is the same template, once', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const headers = { 'idempotency-key': 'tpl-create-1' };
  const first = await svc.request('POST', BASE, { key, body: emailTemplate, headers });
  const again = await svc.request('POST', BASE, { key, body: emailTemplate, headers });
  assertOk(t, again);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.text, first.text);
  const list = await svc.request('GET', BASE, { key });
  t.equal(list.body.data.length, 1);
  const other = await svc.request('POST', BASE, { key, body: { ...emailTemplate, name: 'changed' }, headers });
  assertError(t, other, 'IKW-IDM-002');
  const publishKey = { 'idempotency-key': 'publish-1' };
  const p1 = await svc.request('POST', `${BASE}/${first.body.id}/versions/1/publish`, { key, headers: publishKey });
  const p2 = await svc.request('POST', `${BASE}/${first.body.id}/versions/1/publish`, { key, headers: publishKey });
  t.equal(p2.text, p1.text);
  t.equal(p2.headers.get('idempotent-replayed'), 'true');
});

t.test('scopes: a read-only key reads and renders, and cannot write', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key, { ...emailTemplate, publish: true });
  const reader = await svc.apiKey(merchant.id, ['templates.read']);
  assertOk(t, await svc.request('POST', `${BASE}/${tpl.id}/render`, { key: reader.secret, body: { data: { name: 'A', amount: 1 } } }));
  assertError(t, await svc.request('POST', BASE, { key: reader.secret, body: emailTemplate }), 'IKW-AUT-004');
});

t.test("the service's own messages: a merchant's published template replaces the built-in one, for that merchant only", async (t) => {
  // Live merchants: a sandbox merchant's message reaches only its own team (the outbox holds the rest).
  const merchant = await svc.merchant('Mango stall');
  const key = merchant.api_keys.live;
  const other = await svc.merchant('Other stall');
  // Live invoices are made once live is open (docs/merchants.md, "Going live").
  await activateLive(svc, merchant.id);
  await activateLive(svc, other.id);
  await openInvoice(svc, key, { customer_email: 'awa@example.com', currency: 'xof', amount_due: 3_000 });
  await openInvoice(svc, other.api_keys.live, { customer_email: 'awa@example.com', currency: 'xof', amount_due: 3_000 });
  const signIn = async (merchantId: string) => {
    const before = smtp.mails.length;
    assertOk(t, await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId, environment: 'live', email: 'awa@example.com' } }));
    return smtp.mails
      .slice(before)
      .map((m) => m.raw)
      .join('\n');
  };
  const builtInMail = await signIn(merchant.id);
  t.match(builtInMail, /Subject: Your sign-in code\r?\n/, 'the built-in template');
  t.match(builtInMail, /Your code: \d{6}/, 'the code is in the body, never the subject (subjects are kept and shown everywhere)');

  const defaults = (await svc.request('GET', '/api/template-engine/defaults', { key })).body.data;
  const builtIn = defaults.find((d: { purpose: string }) => d.purpose === 'customer_portal_code');
  const draft = await create(svc, key, {
    kind: 'email',
    name: 'Mango code',
    purpose: 'customer_portal_code',
    variables: builtIn.variables,
    locales: { en: { subject: 'Mango stall: code {{ code }}', text: 'Code {{ code }}, valid {{ minutes }} min', html: '<h1>Mango</h1><p>{{ code }}</p>' } },
  });
  t.match(await signIn(merchant.id), /Subject: Your sign-in code/, 'a draft changes nothing');
  await svc.request('POST', `${BASE}/${draft.id}/versions/1/publish`, { key });
  const branded = await signIn(merchant.id);
  t.match(branded, /Subject: Mango stall: code \d{6}/, 'the published template');
  t.match(branded, /valid 10 min/);
  t.match(branded, /<h1>Mango<\/h1>/, 'with its HTML part');
  t.match(await signIn(other.id), /Subject: Your sign-in code/, 'another merchant keeps the default');

  await svc.request('DELETE', `${BASE}/${draft.id}`, { key });
  t.match(await signIn(merchant.id), /Subject: Your sign-in code/, 'deleted: the default again');
});

t.test('rendered output is capped while it renders: over 1 MB is 422 IKW-TPL-006, a loop stops at the cap', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const variables = { type: 'object', required: ['pad'], properties: { pad: { type: 'string' } } };
  // A hundred thousand iterations of 100 000 bytes: 10 GB if nothing stopped it; the cap ends it after ten.
  // Few large writes, so the cap is crossed long before the render's 1 s time limit even on a loaded machine.
  const pad = 'x'.repeat(100_000);
  const loop = '{% for i in (1..100000) %}{{ pad }}{% endfor %}';
  const cases: [string, Record<string, string>, string][] = [
    ['a loop writing its output', { subject: 'Big', text: loop }, 'locales.en.text'],
    ['a loop inside capture (never written out)', { subject: 'Big', text: `{% capture all %}${loop}{% endcapture %}{{ all | size }}` }, 'locales.en.text'],
    ['a loop in the HTML part', { subject: 'Big', text: 'short', html: '{% for i in (1..100000) %}<p>{{ pad }}</p>{% endfor %}' }, 'locales.en.html'],
  ];
  for (const [name, en, param] of cases) {
    await t.test(name, async (t) => {
      const tpl = await create(svc, key, { kind: 'email', name, variables, locales: { en }, publish: true });
      const res = await svc.request('POST', `${BASE}/${tpl.id}/render`, { key, body: { data: { pad } } });
      assertError(t, res, 'IKW-TPL-006', param);
      t.match(res.body.message, /1000000 bytes/);
      const preview = await svc.request('POST', `${BASE}/${tpl.id}/preview`, { key, body: { data: { pad } } });
      assertError(t, preview, 'IKW-TPL-006', param);
    });
  }
  await t.test('the cap counts every field of one render together; under it renders', async (t) => {
    const half = '{% for i in (1..6) %}{{ pad }}{% endfor %}';
    const both = await create(svc, key, { kind: 'email', name: 'Two halves', variables, locales: { en: { subject: 'x', text: half, html: half } }, publish: true });
    assertError(t, await svc.request('POST', `${BASE}/${both.id}/render`, { key, body: { data: { pad } } }), 'IKW-TPL-006', 'locales.en.html');
    const one = await create(svc, key, { kind: 'email', name: 'One half', variables, locales: { en: { subject: 'x', text: half } }, publish: true });
    const ok = await svc.request('POST', `${BASE}/${one.id}/render`, { key, body: { data: { pad } } });
    assertOk(t, ok);
    t.equal(ok.body.text.length, 600_000);
  });
});

t.test('documents are capped at 50 PDF pages: more is 422 IKW-TPL-006', async (t) => {
  const { key } = await svc.sandboxMerchant();
  // Blocks of 50 lines with one Liquid output each: quick to render, long to lay out. About 57 lines
  // fit on an A4 page in 11 pt Helvetica: 36 blocks are about 32 pages, 100 blocks about 88.
  const document = (blocks: number) => ({
    kind: 'invoice',
    name: `${blocks} blocks`,
    variables: { type: 'object', properties: {} },
    locales: { en: { title: 'Statement', text: `{% for i in (1..${blocks}) %}Block {{ i }}\n${'A line of the statement\n'.repeat(49)}{% endfor %}` } },
    publish: true,
  });
  const fits = await create(svc, key, document(36));
  const ok = await svc.request('POST', `${BASE}/${fits.id}/render`, { key, body: { data: {} } });
  assertOk(t, ok);
  t.match(await pdfText(ok.body.pdf), /Block 36/);
  const tooLong = await create(svc, key, document(100));
  const res = await svc.request('POST', `${BASE}/${tooLong.id}/render`, { key, body: { data: {} } });
  assertError(t, res, 'IKW-TPL-006', 'locales.en.text');
  t.match(res.body.message, /50 pages/);
});

t.test('a PDF is laid out off the event loop: another request is answered while a large one is laid out', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const tpl = await create(svc, key, { ...emailTemplate, publish: true });
  // Just under the page cap: the largest document a render may lay out.
  const text = Array.from({ length: 2_800 }, (_, i) => `Line ${i} of a long statement, long enough to take a while to lay out`).join('\n');
  let laidOut = false;
  const layout = renderPdf({ locale: 'en', title: 'Statement', text }, new Date('2026-01-01T00:00:00Z')).then((pdf) => {
    laidOut = true;
    return pdf;
  });
  // Laid out on the event loop, the whole document would be done before this request could even connect.
  const other = await svc.request('GET', `${BASE}/${tpl.id}`, { key });
  assertOk(t, other);
  t.notOk(laidOut, 'the other request was answered before the PDF was done');
  const pdf = await layout;
  t.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  t.match(await pdfText(pdf.toString('base64')), /Line 2799 of a long statement/);
});
