/**
 * Mobile-money pushes started from public pages (docs/operations.md, "Public pushes"): the hosted
 * checkout (its form and its API) and a funding campaign's page (its form and its API) ring a
 * phone with no credential behind the request, so they are counted per phone number across the
 * platform, per checkout session, and per payment link or campaign; over a limit the answer is
 * 429 IKW-LIM-001 with Retry-After and no operator is called. GET /pay/{slug} sends a browser back
 * to the session it opened rather than opening one per visit. Manual clock throughout.
 */
import t, { type Test } from '#tap';
import { assertError, assertOk, operatorAnswers, ProviderProbe } from '../support/payments.js';
import { createLink, createSession, payByMobileMoney } from '../support/checkout.js';
import { activeCampaign } from '../support/funding.js';
import { startPaymentsService, type TestResponse } from '../support/system.js';

const probe = new ProviderProbe();
const svc = await startPaymentsService(t, {
  rails: probe.wrap,
  env: { RATE_LIMIT_PUSH_NUMBER: '3/10m', RATE_LIMIT_PUSH_SESSION: '3/1h', RATE_LIMIT_PUSH_LINK: '5/10m' },
});
const { key } = await svc.sandboxMerchant('Shop');
const { key: otherKey } = await svc.sandboxMerchant('Other shop');
const HTML = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';
const TEN_MINUTES = 10 * 60_000;

let numbers = 0;
/** A Senegalese number no other test uses; `ending` picks the sandbox outcome (01 fails, 05 succeeds). */
const freshNumber = (ending = '05') => `+22177${String(100 + ++numbers).padStart(3, '0')}45${ending}`;

/** The seconds left in the current fixed window of `windowMs`, as Retry-After says them. */
const secondsLeft = (windowMs: number) => String(Math.ceil((windowMs - (svc.clock.now().getTime() % windowMs)) / 1000));

function assertLimited(t: Test, res: TestResponse | { status: number; headers: Headers }, windowMs: number) {
  if ('body' in res) assertError(t, res, 'IKW-LIM-001');
  else t.equal(res.status, 429);
  t.equal(res.headers.get('retry-after'), secondsLeft(windowMs), 'Retry-After: the end of the window');
}

/** The hosted page's form for a session, as a browser posts it. */
async function payForm(sessionId: string, phone: string) {
  const res = await fetch(`${svc.baseUrl}/checkout/session/${sessionId}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: HTML },
    body: new URLSearchParams({ PaymentMethod: 'mobile_money', Operator: 'orange_money', PhoneNumber: phone }).toString(),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

t.test('per phone number: three pushes in ten minutes, across sessions, merchants and spellings', async (t) => {
  const phone = freshNumber();
  const national = `${phone.slice(4, 6)} ${phone.slice(6, 9)} ${phone.slice(9, 11)} ${phone.slice(11)}`; // 77 1xx 45 05
  const sessions = await Promise.all([key, key, otherKey, key, key].map((k) => createSession(svc, k)));
  assertOk(t, await payByMobileMoney(svc, sessions[0].id, phone));
  assertOk(t, await payByMobileMoney(svc, sessions[1].id, national)); // a national spelling is the same number
  assertOk(t, await payByMobileMoney(svc, sessions[2].id, phone)); // another merchant's session
  const calls = probe.calls.length;
  assertLimited(t, await payByMobileMoney(svc, sessions[3].id, phone), TEN_MINUTES);
  assertLimited(t, await payForm(sessions[3].id, national), TEN_MINUTES);
  t.equal(probe.calls.length, calls, 'no operator call for a refused push');
  assertOk(t, await payByMobileMoney(svc, sessions[4].id, freshNumber())); // another number rings
  t.equal((await svc.request('GET', `/api/checkout/${sessions[3].id}/status`)).body.paymentStatus, 'unpaid', 'the refused session is untouched');

  svc.clock.advance(Number(secondsLeft(TEN_MINUTES)) * 1000);
  assertOk(t, await payByMobileMoney(svc, sessions[3].id, phone)); // the next window takes it
  await operatorAnswers(svc);
});

t.test('per checkout session: three attempts an hour, whatever the numbers', async (t) => {
  const session = await createSession(svc, key);
  for (let i = 0; i < 3; i++) {
    assertOk(t, await payByMobileMoney(svc, session.id, freshNumber('01')));
    await operatorAnswers(svc); // the attempt fails: the session takes another
  }
  assertLimited(t, await payByMobileMoney(svc, session.id, freshNumber()), 3_600_000);
  const page = await payForm(session.id, freshNumber());
  assertLimited(t, page, 3_600_000);
  t.match(page.headers.get('content-type'), /text\/html/, 'a browser gets the page again');
  t.match(page.text, /Too many requests|try again/i, 'saying why');
  svc.clock.advance(Number(secondsLeft(3_600_000)) * 1000);
  assertOk(t, await payByMobileMoney(svc, session.id, freshNumber()));
  await operatorAnswers(svc);
});

t.test('per payment link: five pushes in ten minutes, all its sessions together', async (t) => {
  const link = await createLink(svc, key);
  const open = async () => {
    const res = await fetch(`${svc.baseUrl}/pay/${link.slug}`, { redirect: 'manual' });
    return /cs_\w+$/.exec(res.headers.get('location') ?? '')![0];
  };
  for (let i = 0; i < 5; i++) assertOk(t, await payByMobileMoney(svc, await open(), freshNumber()));
  assertLimited(t, await payByMobileMoney(svc, await open(), freshNumber()), TEN_MINUTES);
  assertOk(t, await payByMobileMoney(svc, (await createSession(svc, key)).id, freshNumber())); // a session of no link is not counted with it
  await operatorAnswers(svc);
});

t.test('a funding campaign: per number and per campaign, from its form and its API', async (t) => {
  const campaign = await activeCampaign(svc, key);
  const api = (msisdn: string) =>
    svc.request('POST', `/api/v1/funding/public/campaigns/${campaign.slug}/contributions`, {
      body: { amountMinor: 1_000, paymentMethod: { type: 'mobile_money', mobileMoney: { country: 'SN', operator: 'orange_money', msisdn } } },
    });
  const form = async (msisdn: string) => {
    const res = await fetch(`${svc.baseUrl}/funding/${campaign.slug}/contribute`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: HTML },
      body: new URLSearchParams({ Amount: '1000', Operator: 'orange_money', PhoneNumber: msisdn }).toString(),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const phone = freshNumber();
  assertOk(t, await api(phone));
  t.equal((await form(phone)).status, 303);
  assertOk(t, await api(phone));
  const before = (await svc.request('GET', '/api/v1/funding/contributions', { key })).body.data.length;
  assertLimited(t, await api(phone), TEN_MINUTES);
  const page = await form(phone);
  assertLimited(t, page, TEN_MINUTES);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.equal((await svc.request('GET', '/api/v1/funding/contributions', { key })).body.data.length, before, 'a refused push leaves no contribution behind');

  assertOk(t, await api(freshNumber()));
  assertOk(t, await api(freshNumber()));
  assertLimited(t, await api(freshNumber()), TEN_MINUTES);
  assertOk(
    t,
    await svc.request('POST', '/api/v1/funding/contributions', {
      key,
      body: { campaignId: campaign.id, amountMinor: 1_000, currency: 'XOF', paymentMethod: { type: 'mobile_money', mobileMoney: { country: 'SN', operator: 'orange_money', msisdn: phone } } },
    }),
  ); // the merchant's own API is not a public page
  await operatorAnswers(svc);
});

t.test('GET /pay/{slug}: a browser comes back to the session it opened', async (t) => {
  const link = await createLink(svc, key);
  const visit = async (cookie?: string) => {
    const res = await fetch(`${svc.baseUrl}/pay/${link.slug}`, { redirect: 'manual', headers: { accept: HTML, ...(cookie ? { cookie } : {}) } });
    return { status: res.status, sessionId: /cs_\w+$/.exec(res.headers.get('location') ?? '')?.[0] ?? null, setCookie: res.headers.get('set-cookie') };
  };
  const first = await visit();
  t.equal(first.status, 303);
  t.match(first.setCookie, new RegExp(`^sika_checkout=${first.sessionId}; Max-Age=86400; Path=/pay/${link.slug}; HttpOnly; SameSite=Lax`));
  const cookie = first.setCookie!.split(';')[0]!;
  const again = await visit(cookie);
  t.equal(again.sessionId, first.sessionId, 'the same session, not a new one');
  t.equal((await visit(`theme=dark; ${cookie}`)).sessionId, first.sessionId, 'among other cookies');
  t.not((await visit()).sessionId, first.sessionId, 'a client without the cookie (another browser) opens its own');

  const other = await createLink(svc, key);
  const elsewhere = await fetch(`${svc.baseUrl}/pay/${other.slug}`, { redirect: 'manual', headers: { cookie } });
  t.not(/cs_\w+$/.exec(elsewhere.headers.get('location') ?? '')?.[0], first.sessionId, "another link's page never reuses this link's session");
  t.not((await visit('sika_checkout=cs_forged')).sessionId, null, 'an unknown session opens a new one');

  assertOk(t, await svc.request('POST', `/api/checkout/${first.sessionId}/cancel`));
  const afterCancel = await visit(cookie);
  t.not(afterCancel.sessionId, first.sessionId, 'a canceled session is not reused');
  svc.clock.advance(24 * 3_600_000);
  t.not((await visit(afterCancel.setCookie!.split(';')[0]!)).sessionId, afterCancel.sessionId, 'nor an expired one');
});
