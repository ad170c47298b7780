/**
 * The customer portal's settings against the real server: GET/PATCH
 * /api/v1/merchant/settings/customer-portal (defaults, changes, refusals, one merchant's and one
 * environment's own, idempotent), and the portal honouring each: a customer who may not cancel a
 * subscription (API, hosted page and its form), nor change their details; the link back to the
 * merchant's site on its pages.
 */
import t, { type Test } from '#tap';
import { portalCodeSentTo, portalSignIn } from '../../support/customer-portal.js';
import { createProduct, createSubscription } from '../../support/billing.js';
import { assertError, assertOk } from '../../support/payments.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const { merchant, key } = await svc.sandboxMerchant('Mango stall');
const other = await svc.sandboxMerchant('Other stall');
const PATH = '/api/v1/merchant/settings/customer-portal';
const portalPath = `/portal/sandbox/${merchant.id}`;

const settings = (as = key) => svc.request('GET', PATH, { key: as });
const change = (body: unknown, as = key, headers: Record<string, string> = {}) => svc.request('PATCH', PATH, { key: as, body, headers });

// Awa subscribes; she signs in to the portal with the code the outbox keeps (no SMTP here).
const product = await createProduct(svc, key);
const customer = (await svc.request('POST', '/api/v1/merchant/customers', { key, body: { email: 'awa@example.com', name: 'Awa' } })).body;
const subscription = await createSubscription(svc, key, { customer: customer.id, items: [{ price: product.prices[0].id }] });

const lastCode = (email: string) => portalCodeSentTo(svc, email);

/** A portal token of the API (Bearer cps_…). */
const signIn = (t: Test, email = 'awa@example.com') => portalSignIn(t, svc, merchant.id, email);

/** The hosted page's cookie, signed in through its forms as a browser is. */
async function signInToPage(email = 'awa@example.com'): Promise<string> {
  const form = (path: string, fields: Record<string, string>) =>
    fetch(`${svc.baseUrl}${portalPath}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: new URLSearchParams(fields).toString() });
  const codePage = await (await form('/sign-in', { Email: email })).text();
  const challengeId = /name="ChallengeId" value="([^"]+)"/.exec(codePage)?.[1];
  const verified = await form('/verify', { ChallengeId: challengeId!, Code: await lastCode(email) });
  return verified.headers.get('set-cookie')!.split(';')[0]!;
}

const page = async (cookie?: string) => (await fetch(`${svc.baseUrl}${portalPath}`, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } })).text();

t.test('GET: the defaults (every feature on), and the portal’s link', async (t) => {
  const res = await settings();
  assertOk(t, res);
  t.same(res.body, {
    object: 'customer_portal_settings',
    livemode: false,
    url: `${svc.system.config.publicUrl}/portal/sandbox/${merchant.id}`,
    subscription_cancel: true,
    customer_update: true,
    return_url: null,
    updated: null,
  });
  t.match((await settings(merchant.api_keys.live)).body, { livemode: true, url: `${svc.system.config.publicUrl}/portal/live/${merchant.id}` }, 'live has its own link');
});

t.test('PATCH: what changes, and the portal honours it at once', async (t) => {
  const token = await signIn(t);
  const cookie = await signInToPage();
  t.match(await page(cookie), /Cancel at the end of the period/, 'before: the customer may cancel');
  t.notMatch(await page(cookie), /id="return"/, 'and no link back without a return URL');

  const res = await change({ subscription_cancel: false, customer_update: false, return_url: 'https://shop.example/account' });
  assertOk(t, res);
  t.match(res.body, { subscription_cancel: false, customer_update: false, return_url: 'https://shop.example/account', updated: Math.floor(svc.clock.now().getTime() / 1000) });
  t.same((await settings()).body, res.body, 'GET answers the same');

  // The API: cancel and detail changes refused; resuming and reading are not.
  const patchSubscription = (cancelAtPeriodEnd: boolean) => svc.request('PATCH', `/api/v1/customer-portal/subscriptions/${subscription.id}`, { headers: { authorization: `Bearer ${token}` }, body: { cancelAtPeriodEnd } });
  assertError(t, await patchSubscription(true), 'IKW-CPT-003', 'cancelAtPeriodEnd');
  assertOk(t, await patchSubscription(false));
  t.match((await svc.request('GET', `/api/v1/merchant/subscriptions/${subscription.id}`, { key })).body, { cancel_at_period_end: false }, 'the subscription still renews');
  assertError(t, await svc.request('PATCH', '/api/v1/customer-portal/me', { headers: { authorization: `Bearer ${token}` }, body: { name: 'Awa Diop' } }), 'IKW-CPT-003', null);
  t.match((await svc.request('GET', `/api/v1/merchant/customers/${customer.id}`, { key })).body, { name: 'Awa' }, 'the name is unchanged');

  // The hosted page: no cancel button, a link back; its form refuses a crafted cancel.
  const html = await page(cookie);
  t.notMatch(html, /Cancel at the end of the period/, 'no cancel button');
  t.match(html, /<a id="return" href="https:\/\/shop\.example\/account">Back to Mango stall<\/a>/, 'the link back to the merchant');
  t.match(await page(), /<a id="return" href="https:\/\/shop\.example\/account">/, 'on the sign-in page too');
  const crafted = await fetch(`${svc.baseUrl}${portalPath}/subscriptions/${subscription.id}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: 'CancelAtPeriodEnd=true',
  });
  t.equal(crafted.status, 403);
  t.match(await crafted.json(), { code: 'IKW-CPT-003', param: 'CancelAtPeriodEnd' });

  // Back on: the customer may again.
  assertOk(t, await change({ subscription_cancel: true, customer_update: true, return_url: null }));
  t.match(await patchSubscription(true), { status: 200, body: { cancel_at_period_end: true } });
  assertOk(t, await svc.request('PATCH', '/api/v1/customer-portal/me', { headers: { authorization: `Bearer ${token}` }, body: { name: 'Awa Diop' } }));
  t.notMatch(await page(cookie), /id="return"/, 'null removes the link back');
  t.match(await page(cookie), /Keep my subscription/);
  const kept = await fetch(`${svc.baseUrl}${portalPath}/subscriptions/${subscription.id}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: 'CancelAtPeriodEnd=false',
  });
  t.equal(kept.status, 303, "the page's form: back to the portal");
  t.match((await svc.request('GET', `/api/v1/merchant/subscriptions/${subscription.id}`, { key })).body, { cancel_at_period_end: false }, 'the customer kept the subscription by the form');
});

t.test('PATCH: refusals', async (t) => {
  assertError(t, await change({}), 'IKW-VAL-001');
  assertError(t, await change({ colour: 'red' }), 'IKW-VAL-002', 'colour');
  assertError(t, await change({ subscription_cancel: 'no' }), 'IKW-VAL-001', 'subscription_cancel');
  assertError(t, await change({ return_url: 'javascript:alert(1)' }), 'IKW-VAL-001', 'return_url');
  assertError(t, await change({ return_url: `https://shop.example/${'a'.repeat(2048)}` }), 'IKW-VAL-001', 'return_url');
  const readOnly = await svc.apiKey(merchant.id, ['billing.read']);
  assertOk(t, await settings(readOnly.secret));
  assertError(t, await change({ customer_update: false }, readOnly.secret), 'IKW-AUT-004');
  const payoutsOnly = await svc.apiKey(merchant.id, ['payouts.read']);
  assertError(t, await settings(payoutsOnly.secret), 'IKW-AUT-004');
  assertError(t, await svc.request('GET', PATH), 'IKW-AUT-001');
});

t.test("one merchant's and one environment's own", async (t) => {
  assertOk(t, await change({ subscription_cancel: false }));
  t.match((await settings(other.key)).body, { subscription_cancel: true, updated: null }, "another merchant's stay the defaults");
  t.match((await settings(merchant.api_keys.live)).body, { subscription_cancel: true, updated: null }, 'live has its own');
  assertOk(t, await change({ return_url: 'https://live.example/' }, merchant.api_keys.live));
  t.match((await settings()).body, { subscription_cancel: false, return_url: null }, 'and sandbox keeps its own');
  t.notMatch(await page(), /live\.example/, "the sandbox portal does not link to live's site");
  assertOk(t, await change({ subscription_cancel: true }));
});

t.test('idempotent like every PATCH, and a change to nothing new records nothing', async (t) => {
  const headers = { 'Idempotency-Key': 'portal-settings-1' };
  const first = await change({ customer_update: false }, key, headers);
  const again = await change({ customer_update: false }, key, headers);
  assertOk(t, first);
  t.equal(again.text, first.text, 'replayed byte for byte');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  assertError(t, await change({ customer_update: true }, key, headers), 'IKW-IDM-002');
  const before = (await svc.system.store.readStream(`merchant_settings-${merchant.id}-sandbox`)).length;
  assertOk(t, await change({ customer_update: false }));
  t.equal((await svc.system.store.readStream(`merchant_settings-${merchant.id}-sandbox`)).length, before, 'the same value again appends no event');
  assertOk(t, await change({ customer_update: true }));
});
