/**
 * Helpers of the checkout suites: payment links and checkout sessions made through the API, the
 * hosted form sent as a browser sends it, and the session's status as its page polls it.
 */
import type { TestResponse, TestService } from './system.js';

export { snNumber } from './payments.js';

export const SUCCESS_URL = 'https://shop.example/thanks';
export const CANCEL_URL = 'https://shop.example/cart';

/** Creates a payment link (XOF 5,000 in Senegal unless told otherwise) and returns the object. */
export async function createLink(svc: TestService, key: string, body: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/v1/payment_links', { key, body: { amount: 5_000, currency: 'XOF', country: 'SN', description: 'Basket of mangoes', ...body } });
  if (res.status !== 200) throw new Error(`payment link create failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Opens a session (XOF 10,000 in Senegal, success and cancel URLs, unless told otherwise) and returns the object. */
export async function createSession(svc: TestService, key: string, body: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/v1/checkout/sessions', {
    key,
    body: { amount: 10_000, currency: 'XOF', country: 'SN', successUrl: SUCCESS_URL, cancelUrl: CANCEL_URL, ...body },
  });
  if (res.status !== 200) throw new Error(`session create failed: ${res.status} ${res.text}`);
  return res.body;
}

/** GET /pay/{slug} without following the redirect: the session id it opened, or the answer. */
export async function openLink(svc: TestService, slug: string, accept = 'application/json'): Promise<{ status: number; sessionId: string | null; text: string; headers: Headers }> {
  const res = await fetch(`${svc.baseUrl}/pay/${slug}`, { redirect: 'manual', headers: { accept } });
  const location = res.headers.get('location') ?? '';
  return { status: res.status, sessionId: /\/checkout\/session\/(cs_\w+)$/.exec(location)?.[1] ?? null, text: await res.text(), headers: res.headers };
}

/** The page API's pay with a Senegalese Orange Money number. */
export function payByMobileMoney(svc: TestService, sessionId: string, msisdn: string, operator = 'orange_money'): Promise<TestResponse> {
  return svc.request('POST', `/api/checkout/${sessionId}/pay`, { body: { payment_method: { type: 'mobile_money', mobile_money: { operator, msisdn } } } });
}

/** The hosted page's form, as a browser posts it (urlencoded, asking for HTML), without following the redirect. */
export async function postForm(svc: TestService, sessionId: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.baseUrl}/checkout/session/${sessionId}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,application/xhtml+xml,*/*;q=0.8', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), headers: res.headers, text: await res.text() };
}

/** The `name=value` of the cookie an answer sets (the hosted form's mark of the browser that paid or canceled), or null. */
export function cookieSet(headers: Headers): string | null {
  return headers.get('set-cookie')?.split(';')[0] ?? null;
}

/** GET the hosted page as a browser does, with `cookie` when given, without following a redirect. */
export async function getPage(svc: TestService, sessionId: string, cookie?: string | null) {
  const res = await fetch(`${svc.baseUrl}/checkout/session/${sessionId}`, { redirect: 'manual', headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

export async function sessionStatus(svc: TestService, sessionId: string) {
  const res = await svc.request('GET', `/api/checkout/${sessionId}/status`);
  if (res.status !== 200) throw new Error(`status failed: ${res.status} ${res.text}`);
  return res.body;
}
