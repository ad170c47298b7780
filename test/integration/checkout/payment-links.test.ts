/**
 * Payment links against the real server: create, retrieve, list, deactivate; GET /pay/{slug} opening a
 * session for the link; deactivated and expired links (manual clock); tenant isolation; and the
 * single-use link paid by many sessions at once, which takes exactly one payment.
 */
import t from '#tap';
import { assertError, assertOk, operatorAnswers, ProviderProbe } from '../../support/payments.js';
import { createLink, openLink, payByMobileMoney, sessionStatus, snNumber } from '../../support/checkout.js';
import { startPaymentsService } from '../../support/system.js';

const probe = new ProviderProbe();
const svc = await startPaymentsService(t, { rails: probe.wrap });
const { key } = await svc.sandboxMerchant('Shop');
const { key: otherKey } = await svc.sandboxMerchant('Other shop');
const HTML = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';

t.test('create and retrieve', async (t) => {
  const expiresAt = new Date(svc.clock.now().getTime() + 7 * 86_400_000).toISOString();
  const link = await createLink(svc, key, { feeMode: 'customer', paymentMethodTypes: ['mobile_money'], expiresAt, isSingleUse: true });
  t.match(link, {
    id: /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    object: 'payment_link',
    slug: /^[0-9A-Za-z]{16}$/,
    amount: 5_000,
    currency: 'xof',
    country: 'SN',
    feeMode: 'customer',
    description: 'Basket of mangoes',
    paymentMethodTypes: ['mobile_money'],
    expiresAt,
    isSingleUse: true,
    active: true,
    deactivatedAt: null,
    livemode: false,
  });
  t.equal(link.url, `${svc.system.config.publicUrl}/pay/${link.slug}`);
  const got = await svc.request('GET', `/api/v1/payment_links/${link.id}`, { key });
  assertOk(t, got);
  t.same(got.body, link);
  const plain = await createLink(svc, key);
  t.match(plain, { feeMode: 'merchant', paymentMethodTypes: ['mobile_money'], expiresAt: null, isSingleUse: false });
});

t.test('create: refusals', async (t) => {
  const create = (body: Record<string, unknown>) => svc.request('POST', '/api/v1/payment_links', { key, body: { amount: 100, currency: 'XOF', country: 'SN', ...body } });
  assertError(t, await svc.request('POST', '/api/v1/payment_links', { key, body: { currency: 'XOF', country: 'SN' } }), 'IKW-VAL-001', 'amount');
  assertError(t, await create({ amount: -1 }), 'IKW-VAL-001', 'amount');
  assertError(t, await create({ amount: 1.5 }), 'IKW-VAL-001', 'amount');
  assertError(t, await create({ currency: 'GHS' }), 'IKW-VAL-009', 'currency');
  assertError(t, await create({ country: 'XX' }), 'IKW-VAL-004', 'country');
  assertError(t, await create({ feeMode: 'nobody' }), 'IKW-VAL-001', 'feeMode');
  assertError(t, await create({ expiresAt: 'tomorrow' }), 'IKW-VAL-001', 'expiresAt');
  assertError(t, await create({ expiresAt: svc.clock.now().toISOString() }), 'IKW-VAL-001', 'expiresAt');
  assertError(t, await create({ isSingleUse: 'yes' }), 'IKW-VAL-001', 'isSingleUse');
  assertError(t, await svc.request('POST', '/api/v1/payment_links', { body: { amount: 100, currency: 'XOF', country: 'SN' } }), 'IKW-AUT-001');
});

t.test('tenant isolation and idempotency', async (t) => {
  const link = await createLink(svc, key);
  assertError(t, await svc.request('GET', `/api/v1/payment_links/${link.id}`, { key: otherKey }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', `/api/v1/payment_links/${link.id}/deactivate`, { key: otherKey }), 'IKW-RES-001', 'id');
  t.equal((await svc.request('GET', `/api/v1/payment_links/${link.id}`, { key })).body.active, true, 'still active');
  const headers = { 'Idempotency-Key': 'link-1' };
  const body = { amount: 700, currency: 'XOF', country: 'SN' };
  const first = await svc.request('POST', '/api/v1/payment_links', { key, body, headers });
  const again = await svc.request('POST', '/api/v1/payment_links', { key, body, headers });
  t.equal(again.text, first.text, 'the same link, replayed');
  assertError(t, await svc.request('POST', '/api/v1/payment_links', { key, body: { ...body, amount: 701 }, headers }), 'IKW-IDM-002');
});

t.test("list: newest first, by cursor, active or deactivated, only the owner's and the environment's", async (t) => {
  const { key, merchant } = await svc.sandboxMerchant('Lister');
  const links: { id: string }[] = [];
  for (const amount of [100, 200, 300]) links.push(await createLink(svc, key, { amount }));
  assertOk(t, await svc.request('POST', `/api/v1/payment_links/${links[1].id}/deactivate`, { key }));
  const list = await svc.request('GET', '/api/v1/payment_links', { key });
  assertOk(t, list);
  t.match(list.body, { object: 'list', has_more: false, url: '/api/v1/payment_links' });
  t.same(
    list.body.data.map((l: { amount: number }) => l.amount),
    [300, 200, 100],
    'newest first',
  );
  t.same(list.body.data[1], { ...links[1], active: false, deactivatedAt: list.body.data[1].deactivatedAt }, 'each as GET answers it');
  const page1 = await svc.request('GET', '/api/v1/payment_links?limit=2', { key });
  t.equal(page1.body.has_more, true);
  const page2 = await svc.request('GET', `/api/v1/payment_links?limit=2&starting_after=${page1.body.data[1].id}`, { key });
  t.same(
    page2.body.data.map((l: { amount: number }) => l.amount),
    [100],
    'the next page',
  );
  t.same(
    (await svc.request('GET', '/api/v1/payment_links?active=true', { key })).body.data.map((l: { amount: number }) => l.amount),
    [300, 100],
  );
  t.same(
    (await svc.request('GET', '/api/v1/payment_links?active=false', { key })).body.data.map((l: { amount: number }) => l.amount),
    [200],
  );
  assertError(t, await svc.request('GET', '/api/v1/payment_links?active=maybe', { key }), 'IKW-VAL-001', 'active');
  assertError(t, await svc.request('GET', '/api/v1/payment_links?status=open', { key }), 'IKW-VAL-002', 'status');
  t.same(
    (await svc.request('GET', '/api/v1/payment_links', { key: otherKey })).body.data.filter((l: { id: string }) => links.some((m) => m.id === l.id)),
    [],
    "another merchant's list has none of them",
  );
  assertError(t, await svc.request('GET', `/api/v1/payment_links?starting_after=${links[0].id}`, { key: otherKey }), 'IKW-VAL-001', 'starting_after');
  const { secret: live } = await svc.apiKey(merchant.id, ['*'], 'live');
  t.same((await svc.request('GET', '/api/v1/payment_links', { key: live })).body.data, [], 'live has its own links');
});

t.test('GET /pay/{slug} opens a session for the link and sends the customer to its page', async (t) => {
  const link = await createLink(svc, key);
  const opened = await openLink(svc, link.slug, HTML);
  t.equal(opened.status, 303);
  t.ok(opened.sessionId, 'redirected to /checkout/session/{id}');
  const session = await svc.request('GET', `/api/v1/checkout/sessions/${opened.sessionId}`, { key });
  t.match(session.body, { amount: 5_000, paymentLinkId: link.id, deferPaymentIntentCreation: true, paymentIntentId: null, status: 'open' });
  const second = await openLink(svc, link.slug, HTML);
  t.not(second.sessionId, opened.sessionId, 'a client that keeps no cookie opens a session per visit (public-pushes.test.ts: a browser comes back to its own)');
  assertError(t, await svc.request('GET', '/pay/0000000000000000'), 'IKW-RES-001', 'slug');
  const page = await openLink(svc, '0000000000000000', HTML);
  t.equal(page.status, 404);
  t.match(page.text, /does not exist/);
});

t.test('a deactivated link shows a clear page and takes no payment', async (t) => {
  const link = await createLink(svc, key);
  const before = await openLink(svc, link.slug);
  const off = await svc.request('POST', `/api/v1/payment_links/${link.id}/deactivate`, { key });
  assertOk(t, off);
  t.match(off.body, { active: false, deactivatedAt: svc.clock.now().toISOString() });
  const twice = await svc.request('POST', `/api/v1/payment_links/${link.id}/deactivate`, { key });
  t.same(twice.body, off.body, 'a second deactivation changes nothing');
  const page = await openLink(svc, link.slug, HTML);
  t.equal(page.status, 410);
  t.match(page.text, /no longer available/);
  t.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assertError(t, await svc.request('GET', `/pay/${link.slug}`), 'IKW-CHK-002', 'paymentLinkId');
  assertError(t, await svc.request('POST', '/api/v1/checkout/sessions', { key, body: { paymentLinkId: link.id } }), 'IKW-CHK-002', 'paymentLinkId');
  // A session opened before the deactivation stays payable: the customer was already paying.
  assertOk(t, await payByMobileMoney(svc, before.sessionId!, snNumber('05')));
  await operatorAnswers(svc);
});

t.test('an expired link (manual clock) shows the same page', async (t) => {
  const link = await createLink(svc, key, { expiresAt: new Date(svc.clock.now().getTime() + 3_600_000).toISOString() });
  t.equal((await openLink(svc, link.slug)).status, 303);
  svc.clock.advance(3_600_000);
  const page = await openLink(svc, link.slug, HTML);
  t.equal(page.status, 410);
  assertError(t, await svc.request('GET', `/pay/${link.slug}`), 'IKW-CHK-002', 'paymentLinkId');
});

t.test('a single-use link paid by twelve sessions at once takes exactly one payment', async (t) => {
  const link = await createLink(svc, key, { isSingleUse: true });
  const sessions = await Promise.all(Array.from({ length: 12 }, () => openLink(svc, link.slug)));
  const calls = probe.calls.length;
  const answers = await Promise.all(sessions.map((s) => payByMobileMoney(svc, s.sessionId!, snNumber('05'))));
  const won = answers.filter((a) => a.status === 200);
  t.equal(won.length, 1, 'one payment started');
  for (const lost of answers.filter((a) => a.status !== 200)) assertError(t, lost, 'IKW-CHK-003', 'paymentLinkId');
  t.equal(probe.calls.length - calls, 1, 'one operator call');
  await operatorAnswers(svc);
  t.equal((await sessionStatus(svc, won[0]!.body.id)).status, 'complete');
  // Used up: every other session, and every new visit, is refused.
  assertError(t, await payByMobileMoney(svc, sessions.find((s) => s.sessionId !== won[0]!.body.id)!.sessionId!, snNumber('05')), 'IKW-CHK-003', 'paymentLinkId');
  assertError(t, await svc.request('GET', `/pay/${link.slug}`), 'IKW-CHK-003', 'paymentLinkId');
  const page = await openLink(svc, link.slug, HTML);
  t.equal(page.status, 409);
  t.match(page.text, /no longer available/);
});

t.test('a single-use link whose payment failed can be paid by another session', async (t) => {
  const link = await createLink(svc, key, { isSingleUse: true });
  const a = (await openLink(svc, link.slug)).sessionId!;
  const b = (await openLink(svc, link.slug)).sessionId!;
  assertOk(t, await payByMobileMoney(svc, a, snNumber('01')));
  assertError(t, await payByMobileMoney(svc, b, snNumber('05')), 'IKW-CHK-003', 'paymentLinkId');
  await operatorAnswers(svc);
  t.equal((await sessionStatus(svc, a)).paymentStatus, 'failed');
  assertOk(t, await payByMobileMoney(svc, b, snNumber('05')));
  assertError(t, await payByMobileMoney(svc, a, snNumber('05')), 'IKW-CHK-003', 'paymentLinkId');
  await operatorAnswers(svc);
  t.equal((await sessionStatus(svc, b)).status, 'complete');
});

t.test('a claim whose payment never reached the operator is let go after 15 minutes', async (t) => {
  const link = await createLink(svc, key, { isSingleUse: true });
  const a = (await openLink(svc, link.slug)).sessionId!;
  const b = (await openLink(svc, link.slug)).sessionId!;
  probe.failNext = new Error('operator down');
  assertError(t, await payByMobileMoney(svc, a, snNumber('05')), 'IKW-PRV-002');
  assertError(t, await payByMobileMoney(svc, b, snNumber('05')), 'IKW-CHK-003', 'paymentLinkId');
  svc.clock.advance(15 * 60_000);
  assertOk(t, await payByMobileMoney(svc, b, snNumber('05')));
  await operatorAnswers(svc);
});

t.test('fee mode customer: the page shows what the customer pays with each operator', async (t) => {
  const link = await createLink(svc, key, { feeMode: 'customer' });
  const opened = await openLink(svc, link.slug);
  const html = await (await fetch(`${svc.baseUrl}/checkout/session/${opened.sessionId}`, { headers: { accept: HTML } })).text();
  const quote = (await svc.request('POST', `/api/v1/checkout/sessions/${opened.sessionId}/fee_quote`, { key, body: { operator: 'orange_money' } })).body;
  t.ok(quote.amountTotal > 5_000);
  const shown = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'XOF' }).format(quote.amountTotal);
  t.ok(html.includes(`Orange Money (${shown})`), `Orange Money shows ${shown}`);
});
