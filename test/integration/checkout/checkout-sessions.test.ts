/**
 * Checkout sessions against the real server: the merchant's API (create, retrieve, fee quote),
 * the page's API (read, status, pay, cancel, receipt), the hosted form posted as a browser posts
 * it, expiry on the manual clock, tenant isolation and idempotency.
 */
import t from '#tap';
import { assertError, assertOk, operatorAnswers, ProviderProbe, retrieve } from '../../support/payments.js';
import { CANCEL_URL, cookieSet, createLink, createSession, getPage, payByMobileMoney, postForm, sessionStatus, snNumber, SUCCESS_URL } from '../../support/checkout.js';
import { startPaymentsService } from '../../support/system.js';

const probe = new ProviderProbe();
const svc = await startPaymentsService(t, { rails: probe.wrap });
const { key } = await svc.sandboxMerchant('Shop');
const { key: otherKey } = await svc.sandboxMerchant('Other shop');

t.test('create: the session and its payment intent, made at once', async (t) => {
  const s = await createSession(svc, key, { customerEmail: 'awa@example.com', metadata: { order: 'A-17', nested: { n: 1 } } });
  t.match(s, {
    id: /^cs_[0-9A-Za-z]{24}$/,
    object: 'checkout.session',
    url: `${svc.system.config.publicUrl}/checkout/session/${s.id}`,
    status: 'open',
    paymentStatus: 'unpaid',
    amount: 10_000,
    amountTotal: 10_000,
    currency: 'xof',
    country: 'SN',
    paymentMethodTypes: ['mobile_money'],
    successUrl: SUCCESS_URL,
    cancelUrl: CANCEL_URL,
    customerEmail: 'awa@example.com',
    feeMode: 'merchant',
    deferPaymentIntentCreation: false,
    paymentIntentId: /^pi_/,
    metadata: { order: 'A-17', nested: { n: 1 } },
    livemode: false,
  });
  t.equal(Date.parse(s.expiresAt) - svc.clock.now().getTime(), 24 * 3_600_000, 'expires in 24 h');
  const intent = await retrieve(svc, key, s.paymentIntentId);
  t.match(intent, { amount: 10_000, currency: 'xof', status: 'requires_payment_method', metadata: { checkout_session_id: s.id, order: 'A-17' }, customer: /^cus_/ });
  const got = await svc.request('GET', `/api/v1/checkout/sessions/${s.id}`, { key });
  assertOk(t, got);
  t.same(got.body, s, 'retrieve answers what create did');
});

t.test('create: deferred, the intent comes with the payment', async (t) => {
  const s = await createSession(svc, key, { deferPaymentIntentCreation: true });
  t.equal(s.paymentIntentId, null);
  const paid = await payByMobileMoney(svc, s.id, snNumber('05'));
  assertOk(t, paid);
  t.match(paid.body, { paymentStatus: 'processing', paymentIntentId: /^pi_/ });
});

t.test('create: refusals', async (t) => {
  const create = (body: Record<string, unknown>) => svc.request('POST', '/api/v1/checkout/sessions', { key, body });
  assertError(t, await create({ currency: 'XOF', country: 'SN' }), 'IKW-VAL-001', 'amount');
  assertError(t, await create({ amount: 0, currency: 'XOF', country: 'SN' }), 'IKW-VAL-001', 'amount');
  assertError(t, await create({ amount: 100, currency: 'XOF' }), 'IKW-VAL-001', 'country');
  assertError(t, await create({ amount: 100, currency: 'ZZZ', country: 'SN' }), 'IKW-VAL-003', 'currency');
  assertError(t, await create({ amount: 100, currency: 'XOF', country: 'ZZ' }), 'IKW-VAL-004', 'country');
  assertError(t, await create({ amount: 100, currency: 'GHS', country: 'SN' }), 'IKW-VAL-009', 'currency');
  assertError(t, await create({ amount: 999_999_999, currency: 'XOF', country: 'SN' }), 'IKW-VAL-008', 'amount');
  assertError(t, await create({ amount: 100, currency: 'XOF', country: 'SN', successUrl: 'javascript:alert(1)' }), 'IKW-VAL-001', 'successUrl');
  assertError(t, await create({ amount: 100, currency: 'XOF', country: 'SN', customerPhone: '12' }), 'IKW-VAL-001', 'customerPhone');
  assertError(t, await create({ amount: 100, currency: 'XOF', country: 'SN', customerPhone: '+1 000' }), 'IKW-VAL-007', 'customerPhone');
  assertError(t, await create({ amount: 100, currency: 'XOF', country: 'SN', paymentMethodTypes: ['bank'] }), 'IKW-VAL-001', 'paymentMethodTypes.0');
  assertError(t, await create({ amount: 100, currency: 'XOF', country: 'SN', colour: 'red' }), 'IKW-VAL-002', 'colour');
  const link = await createLink(svc, key);
  assertError(t, await create({ paymentLinkId: link.id, amount: 100 }), 'IKW-VAL-002', 'amount');
  assertError(t, await create({ paymentLinkId: link.id, paymentLinkV2Id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' }), 'IKW-VAL-002', 'paymentLinkV2Id');
  assertError(t, await svc.request('POST', '/api/v1/checkout/sessions', { key: otherKey, body: { paymentLinkId: link.id } }), 'IKW-RES-001', 'paymentLinkId');
});

t.test('create for a payment link: its amount, currency, fee mode; deferred', async (t) => {
  const link = await createLink(svc, key, { feeMode: 'customer' });
  const res = await svc.request('POST', '/api/v1/checkout/sessions', { key, body: { paymentLinkV2Id: link.id, successUrl: SUCCESS_URL } });
  assertOk(t, res);
  t.match(res.body, { amount: 5_000, currency: 'xof', country: 'SN', feeMode: 'customer', paymentLinkId: link.id, deferPaymentIntentCreation: true, paymentIntentId: null, amountTotal: null, description: 'Basket of mangoes' });
});

t.test('tenant isolation: another merchant\u2019s session is 404 everywhere it is named', async (t) => {
  const s = await createSession(svc, key);
  assertError(t, await svc.request('GET', `/api/v1/checkout/sessions/${s.id}`, { key: otherKey }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', `/api/v1/checkout/sessions/${s.id}/fee_quote`, { key: otherKey, body: { operator: 'wave' } }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', '/api/v1/checkout/sessions/cs_000000000000000000000000', { key }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', '/api/checkout/cs_000000000000000000000000'), 'IKW-RES-001', 'sessionId');
  assertError(t, await svc.request('GET', '/api/checkout/not-a-session'), 'IKW-VAL-001', 'sessionId');
});

t.test('idempotency: the same key answers the same session; another body with it is refused', async (t) => {
  const body = { amount: 2_500, currency: 'XOF', country: 'SN' };
  const headers = { 'Idempotency-Key': 'order-991' };
  const first = await svc.request('POST', '/api/v1/checkout/sessions', { key, body, headers });
  const again = await svc.request('POST', '/api/v1/checkout/sessions', { key, body, headers });
  assertOk(t, first);
  t.equal(again.text, first.text, 'replayed byte for byte');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  assertError(t, await svc.request('POST', '/api/v1/checkout/sessions', { key, body: { ...body, amount: 2_600 }, headers }), 'IKW-IDM-002');
  // A retry after a crash (the stored answer gone) lands on the session and intent the first attempt made.
  await svc.system.knex('idempotency_keys').del();
  const retried = await svc.request('POST', '/api/v1/checkout/sessions', { key, body, headers });
  assertOk(t, retried);
  t.equal(retried.body.id, first.body.id);
  t.equal(retried.body.paymentIntentId, first.body.paymentIntentId);
});

t.test('fee quote: who carries the fee', async (t) => {
  const s = await createSession(svc, key);
  const res = await svc.request('POST', `/api/v1/checkout/sessions/${s.id}/fee_quote`, { key, body: { operator: 'orange_money' } });
  assertOk(t, res);
  t.match(res.body, { object: 'checkout.fee_quote', sessionId: s.id, amount: 10_000, feeMode: 'merchant', amountTotal: 10_000, paymentMethodType: 'mobile_money', operator: 'orange_money' });
  t.ok(res.body.fee > 0, 'a fee');
  t.equal(res.body.merchantReceives, 10_000 - res.body.fee);
  assertError(t, await svc.request('POST', `/api/v1/checkout/sessions/${s.id}/fee_quote`, { key, body: {} }), 'IKW-VAL-001', 'operator');
  assertError(t, await svc.request('POST', `/api/v1/checkout/sessions/${s.id}/fee_quote`, { key, body: { operator: 'nope' } }), 'IKW-VAL-005', 'operator');
  assertError(t, await svc.request('POST', `/api/v1/checkout/sessions/${s.id}/fee_quote`, { key, body: { paymentMethodType: 'card' } }), 'IKW-CHK-004', 'paymentMethodType');

  const link = await createLink(svc, key, { feeMode: 'customer', paymentMethodTypes: ['mobile_money', 'card'] });
  const fromLink = (await svc.request('POST', '/api/v1/checkout/sessions', { key, body: { paymentLinkId: link.id } })).body;
  const quoted = (await svc.request('POST', `/api/v1/checkout/sessions/${fromLink.id}/fee_quote`, { key, body: { paymentMethodType: 'mobile_money', operator: 'wave' } })).body;
  t.match(quoted, { feeMode: 'customer', amount: 5_000, merchantReceives: 5_000 });
  t.equal(quoted.amountTotal, 5_000 + quoted.fee, 'the customer pays the fee on top');
  // The customer then pays that total: the intent collects it.
  const paid = await payByMobileMoney(svc, fromLink.id, snNumber('05'), 'wave');
  assertOk(t, paid);
  t.equal(paid.body.amountTotal, quoted.amountTotal);
  t.equal((await retrieve(svc, key, paid.body.paymentIntentId)).amount, quoted.amountTotal);
});

t.test('the page API: pay, watch the status, land with the return parameters, get the receipt', async (t) => {
  const s = await createSession(svc, key);
  const shown = await svc.request('GET', `/api/checkout/${s.id}`);
  assertOk(t, shown);
  t.equal(shown.body.id, s.id);
  t.match(await sessionStatus(svc, s.id), { status: 'open', paymentStatus: 'unpaid', redirectUrl: null });
  assertError(t, await svc.request('GET', `/api/checkout/${s.id}/receipt`), 'IKW-CHK-001', 'sessionId');

  const paid = await payByMobileMoney(svc, s.id, snNumber('05'));
  assertOk(t, paid);
  t.match(paid.body, { status: 'open', paymentStatus: 'processing', paymentIntentId: s.paymentIntentId });
  const again = await payByMobileMoney(svc, s.id, snNumber('05'));
  t.equal(again.body.paymentStatus, 'processing', 'paying again while the operator answers changes nothing');
  t.equal(probe.callsFor(s.paymentIntentId), 1, 'one operator call');

  await operatorAnswers(svc);
  const status = await sessionStatus(svc, s.id);
  t.match(status, { status: 'complete', paymentStatus: 'paid', paymentIntentId: s.paymentIntentId, operationId: /^op_/ });
  const url = new URL(status.redirectUrl);
  t.equal(`${url.origin}${url.pathname}`, SUCCESS_URL);
  t.same(Object.fromEntries(url.searchParams), { status: 'succeeded', payment_intent: s.paymentIntentId, operation_id: status.operationId });

  const receipt = await svc.request('GET', `/api/checkout/${s.id}/receipt`);
  assertOk(t, receipt);
  t.match(receipt.body, { object: 'checkout.receipt', sessionId: s.id, paymentIntentId: s.paymentIntentId, operationId: status.operationId, amountPaid: 10_000, currency: 'xof', paymentMethod: { type: 'mobile_money' } });
  assertError(t, await payByMobileMoney(svc, s.id, snNumber('05')), 'IKW-CHK-001', 'sessionId');
  assertError(t, await svc.request('POST', `/api/checkout/${s.id}/cancel`), 'IKW-CHK-001', 'id');
  t.match((await svc.request('GET', `/api/v1/checkout/sessions/${s.id}`, { key })).body, { status: 'complete', paymentStatus: 'paid' });
});

t.test('a failed payment can be tried again, with a new intent', async (t) => {
  const s = await createSession(svc, key);
  assertOk(t, await payByMobileMoney(svc, s.id, snNumber('01')));
  await operatorAnswers(svc);
  t.match(await sessionStatus(svc, s.id), { status: 'open', paymentStatus: 'failed', lastPaymentError: { code: 'insufficient_funds' }, redirectUrl: null });
  const retried = await payByMobileMoney(svc, s.id, snNumber('05'));
  assertOk(t, retried);
  t.not(retried.body.paymentIntentId, s.paymentIntentId, 'a second attempt, a second intent');
  await operatorAnswers(svc);
  t.match(await sessionStatus(svc, s.id), { status: 'complete', paymentStatus: 'paid', paymentIntentId: retried.body.paymentIntentId });
});

t.test('a card with 3-D Secure: the status names the page to open, which brings the customer back', async (t) => {
  const s = await createSession(svc, key, { paymentMethodTypes: ['card'] });
  const paid = await svc.request('POST', `/api/checkout/${s.id}/pay`, { body: { payment_method: { type: 'card', card: { token: 'tok_3ds_required' } } } });
  assertOk(t, paid);
  const status = await sessionStatus(svc, s.id);
  t.match(status, { paymentStatus: 'processing', nextAction: { type: 'redirect_to_url', redirect_to_url: { url: /\/sandbox\/3ds\/op_/, return_url: s.url } } });
  const completed = await fetch(`${svc.baseUrl}${new URL(status.nextAction.redirect_to_url.url).pathname}/complete`, { method: 'POST', redirect: 'manual' });
  t.equal(completed.status, 303);
  t.match(completed.headers.get('location'), `${s.url}?status=succeeded`);
  t.match(await sessionStatus(svc, s.id), { status: 'complete', paymentStatus: 'paid' });
});

t.test('pay: refusals', async (t) => {
  const s = await createSession(svc, key);
  const pay = (body: unknown) => svc.request('POST', `/api/checkout/${s.id}/pay`, { body });
  assertError(t, await pay({}), 'IKW-VAL-001', 'payment_method');
  assertError(t, await pay({ payment_method: { type: 'mobile_money' } }), 'IKW-VAL-001');
  assertError(t, await pay({ payment_method: { type: 'card', card: { token: 'tok_visa' } } }), 'IKW-CHK-004', 'payment_method.type');
  assertError(t, await pay({ payment_method: { type: 'mobile_money', mobile_money: { operator: 'orange_money', msisdn: '+221 12' } } }), 'IKW-VAL-007', 'payment_method.mobile_money.msisdn');
  assertError(t, await pay({ payment_method: { type: 'mobile_money', mobile_money: { operator: 'nope', msisdn: snNumber('05') } } }), 'IKW-VAL-005', 'operator');
  assertError(t, await pay({ session_id: 'cs_000000000000000000000000', payment_method: { type: 'mobile_money', mobile_money: { operator: 'wave', msisdn: snNumber('05') } } }), 'IKW-VAL-001', 'session_id');
  assertError(t, await payByMobileMoney(svc, 'cs_000000000000000000000000', snNumber('05')), 'IKW-RES-001', 'sessionId');
  t.equal(probe.callsFor(s.paymentIntentId), 0, 'no refused payment reached the operator');
});

t.test('cancel: the session and its intent end; not while the operator answers', async (t) => {
  const s = await createSession(svc, key);
  const canceled = await svc.request('POST', `/api/checkout/${s.id}/cancel`);
  assertOk(t, canceled);
  t.match(canceled.body, { status: 'canceled', paymentStatus: 'unpaid' });
  t.match(await retrieve(svc, key, s.paymentIntentId), { status: 'canceled', cancellation_reason: 'abandoned' });
  t.match(await sessionStatus(svc, s.id), { status: 'canceled', redirectUrl: `${CANCEL_URL}?status=canceled&payment_intent=${s.paymentIntentId}` });
  assertOk(t, await svc.request('POST', `/api/checkout/${s.id}/cancel`)); // a second cancel changes nothing
  assertError(t, await payByMobileMoney(svc, s.id, snNumber('05')), 'IKW-CHK-001', 'sessionId');

  const busy = await createSession(svc, key);
  await payByMobileMoney(svc, busy.id, snNumber('05'));
  assertError(t, await svc.request('POST', `/api/checkout/${busy.id}/cancel`), 'IKW-RES-002', 'id');
  await operatorAnswers(svc);
});

t.test('expiry: 24 h after it opened, an unpaid session is expired and takes no payment', async (t) => {
  const s = await createSession(svc, key);
  svc.clock.advance(24 * 3_600_000 - 1);
  t.equal((await sessionStatus(svc, s.id)).status, 'open');
  svc.clock.advance(1);
  t.equal((await sessionStatus(svc, s.id)).status, 'expired');
  assertError(t, await payByMobileMoney(svc, s.id, snNumber('05')), 'IKW-CHK-001', 'sessionId');
  const page = await fetch(`${svc.baseUrl}/checkout/session/${s.id}`, { headers: { accept: 'text/html' } });
  t.equal(page.status, 410);
  t.match(await page.text(), /expired/);
});

t.test('the hosted form, posted as a browser posts it', async (t) => {
  const s = await createSession(svc, key);
  const page = await fetch(`${svc.baseUrl}/checkout/session/${s.id}`, { headers: { accept: 'text/html', 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' } });
  t.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'none'/, 'the form page runs no script');
  t.notMatch(csp, /unsafe-inline/);
  const html = await page.text();
  t.match(html, /<html lang="fr">/);
  t.match(html, /10\u202f000\sF\u202fCFA|10\s000\sF\sCFA/, 'the amount formatted for XOF in French');
  t.match(html, /<label for="phone">/, 'labelled fields');
  t.match(html, /<option value="wave">Wave<\/option>/, 'the operators of Senegal, from the catalog');
  t.notMatch(html, /<script[^>]*src=|https?:\/\/(?!shop\.example)/, 'nothing loaded from other hosts');

  const refused = await postForm(svc, s.id, { PaymentMethod: 'mobile_money', Operator: 'orange_money', PhoneNumber: '123' });
  t.equal(refused.status, 400);
  t.match(refused.text, /role="alert"/, 'the reason is shown');
  t.match(refused.text, /value="123"/, 'what the customer typed is kept');

  const sent = await postForm(svc, s.id, { PaymentMethod: 'mobile_money', Operator: 'orange_money', PhoneNumber: '77 123 45 05' });
  t.equal(sent.status, 303);
  t.equal(sent.location, `/checkout/session/${s.id}`);
  const waitingPage = await fetch(`${svc.baseUrl}/checkout/session/${s.id}`, { headers: { accept: 'text/html' } });
  t.match(waitingPage.headers.get('content-security-policy'), /script-src 'sha256-[^']+'/, 'the waiting page runs its one script, by hash');
  t.match(await waitingPage.text(), /data-poll="\/api\/checkout\/cs_\w+\/status"/, 'the page polls while the operator answers');
  await operatorAnswers(svc);
  const done = await getPage(svc, s.id, cookieSet(sent.headers));
  t.equal(done.status, 303, 'the browser that paid is sent on');
  t.match(done.location, /^https:\/\/shop\.example\/thanks\?status=succeeded&payment_intent=pi_\w+&operation_id=op_\w+$/);

  const other = await createSession(svc, key);
  const cancel = await postForm(svc, other.id, { Action: 'cancel' });
  t.equal(cancel.status, 303);
  t.equal(cancel.location, `${CANCEL_URL}?status=canceled&payment_intent=${other.paymentIntentId}`);
  const json = await svc.request('POST', `/checkout/session/${other.id}/pay`, { body: { Operator: 'wave', PhoneNumber: snNumber('05') } });
  assertError(t, json, 'IKW-CHK-001', 'sessionId');
  assertError(t, await svc.request('POST', `/checkout/session/${other.id}/pay`, { rawBody: 'a=1', headers: { 'content-type': 'text/plain' } }), 'IKW-REQ-002');
});

t.test('no open redirect: a final session sends on only the browser that paid or canceled it here; others get a page with the link', async (t) => {
  const s = await createSession(svc, key);
  const paying = await postForm(svc, s.id, { PaymentMethod: 'mobile_money', Operator: 'orange_money', PhoneNumber: snNumber('05') });
  t.equal(paying.status, 303);
  const mark = paying.headers.get('set-cookie') ?? '';
  t.match(mark, new RegExp(`^sika_checkout_browser=[0-9a-f]{64}; Max-Age=86400; Path=/checkout/session/${s.id}; HttpOnly; SameSite=Lax$`), 'the browser that paid is marked, on this session\u2019s page only');
  await operatorAnswers(svc);
  const paid = await getPage(svc, s.id, cookieSet(paying.headers));
  t.equal(paid.status, 303);
  t.match(paid.location, /^https:\/\/shop\.example\/thanks\?status=succeeded&/);

  const visitor = await getPage(svc, s.id);
  t.equal(visitor.status, 200, 'another browser is not redirected');
  t.equal(visitor.location, null);
  t.match(visitor.text, /<h1 id="message">Payment received\. Thank you!<\/h1>/);
  t.match(visitor.text, /<a href="https:\/\/shop\.example\/thanks\?status=succeeded&amp;payment_intent=pi_\w+&amp;operation_id=op_\w+" id="back">Return to the merchant \(shop\.example\)<\/a>/, 'a link, naming where it goes');

  // The mark is bound to its session: another session's, or a made-up one, is no mark.
  const other = await createSession(svc, key, { successUrl: 'https://evil.example/phish', cancelUrl: 'https://evil.example/phish' });
  const canceledElsewhere = await svc.request('POST', `/api/checkout/${other.id}/cancel`);
  t.equal(canceledElsewhere.status, 200, 'someone ends a session with URLs of their choosing');
  for (const cookie of [cookieSet(paying.headers), `sika_checkout_browser=${'0'.repeat(64)}`, 'sika_checkout_browser=x']) {
    const page = await getPage(svc, other.id, cookie);
    t.equal(page.status, 200, `not sent on with ${cookie}`);
    t.match(page.text, /The payment was canceled\.[\s\S]*href="https:\/\/evil\.example\/phish\?status=canceled[^"]*" id="back">Return to the merchant \(evil\.example\)/);
  }

  // The cancel button: this browser goes to the cancel URL at once, and again from the page.
  const third = await createSession(svc, key);
  const cancel = await postForm(svc, third.id, { Action: 'cancel' });
  t.equal(cancel.status, 303);
  t.equal(cancel.location, `${CANCEL_URL}?status=canceled&payment_intent=${third.paymentIntentId}`);
  t.equal((await getPage(svc, third.id, cookieSet(cancel.headers))).location, cancel.location);
  t.equal((await getPage(svc, third.id)).status, 200, 'not another browser');
  t.match(await sessionStatus(svc, third.id), { redirectUrl: cancel.location }, "the status still names it, for merchants' own pages");
});

t.test('the hosted form is taken only from its own page: a post from another site cancels nothing and sends nobody on', async (t) => {
  const s = await createSession(svc, key, { successUrl: 'https://evil.example/phish', cancelUrl: 'https://evil.example/phish' });
  const host = new URL(svc.baseUrl).host;
  for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }, { origin: 'null' }] as Record<string, string>[]) {
    const forged = await postForm(svc, s.id, { Action: 'cancel' }, headers);
    t.equal(forged.status, 403, `refused with ${JSON.stringify(headers)}`);
    t.equal(forged.location, null, 'not sent on');
    t.equal(forged.headers.get('set-cookie'), null, 'not marked as the browser that canceled');
    t.match(forged.text, /This form can only be sent from its own checkout page/);
  }
  t.match(await sessionStatus(svc, s.id), { status: 'open' }, 'the session is still open');
  for (const headers of [{ 'sec-fetch-site': 'same-origin', origin: svc.baseUrl }, { origin: svc.baseUrl }] as Record<string, string>[]) {
    t.equal(new URL(headers.origin ?? '').host, host);
    const s2 = await createSession(svc, key);
    const own = await postForm(svc, s2.id, { Action: 'cancel' }, headers);
    t.equal(own.status, 303, `the page's own post, with ${JSON.stringify(headers)}`);
    t.equal(own.location, `${CANCEL_URL}?status=canceled&payment_intent=${s2.paymentIntentId}`);
  }
});

t.test('list: newest first, cursor-paged, by status and payment link, as each stands now; the environment’s and merchant’s own', async (t) => {
  const { merchant, key: mine } = await svc.sandboxMerchant('Lister');
  const list = async (query = '', as = mine) => {
    const res = await svc.request('GET', `/api/v1/checkout/sessions${query}`, { key: as });
    assertOk(t, res);
    return res.body;
  };
  t.match(await list(), { object: 'list', data: [], has_more: false, url: '/api/v1/checkout/sessions' }, 'none yet');
  const paid = await createSession(svc, mine, { amount: 1_000 });
  const canceled = await createSession(svc, mine, { amount: 2_000 });
  const expired = await createSession(svc, mine, { amount: 3_000 });
  const link = await createLink(svc, mine);
  const forLink = (await svc.request('POST', '/api/v1/checkout/sessions', { key: mine, body: { paymentLinkId: link.id } })).body;
  const paying = await createSession(svc, mine, { amount: 4_000 });
  assertOk(t, await payByMobileMoney(svc, paid.id, snNumber('05')));
  await operatorAnswers(svc);
  assertOk(t, await svc.request('POST', `/api/checkout/${canceled.id}/cancel`));
  assertOk(t, await svc.request('POST', `/api/v1/checkout/sessions/${expired.id}/expire`, { key: mine }));
  assertOk(t, await payByMobileMoney(svc, paying.id, snNumber('03'))); // the operator never answers: it stays with the operator

  const all = await list();
  t.same(
    all.data.map((s: { id: string }) => s.id),
    [paying.id, forLink.id, expired.id, canceled.id, paid.id],
    'newest first',
  );
  t.same(all.data[4], (await svc.request('GET', `/api/v1/checkout/sessions/${paid.id}`, { key: mine })).body, 'each as retrieve answers it');
  const ids = async (query: string) => (await list(query)).data.map((s: { id: string }) => s.id);
  t.same(await ids('?status=complete'), [paid.id]);
  t.same(await ids('?status=canceled'), [canceled.id]);
  t.same(await ids('?status=expired'), [expired.id]);
  t.same(await ids('?status=open'), [paying.id, forLink.id], 'open: unpaid, or with the operator');
  t.same(await ids(`?paymentLinkId=${link.id}`), [forLink.id]);
  t.same(await ids(`?paymentLinkId=${link.id}&status=complete`), []);

  const first = await list('?limit=2');
  t.match(first, { has_more: true, data: [{ id: paying.id }, { id: forLink.id }] });
  const second = await list(`?limit=2&starting_after=${forLink.id}`);
  t.match(second, { has_more: true, data: [{ id: expired.id }, { id: canceled.id }] });
  t.match(await list(`?limit=2&starting_after=${canceled.id}`), { has_more: false, data: [{ id: paid.id }] });
  t.match(await list(`?limit=2&ending_before=${expired.id}`), { data: [{ id: paying.id }, { id: forLink.id }] });

  // Time passing expires the open, unpaid ones in the list too; the one with the operator stays open.
  svc.clock.advance(24 * 3_600_000);
  t.same(await ids('?status=expired'), [forLink.id, expired.id]);
  t.same(await ids('?status=open'), [paying.id]);

  assertError(t, await svc.request('GET', '/api/v1/checkout/sessions?status=paid', { key: mine }), 'IKW-VAL-001', 'status');
  assertError(t, await svc.request('GET', '/api/v1/checkout/sessions?paymentLinkId=nope', { key: mine }), 'IKW-VAL-001', 'paymentLinkId');
  assertError(t, await svc.request('GET', `/api/v1/checkout/sessions?starting_after=${paid.id}`, { key: otherKey }), 'IKW-VAL-001', 'starting_after');
  t.same(
    (await list('', otherKey)).data.filter((s: { id: string }) => [paid.id, paying.id].includes(s.id)),
    [],
    "another merchant's list has none of them",
  );
  t.same((await list('', merchant.api_keys.live)).data, [], 'live has its own sessions');
});

t.test('expire: an open session ends now, its intent with it; its page says it expired', async (t) => {
  const s = await createSession(svc, key);
  const at = svc.clock.now();
  const res = await svc.request('POST', `/api/v1/checkout/sessions/${s.id}/expire`, { key });
  assertOk(t, res);
  t.match(res.body, { id: s.id, status: 'expired', paymentStatus: 'unpaid', expiresAt: at.toISOString() });
  t.same((await svc.request('GET', `/api/v1/checkout/sessions/${s.id}`, { key })).body, res.body, 'retrieve says so too');
  t.match(await retrieve(svc, key, s.paymentIntentId), { status: 'canceled', cancellation_reason: 'abandoned' }, 'its unpaid intent is canceled');
  t.match(await sessionStatus(svc, s.id), { status: 'expired' });
  assertError(t, await payByMobileMoney(svc, s.id, snNumber('05')), 'IKW-CHK-001', 'sessionId');
  const page = await fetch(`${svc.baseUrl}/checkout/session/${s.id}`, { headers: { accept: 'text/html' } });
  t.equal(page.status, 410);
  t.match(await page.text(), /expired/);

  const deferred = await createSession(svc, key, { deferPaymentIntentCreation: true });
  t.match((await svc.request('POST', `/api/v1/checkout/sessions/${deferred.id}/expire`, { key })).body, { status: 'expired', paymentIntentId: null }, 'a session without an intent yet');
});

t.test('expire: refused once the session is no longer open, or while its payment is with the operator', async (t) => {
  const expire = (id: string, as = key) => svc.request('POST', `/api/v1/checkout/sessions/${id}/expire`, { key: as });
  const expired = await createSession(svc, key);
  assertOk(t, await expire(expired.id));
  assertError(t, await expire(expired.id), 'IKW-CHK-001', 'id');
  const paid = await createSession(svc, key);
  await payByMobileMoney(svc, paid.id, snNumber('05'));
  assertError(t, await expire(paid.id), 'IKW-RES-002', 'id');
  await operatorAnswers(svc);
  assertError(t, await expire(paid.id), 'IKW-CHK-001', 'id');
  t.match(await sessionStatus(svc, paid.id), { status: 'complete' }, 'a paid session stays paid');
  const canceled = await createSession(svc, key);
  await svc.request('POST', `/api/checkout/${canceled.id}/cancel`);
  assertError(t, await expire(canceled.id), 'IKW-CHK-001', 'id');
  const lapsed = await createSession(svc, key);
  svc.clock.advance(24 * 3_600_000);
  assertError(t, await expire(lapsed.id), 'IKW-CHK-001', 'id');

  const open = await createSession(svc, key);
  assertError(t, await expire(open.id, otherKey), 'IKW-RES-001', 'id');
  const { merchant } = await svc.sandboxMerchant('Live side');
  const sandboxSession = await createSession(svc, merchant.api_keys.sandbox);
  assertError(t, await expire(sandboxSession.id, merchant.api_keys.live), 'IKW-RES-001', 'id');
  assertError(t, await expire('cs_000000000000000000000000'), 'IKW-RES-001', 'id');
  t.match(await sessionStatus(svc, open.id), { status: 'open' }, "another merchant's or environment's call changed nothing");
  t.match(await sessionStatus(svc, sandboxSession.id), { status: 'open' });
  const readOnly = await svc.apiKey(merchant.id, ['checkout.read']);
  assertError(t, await expire(sandboxSession.id, readOnly.secret), 'IKW-AUT-004');
});

t.test('expire: idempotent like every POST (the same key answers the first answer)', async (t) => {
  const s = await createSession(svc, key);
  const headers = { 'Idempotency-Key': `expire-${s.id}` };
  const first = await svc.request('POST', `/api/v1/checkout/sessions/${s.id}/expire`, { key, headers });
  const again = await svc.request('POST', `/api/v1/checkout/sessions/${s.id}/expire`, { key, headers });
  assertOk(t, first);
  t.equal(again.text, first.text, 'replayed byte for byte, not refused as already expired');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  const events = await svc.system.store.readStream(`checkout_session-${s.id}`);
  t.equal(events.filter((e) => e.type === 'checkout_session.expired').length, 1, 'one expiry in the log');
});
