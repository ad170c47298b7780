/**
 * An invoice that reaches its customer (docs/billing.md, "Sending and the hosted invoice page"):
 * sent by e-mail from "<merchant> via Sika" with its link, shown in the customer's language with
 * amounts formatted and its number, paid on the checkout session payment links use (one session
 * per invoice, one payment in flight at a time), and a receipt e-mailed once it is paid. A real
 * SMTP server on loopback shows what left; the sandbox rail pays.
 */
import t from '#tap';
import { invoiceNumber } from '#packages/families/billing/invoice/commands.js';
import { createInvoice, openInvoice } from '../../support/billing.js';
import { assertError, assertOk, mobileMoney, operatorAnswers, rawRequest, snNumber } from '../../support/payments.js';
import { startService, type TestService } from '../../support/system.js';
import { mailsTo as rawMailsTo, startSmtp, type Mail } from '../../support/webhooks.js';

/** The mails to `to`, their quoted-printable text decoded (UTF-8). */
const mailsTo = (mails: readonly Mail[], to: string) =>
  rawMailsTo(mails, to).map((raw) =>
    Buffer.from(
      raw.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8'),
  );

const smtp = await startSmtp(t);
const svc = await startService(t, { env: { SMTP_URL: smtp.url } });

/** A sandbox merchant whose customer is a verified address of its team (a sandbox merchant's mail reaches only its team). */
async function shop(svc: TestService, name: string, email: string) {
  const { merchant, key } = await svc.sandboxMerchant(name);
  const member = await svc.member(merchant, email, 'correct horse battery');
  await svc.system.accounts.verifyContact(member, 'email', email, { actor: 'test' });
  return { merchant, key };
}

const form = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
const post = (path: string, body = '', headers: Record<string, string> = form) => fetch(`${svc.baseUrl}${path}`, { method: 'POST', headers, body, redirect: 'manual' });

t.test('send: a draft is finalized and e-mailed from "<merchant> via Sika" in the language asked, with its link', async (t) => {
  const { key } = await shop(svc, 'Boutique Awa', 'awa@boutique.example');
  const draft = await createInvoice(svc, key, { customer_email: 'awa@boutique.example', currency: 'xof', amount_due: 25_000, description: 'Tissu wax' });
  t.equal(draft.status, 'draft');
  const before = smtp.mails.length;
  const sent = await svc.request('POST', `/api/v1/merchant/invoices/${draft.id}/send`, { key, body: { language: 'fr' } });
  assertOk(t, sent);
  t.equal(sent.body.status, 'open', 'sending finalizes a draft');
  const mails = mailsTo(smtp.mails.slice(before), 'awa@boutique.example');
  t.equal(mails.length, 1);
  const mail = mails[0]!;
  t.match(mail, /^From: "?Boutique Awa via Sika"? <merchants@sika\.invalid>/m);
  t.match(mail, new RegExp(`Subject: .*${invoiceNumber(draft.id)}`), 'the subject names the invoice number');
  t.match(mail, /25\s000\sF\sCFA/u, 'the amount in French');
  t.ok(mail.includes(`/hosted/invoices/${draft.id}?lang=fr`), 'the link opens the page in French');

  const stranger = await svc.sandboxMerchant('Stranger');
  assertError(t, await svc.request('POST', `/api/v1/merchant/invoices/${draft.id}/send`, { key: stranger.key, body: {} }), 'IKW-RES-001', 'id');
  await svc.request('PATCH', `/api/v1/merchant/invoices/${draft.id}/status`, { key, body: { status: 'void' } });
  assertError(t, await svc.request('POST', `/api/v1/merchant/invoices/${draft.id}/send`, { key, body: {} }), 'IKW-BIL-009', 'id');
});

t.test('the hosted page: number, merchant, formatted amounts, the customer’s language, the PDF and a Pay button', async (t) => {
  const { key } = await shop(svc, 'Mango stall', 'mango@stall.example');
  const product = await svc.request('POST', '/api/v1/merchant/products', { key, body: { name: 'Mangues', prices: [{ currency: 'xof', unit_amount: 12_500 }] } });
  const inv = await openInvoice(svc, key, { customer_email: 'mango@stall.example', items: [{ price: product.body.prices[0].id, quantity: 2 }] });
  const fr = await rawRequest(svc, 'GET', `/hosted/invoices/${inv.id}?lang=fr`);
  t.equal(fr.status, 200);
  t.match(fr.text, new RegExp(`<title>Facture ${invoiceNumber(inv.id)} · Mango stall</title>`));
  t.notMatch(fr.text, new RegExp(`<h1[^>]*>[^<]*${inv.id}`), 'not titled with the raw id');
  t.match(fr.text, /<html lang="fr">/);
  t.match(fr.text, /Qté/);
  t.match(fr.text, /25\s000\sF\sCFA/);
  t.match(fr.text, /id="pay">Payer 25\s000\sF\sCFA/);
  t.match(fr.text, /<option value="SN">Sénégal<\/option>/, 'the payer picks the country of their account, named in their language');
  const en = await rawRequest(svc, 'GET', `/hosted/invoices/${inv.id}`, { 'accept-language': 'en-US' });
  t.match(en.text, /F\sCFA\s25,000/);
  t.match(en.text, /<td>Mangues<br>/, 'a line is named by its product');
  t.match(en.text, /class="num">Qty</, 'Qty in a cell that does not wrap');
  const pdf = await fetch(`${svc.baseUrl}/hosted/invoices/${inv.id}/pdf`);
  t.equal(pdf.status, 200);
  t.equal(pdf.headers.get('content-type'), 'application/pdf');
  t.equal((await pdf.arrayBuffer()).byteLength > 500, true);
});

t.test('pay: one checkout session per invoice; its success pays the invoice once and e-mails a receipt', async (t) => {
  const { key } = await shop(svc, 'Tailleur', 'client@tailleur.example');
  const inv = await openInvoice(svc, key, { customer_email: 'client@tailleur.example', currency: 'xof', amount_due: 10_000 });
  const first = await post(`/hosted/invoices/${inv.id}/pay?lang=fr`, 'Country=SN');
  t.equal(first.status, 303);
  const location = first.headers.get('location')!;
  t.match(location, /^\/checkout\/session\/cs_\w+$/);
  t.equal((await post(`/hosted/invoices/${inv.id}/pay`, 'Country=SN')).headers.get('location'), location, 'another click (or browser) lands on the same session');

  const before = smtp.mails.length;
  const paid = await post(`${location}/pay`, `PaymentMethod=mobile_money&Operator=orange_money&PhoneNumber=${encodeURIComponent(snNumber('67'))}`);
  t.equal(paid.status, 303);
  await operatorAnswers(svc);
  await svc.system.drain();
  const invoice = (await svc.request('GET', `/api/v1/merchant/invoices/${inv.id}`, { key })).body;
  t.match(invoice, { status: 'paid', amount_paid: 10_000, amount_remaining: 0 });
  const receipts = mailsTo(smtp.mails.slice(before), 'client@tailleur.example');
  t.equal(receipts.length, 1, 'one receipt');
  t.match(receipts[0]!, /Merci : Tailleur a reçu 10\s000\sF\sCFA pour la facture/u, 'in the payer’s language');
  t.ok(receipts[0]!.includes(invoice.payment_intent), 'its reference is the payment');

  // The success page (any visitor but the browser that paid, which is sent back to the invoice): a receipt.
  const success = await rawRequest(svc, 'GET', location, { accept: 'text/html', 'accept-language': 'fr' });
  t.equal(success.status, 200);
  t.match(success.text, /<dd id="receipt-amount">10\s000\sF\sCFA<\/dd>/u, 'the amount');
  t.match(success.text, /<dd id="receipt-method">Orange Money ••4567<\/dd>/, 'the method');
  t.match(success.text, /<dt>Payé à<\/dt><dd>Tailleur<\/dd>/, 'the merchant');
  t.match(success.text, new RegExp(`<dd id="receipt-reference">${invoice.payment_intent}</dd>`), "the reference: the payment's id");
  const found = (await svc.request('GET', `/api/v1/payment-intents?q=${invoice.payment_intent}`, { key })).body.data;
  t.same(
    found.map((p: { id: string }) => p.id),
    [invoice.payment_intent],
    "the merchant's search finds the payment by the receipt's reference",
  );
  const search = async (q: string) => (await svc.request('GET', `/api/v1/payment-intents?q=${encodeURIComponent(q)}`, { key })).body.data.map((p: { id: string }) => p.id);
  t.same(await search('4567'), [invoice.payment_intent], "by the payer's number's last digits");
  t.same(await search('CLIENT@tailleur.example'), [invoice.payment_intent], "by the customer's e-mail");
  t.same(await search('9999'), [], 'another number finds nothing');

  const again = await post(`/hosted/invoices/${inv.id}/pay`);
  t.equal(again.status, 409, 'a paid invoice opens no session');
  t.match(await again.text(), /id="paid" role="status">Paid on/, 'the page says it is paid');
  await svc.system.drain();
  t.equal(mailsTo(smtp.mails.slice(before), 'client@tailleur.example').length, 1, 'still one receipt');
});

t.test('a payment of the invoice in flight elsewhere refuses a checkout attempt (IKW-BIL-012): money moves once', async (t) => {
  const { key } = await shop(svc, 'Menuisier', 'client@menuisier.example');
  const inv = await openInvoice(svc, key, { customer_email: 'client@menuisier.example', currency: 'xof', amount_due: 5_000 });
  const api = await svc.request('POST', `/api/v1/billing/invoices/${inv.id}/confirm`, { key, body: { paymentMethod: { type: 'mobile_money', mobileMoney: { country: 'SN', operator: 'orange_money', msisdn: snNumber('03') } } } });
  assertOk(t, api);
  t.equal(api.body.paymentIntent.status, 'processing');
  const session = (await post(`/hosted/invoices/${inv.id}/pay`, 'Country=SN')).headers.get('location')!;
  const refused = await svc.request('POST', `${session}/pay`, { body: { Operator: 'orange_money', PhoneNumber: snNumber('05') } });
  assertError(t, refused, 'IKW-BIL-012', 'invoiceId');
  const intents = (await svc.request('GET', `/api/v1/payment-intents?status=processing`, { key })).body.data;
  t.equal(intents.length, 1, 'only the first payment is with the operator');
  void mobileMoney;
});

t.test('card: an NGN invoice is paid by card on the same checkout path, through the card page', async (t) => {
  const { key } = await shop(svc, 'Lagos prints', 'ada@prints.example');
  const inv = await openInvoice(svc, key, { customer_email: 'ada@prints.example', currency: 'ngn', amount_due: 1_500_000 });
  const opened = await post(`/hosted/invoices/${inv.id}/pay`, 'Country=NG');
  t.equal(opened.status, 303);
  const location = opened.headers.get('location')!;
  const session = await rawRequest(svc, 'GET', location, { accept: 'text/html', 'accept-language': 'en' });
  t.match(session.text, /id="pay-card"[^>]*>Pay by card NGN\s?15,000\.00/, 'a card button, with the amount');
  t.notMatch(session.text, /name="Operator"/, 'no mobile money form: Nigeria has no operator carried');
  const cardPage = await post(`${location}/pay`, 'PaymentMethod=card');
  t.equal(cardPage.status, 303);
  const cardUrl = new URL(cardPage.headers.get('location')!, svc.baseUrl);
  t.match(cardUrl.pathname, /^\/sandbox\/3ds\/op_\w+$/, "the provider's card page (the sandbox's stand-in for Paystack's checkout)");
  const waiting = await rawRequest(svc, 'GET', location, { accept: 'text/html' });
  t.match(waiting.text, new RegExp(`id="card-page">Continue on the card page`), 'the session page leads back to the card page while it waits');

  const before = smtp.mails.length;
  const back = await post(`${cardUrl.pathname}/complete`);
  t.equal(back.status, 303, 'the card page sends the payer back');
  await svc.system.drain();
  const invoice = (await svc.request('GET', `/api/v1/merchant/invoices/${inv.id}`, { key })).body;
  t.match(invoice, { status: 'paid', amount_paid: 1_500_000, amount_remaining: 0 });
  const intent = (await svc.request('GET', `/api/v1/payment-intents/${invoice.payment_intent}`, { key })).body;
  t.match(intent, { status: 'succeeded', payment_method: { type: 'card' }, metadata: { invoice_id: inv.id } });
  t.equal(mailsTo(smtp.mails.slice(before), 'ada@prints.example').length, 1, 'a receipt');

  // XOF: no rail carries its cards, so its session offers mobile money only.
  const xof = await openInvoice(svc, key, { customer_email: 'ada@prints.example', currency: 'xof', amount_due: 2_000 });
  const xofSession = (await post(`/hosted/invoices/${xof.id}/pay`, 'Country=SN')).headers.get('location')!;
  const xofPage = await rawRequest(svc, 'GET', xofSession, { accept: 'text/html' });
  t.match(xofPage.text, /name="Operator"/);
  t.notMatch(xofPage.text, /pay-card/);
  assertError(t, await svc.request('POST', `${xofSession}/pay`, { body: { PaymentMethod: 'card' } }), 'IKW-CHK-004', 'PaymentMethod');
});
