/**
 * Escrow releases under the rule of new destinations (docs/escrow.md, "Releases to new
 * destinations"): in live, a signed-in user executes a release paying a payout method this merchant
 * never paid only with a fresh `payouts/new-destination` challenge, used up in the release's
 * commit; an API key does so only while the merchant's settings allow inline destinations to keys;
 * a destination paid before needs nothing; a scheduled execution (auto-release) to a never-paid
 * destination leaves the release pending for a user. Users answer with e-mailed codes (a real SMTP
 * server on loopback); live payouts go to an operator that accepts them and counts its calls.
 */
import t from '#tap';
import type { PayoutRequest } from '#packages/connectors/port.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { fund, liveOperator } from '../../support/payouts.js';
import { activateLive, advance, startService } from '../../support/system.js';
import { mailedCode, startSmtp } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const DAY = 24 * 3_600_000;

const sent: PayoutRequest[] = [];
const smtp = await startSmtp(t);
const svc = await startService(t, {
  env: { SMTP_URL: smtp.url },
  rails: (environment, base) => {
    if (environment !== 'live') return base;
    const rails = liveOperator()(environment, base);
    rails.payout = async (req) => {
      sent.push(req);
      return { status: 'accepted' };
    };
    return rails;
  },
});

let keys = 0;
const call = (token: string, method: string, path: string, body?: unknown) =>
  svc.request(method, `/api/v1${path}`, { key: token, ...(body !== undefined ? { body } : {}), headers: { 'x-environment': 'live', 'idempotency-key': `escrow-new-destinations-${++keys}` } });

/** A live merchant funded, its admin signed in, and a saved payout method past its safety delay (never paid). */
async function team(name: string, lastTwo: string) {
  const m = await svc.merchant(name);
  const email = `admin-${name.toLowerCase().replace(/\W+/g, '-')}@shop.example`;
  await svc.member(m, email, PASSWORD, 'admin');
  await fund(svc, m.id, 1_000_000, 'live');
  await activateLive(svc, m.id);
  const key = m.api_keys.live;
  const saved = await call(key, 'POST', '/merchant/settings/payouts/destinations', { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: `+2217712345${lastTwo}` });
  if (saved.status !== 200) throw new Error(saved.text);
  await advance(svc, DAY + 60_000); // past the live safety delay
  return { m, key, email, admin: await svc.signIn(email, PASSWORD), methodId: saved.body.id as string };
}

async function verifiedChallenge(token: string, email: string): Promise<string> {
  const asked = await svc.request('POST', '/api/v1/auth/mfa/challenge', { key: token, body: { purpose: 'payouts/new-destination' } });
  if (asked.status !== 200) throw new Error(asked.text);
  const verified = await svc.request('POST', '/api/v1/auth/mfa/verify', { body: { challengeId: asked.body.challengeId, code: mailedCode(smtp.mails, email) } });
  if (verified.status !== 200) throw new Error(verified.text);
  return asked.body.challengeId as string;
}

/** A contract of `amount` funded from the live balance, paying `methodId` by default. */
async function contract(token: string, methodId: string, amount: number, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call(token, 'POST', '/escrow/contracts', { currency: 'XOF', amountMinor: amount, fundingSourceType: 'merchant_balance', defaultPayoutMethodId: methodId, ...extra });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.id as string;
}

async function pendingRelease(token: string, contractId: string, amount: number): Promise<string> {
  const res = await call(token, 'POST', `/escrow/releases/contract/${contractId}`, { amountMinor: amount, mode: 'manual' });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.id as string;
}

const sentTo = (merchantId: string) => sent.filter((r) => r.merchantId === merchantId).length;

t.test('live: a user pays a never-paid payout method from escrow only with a fresh challenge, used up by the release', async (t) => {
  const { m, admin, email, methodId } = await team('Escrow user', '71');
  const c = await contract(admin, methodId, 30_000);
  const r1 = await pendingRelease(admin, c, 10_000);

  assertError(t, await call(admin, 'POST', `/escrow/releases/${r1}/execute`, {}), 'IKW-PAY-007', 'challengeId');
  t.equal((await call(admin, 'GET', `/escrow/releases/${r1}`)).body.status, 'pending', 'not executed');
  t.equal(sentTo(m.id), 0, 'nothing sent');

  const challengeId = await verifiedChallenge(admin, email);
  const executed = await call(admin, 'POST', `/escrow/releases/${r1}/execute`, { challengeId });
  assertOk(t, executed);
  t.match(executed.body, { status: 'executed', destination: { type: 'payout', payoutMethodId: methodId } });
  t.equal(sentTo(m.id), 1, 'paid out');
  // The challenge paid one release.
  const r2 = await pendingRelease(admin, c, 10_000);
  assertError(t, await call(admin, 'POST', `/escrow/releases/${r2}/execute`, { challengeId }), 'IKW-ACC-006', 'challengeId');

  // The method is paid now: the next release to it needs no challenge, immediate mode alike.
  await svc.system.drain();
  assertOk(t, await call(admin, 'POST', `/escrow/releases/${r2}/execute`, {}));
  const immediate = await call(admin, 'POST', `/escrow/releases/contract/${c}`, { amountMinor: 5_000, mode: 'immediate' });
  assertOk(t, immediate);
  t.equal(immediate.body.status, 'executed');
  t.equal(sentTo(m.id), 3);
});

t.test('live: an immediate release to a never-paid method takes the challenge in its creation body', async (t) => {
  const { m, admin, email, methodId } = await team('Escrow immediate', '72');
  const c = await contract(admin, methodId, 20_000);
  assertError(t, await call(admin, 'POST', `/escrow/releases/contract/${c}`, { amountMinor: 5_000, mode: 'immediate' }), 'IKW-PAY-007', 'challengeId');
  t.equal(sentTo(m.id), 0);
  const made = await call(admin, 'POST', `/escrow/releases/contract/${c}`, { amountMinor: 5_000, mode: 'immediate', challengeId: await verifiedChallenge(admin, email) });
  assertOk(t, made);
  t.equal(made.body.status, 'executed');
  t.equal(sentTo(m.id), 1);
});

t.test('API keys pay a never-paid method from escrow as the settings allow inline destinations to keys', async (t) => {
  const { m, key, methodId } = await team('Escrow keys', '73');
  const c = await contract(key, methodId, 30_000);
  const r1 = await pendingRelease(key, c, 10_000);
  assertError(t, await call(key, 'POST', `/escrow/releases/${r1}/execute`, { challengeId: '0190c6a8-0000-7000-8000-000000000001' }), 'IKW-VAL-002', 'challengeId');
  assertOk(t, await call(key, 'POST', `/escrow/releases/${r1}/execute`, {})); // open by default, as for single payouts
  t.equal(sentTo(m.id), 1);
  await svc.system.drain();

  const another = await call(key, 'POST', '/merchant/settings/payouts/destinations', { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234577' });
  assertOk(t, another);
  await advance(svc, DAY + 60_000);
  assertOk(t, await svc.request('PATCH', '/api/v1/merchant/settings/payouts', { key, body: { inline_destinations_for_api_keys: false }, headers: { 'x-environment': 'live' } }));
  const toNew = await contract(key, another.body.id as string, 10_000);
  const r2 = await pendingRelease(key, toNew, 10_000);
  assertError(t, await call(key, 'POST', `/escrow/releases/${r2}/execute`, {}), 'IKW-PAY-008', 'payoutMethodId');
  t.equal((await call(key, 'GET', `/escrow/releases/${r2}`)).body.status, 'pending');
  t.equal(sentTo(m.id), 1, 'nothing sent');
  // A method paid before is no new destination: the setting does not stop it.
  const r3 = await pendingRelease(key, c, 10_000);
  assertOk(t, await call(key, 'POST', `/escrow/releases/${r3}/execute`, {}));
  t.equal(sentTo(m.id), 2);
});

t.test("another merchant's release is no release, challenge or not", async (t) => {
  const mine = await team('Escrow owner', '74');
  const other = await team('Escrow stranger', '75');
  mine.admin = await svc.signIn(mine.email, PASSWORD); // the day waited for the stranger's method outlived the first session
  const c = await contract(mine.admin, mine.methodId, 10_000);
  const r = await pendingRelease(mine.admin, c, 10_000);
  assertError(t, await call(other.admin, 'POST', `/escrow/releases/${r}/execute`, { challengeId: await verifiedChallenge(other.admin, other.email) }), 'IKW-RES-001');
  assertError(t, await call(other.admin, 'POST', `/escrow/releases/contract/${c}`, { mode: 'immediate', challengeId: await verifiedChallenge(other.admin, other.email) }), 'IKW-RES-001');
  t.equal((await call(mine.admin, 'GET', `/escrow/releases/${r}`)).body.status, 'pending');
  t.equal(sentTo(mine.m.id) + sentTo(other.m.id), 0);
});

t.test('live: an auto-release to a never-paid method waits pending for a user with a challenge', async (t) => {
  const { m, admin, email, methodId } = await team('Escrow auto', '76');
  const at = new Date(svc.clock.now().getTime() + 60_000).toISOString();
  const c = await contract(admin, methodId, 8_000, { autoReleaseAtUtc: at });
  await advance(svc, 60_000);
  await svc.system.drain();
  const releases = (await call(admin, 'GET', `/escrow/releases/contract/${c}`)).body.data as { id: string; status: string; trigger: string }[];
  t.match(releases, [{ status: 'pending', trigger: 'auto_release' }], 'released, not paid');
  t.equal(sentTo(m.id), 0);
  assertOk(t, await call(admin, 'POST', `/escrow/releases/${releases[0]!.id}/execute`, { challengeId: await verifiedChallenge(admin, email) }));
  t.equal(sentTo(m.id), 1);
});
