/**
 * The service's documents written by the template engine: the receipt of a paid checkout session
 * as a PDF (Accept: application/pdf), with the built-in receipt template, then with the merchant's
 * own; the PDF is parsed back to read its text.
 */
import { PDFParse } from 'pdf-parse';
import t from '#tap';
import { createSession, payByMobileMoney, snNumber } from '../../support/checkout.js';
import { assertOk, operatorAnswers } from '../../support/payments.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

async function pdfText(res: Response): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(await res.arrayBuffer()) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

const receiptPdf = (sessionId: string) => fetch(`${svc.baseUrl}/api/checkout/${sessionId}/receipt`, { headers: { accept: 'application/pdf' } });

t.test('a paid session’s receipt as a PDF: the built-in template, then the merchant’s', async (t) => {
  const { key } = await svc.sandboxMerchant('Mango stall');
  const s = await createSession(svc, key);
  assertOk(t, await payByMobileMoney(svc, s.id, snNumber('05')));
  await operatorAnswers(svc);

  const json = await svc.request('GET', `/api/checkout/${s.id}/receipt`);
  assertOk(t, json);
  t.equal(json.body.object, 'checkout.receipt', 'JSON unless a PDF is asked for');

  const builtIn = await receiptPdf(s.id);
  t.equal(builtIn.status, 200);
  t.equal(builtIn.headers.get('content-type'), 'application/pdf');
  const text = await pdfText(builtIn);
  t.match(text, /Receipt from Mango stall/);
  t.match(text, /Amount paid: 10000 XOF/);
  t.match(text, new RegExp(`Payment: ${s.paymentIntentId}`));

  const defaults = (await svc.request('GET', '/api/template-engine/defaults', { key })).body.data;
  const receipt = defaults.find((d: { purpose: string }) => d.purpose === 'receipt');
  const created = await svc.request('POST', '/api/template-engine/templates', {
    key,
    body: {
      kind: 'receipt',
      name: 'Our receipt',
      purpose: 'receipt',
      variables: receipt.variables,
      locales: { en: { title: '{{ merchant_name | upcase }} thanks you', text: 'Paid {{ amount }} {{ currency | upcase }} ({{ payment_id }})' } },
      publish: true,
    },
  });
  assertOk(t, created);
  const branded = await pdfText(await receiptPdf(s.id));
  t.match(branded, /MANGO STALL thanks you/);
  t.match(branded, new RegExp(`Paid 10000 XOF \\(${s.paymentIntentId}\\)`));
  t.notMatch(branded, /Receipt from/, 'the built-in one is not used');
});

t.test('a merchant receipt over the limits is not made: the public receipt falls back to the built-in one', async (t) => {
  const { key } = await svc.sandboxMerchant('Long receipts');
  const s = await createSession(svc, key);
  assertOk(t, await payByMobileMoney(svc, s.id, snNumber('05')));
  await operatorAnswers(svc);
  const defaults = (await svc.request('GET', '/api/template-engine/defaults', { key })).body.data;
  const receipt = defaults.find((d: { purpose: string }) => d.purpose === 'receipt');
  const publish = async (text: string) => {
    const created = await svc.request('POST', '/api/template-engine/templates', {
      key,
      body: { kind: 'receipt', name: 'Long receipt', purpose: 'receipt', variables: receipt.variables, locales: { en: { title: 'Our receipt', text } }, publish: true },
    });
    assertOk(t, created);
  };
  // 100 blocks of 50 lines: about 88 pages, past the 50 a document may have (quick to render, long to lay out).
  await publish(`{% for i in (1..100) %}Paid {{ amount }} {{ currency }}, block {{ i }}\n${'A line of the receipt\n'.repeat(49)}{% endfor %}`);
  const pages = await receiptPdf(s.id);
  t.equal(pages.status, 200);
  const text = await pdfText(pages);
  t.match(text, /Receipt from Long receipts/, 'the built-in receipt');
  t.notMatch(text, /block 100/);
  // A hundred thousand lines, about 6 MB: stopped at 1 MB while it renders.
  await publish('{% for i in (1..100000) %}Paid {{ amount }} {{ currency }} for {{ payment_id }}, line {{ i }}\n{% endfor %}');
  const bytes = await receiptPdf(s.id);
  t.equal(bytes.status, 200);
  t.match(await pdfText(bytes), /Receipt from Long receipts/, 'the built-in receipt');
});
