/**
 * API keys over the API (docs/merchants.md, "API keys"): signed-in owners and admins list, create,
 * roll and revoke the keys of the environment they act in; the secret is shown once; a rolled
 * key's old secret works for the grace period picked and not after; a revoked key is refused at
 * once; creating and rolling take a fresh challenge from every user (by e-mail without a second
 * factor), revoking from a user with a second factor; each change is an event of the merchant's
 * stream naming the user, and an e-mail to every owner (a real SMTP server on loopback).
 */
import t, { type Test } from '#tap';
import { merchantStream } from '#packages/families/merchants/merchant/events.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { enableTotp, totpCode } from '../../support/accounts/second-factors.js';
import { startService } from '../../support/system.js';
import { startSmtp, type Mail } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const KEYS = '/api/v1/merchant/api-keys';
const smtp = await startSmtp(t);
const svc = await startService(t, { env: { SMTP_URL: smtp.url } });

const signIn = (email: string) => svc.signIn(email, PASSWORD);

/** A merchant and a signed-in member of its organization. */
async function memberOf(name: string, role: 'owner' | 'admin' | 'developer' | 'viewer' = 'owner') {
  const merchant = await svc.merchant(name);
  const email = `${role}-${name.toLowerCase().replace(/\W+/g, '-')}@shop.example`;
  const userId = await svc.member(merchant, email, PASSWORD, role);
  return { merchant, userId, email, token: await signIn(email) };
}

/** A mail's text as written: quoted-printable's soft line breaks joined. */
const unwrapped = (mail: Mail) => mail.raw.replace(/=\r?\n/g, '');
const mailsTo = (email: string, since = 0) => smtp.mails.slice(since).filter((m) => m.to.includes(email));

/** A challenge of `purpose` for a user without a second factor: its code arrives by e-mail. */
async function askEmailed(token: string, email: string, purpose: string): Promise<{ challengeId: string; code: string }> {
  const since = smtp.mails.length;
  const asked = await svc.request('POST', '/api/v1/auth/mfa/challenge', { key: token, body: { purpose } });
  if (asked.status !== 200 || asked.body.factor !== 'email') throw new Error(`challenge: ${asked.status} ${asked.text}`);
  const code = mailsTo(email, since)
    .map((m) => /security code is (\d{6})/.exec(unwrapped(m))?.[1])
    .find(Boolean);
  if (!code) throw new Error(`no code mailed to ${email}`);
  return { challengeId: asked.body.challengeId as string, code };
}

/** A verified e-mailed challenge of `purpose`: what a user without a second factor gives to create or roll a key. */
async function emailed(member: { token: string; email: string }, purpose: 'api-keys/create' | 'api-keys/roll' | 'api-keys/revoke'): Promise<string> {
  const { challengeId, code } = await askEmailed(member.token, member.email, purpose);
  const verified = await svc.request('POST', '/api/v1/auth/mfa/verify', { body: { challengeId, code } });
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${verified.text}`);
  return challengeId;
}

const create = async (member: { token: string; email: string }, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  svc.request('POST', KEYS, { key: member.token, body: { ...body, challenge_id: await emailed(member, 'api-keys/create') }, headers });
const roll = async (member: { token: string; email: string }, id: string, body: Record<string, unknown> = {}) =>
  svc.request('POST', `${KEYS}/${id}/roll`, { key: member.token, body: { ...body, challenge_id: await emailed(member, 'api-keys/roll') } });

const balanceWith = (key: string) => svc.request('GET', '/api/v1/balance', { key });

t.test('an owner creates a key: the secret once, then a key that works and shows when it was used', async (t) => {
  const creator = await memberOf('Creator');
  const { merchant, userId, token } = creator;
  const created = await create(creator, { name: 'Shop server' });
  assertOk(t, created, 201);
  const key = created.body;
  t.match(key.secret, /^sk_test_[0-9A-Za-z]{43}$/, 'a sandbox secret');
  t.match(key, { object: 'api_key', name: 'Shop server', environment: 'sandbox', livemode: false, scopes: ['*'], status: 'active', last_used: null, expires_at: null, revoked_at: null });
  t.equal(key.redacted_secret, `sk_test_…${key.secret.slice(-4)}`);
  t.equal(key.created, Math.floor(svc.clock.now().getTime() / 1000));

  const read = await svc.request('GET', `${KEYS}/${key.id}`, { key: token });
  assertOk(t, read);
  t.notOk('secret' in read.body, 'never shown again');

  svc.clock.advance(90_000);
  assertOk(t, await balanceWith(key.secret));
  const usedAt = Math.floor(svc.clock.now().getTime() / 60_000) * 60;
  t.equal((await svc.request('GET', `${KEYS}/${key.id}`, { key: token })).body.last_used, usedAt, 'to the minute');
  svc.clock.advance(10_000);
  assertOk(t, await balanceWith(key.secret));
  t.equal((await svc.request('GET', `${KEYS}/${key.id}`, { key: token })).body.last_used, usedAt, 'the same minute: unchanged');

  const list = await svc.request('GET', KEYS, { key: token });
  assertOk(t, list);
  t.same(list.body.data.map((k: { id: string }) => k.id)[0], key.id, 'newest first');
  t.same(
    list.body.data.map((k: { name: string }) => k.name),
    ['Shop server', 'Default key'],
    "the sandbox's keys: the new one and the merchant's first",
  );
  const live = await svc.request('GET', KEYS, { key: token, headers: { 'x-environment': 'live' } });
  t.same(
    live.body.data.map((k: { environment: string }) => k.environment),
    ['live'],
    'X-Environment picks the environment',
  );

  const events = (await svc.system.store.readStream(merchantStream(merchant.id))).filter((e) => e.type === 'api_key.created' && (e.data as { keyId: string }).keyId === key.id);
  t.equal(events.length, 1, 'an event of the merchant stream');
  t.equal(events[0]!.metadata.actor, `user:${userId}`, 'naming who');
  t.notOk(JSON.stringify(events[0]!.data).includes(key.secret), 'the secret is never stored');
});

t.test('scopes narrow a key, and only known scopes are taken', async (t) => {
  const member = await memberOf('Scopes');
  const { token } = member;
  const created = await create(member, { name: 'Reporting', scopes: ['balance.read'] });
  assertOk(t, created, 201);
  t.same(created.body.scopes, ['balance.read']);
  assertOk(t, await balanceWith(created.body.secret));
  assertError(t, await svc.request('GET', '/api/v1/webhook-endpoints', { key: created.body.secret }), 'IKW-AUT-004');
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'x', scopes: ['root.write'] } }), 'IKW-VAL-001', 'scopes.0');
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'x', scopes: [] } }), 'IKW-VAL-001', 'scopes');
  assertError(t, await svc.request('POST', KEYS, { key: token, body: {} }), 'IKW-VAL-001', 'name');
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'x', environment: 'live' } }), 'IKW-VAL-002', 'environment');
});

t.test('a rolled key: the new secret at once, the old one until its grace period ends', async (t) => {
  const member = await memberOf('Roller');
  let { token } = member;
  const email = 'owner-roller@shop.example';
  const old = (await create(member, { name: 'Rotating', scopes: ['balance.read', 'payouts.read'] })).body;
  assertError(t, await svc.request('POST', `${KEYS}/${old.id}/roll`, { key: token, body: { grace_period_minutes: 7 * 1440 + 1 } }), 'IKW-VAL-001', 'grace_period_minutes');

  const rolled = await roll(member, old.id, { grace_period_minutes: 60 });
  assertOk(t, rolled, 201);
  const successor = rolled.body;
  t.not(successor.id, old.id);
  t.not(successor.secret, old.secret);
  t.match(successor, { name: 'Rotating', scopes: ['balance.read', 'payouts.read'], rolled_from: old.id, status: 'active' }, 'the same name and scopes');
  const before = (await svc.request('GET', `${KEYS}/${old.id}`, { key: token })).body;
  t.match(before, { status: 'expiring', rolled_to: successor.id, expires_at: Math.floor(svc.clock.now().getTime() / 1000) + 3600 });

  assertOk(t, await balanceWith(successor.secret));
  svc.clock.advance(3_599_000);
  assertOk(t, await balanceWith(old.secret)); // within the grace period
  svc.clock.advance(1_000);
  assertError(t, await balanceWith(old.secret), 'IKW-AUT-002');
  assertOk(t, await balanceWith(successor.secret));
  token = await signIn(email); // the access token lived 15 minutes
  const again = { token, email };
  t.equal((await svc.request('GET', `${KEYS}/${old.id}`, { key: token })).body.status, 'expired');
  t.same(
    (await svc.request('GET', `${KEYS}?status=expired`, { key: token })).body.data.map((k: { id: string }) => k.id),
    [old.id],
  );

  assertError(t, await roll(again, old.id), 'IKW-RES-002', 'id');
  const now = await roll(again, successor.id);
  assertOk(t, now, 201);
  assertError(t, await balanceWith(successor.secret), 'IKW-AUT-002'); // no grace period: refused at once
  assertOk(t, await balanceWith(now.body.secret));
});

t.test('a revoked key is refused at once; revoking again changes nothing', async (t) => {
  const member = await memberOf('Revoker');
  const { token } = member;
  const key = (await create(member, { name: 'Leaked' })).body;
  assertOk(t, await balanceWith(key.secret)); // remembered by the process before it is revoked
  const revoked = await svc.request('DELETE', `${KEYS}/${key.id}`, { key: token });
  assertOk(t, revoked);
  t.match(revoked.body, { id: key.id, status: 'revoked', revoked_at: Math.floor(svc.clock.now().getTime() / 1000) });
  assertError(t, await balanceWith(key.secret), 'IKW-AUT-002');
  assertOk(t, await svc.request('DELETE', `${KEYS}/${key.id}`, { key: token }));
  assertError(t, await roll(member, key.id), 'IKW-RES-002', 'id');
});

t.test('owners and admins only; signed-in users only; another merchant or environment is not found', async (t) => {
  const admin = await memberOf('Admin shop', 'admin');
  assertOk(t, await create(admin, { name: 'By an admin' }), 201);
  for (const role of ['developer', 'viewer'] as const) {
    const { token } = await memberOf(`${role} shop`, role);
    assertError(t, await svc.request('GET', KEYS, { key: token }), 'IKW-ACC-002');
    assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'Mine' } }), 'IKW-ACC-002');
  }
  const { merchant, token } = await memberOf('Isolated');
  const apiKey = await svc.apiKey(merchant.id, ['*']);
  assertError(t, await svc.request('GET', KEYS, { key: apiKey.secret }), 'IKW-ACC-003');
  assertError(t, await svc.request('DELETE', `${KEYS}/${apiKey.id}`, { key: admin.token }), 'IKW-RES-001', 'id');
  assertError(t, await roll(admin, apiKey.id), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', `${KEYS}/${apiKey.id}`, { key: admin.token }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('DELETE', `${KEYS}/${apiKey.id}`, { key: token, headers: { 'x-environment': 'live' } }), 'IKW-RES-001', 'id');
  assertOk(t, await balanceWith(apiKey.secret)); // still working
});

t.test('a user with a second factor proves it again for each change', async (t) => {
  const { token } = await memberOf('Factor');
  const { secret } = await enableTotp(svc, token, PASSWORD);
  const challenge = async (purpose: string, t: Test) => {
    svc.clock.advance(30_000); // each time step's code is accepted once
    const asked = await svc.request('POST', '/api/v1/auth/mfa/challenge', { key: token, body: { purpose } });
    assertOk(t, asked);
    assertOk(t, await svc.request('POST', '/api/v1/auth/mfa/verify', { body: { challengeId: asked.body.challengeId, code: await totpCode(secret, svc) } }));
    return asked.body.challengeId as string;
  };
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'No proof' } }), 'IKW-ACC-011', 'challenge_id');
  const forRevoking = await challenge('api-keys/revoke', t);
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'Wrong proof', challenge_id: forRevoking } }), 'IKW-ACC-007', 'challenge_id');
  const forCreating = await challenge('api-keys/create', t);
  const created = await svc.request('POST', KEYS, { key: token, body: { name: 'Proved', challenge_id: forCreating } });
  assertOk(t, created, 201);
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'Again', challenge_id: forCreating } }), 'IKW-ACC-006', 'challenge_id');

  assertError(t, await svc.request('POST', `${KEYS}/${created.body.id}/roll`, { key: token, body: {} }), 'IKW-ACC-011', 'challenge_id');
  const rolled = await svc.request('POST', `${KEYS}/${created.body.id}/roll`, { key: token, body: { challenge_id: await challenge('api-keys/roll', t) } });
  assertOk(t, rolled, 201);
  assertError(t, await svc.request('DELETE', `${KEYS}/${rolled.body.id}`, { key: token }), 'IKW-ACC-011', 'challenge_id');
  assertOk(t, await balanceWith(rolled.body.secret)); // a refused revocation revokes nothing
  assertOk(t, await svc.request('DELETE', `${KEYS}/${rolled.body.id}`, { key: token, body: { challenge_id: forRevoking } }));
  assertError(t, await balanceWith(rolled.body.secret), 'IKW-AUT-002');
});

t.test('an Idempotency-Key replays a creation and a roll: one key, the same secret', async (t) => {
  const member = await memberOf('Idempotent');
  const { token } = member;
  const headers = { 'idempotency-key': 'create-key-1' };
  const body = { name: 'Once', challenge_id: await emailed(member, 'api-keys/create') };
  const first = await svc.request('POST', KEYS, { key: token, body, headers });
  const again = await svc.request('POST', KEYS, { key: token, body, headers });
  assertOk(t, first, 201);
  t.equal(again.body.id, first.body.id);
  t.equal(again.body.secret, first.body.secret);
  t.equal((await svc.request('GET', KEYS, { key: token })).body.data.filter((k: { name: string }) => k.name === 'Once').length, 1);

  const rollHeaders = { 'idempotency-key': 'roll-key-1' };
  const rollBody = { grace_period_minutes: 5, challenge_id: await emailed(member, 'api-keys/roll') };
  const rolled = await svc.request('POST', `${KEYS}/${first.body.id}/roll`, { key: token, body: rollBody, headers: rollHeaders });
  const replayed = await svc.request('POST', `${KEYS}/${first.body.id}/roll`, { key: token, body: rollBody, headers: rollHeaders });
  assertOk(t, rolled, 201);
  t.equal(replayed.status, 201, 'a replayed roll answers as the first did, not "already rolled"');
  t.equal(replayed.body.id, rolled.body.id);
  t.equal(replayed.body.secret, rolled.body.secret, 'the same successor and secret');
});

t.test('parallel rolls of one key: one succeeds, the others are told it was rolled', async (t) => {
  const member = await memberOf('Racer');
  const { token } = member;
  const key = (await create(member, { name: 'Contested' })).body;
  const challenges: string[] = [];
  for (let i = 0; i < 8; i++) challenges.push(await emailed(member, 'api-keys/roll'));
  const answers = await Promise.all(challenges.map((challenge_id) => svc.request('POST', `${KEYS}/${key.id}/roll`, { key: token, body: { grace_period_minutes: 5, challenge_id } })));
  t.same(answers.filter((a) => a.status === 201).length, 1, 'one successor');
  for (const a of answers.filter((x) => x.status !== 201)) assertError(t, a, 'IKW-RES-002', 'id');
  const list = (await svc.request('GET', KEYS, { key: token })).body.data as { name: string; rolled_from: string | null }[];
  t.equal(list.filter((k) => k.rolled_from === key.id).length, 1, 'one key took its place');
});

t.test('a bare access token mints no key: creating and rolling take a challenge e-mailed to a user without a second factor', async (t) => {
  const member = await memberOf('Mailbox');
  const { token } = member;
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'No proof' } }), 'IKW-ACC-011', 'challenge_id');
  t.same(
    (await svc.request('GET', KEYS, { key: token })).body.data.map((k: { name: string }) => k.name),
    ['Default key'],
    'nothing was made',
  );

  const unanswered = await askEmailed(token, member.email, 'api-keys/create');
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'Unverified', challenge_id: unanswered.challengeId } }), 'IKW-ACC-007', 'challenge_id');
  const forRolling = await emailed(member, 'api-keys/roll');
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'Wrong purpose', challenge_id: forRolling } }), 'IKW-ACC-007', 'challenge_id');

  const forCreating = await emailed(member, 'api-keys/create');
  const created = await svc.request('POST', KEYS, { key: token, body: { name: 'Proved by mail', challenge_id: forCreating } });
  assertOk(t, created, 201);
  assertOk(t, await balanceWith(created.body.secret));
  assertError(t, await svc.request('POST', KEYS, { key: token, body: { name: 'Again', challenge_id: forCreating } }), 'IKW-ACC-006', 'challenge_id');

  assertError(t, await svc.request('POST', `${KEYS}/${created.body.id}/roll`, { key: token, body: {} }), 'IKW-ACC-011', 'challenge_id');
  assertOk(t, await balanceWith(created.body.secret)); // a refused roll rolls nothing
  const rolled = await svc.request('POST', `${KEYS}/${created.body.id}/roll`, { key: token, body: { challenge_id: forRolling } });
  assertOk(t, rolled, 201);
  // Revoking only ends access: a user without a second factor is not asked.
  assertOk(t, await svc.request('DELETE', `${KEYS}/${rolled.body.id}`, { key: token }));
  assertError(t, await balanceWith(rolled.body.secret), 'IKW-AUT-002');
});

t.test('every owner is told by e-mail when a key is created, rolled or revoked, and by whom', async (t) => {
  const admin = await memberOf('Watched shop', 'admin');
  const merchant = admin.merchant.id;
  await svc.member(admin.merchant, 'first-owner@watched.example', PASSWORD, 'owner');
  await svc.member(admin.merchant, 'second-owner@watched.example', PASSWORD, 'owner');
  await svc.member(admin.merchant, 'dev@watched.example', PASSWORD, 'developer');
  const owners = ['first-owner@watched.example', 'second-owner@watched.example'];
  /** The notices of one change: what each owner got, and whether anyone else got one. */
  const noticesOf = async (change: () => Promise<{ status: number; text: string }>, status: number) => {
    const since = smtp.mails.length;
    const res = await change();
    t.equal(res.status, status, res.text);
    const notices = smtp.mails.slice(since).filter((mail) => /API key was/.test(mail.raw));
    t.same(
      notices
        .map((n) => n.to)
        .flat()
        .sort(),
      owners,
      'each owner, and only the owners',
    );
    return notices.map(unwrapped);
  };

  const name = 'Billing server\nSika: all is fine';
  let key: { id: string; secret: string } = { id: '', secret: '' };
  for (const text of await noticesOf(async () => {
    const res = await create(admin, { name, scopes: ['balance.read'] });
    key = res.body;
    return res;
  }, 201)) {
    t.match(text, /^Subject: A sandbox API key was created for your merchant on Sika/m);
    t.match(text, new RegExp(`${admin.email} created the sandbox API key ${key.id} of merchant ${merchant}`));
    t.match(text, /Its name, as your team wrote it: "Billing server Sika: all is fine"\./, 'the name quoted, on one line');
    t.match(text, /Its scopes: balance\.read\./);
    t.notOk(text.includes(key.secret), 'never the secret');
  }
  let successor = '';
  for (const text of await noticesOf(async () => {
    const res = await roll(admin, key.id, { grace_period_minutes: 60 });
    successor = res.body.id;
    return res;
  }, 201)) {
    t.match(text, /^Subject: A sandbox API key was rolled/m);
    t.match(text, new RegExp(`${admin.email} rolled the sandbox API key ${key.id}`));
    t.match(text, new RegExp(`A new secret \\(key ${successor}\\) replaces it; the old secret works until ${new Date(svc.clock.now().getTime() + 3_600_000).toISOString()}`));
  }
  for (const text of await noticesOf(() => svc.request('DELETE', `${KEYS}/${successor}`, { key: admin.token }), 200)) {
    t.match(text, /^Subject: A sandbox API key was revoked/m);
    t.match(text, new RegExp(`${admin.email} revoked the sandbox API key ${successor}`));
  }
  const since = smtp.mails.length;
  assertOk(t, await svc.request('DELETE', `${KEYS}/${successor}`, { key: admin.token }));
  t.same(
    smtp.mails.slice(since).filter((mail) => /API key was/.test(mail.raw)),
    [],
    'revoking a revoked key changes nothing and tells no one',
  );
});
