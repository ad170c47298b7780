/**
 * Statements' download links and the finance team's statements of any merchant, through the real
 * server on a fresh database and a manual clock (docs/statements.md, "Download links" and "The
 * operator's"): a link gives the CSV or the PDF with no credential for a day, and nothing once
 * expired or altered; an operator of finance makes, lists and links a merchant's statement, which
 * the merchant lists among its own; other roles and merchant credentials are refused.
 */
import { randomUUID } from 'node:crypto';
import { PDFParse } from 'pdf-parse';
import t from '#tap';
import { runLedger } from '#packages/families/ledger/commands.js';
import { postPayment, settleDue } from '#packages/families/payments/payment-intent/postings.js';
import type { LedgerAction } from '#packages/ledger/decider.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { operatorSession } from '../../support/operators.js';
import { startService } from '../../support/system.js';

const DAY = 86_400_000;
const svc = await startService(t);

async function post(merchantId: string, action: LedgerAction): Promise<void> {
  await runLedger({ ledger: svc.system.ledger, store: svc.system.store, clock: svc.clock }, merchantId, 'sandbox', 'xof', action, {
    merchant_id: merchantId,
    environment: 'sandbox',
    actor: 'test',
    occurred_at: svc.clock.now().toISOString(),
  });
}

/** A merchant with 10,000 XOF paid (300 of fee) and settled last month, and its statement of that month. */
async function merchantWithStatement(name: string) {
  const { merchant, key } = await svc.sandboxMerchant(name);
  await post(merchant.id, postPayment({ source: `pi_test_${randomUUID().replace(/-/g, '')}`, clearing: 'operator_clearing:wave', amount: 10_000, fee: 300, availableOn: svc.clock.now() }));
  await post(merchant.id, settleDue());
  const now = svc.clock.now();
  svc.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) + DAY));
  const res = await svc.request('POST', '/api/v1/statements', { key, body: { currency: 'xof' } });
  assertOk(t, res);
  return { merchant, key, statement: res.body as { id: string; closing: { total: number } } };
}

/** The file a link's url gives, with no credential at all. */
const open = (url: string) => fetch(`${svc.baseUrl}${url}`);

async function pdfText(answer: Response): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(await answer.arrayBuffer()) });
  try {
    return (await parser.getText()).text.replace(/\s+/g, ' ');
  } finally {
    await parser.destroy();
  }
}

t.test('a download link gives the file with no credential for a day, then nothing', async (t) => {
  const { key, statement } = await merchantWithStatement('Link merchant');
  const csvLink = await svc.request('POST', `/api/v1/statements/${statement.id}/download_link`, { key, body: { format: 'csv' } });
  assertOk(t, csvLink);
  t.match(csvLink.body, { object: 'statement_download_link', statement: statement.id, format: 'csv', url: /^\/api\/v1\/statement-files\/[\w-]+\.[\w-]+$/, expires_at: Math.floor(svc.clock.now().getTime() / 1000) + 86_400 });
  const csv = await open(csvLink.body.url);
  t.equal(csv.status, 200);
  t.match(csv.headers.get('content-type'), /^text\/csv/);
  const withKey = await svc.request('GET', `/api/v1/statements/${statement.id}/csv`, { key });
  t.equal(await csv.text(), withKey.text, 'the same CSV as read with the key');

  const pdfLink = await svc.request('POST', `/api/v1/statements/${statement.id}/download_link`, { key, body: { format: 'pdf', lang: 'fr' } });
  assertOk(t, pdfLink);
  const pdf = await open(pdfLink.body.url);
  t.equal(pdf.status, 200);
  t.equal(pdf.headers.get('content-type'), 'application/pdf');
  const text = await pdfText(pdf);
  t.match(text, /Relevé — Link merchant/, 'in the language the link was made for');
  t.match(text, /9 700/);

  // A character changed anywhere: no file, and the same answer as for a link that never was.
  const token = csvLink.body.url.split('/').pop()!;
  for (const altered of [`${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`, token.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')), 'x.y', 'nothing']) {
    assertError(t, await svc.request('GET', `/api/v1/statement-files/${altered}`), 'IKW-STM-001');
  }
  svc.clock.advance(DAY - 1_000);
  t.equal((await open(csvLink.body.url)).status, 200, 'still good a second before the day is out');
  svc.clock.advance(1_000);
  assertError(t, await svc.request('GET', csvLink.body.url), 'IKW-STM-001'); // expired after a day
});

t.test("links: refusals, another merchant's statement, a pending one", async (t) => {
  const { key, statement } = await merchantWithStatement('Mine');
  const other = await svc.sandboxMerchant('Theirs');
  assertError(t, await svc.request('POST', `/api/v1/statements/${statement.id}/download_link`, { key: other.key, body: { format: 'csv' } }), 'IKW-RES-001');
  assertError(t, await svc.request('POST', `/api/v1/statements/${statement.id}/download_link`, { key, body: { format: 'xls' } }), 'IKW-VAL-001', 'format');
  assertError(t, await svc.request('POST', `/api/v1/statements/${statement.id}/download_link`, { key, body: { format: 'pdf', lang: 'de' } }), 'IKW-VAL-001', 'lang');
  assertError(t, await svc.request('POST', `/api/v1/statements/${statement.id}/download_link`, { key, body: {} }), 'IKW-VAL-001', 'format');
  const start = Date.UTC(2020, 0, 1);
  const long = await svc.request('POST', '/api/v1/statements', { key, body: { currency: 'xof', from: new Date(start).toISOString().slice(0, 10), to: new Date(start + 200 * DAY).toISOString().slice(0, 10) } });
  assertOk(t, long);
  t.equal(long.body.status, 'pending');
  assertError(t, await svc.request('POST', `/api/v1/statements/${long.body.id}/download_link`, { key, body: { format: 'csv' } }), 'IKW-RES-002');
});

t.test("the finance team makes, lists and links any merchant's statement", async (t) => {
  const { merchant, key } = await merchantWithStatement('Operated merchant');
  const finance = await operatorSession(svc, 'finance');
  const base = `/api/v1/operator/merchants/${merchant.id}/statements`;
  const made = await svc.request('POST', base, { key: finance.token, body: { currency: 'xof', environment: 'sandbox' } });
  assertOk(t, made);
  t.match(made.body, { object: 'statement', status: 'ready', currency: 'xof', livemode: false, closing: { total: 9_700 } });

  const merchantList = await svc.request('GET', '/api/v1/statements', { key });
  t.ok(
    merchantList.body.data.some((s: { id: string }) => s.id === made.body.id),
    'the merchant lists it among its own',
  );
  const operatorList = await svc.request('GET', `${base}?environment=sandbox`, { key: finance.token });
  assertOk(t, operatorList);
  t.equal(operatorList.body.data[0].id, made.body.id, 'newest first');
  t.same((await svc.request('GET', base, { key: finance.token })).body.data, [], 'live by default: none there');

  const link = await svc.request('POST', `${base}/${made.body.id}/download_link`, { key: finance.token, body: { format: 'pdf', environment: 'sandbox' } });
  assertOk(t, link);
  const pdf = await open(link.body.url);
  t.equal(pdf.status, 200);
  t.match(await pdfText(pdf), /Statement — Operated merchant/);
  const events = await svc.system.store.readStream(`statement-${made.body.id}`);
  t.equal(events[0]?.metadata.actor, `operator:${finance.operatorId}`, 'the operator is the actor');

  assertError(t, await svc.request('POST', `${base}/${made.body.id}/download_link`, { key: finance.token, body: { format: 'pdf' } }), 'IKW-RES-001'); // not a statement of live
  assertError(t, await svc.request('POST', '/api/v1/operator/merchants/acct_000000000000000000000000/statements', { key: finance.token, body: { currency: 'xof' } }), 'IKW-RES-001', 'merchantId');
  const reviewer = await operatorSession(svc, 'reviewer');
  assertError(t, await svc.request('POST', base, { key: reviewer.token, body: { currency: 'xof' } }), 'IKW-OPR-001');
  assertError(t, await svc.request('GET', base, { key: reviewer.token }), 'IKW-OPR-001');
  const admin = await operatorSession(svc, 'admin');
  assertOk(t, await svc.request('GET', base, { key: admin.token }));
  t.equal((await svc.request('GET', base, { key })).status, 404, "a merchant's key finds no operator route");
});

t.test('projections verify', async (t) => {
  t.same(await svc.system.verifyProjections(['statements']), []);
});
