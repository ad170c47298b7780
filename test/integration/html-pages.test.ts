/**
 * Every page the service answers (text/html) carries the one page policy (packages/http/page-policy.ts):
 * a strict Content-Security-Policy that no site may frame (`frame-ancestors 'none'`), nosniff and no
 * referrer. The suite walks every route that declares an HTML answer, so a new page fails it until
 * it is added here, and shows that a page built without the pages' helpers gets the policy too.
 */
import t, { type Test } from '#tap';
import { Reply } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { apiFamilies } from '../../services/api/app.js';
import { openInvoice } from '../support/billing.js';
import { createSession } from '../support/checkout.js';
import { activeCampaign } from '../support/funding.js';
import { card, confirm, createIntent, mobileMoney, snNumber } from '../support/payments.js';
import { startService, type TestService } from '../support/system.js';

/** A page built by hand, as a careless new route might: no Reply.html, no page helper. */
const handMade: RouteGroup = {
  name: 'hand-made-page',
  routes: [
    route({
      method: 'get',
      path: '/test/hand-made-page',
      summary: 'A page built without the page helpers',
      auth: 'public',
      answers: { html: true },
      handler: async () => new Reply('<!doctype html><title>x</title><p style="color:red">hi</p>', { contentType: 'text/html; charset=utf-8', headers: { 'X-Content-Type-Options': 'sniff-away' } }),
    }),
  ],
};

const svc = await startService(t, { families: () => [handMade] });
const { key, merchant } = await svc.sandboxMerchant('Pages shop');

const html = { accept: 'text/html' };
const form = { ...html, 'content-type': 'application/x-www-form-urlencoded' };
const fetchPage = (svc: TestService, method: string, path: string, headers: Record<string, string> = html, body?: string) => fetch(`${svc.baseUrl}${path}`, { method, headers, redirect: 'manual', ...(body !== undefined ? { body } : {}) });

/** How to get each HTML route to answer a page: `METHOD /route/pattern` → the request. */
const pages: Record<string, () => Promise<Response>> = {
  'GET /checkout/session/:sessionId': async () => fetchPage(svc, 'GET', `/checkout/session/${(await createSession(svc, key)).id}`),
  // The form without an operator: the page again, with the reason.
  'POST /checkout/session/:sessionId/pay': async () => fetchPage(svc, 'POST', `/checkout/session/${(await createSession(svc, key)).id}/pay`, form, 'PaymentMethod=mobile_money'),
  'GET /pay/:slug': () => fetchPage(svc, 'GET', '/pay/NoSuchLink012345'),
  'GET /portal/:environment/:merchantId': () => fetchPage(svc, 'GET', `/portal/sandbox/${merchant.id}`),
  'POST /portal/:environment/:merchantId/sign-in': () => fetchPage(svc, 'POST', `/portal/sandbox/${merchant.id}/sign-in`, form, 'Email=customer%40pages.example'),
  'POST /portal/:environment/:merchantId/verify': async () => {
    const signIn = await (await fetchPage(svc, 'POST', `/portal/sandbox/${merchant.id}/sign-in`, form, 'Email=customer%40pages.example')).text();
    const challengeId = /name="ChallengeId" value="([0-9a-f-]{36})"/.exec(signIn)![1]!;
    return fetchPage(svc, 'POST', `/portal/sandbox/${merchant.id}/verify`, form, `ChallengeId=${challengeId}&Code=000000`);
  },
  'GET /funding/:slug': async () => fetchPage(svc, 'GET', `/funding/${(await activeCampaign(svc, key)).slug}`),
  // The form without an amount: the page again, with the reason.
  'POST /funding/:slug/contribute': async () => fetchPage(svc, 'POST', `/funding/${(await activeCampaign(svc, key)).slug}/contribute`, form, 'Name=Awa'),
  'GET /hosted/invoices/:id': async () => {
    const product = await svc.request('POST', '/api/v1/merchant/products', { key, body: { name: 'Mangoes', prices: [{ currency: 'xof', unit_amount: 2_500 }] } });
    const invoice = await openInvoice(svc, key, { customer_email: 'buyer@pages.example', items: [{ price: product.body.prices[0].id }] });
    return fetchPage(svc, 'GET', `/hosted/invoices/${invoice.id}`);
  },
  // A paid invoice's Pay button: the invoice's page again, saying it takes no more payments.
  'POST /hosted/invoices/:id/pay': async () => {
    const invoice = await openInvoice(svc, key, { customer_email: 'payer@pages.example', currency: 'xof', amount_due: 1_000 });
    await svc.request('PATCH', `/api/v1/merchant/invoices/${invoice.id}/status`, { key, body: { status: 'paid' } });
    return fetchPage(svc, 'POST', `/hosted/invoices/${invoice.id}/pay`, form, '');
  },
  'GET /operations/status/:operationId': async () => {
    const intent = await createIntent(svc, key);
    const confirmed = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) });
    return fetchPage(svc, 'GET', `/operations/status/${confirmed.body.latest_operation}`);
  },
  'GET /sandbox/3ds/:operationId': async () => {
    const intent = await createIntent(svc, key);
    const confirmed = await confirm(svc, key, intent.id, { payment_method: card('tok_3ds_required') });
    return fetchPage(svc, 'GET', new URL(confirmed.body.next_action.redirect_to_url.url).pathname);
  },
  'GET /test/hand-made-page': () => fetchPage(svc, 'GET', '/test/hand-made-page'),
};

function assertPolicy(t: Test, res: Response, what: string): void {
  t.match(res.headers.get('content-type'), /^text\/html/i, `${what}: a page`);
  const csp = res.headers.get('content-security-policy') ?? '';
  t.match(csp, /^default-src 'none';/, `${what}: nothing loads unless named`);
  t.match(csp, /(^|; )frame-ancestors 'none'(;|$)/, `${what}: no site may frame it`);
  t.match(csp, /(^|; )base-uri 'none'(;|$)/, `${what}: no <base> moves its links`);
  t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, `${what}: nothing unsafe`);
  t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  t.equal(res.headers.get('referrer-policy'), 'no-referrer', `${what}: no referrer`);
}

t.test('every route that answers a page answers it with the page policy', async (t) => {
  const families = [...apiFamilies(svc.system), handMade];
  const htmlRoutes = families.flatMap((f) => f.routes.filter((r) => r.answers?.html).map((r) => `${r.method.toUpperCase()} ${r.path}`));
  t.same([...htmlRoutes].sort(), Object.keys(pages).sort(), 'this suite knows how to get a page from each of them');
  for (const [name, request] of Object.entries(pages)) {
    const res = await request();
    await res.arrayBuffer();
    assertPolicy(t, res, name);
  }
});

t.test('the page policy cannot be loosened by the page, and its own allowances stay narrow', async (t) => {
  const handMadePage = await fetchPage(svc, 'GET', '/test/hand-made-page');
  t.equal(handMadePage.headers.get('x-content-type-options'), 'nosniff', "a page's own header does not override the policy");
  t.match(handMadePage.headers.get('content-security-policy'), /script-src 'none'; style-src 'none'/, 'a page that names no hash may run and style nothing inline');
  const checkout = await fetchPage(svc, 'GET', `/checkout/session/${(await createSession(svc, key)).id}`);
  t.match(checkout.headers.get('content-security-policy'), /style-src 'sha256-[A-Za-z0-9+/=]+'/, "the hosted pages' style sheet, by its hash");
  t.match(checkout.headers.get('content-security-policy'), /form-action 'self' https:\/\/shop\.example(;|$)/, "and the merchant's return site as a form target");
  const intent = await createIntent(svc, key);
  const operation = (await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) })).body.latest_operation;
  const json = await svc.request('GET', `/operations/status/${operation}`, { headers: { accept: 'application/json' } });
  t.equal(json.body.object, 'operation');
  t.equal(json.headers.get('content-security-policy'), null, 'the same route answering JSON carries no page policy');
});
