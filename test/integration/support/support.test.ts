/**
 * Support intake through the real server and a real SMTP server on loopback: a request is
 * recorded as an event and e-mailed to SUPPORT_EMAIL with the merchant context (Reply-To the
 * merchant), once even when retried with its Idempotency-Key; throttled per merchant × contact
 * address and per merchant on the manual clock; refused without the scope or with a bad body.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { startService } from '../../support/system.js';
import { startSmtp } from '../../support/webhooks.js';
import { freePort } from '#packages/core/embedded-postgres.js';

const smtp = await startSmtp(t);
const svc = await startService(t, { env: { SMTP_URL: smtp.url, SUPPORT_EMAIL: 'help@sika.example' } });
const { merchant, key } = await svc.sandboxMerchant('Boutique Awa');
const other = await svc.sandboxMerchant('Other');
const contact = (body: Record<string, unknown>, withKey = key, headers: Record<string, string> = {}) => svc.request('POST', '/api/v1/support/intake/contact', { key: withKey, body, headers });
const request = { name: 'Awa Diop', email: 'Awa@Example.com', subject: 'Payout not received', message: 'Payout po_123 is late.', category: 'payouts', page: '/payouts/po_123', relatedObject: 'po_123' };

t.test('a request is recorded, then e-mailed to the support address with the merchant context', async (t) => {
  const res = await contact(request, key, { 'User-Agent': 'dashboard-test' });
  assertOk(t, res, 201);
  t.match(res.body, { object: 'support_ticket', status: 'received', category: 'payouts', subject: 'Payout not received', email: 'awa@example.com', livemode: false });
  const events = await svc.system.store.readStream(`support_ticket-${res.body.id}`);
  t.same(
    events.map((e) => e.type),
    ['support_ticket.submitted'],
  );
  t.match(events[0]!.data, { merchantId: merchant.id, context: { merchantName: 'Boutique Awa', page: '/payouts/po_123', relatedObject: 'po_123', userAgent: 'dashboard-test' } });

  await svc.system.drain();
  const mail = smtp.mails.find((m) => m.raw.includes(res.body.id));
  t.ok(mail, 'e-mailed');
  t.same(mail!.to, ['help@sika.example']);
  t.match(mail!.raw, /Reply-To: awa@example\.com/i);
  t.match(mail!.raw, /Subject: \[Support payouts\] Payout not received \(Boutique Awa\)/);
  t.match(mail!.raw, new RegExp(`Merchant: Boutique Awa \\(${merchant.id}\\), sandbox`));
  t.match(mail!.raw, /Page: \/payouts\/po_123/);
  t.same(
    (await svc.system.store.readStream(`support_ticket-${res.body.id}`)).map((e) => e.type),
    ['support_ticket.submitted', 'support_ticket.forwarded'],
  );
  await svc.system.drain();
  t.equal(smtp.mails.filter((m) => m.raw.includes(res.body.id)).length, 1, 'forwarded once');
});

t.test('an Idempotency-Key records one ticket and sends one e-mail', async (t) => {
  const headers = { 'Idempotency-Key': 'support-once' };
  const first = await contact({ ...request, email: 'once@example.com' }, key, headers);
  const again = await contact({ ...request, email: 'once@example.com' }, key, headers);
  assertOk(t, again, 201);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.body.id, first.body.id);
  await svc.system.drain();
  t.equal(smtp.mails.filter((m) => m.raw.includes(first.body.id)).length, 1);
});

t.test('throttled per merchant and contact address, on the clock', async (t) => {
  const { key: throttled } = await svc.sandboxMerchant('Busy');
  for (let i = 0; i < 5; i++) assertOk(t, await contact({ ...request, email: 'same@example.com' }, throttled), 201);
  const over = await contact({ ...request, email: 'same@example.com' }, throttled);
  assertError(t, over, 'IKW-LIM-001');
  t.ok(Number(over.headers.get('retry-after')) > 0, 'says when to retry');
  assertOk(t, await contact({ ...request, email: 'colleague@example.com' }, throttled), 201);
  assertOk(t, await contact({ ...request, email: 'same@example.com' }, other.key), 201);
  // 20 an hour per merchant, the refused request counted too: 7 so far.
  for (let i = 0; i < 13; i++) assertOk(t, await contact({ ...request, email: `person${i}@example.com` }, throttled), 201);
  assertError(t, await contact({ ...request, email: 'new@example.com' }, throttled), 'IKW-LIM-001');
  svc.clock.advance(3_600_000);
  assertOk(t, await contact({ ...request, email: 'same@example.com' }, throttled), 201);
});

t.test('every member of the team may contact support, a viewer too', async (t) => {
  await svc.member(merchant, 'viewer@boutique.example', 'read only please', 'viewer');
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'viewer@boutique.example', password: 'read only please' } });
  assertOk(t, login);
  const res = await contact({ ...request, email: 'viewer@boutique.example' }, login.body.accessToken, { 'X-Environment': 'sandbox' });
  assertOk(t, res, 201);
  t.match(res.body, { object: 'support_ticket', email: 'viewer@boutique.example' });
});

t.test('refusals', async (t) => {
  assertError(t, await contact({ ...request, email: 'not an address' }), 'IKW-VAL-001', 'email');
  assertError(t, await contact({ ...request, message: '   ' }), 'IKW-VAL-001', 'message');
  assertError(t, await contact({ ...request, category: 'complaints' }), 'IKW-VAL-001', 'category');
  assertError(t, await contact({ ...request, attachment: 'x' }), 'IKW-VAL-002', 'attachment');
  const { subject: _subject, ...noSubject } = request;
  assertError(t, await contact(noSubject), 'IKW-VAL-001', 'subject');
  const readOnly = await svc.apiKey(merchant.id, ['*.read']);
  assertError(t, await contact(request, readOnly.secret), 'IKW-AUT-004');
  assertError(t, await svc.request('POST', '/api/v1/support/intake/contact', { body: request }), 'IKW-AUT-001');
});

t.test('without SUPPORT_EMAIL the request is recorded, not e-mailed', async (t) => {
  const quiet = await startService(t, { env: { SMTP_URL: smtp.url } });
  const { key: quietKey } = await quiet.sandboxMerchant();
  const res = await quiet.request('POST', '/api/v1/support/intake/contact', { key: quietKey, body: request });
  assertOk(t, res, 201);
  await quiet.system.drain();
  const events = await quiet.system.store.readStream(`support_ticket-${res.body.id}`);
  t.match(
    events.map((e) => [e.type, e.data]),
    [
      ['support_ticket.submitted', {}],
      ['support_ticket.forwarded', { to: null }],
    ],
  );
  t.notOk(smtp.mails.some((m) => m.raw.includes(res.body.id)));
});

t.test('an e-mail that fails is not recorded as forwarded: the job tries again', async (t) => {
  const closed = await freePort(); // nothing listens there: every send fails
  const failing = await startService(t, { env: { SMTP_URL: `smtp://127.0.0.1:${closed}`, SUPPORT_EMAIL: 'help@sika.example' } });
  const { key: failingKey } = await failing.sandboxMerchant();
  const res = await failing.request('POST', '/api/v1/support/intake/contact', { key: failingKey, body: request });
  assertOk(t, res, 201);
  await failing.system.drain();
  const events = await failing.system.store.readStream(`support_ticket-${res.body.id}`);
  t.same(
    events.map((e) => e.type),
    ['support_ticket.submitted'],
    'still waiting to be forwarded',
  );
  const jobs = await failing.system.knex('scheduled_jobs').where('kind', 'like', '%support%').select('attempts');
  t.equal(jobs.length, 1, 'its job is kept for another attempt');
});
