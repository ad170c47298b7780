/**
 * /api/v1/webhook-endpoints through HTTP: registration (the secret shown once, the URL never
 * contacted), list and detail (only secret_last4), update, secret rotation, separation of the
 * environments and of merchants, deletion, and every kind of bad input with its code and param.
 * Delivery and signatures are in webhook-delivery.test.ts.
 */
import t from '#tap';
import { PUBLIC_EVENTS } from '#packages/families/index.js';
import { assertError, assertOk } from '../../support/payments.js';
import { startService } from '../../support/system.js';
import { createEndpoint, createIntentEvent, deliveriesOf, getEndpoint, HOUR, listeningEndpoint, Receiver, rotate, settle, startWebhookService, updateEndpoint } from '../../support/webhooks.js';

const svc = await startWebhookService(t);
const SECRET = /^whsec_[A-Za-z0-9+/]{44}$/;

t.test('create: the response holds the secret once; the URL is not contacted', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  const res = await svc.request('POST', '/api/v1/webhook-endpoints', { key, body: { url: receiver.url, enabled_events: ['payment_intent.succeeded', 'payout.failed'] } });
  assertOk(t, res);
  const e = res.body;
  t.match(e, {
    id: /^we_/,
    object: 'webhook_endpoint',
    url: receiver.url,
    enabled_events: ['payment_intent.succeeded', 'payout.failed'],
    enabled: true,
    status: 'active',
    secret: SECRET,
    has_previous_secret: false,
    rotation_recommended: false,
    livemode: false,
  });
  t.equal(e.secret_last4, e.secret.slice(-4), 'secret_last4 is the end of the secret');
  t.notMatch(e.secret_last4, /=/, 'four characters of key, no base64 padding');
  t.equal(e.secret_created_at, svc.clock.now().toISOString(), 'secret_created_at is now');
  t.type(e.created, 'number');

  await svc.system.drain();
  t.equal(receiver.count, 0, 'the receiver got nothing, at creation or after');

  // The secret is sealed at rest: neither the event log nor the read model holds it.
  const { knex } = svc.system;
  const inEvents = await knex('events')
    .whereRaw('data::text LIKE ?', [`%${e.secret.slice(6, 30)}%`])
    .count<{ count: string }[]>('* as count');
  t.equal(Number(inEvents[0]!.count), 0, 'not in the event log');
  const row = await knex('read.webhook_endpoints').where({ id: e.id }).first<{ secret_sealed: string }>();
  t.notOk(row.secret_sealed.includes(e.secret.slice(6)), 'sealed in the read model');
});

t.test('list and detail never show the secret, only its last four characters', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const a = await createEndpoint(svc, key, 'http://127.0.0.1:9/a', ['*']);
  const b = await createEndpoint(svc, key, 'https://hooks.example.com/b', ['payout.paid']);
  const other = await createEndpoint(svc, (await svc.merchant('Other')).api_keys.sandbox, 'https://hooks.example.com/other');

  const detail = await getEndpoint(svc, key, a.id);
  assertOk(t, detail);
  t.notOk('secret' in detail.body, 'no secret in the detail');
  t.notOk(detail.text.includes(a.secret.slice(6)), 'not anywhere in the answer');
  t.match(detail.body, { id: a.id, url: 'http://127.0.0.1:9/a', enabled_events: ['*'], enabled: true, secret_last4: a.secret_last4, has_previous_secret: false, rotation_recommended: false });

  const list = await svc.request('GET', '/api/v1/webhook-endpoints', { key });
  assertOk(t, list);
  t.match(list.body, { object: 'list', has_more: false, url: '/api/v1/webhook-endpoints' });
  t.same(
    list.body.data.map((e: { id: string }) => e.id),
    [b.id, a.id],
    'newest first, and only this merchant’s',
  );
  t.notOk(list.text.includes(other.id), 'another merchant’s endpoint is not listed');
  for (const [e, created] of [
    [list.body.data[0], b],
    [list.body.data[1], a],
  ] as const) {
    t.notOk('secret' in e, `${e.id}: no secret in the list`);
    t.equal(e.secret_last4, created.secret_last4);
  }
  t.notOk(list.text.includes('whsec_'), 'no secret at all in the list');

  const page = await svc.request('GET', '/api/v1/webhook-endpoints?limit=1', { key });
  t.same(
    page.body.data.map((e: { id: string }) => e.id),
    [b.id],
  );
  t.equal(page.body.has_more, true);
});

t.test('update: url, enabled_events and enabled, each alone; bad input refused', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  const e = await createEndpoint(svc, key, 'https://hooks.example.com/old', ['payment_intent.succeeded']);

  let res = await updateEndpoint(svc, key, e.id, { url: receiver.url });
  assertOk(t, res);
  t.match(res.body, { id: e.id, url: receiver.url, enabled_events: ['payment_intent.succeeded'], enabled: true, secret_last4: e.secret_last4 });
  t.notOk('secret' in res.body, 'an update does not show the secret');

  res = await updateEndpoint(svc, key, e.id, { enabled_events: ['payout.paid', 'payout.failed', 'payout.paid'] });
  assertOk(t, res);
  t.same(res.body.enabled_events, ['payout.paid', 'payout.failed'], 'duplicates collapse, order kept');
  t.equal(res.body.url, receiver.url);

  res = await updateEndpoint(svc, key, e.id, { enabled: false });
  assertOk(t, res);
  t.equal(res.body.enabled, false);
  t.equal((await getEndpoint(svc, key, e.id)).body.enabled, false, 'GET agrees');

  res = await updateEndpoint(svc, key, e.id, { enabled: true, enabled_events: ['*'], url: 'https://hooks.example.com/new' });
  assertOk(t, res);
  t.match(res.body, { enabled: true, enabled_events: ['*'], url: 'https://hooks.example.com/new' });

  t.equal((await updateEndpoint(svc, key, e.id, {})).status, 200, 'an empty update is accepted');
  t.match((await getEndpoint(svc, key, e.id)).body, { enabled: true, enabled_events: ['*'], url: 'https://hooks.example.com/new' });

  assertError(t, await updateEndpoint(svc, key, e.id, { url: 'ftp://hooks.example.com/x' }), 'IKW-WHK-001', 'url');
  assertError(t, await updateEndpoint(svc, key, e.id, { enabled_events: ['payout.paid', 'payout.exploded'] }), 'IKW-WHK-002', 'enabled_events.1');
  assertError(t, await updateEndpoint(svc, key, e.id, { enabled_events: [] }), 'IKW-VAL-001', 'enabled_events');
  assertError(t, await updateEndpoint(svc, key, e.id, { enabled: 'yes' }), 'IKW-VAL-001', 'enabled');
  assertError(t, await updateEndpoint(svc, key, e.id, { secret: 'whsec_mine' }), 'IKW-VAL-002', 'secret');
  t.match((await getEndpoint(svc, key, e.id)).body, { enabled: true, enabled_events: ['*'], url: 'https://hooks.example.com/new' }, 'refused updates changed nothing');

  await svc.system.drain();
  t.equal(receiver.count, 0, 'an update does not contact the URL either');
});

t.test('rotate_secret: a new secret, shown once; the previous one is kept for 24 h', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const e = await createEndpoint(svc, key, 'https://hooks.example.com/r');
  svc.clock.advance(60_000);
  const res = await rotate(svc, key, e.id);
  assertOk(t, res);
  t.match(res.body, { id: e.id, secret: SECRET, has_previous_secret: true });
  t.not(res.body.secret, e.secret, 'a new secret');
  t.equal(res.body.secret_last4, res.body.secret.slice(-4));
  t.equal(res.body.secret_rotated_at, svc.clock.now().toISOString());
  t.equal(res.body.secret_created_at, res.body.secret_rotated_at, 'the current secret was created at the rotation');

  const detail = (await getEndpoint(svc, key, e.id)).body;
  t.notOk('secret' in detail);
  t.match(detail, { secret_last4: res.body.secret_last4, has_previous_secret: true });
  t.equal(detail.previous_secret_expires_at, new Date(svc.clock.now().getTime() + 24 * HOUR).toISOString());

  svc.clock.advance(24 * HOUR - 1000);
  t.equal((await getEndpoint(svc, key, e.id)).body.has_previous_secret, true, 'still within 24 h');
  svc.clock.advance(2000);
  const after = (await getEndpoint(svc, key, e.id)).body;
  t.equal(after.has_previous_secret, false, 'gone after 24 h');
  t.equal(after.previous_secret_expires_at, null);

  const again = await rotate(svc, key, e.id);
  assertOk(t, again);
  t.not(again.body.secret, res.body.secret, 'each rotation gives a new secret');
});

t.test('environments: separate endpoints and secrets; a live key sees no sandbox endpoint', async (t) => {
  const m = await svc.merchant();
  const sandboxKey = m.api_keys.sandbox;
  const liveKey = m.api_keys.live;
  const s = await createEndpoint(svc, sandboxKey, 'https://hooks.example.com/same');
  const l = await createEndpoint(svc, liveKey, 'https://hooks.example.com/same');
  t.not(s.id, l.id);
  t.not(s.secret, l.secret, 'a secret of its own per environment');

  const liveList = await svc.request('GET', '/api/v1/webhook-endpoints', { key: liveKey });
  t.same(
    liveList.body.data.map((e: { id: string; livemode: boolean }) => [e.id, e.livemode]),
    [[l.id, true]],
  );
  const sandboxList = await svc.request('GET', '/api/v1/webhook-endpoints', { key: sandboxKey });
  t.same(
    sandboxList.body.data.map((e: { id: string; livemode: boolean }) => [e.id, e.livemode]),
    [[s.id, false]],
  );

  assertError(t, await getEndpoint(svc, liveKey, s.id), 'IKW-RES-001', 'id');
  assertError(t, await updateEndpoint(svc, liveKey, s.id, { enabled: false }), 'IKW-RES-001', 'id');
  assertError(t, await rotate(svc, liveKey, s.id), 'IKW-RES-001', 'id');
  assertError(t, await getEndpoint(svc, sandboxKey, l.id), 'IKW-RES-001', 'id');
  t.equal((await getEndpoint(svc, sandboxKey, s.id)).body.enabled, true, 'the sandbox endpoint is unchanged');

  // The environment header picks nothing else: with a sandbox key it must say sandbox.
  assertError(t, await svc.request('GET', '/api/v1/webhook-endpoints', { key: sandboxKey, headers: { 'x-environment': 'live' } }), 'IKW-AUT-003');
});

t.test('enabled_events: `*` and every catalogue type; an unknown type is IKW-WHK-002', async (t) => {
  const key = (await svc.merchant()).api_keys.sandbox;
  const all = PUBLIC_EVENTS.types.map((e) => e.type);
  const e = await createEndpoint(svc, key, 'https://hooks.example.com/all', all);
  t.same(e.enabled_events, all);
  t.same((await createEndpoint(svc, key, 'https://hooks.example.com/star', ['*'])).enabled_events, ['*']);

  const post = (body: unknown) => svc.request('POST', '/api/v1/webhook-endpoints', { key, body });
  assertError(t, await post({ url: 'https://hooks.example.com/x', enabled_events: ['payment_intent.succeeded', 'payment_intent.refunded'] }), 'IKW-WHK-002', 'enabled_events.1');
  assertError(t, await post({ url: 'https://hooks.example.com/x', enabled_events: ['PAYOUT.PAID'] }), 'IKW-WHK-002', 'enabled_events.0');
  assertError(t, await post({ url: 'https://hooks.example.com/x', enabled_events: ['payout.*'] }), 'IKW-WHK-002', 'enabled_events.0');
  assertError(t, await post({ url: 'https://hooks.example.com/x', enabled_events: ['webhook_endpoint.created'] }), 'IKW-WHK-002', 'enabled_events.0');
  assertError(t, await post({ url: 'https://hooks.example.com/x', enabled_events: [] }), 'IKW-VAL-001', 'enabled_events');
  assertError(t, await post({ url: 'https://hooks.example.com/x', enabled_events: 'payout.paid' }), 'IKW-VAL-001', 'enabled_events');
  assertError(t, await post({ url: 'https://hooks.example.com/x' }), 'IKW-VAL-001', 'enabled_events');
  assertError(t, await post({ enabled_events: ['*'] }), 'IKW-VAL-001', 'url');
  t.equal((await svc.request('GET', '/api/v1/webhook-endpoints', { key })).body.data.length, 2, 'nothing was registered by the refused requests');
});

t.test('URLs: relative, ftp://, http in live, credentials and refused addresses are IKW-WHK-001', async (t) => {
  const m = await svc.merchant();
  const post = (key: string, url: string) => svc.request('POST', '/api/v1/webhook-endpoints', { key, body: { url, enabled_events: ['*'] } });
  for (const url of ['/hooks', 'hooks.example.com/x', '//hooks.example.com/x', 'ftp://hooks.example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'https://user:pw@hooks.example.com/x']) {
    assertError(t, await post(m.api_keys.sandbox, url), 'IKW-WHK-001', 'url');
  }
  const http = await post(m.api_keys.live, 'http://hooks.example.com/x');
  assertError(t, http, 'IKW-WHK-001', 'url');
  t.match(http.body.message, /https/i, 'the message says HTTPS is required');
  t.equal((await post(m.api_keys.live, 'https://hooks.example.com/x')).status, 200, 'HTTPS in live is fine');
  t.equal((await post(m.api_keys.sandbox, 'http://hooks.example.com/x')).status, 200, 'HTTP in sandbox is fine');

  // WEBHOOK_ALLOW_PRIVATE_URLS (127.0.0.0/8,::1 here) lifts the address rule in sandbox only: live refuses them all.
  const refused = [
    'https://localhost/x',
    'https://api.localhost./x',
    'https://127.0.0.1/x',
    'https://2130706433/x',
    'https://0x7f.1/x',
    'https://[::1]/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://0.0.0.0/x',
    'https://10.1.2.3/x',
    'https://192.168.0.10./x',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/x',
    'https://[fc00::1]/x',
    'https://[fe80::1]/x',
    'https://hooks.example.com@127.0.0.1/x',
  ];
  for (const url of refused) assertError(t, await post(m.api_keys.live, url), 'IKW-WHK-001', 'url');
  t.equal((await post(m.api_keys.sandbox, 'http://127.0.0.1:9/x')).status, 200, 'a loopback receiver in sandbox with WEBHOOK_ALLOW_PRIVATE_URLS');
  t.equal((await post(m.api_keys.sandbox, 'http://[::1]:9/x')).status, 200, 'IPv6 loopback: ::1 is among the ranges');
  t.equal((await post(m.api_keys.sandbox, 'http://localhost:9/x')).status, 200, 'a localhost name: loopback is among the ranges');
  // The ranges it names (127.0.0.0/8,::1), not every private address: the rest stays refused in sandbox.
  for (const url of ['http://10.1.2.3/x', 'http://192.168.0.10/x', 'http://169.254.169.254/latest/meta-data', 'http://100.64.0.1/x', 'http://[fc00::1]/x', 'http://[fe80::1]/x']) {
    assertError(t, await post(m.api_keys.sandbox, url), 'IKW-WHK-001', 'url');
  }
  t.equal((await svc.request('GET', '/api/v1/webhook-endpoints', { key: m.api_keys.live })).body.data.length, 1, 'only the good live URL was registered');
});

t.test('without WEBHOOK_ALLOW_PRIVATE_URLS sandbox refuses private addresses too', async (t) => {
  const strict = await startService(t);
  const key = (await strict.merchant()).api_keys.sandbox;
  for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://[::1]/x', 'http://0177.0.0.1/x', 'http://10.0.0.1/x', 'http://169.254.169.254/']) {
    assertError(t, await strict.request('POST', '/api/v1/webhook-endpoints', { key, body: { url, enabled_events: ['*'] } }), 'IKW-WHK-001', 'url');
  }
  const e = await createEndpoint(strict, key, 'https://hooks.example.com/x');
  assertError(t, await updateEndpoint(strict, key, e.id, { url: 'http://127.0.0.1/x' }), 'IKW-WHK-001', 'url');
});

t.test('another merchant’s endpoint is 404 on GET, update and rotate, and stays unchanged', async (t) => {
  const owner = (await svc.merchant('Owner')).api_keys.sandbox;
  const intruder = (await svc.merchant('Intruder')).api_keys.sandbox;
  const e = await createEndpoint(svc, owner, 'https://hooks.example.com/mine', ['payout.paid']);
  assertError(t, await getEndpoint(svc, intruder, e.id), 'IKW-RES-001', 'id');
  assertError(t, await updateEndpoint(svc, intruder, e.id, { url: 'https://evil.example.com/x', enabled_events: ['*'] }), 'IKW-RES-001', 'id');
  const r = await rotate(svc, intruder, e.id);
  assertError(t, r, 'IKW-RES-001', 'id');
  t.notOk(r.text.includes('whsec_'), 'no secret leaks');
  assertError(t, await getEndpoint(svc, owner, 'we_doesnotexist'), 'IKW-RES-001', 'id');
  assertError(t, await updateEndpoint(svc, owner, 'we_doesnotexist', { enabled: false }), 'IKW-RES-001', 'id');
  assertError(t, await rotate(svc, owner, 'we_doesnotexist'), 'IKW-RES-001', 'id');

  const mine = (await getEndpoint(svc, owner, e.id)).body;
  t.match(mine, { url: 'https://hooks.example.com/mine', enabled_events: ['payout.paid'], secret_last4: e.secret_last4, has_previous_secret: false });
});

t.test('rotation_recommended once the secret is a year old; a rotation resets it', async (t) => {
  const key = (await svc.merchant()).api_keys.sandbox;
  const e = await createEndpoint(svc, key, 'https://hooks.example.com/old-secret');
  svc.clock.advance(365 * 24 * HOUR);
  t.equal((await getEndpoint(svc, key, e.id)).body.rotation_recommended, false, 'not at exactly a year');
  svc.clock.advance(1000);
  t.equal((await getEndpoint(svc, key, e.id)).body.rotation_recommended, true, 'after a year');
  const r = await rotate(svc, key, e.id);
  t.equal(r.body.rotation_recommended, false);
  t.equal((await getEndpoint(svc, key, e.id)).body.rotation_recommended, false);
});

t.test('scopes: webhooks.read lists and reads; writing needs webhooks.write', async (t) => {
  const m = await svc.merchant();
  const e = await createEndpoint(svc, m.api_keys.sandbox, 'https://hooks.example.com/scoped');
  const reader = await svc.apiKey(m.id, ['webhooks.read']);
  assertOk(t, await getEndpoint(svc, reader.secret, e.id));
  assertOk(t, await svc.request('GET', '/api/v1/webhook-endpoints', { key: reader.secret }));
  assertError(t, await svc.request('POST', '/api/v1/webhook-endpoints', { key: reader.secret, body: { url: 'https://hooks.example.com/x', enabled_events: ['*'] } }), 'IKW-AUT-004');
  assertError(t, await updateEndpoint(svc, reader.secret, e.id, { enabled: false }), 'IKW-AUT-004');
  assertError(t, await rotate(svc, reader.secret, e.id), 'IKW-AUT-004');
  assertError(t, await svc.request('POST', '/api/v1/webhook-replays', { key: reader.secret, body: { webhook_endpoint_id: e.id } }), 'IKW-AUT-004');
  const payouts = await svc.apiKey(m.id, ['payouts.read']);
  assertError(t, await getEndpoint(svc, payouts.secret, e.id), 'IKW-AUT-004');
  assertError(t, await svc.request('GET', '/api/v1/webhook-endpoints', {}), 'IKW-AUT-001');
});

t.test('delete: nothing is sent to it again, its queued retry is skipped, it is no longer found; others cannot', async (t) => {
  const m = await svc.merchant();
  const key = m.api_keys.sandbox;
  const { receiver, endpoint: e } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  receiver.behaviour = { kind: 'answer', status: 503 };
  await createIntentEvent(svc, key);
  await settle(svc);
  t.match(await deliveriesOf(svc, e.id), [{ status: 'retrying', attempts: 1 }], 'a retry is queued');

  const intruder = (await svc.merchant('Intruder')).api_keys.sandbox;
  const del = (k: string, id = e.id) => svc.request('DELETE', `/api/v1/webhook-endpoints/${id}`, { key: k });
  assertError(t, await del(intruder), 'IKW-RES-001', 'id');
  assertError(t, await del(m.api_keys.live), 'IKW-RES-001', 'id');
  const reader = await svc.apiKey(m.id, ['webhooks.read']);
  assertError(t, await del(reader.secret), 'IKW-AUT-004');
  assertOk(t, await getEndpoint(svc, key, e.id));

  const res = await del(key);
  assertOk(t, res);
  t.same(res.body, { id: e.id, object: 'webhook_endpoint', deleted: true });
  assertError(t, await getEndpoint(svc, key, e.id), 'IKW-RES-001', 'id');
  t.same((await svc.request('GET', '/api/v1/webhook-endpoints', { key })).body.data, [], 'no longer listed');
  assertError(t, await updateEndpoint(svc, key, e.id, { enabled: true }), 'IKW-RES-001', 'id');
  assertError(t, await rotate(svc, key, e.id), 'IKW-RES-001', 'id');
  assertError(t, await del(key), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', `/api/v1/webhook-endpoints/${e.id}/deliveries`, { key }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', '/api/v1/webhook-replays', { key, body: { webhook_endpoint_id: e.id } }), 'IKW-RES-001', 'webhook_endpoint_id');
  assertError(t, await del(key, 'we_doesnotexist'), 'IKW-RES-001', 'id');

  receiver.behaviour = { kind: 'answer', status: 200 };
  svc.clock.advance(6 * 60_000);
  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 1, 'neither the retry nor a new event is sent');
  t.match(await deliveriesOf(svc, e.id), [{ status: 'skipped', attempts: 1 }], 'the queued retry skipped');
});

t.test('scopes: a key subscribes only to the event families it can read', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const url = 'https://hooks.example.com/scoped';
  const hooksOnly = await svc.apiKey(merchant.id, ['webhooks.write']);
  const create = (k: string, types: string[]) => svc.request('POST', '/api/v1/webhook-endpoints', { key: k, body: { url, enabled_events: types } });
  assertError(t, await create(hooksOnly.secret, ['payment_intent.succeeded']), 'IKW-AUT-004', 'enabled_events.0');

  const payments = await svc.apiKey(merchant.id, ['webhooks.write', 'payment_intents.read']);
  const mine = await create(payments.secret, ['payment_intent.succeeded', 'payment_intent.payment_failed']);
  assertOk(t, mine);
  const refused = await create(payments.secret, ['payment_intent.succeeded', 'payout.paid']);
  assertError(t, refused, 'IKW-AUT-004', 'enabled_events.1');
  t.match(refused.body.message, /payouts\.read/, 'the message names the scope it lacks');
  assertError(t, await create(payments.secret, ['payment_intent.succeeded', 'payment_intent.succeeded', 'payout.paid']), 'IKW-AUT-004', 'enabled_events.2');
  assertError(t, await create(payments.secret, ['*']), 'IKW-AUT-004', 'enabled_events.0');
  // A key that reads everything may take `*`.
  assertOk(t, await create((await svc.apiKey(merchant.id, ['webhooks.write', '*.read'])).secret, ['*']));

  // An update is checked as a creation: the types it names, or (when it moves or enables the endpoint) the ones it has.
  const id = mine.body.id as string;
  assertError(t, await updateEndpoint(svc, payments.secret, id, { enabled_events: ['invoice.paid'] }), 'IKW-AUT-004', 'enabled_events.0');
  const payouts = await createEndpoint(svc, key, url, ['payout.paid']);
  assertError(t, await updateEndpoint(svc, payments.secret, payouts.id, { url: 'https://attacker.example.com/' }), 'IKW-AUT-004', 'enabled_events');
  // Disabling reaches nothing: any key may.
  assertOk(t, await updateEndpoint(svc, payments.secret, payouts.id, { enabled: false }));
  assertError(t, await updateEndpoint(svc, payments.secret, payouts.id, { enabled: true }), 'IKW-AUT-004', 'enabled_events');
  const after = await getEndpoint(svc, key, payouts.id);
  t.match(after.body, { url, enabled_events: ['payout.paid'], enabled: false }, 'nothing refused was changed');
  assertOk(t, await updateEndpoint(svc, payments.secret, id, { url: 'https://hooks.example.com/moved' }));
});
