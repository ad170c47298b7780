/**
 * The safety delay of saved payout destinations (docs/decisions.md "Payouts", docs/accounts.md
 * "Second factors"): raising it needs nothing more, lowering it needs a verified second-factor
 * challenge of purpose `payout-settings/delay` of the signed-in user, used up by the change; an
 * API key cannot lower it. A lowering is recorded with who, from, to and the challenge, and every
 * owner of the organization is told by e-mail. Walked as a finance user with an authenticator app
 * and as one with no factor (e-mailed codes), with a real SMTP server on loopback.
 */
import t, { type Test } from '#tap';
import { merchantSettingsStream } from '#packages/families/merchants/merchant-settings/events.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { enableTotp, totpCode } from '../../support/accounts/second-factors.js';
import { startService } from '../../support/system.js';
import { mailedCode, mailsTo as mailsToOf, startSmtp } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const SETTINGS = '/api/v1/merchant/settings/payouts';
const live = { 'x-environment': 'live' };

const smtp = await startSmtp(t);
const svc = await startService(t, { env: { SMTP_URL: smtp.url } });

const mailsTo = (to: string) => mailsToOf(smtp.mails, to);
const mailCode = (to: string) => mailedCode(smtp.mails, to);

const signIn = (email: string) => svc.signIn(email, PASSWORD);
const post = (path: string, body: unknown, key: string) => svc.request('POST', path, { key, body });
const patch = (key: string, body: unknown) => svc.request('PATCH', SETTINGS, { key, body, headers: live });
const delayOf = async (key: string) => (await svc.request('GET', SETTINGS, { key, headers: live })).body.safety_delay_minutes as number;

/** A merchant whose organization has two owners, and a finance member signed in. */
async function team(name: string) {
  const m = await svc.merchant(name);
  const slug = name.toLowerCase().replace(/\W+/g, '-');
  const owners = [`owner-${slug}@shop.example`, `co-owner-${slug}@shop.example`];
  for (const o of owners) await svc.member(m, o, PASSWORD, 'owner');
  const financeEmail = `finance-${slug}@shop.example`;
  const financeId = await svc.member(m, financeEmail, PASSWORD, 'finance');
  return { m, owners, financeEmail, financeId, finance: await signIn(financeEmail) };
}

/** A challenge of `purpose` asked by the user of `token`. */
async function challenge(token: string, purpose = 'payout-settings/delay') {
  const res = await post('/api/v1/auth/mfa/challenge', { purpose }, token);
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { challengeId: string; factor: string };
}

async function verify(challengeId: string, code: string, t: Test) {
  assertOk(t, await post('/api/v1/auth/mfa/verify', { challengeId, code }, ''));
}

/** The lowerings recorded on the merchant's live settings stream. */
async function lowerings(merchantId: string) {
  const events = await svc.system.store.readStream(merchantSettingsStream(merchantId, 'live'));
  return events.filter((e) => (e.data as { safetyDelayLowered?: unknown }).safetyDelayLowered).map((e) => ({ lowered: (e.data as { safetyDelayLowered: unknown }).safetyDelayLowered, actor: e.metadata.actor }));
}

t.test('a finance user without a second factor: lowering needs an e-mailed code, and the owners are told', async (t) => {
  const { m, owners, financeEmail, financeId, finance } = await team('No factor');
  t.equal(await delayOf(finance), 1440, 'a day in live');

  assertOk(t, await patch(finance, { safety_delay_minutes: 2880 }));
  t.equal(await delayOf(finance), 2880, 'raising needs nothing more');
  t.same(
    owners.map((o) => mailsTo(o).length),
    [0, 0],
    'nor tells anyone',
  );

  assertError(t, await patch(finance, { safety_delay_minutes: 0 }), 'IKW-PAY-006', 'challenge_id');
  assertError(t, await patch(finance, { safety_delay_minutes: 0, default_currency: 'xof' }), 'IKW-PAY-006', 'challenge_id');
  t.equal(await delayOf(finance), 2880, 'nothing changed, not even the other field');

  const asked = await challenge(finance);
  t.equal(asked.factor, 'email', 'no app, no passkey: a code by e-mail');
  assertError(t, await patch(finance, { safety_delay_minutes: 0, challenge_id: asked.challengeId }), 'IKW-ACC-007', 'challenge_id');
  await verify(asked.challengeId, mailCode(financeEmail), t);
  const lowered = await patch(finance, { safety_delay_minutes: 0, challenge_id: asked.challengeId });
  assertOk(t, lowered);
  t.equal(lowered.body.safety_delay_minutes, 0);
  assertError(t, await patch(finance, { safety_delay_minutes: 0, challenge_id: asked.challengeId }), 'IKW-ACC-006', 'challenge_id');

  t.same(await lowerings(m.id), [{ lowered: { fromMinutes: 2880, toMinutes: 0, challengeId: asked.challengeId }, actor: `user:${financeId}` }], 'recorded: who, from, to, and the challenge that proved it');
  for (const o of owners) {
    const notices = mailsTo(o);
    t.equal(notices.length, 1, `${o} is told once`);
    t.match(notices[0], /safety delay/i);
    t.match(notices[0], financeEmail, 'who lowered it');
    t.match(notices[0], /2880 minutes to 0 minutes/);
    t.match(notices[0], /live/);
  }
  t.notOk(
    mailsTo(financeEmail).some((mail) => /lowered/.test(mail)),
    'the notice goes to the owners, not to whoever lowered it',
  );

  const saved = await svc.request('POST', `${SETTINGS}/destinations`, { key: finance, headers: live, body: { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } });
  assertOk(t, saved);
  t.equal(saved.body.usable_from, svc.clock.now().toISOString(), 'destinations saved from now on are usable at once');
});

t.test('a finance user with an authenticator app answers with a code from it', async (t) => {
  const { m, owners, finance } = await team('With app');
  const { secret } = await enableTotp(svc, finance, PASSWORD);
  svc.clock.advance(30_000); // the next time step: the one used by the set-up is spent

  assertError(t, await patch(finance, { safety_delay_minutes: 60 }), 'IKW-PAY-006', 'challenge_id');
  const asked = await challenge(finance);
  t.equal(asked.factor, 'totp');
  await verify(asked.challengeId, await totpCode(secret, svc), t);
  assertOk(t, await patch(finance, { safety_delay_minutes: 60, challenge_id: asked.challengeId }));
  t.equal(await delayOf(finance), 60);
  t.same(
    (await lowerings(m.id)).map((l) => l.lowered),
    [{ fromMinutes: 1440, toMinutes: 60, challengeId: asked.challengeId }],
  );
  t.same(
    owners.map((o) => mailsTo(o).filter((mail) => /1440 minutes to 60 minutes/.test(mail)).length),
    [1, 1],
  );
});

t.test('challenges that do not prove this change', async (t) => {
  const { financeEmail, finance, owners } = await team('Wrong challenges');
  const owner = await signIn(owners[0]!);

  const otherPurpose = await challenge(finance, 'change-email');
  await verify(otherPurpose.challengeId, mailCode(financeEmail), t);
  assertError(t, await patch(finance, { safety_delay_minutes: 0, challenge_id: otherPurpose.challengeId }), 'IKW-ACC-007', 'challenge_id');

  const ownersChallenge = await challenge(owner);
  await verify(ownersChallenge.challengeId, mailCode(owners[0]!), t);
  assertError(t, await patch(finance, { safety_delay_minutes: 0, challenge_id: ownersChallenge.challengeId }), 'IKW-RES-001', 'challenge_id');

  const late = await challenge(finance);
  await verify(late.challengeId, mailCode(financeEmail), t);
  svc.clock.advance(5 * 60_000);
  assertError(t, await patch(finance, { safety_delay_minutes: 0, challenge_id: late.challengeId }), 'IKW-ACC-006', 'challenge_id');
  t.equal(await delayOf(finance), 1440, 'none of them lowered it');

  const raised = await challenge(finance);
  await verify(raised.challengeId, mailCode(financeEmail), t);
  assertOk(t, await patch(finance, { safety_delay_minutes: 2000, challenge_id: raised.challengeId }));
  assertError(t, await patch(finance, { safety_delay_minutes: 0, challenge_id: raised.challengeId }), 'IKW-ACC-006', 'challenge_id');
  t.equal(await delayOf(finance), 2000, 'a challenge given is used, whether or not the change needed it');
});

t.test('an API key raises the delay but cannot lower it: there is no second factor behind a key', async (t) => {
  const { m, owners } = await team('Keys');
  const key = m.api_keys.live;
  assertOk(t, await patch(key, { safety_delay_minutes: 1500 }));
  assertError(t, await patch(key, { safety_delay_minutes: 0 }), 'IKW-PAY-005', 'safety_delay_minutes');
  assertError(t, await patch(key, { safety_delay_minutes: 1499 }), 'IKW-PAY-005', 'safety_delay_minutes');
  assertError(t, await patch(key, { safety_delay_minutes: 1600, challenge_id: '0190c6a8-0000-7000-8000-000000000001' }), 'IKW-VAL-002', 'challenge_id');
  assertOk(t, await patch(key, { safety_delay_minutes: 1500, default_currency: 'xof' })); // the same value is no lowering
  t.equal(await delayOf(key), 1500);
  t.same(await lowerings(m.id), []);
  t.same(
    owners.map((o) => mailsTo(o).length),
    [0, 0],
  );
});

t.test('sandbox follows the same rule', async (t) => {
  const { m, finance } = await team('Sandbox');
  const sandbox = { 'x-environment': 'sandbox' };
  assertOk(t, await svc.request('PATCH', SETTINGS, { key: m.api_keys.sandbox, body: { safety_delay_minutes: 30 } }));
  assertError(t, await svc.request('PATCH', SETTINGS, { key: m.api_keys.sandbox, body: { safety_delay_minutes: 0 } }), 'IKW-PAY-005', 'safety_delay_minutes');
  assertError(t, await svc.request('PATCH', SETTINGS, { key: finance, headers: sandbox, body: { safety_delay_minutes: 0 } }), 'IKW-PAY-006', 'challenge_id');
});
