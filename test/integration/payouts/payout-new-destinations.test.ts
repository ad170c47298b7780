/**
 * Inline destinations (docs/decisions.md "Payouts"): in live, a signed-in user pays a destination
 * this merchant never paid (no pending, in transit or paid payout to the same rail and account in
 * this merchant and environment) only with a fresh second-factor challenge of purpose
 * `payouts/new-destination`, used up by the payout; a destination paid before needs none; sandbox
 * asks for none. The setting `inline_destinations_for_api_keys` (true by default) refuses inline
 * destinations to API keys and the automations they saved; turning it back on is guarded as lowering
 * the safety delay is. Every door that takes an inline destination follows the rule: the interface's
 * and the dashboard's payout routes, marketplace seller payouts, automations. Users answer with
 * e-mailed codes (a real SMTP server on loopback); live payouts go to a connector that accepts them.
 */
import t from '#tap';
import { merchantSettingsStream } from '#packages/families/merchants/merchant-settings/events.js';
import { payoutsProjection } from '#packages/families/payouts/read/payouts.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { AUTOMATIONS, onPaymentIntent, runOf, runsOf } from '../../support/automations.js';
import { balance, bank, fund, liveOperator, mobileMoney, saveDestination } from '../../support/payouts.js';
import { activateLive, startService } from '../../support/system.js';
import { mailedCode, mailsTo as mailsToOf, startSmtp } from '../../support/webhooks.js';
import type { Environment } from '#packages/core/owner.js';

const PASSWORD = 'correct horse battery';
const PAYOUTS = '/api/v1/merchant/payouts';
const SETTINGS = '/api/v1/merchant/settings/payouts';
const live = { 'x-environment': 'live' };

/** The live operator: takes every payout, or refuses the next one at once. */
let refuseNext = false;

const smtp = await startSmtp(t);
const svc = await startService(t, {
  env: { SMTP_URL: smtp.url },
  rails: liveOperator(async () => {
    if (!refuseNext) return { status: 'accepted' };
    refuseNext = false;
    return { status: 'rejected', failureCode: 'account_closed', failureMessage: 'The wallet is closed' };
  }),
});

const mailsTo = (to: string) => mailsToOf(smtp.mails, to);
const mailCode = (to: string) => mailedCode(smtp.mails, to);

const signIn = (email: string) => svc.signIn(email, PASSWORD);

/** A merchant funded in both environments, its owner and a finance member signed in. */
async function team(name: string) {
  const m = await svc.merchant(name);
  const slug = name.toLowerCase().replace(/\W+/g, '-');
  const ownerEmail = `owner-${slug}@shop.example`;
  const financeEmail = `finance-${slug}@shop.example`;
  await svc.member(m, ownerEmail, PASSWORD, 'owner');
  await svc.member(m, financeEmail, PASSWORD, 'finance');
  await fund(svc, m.id, 1_000_000, 'live');
  await activateLive(svc, m.id);
  await fund(svc, m.id, 1_000_000, 'sandbox');
  return { m, key: m.api_keys.live, ownerEmail, owner: await signIn(ownerEmail), financeEmail, finance: await signIn(financeEmail) };
}

/** A challenge of `purpose` asked by the user of `token` and answered with the code e-mailed to `email`. */
async function verifiedChallenge(token: string, email: string, purpose = 'payouts/new-destination'): Promise<string> {
  const asked = await svc.request('POST', '/api/v1/auth/mfa/challenge', { key: token, body: { purpose } });
  if (asked.status !== 200) throw new Error(asked.text);
  const verified = await svc.request('POST', '/api/v1/auth/mfa/verify', { body: { challengeId: asked.body.challengeId, code: mailCode(email) } });
  if (verified.status !== 200) throw new Error(verified.text);
  return asked.body.challengeId as string;
}

let keys = 0;
/** A payout from the dashboard's route (or `path`) in live (or `environment`), with a fresh Idempotency-Key. */
const pay = (token: string, body: Record<string, unknown>, options: { path?: string; environment?: Environment } = {}) =>
  svc.request('POST', options.path ?? PAYOUTS, {
    key: token,
    body: { amount: 10_000, currency: 'xof', ...body },
    headers: { 'x-environment': options.environment ?? 'live', 'idempotency-key': `new-destinations-${++keys}` },
  });
const payoutsOf = async (merchantId: string, environment: Environment = 'live') => (await svc.system.knex('read.payouts').where({ merchant_id: merchantId, environment })).length;

t.test('live: a signed-in user pays a destination never paid only with a fresh second factor, used up by the payout', async (t) => {
  const { m, finance, financeEmail, owner, ownerEmail } = await team('First payout');
  const before = await balance(svc, m.api_keys.live);

  assertError(t, await pay(finance, { destination: mobileMoney('11') }), 'IKW-PAY-007', 'challenge_id');
  assertError(t, await pay(finance, { destination: mobileMoney('11') }, { path: '/api/v1/payouts' }), 'IKW-PAY-007', 'challenge_id');
  t.equal(await payoutsOf(m.id), 0, 'no payout');
  t.same(await balance(svc, m.api_keys.live), before, 'nothing held');

  const otherPurpose = await verifiedChallenge(finance, financeEmail, 'payout-settings/delay');
  assertError(t, await pay(finance, { destination: mobileMoney('11'), challenge_id: otherPurpose }), 'IKW-ACC-007', 'challenge_id');
  const ownersChallenge = await verifiedChallenge(owner, ownerEmail);
  assertError(t, await pay(finance, { destination: mobileMoney('11'), challenge_id: ownersChallenge }), 'IKW-RES-001', 'challenge_id');

  const challengeId = await verifiedChallenge(finance, financeEmail);
  const first = await pay(finance, { destination: mobileMoney('11'), challenge_id: challengeId });
  assertOk(t, first);
  t.match(first.body, { object: 'payout', livemode: true, destination: { msisdn: '+221771234511' } });
  assertError(t, await pay(finance, { destination: mobileMoney('12'), challenge_id: challengeId }), 'IKW-ACC-006', 'challenge_id');

  assertOk(t, await pay(finance, { destination: mobileMoney('11', { msisdn: '77 123 45 11' }) })); // paid before (as normalised): no challenge
  assertOk(t, await pay(finance, { destination: mobileMoney('11') }, { path: '/api/v1/payouts' })); // on the interface’s route too
  assertError(t, await pay(finance, { destination: mobileMoney('11', { operator: 'wave' }) }), 'IKW-PAY-007', 'challenge_id');

  const account = bank('21', { bank_code: 'sn012', account_number: 'ab 0123 4567' });
  assertError(t, await pay(finance, { destination: account }), 'IKW-PAY-007', 'challenge_id');
  assertOk(t, await pay(finance, { destination: account, challenge_id: await verifiedChallenge(finance, financeEmail) }));
  assertOk(t, await pay(finance, { destination: bank('21', { bank_code: 'SN012', account_number: 'AB01234567', account_name: 'A. Diop' }) })); // the same account: case, spaces and name aside
  assertError(t, await pay(finance, { destination: bank('21', { bank_code: 'SN013', account_number: 'AB01234567' }) }), 'IKW-PAY-007', 'challenge_id');

  const saved = await svc.request('POST', `${SETTINGS}/destinations`, { key: finance, headers: live, body: { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'wave', msisdn: '+221771234513' } });
  assertOk(t, saved);
  const method = saved.body.id as string;
  svc.clock.advance(24 * 3_600_000);
  assertOk(t, await pay(await signIn(financeEmail), { payout_method_id: method })); // a saved payout method has its safety delay instead (a day on: signed in again)
});

t.test('paid before: pending, in transit or paid payouts of this merchant in this environment, not failed ones nor another merchant’s', async (t) => {
  const a = await team('Paid before');
  const b = await team('Someone else');
  assertOk(t, await pay(b.key, { destination: mobileMoney('31') })); // another merchant pays it (an API key)
  assertError(t, await pay(a.finance, { destination: mobileMoney('31') }), 'IKW-PAY-007', 'challenge_id');
  assertOk(t, await pay(a.m.api_keys.sandbox, { destination: mobileMoney('32') }, { environment: 'sandbox' })); // this merchant pays it in sandbox
  assertError(t, await pay(a.finance, { destination: mobileMoney('32') }), 'IKW-PAY-007', 'challenge_id');

  refuseNext = true;
  const refused = await pay(a.finance, { destination: mobileMoney('33'), challenge_id: await verifiedChallenge(a.finance, a.financeEmail) });
  assertOk(t, refused);
  t.equal(refused.body.status, 'failed', 'the operator refused it');
  assertError(t, await pay(a.finance, { destination: mobileMoney('33') }), 'IKW-PAY-007', 'challenge_id');

  assertOk(t, await pay(a.key, { destination: mobileMoney('34') })); // an API key of this merchant pays it in live
  assertOk(t, await pay(a.finance, { destination: mobileMoney('34') })); // then a user needs no challenge
});

t.test('sandbox moves no money: no challenge', async (t) => {
  const { m, finance } = await team('Sandbox');
  assertOk(t, await pay(finance, { destination: mobileMoney('41') }, { environment: 'sandbox' }));
  t.equal(await payoutsOf(m.id, 'sandbox'), 1);
});

t.test('API keys: inline destinations as the merchant’s settings allow; opening them again is guarded as lowering the delay is', async (t) => {
  const { m, key, financeEmail, ownerEmail } = await team('Keys');
  const viewerEmail = 'viewer-keys@shop.example';
  await svc.member(m, viewerEmail, PASSWORD, 'viewer');
  const settings = async () => (await svc.request('GET', SETTINGS, { key, headers: live })).body;
  const patch = (token: string, body: unknown) => svc.request('PATCH', SETTINGS, { key: token, body, headers: live });

  t.equal((await settings()).inline_destinations_for_api_keys, true, 'open by default, as the interface has it');
  assertOk(t, await pay(key, { destination: mobileMoney('51') }));
  assertError(t, await pay(key, { destination: mobileMoney('51'), challenge_id: '0190c6a8-0000-7000-8000-000000000001' }), 'IKW-VAL-002', 'challenge_id');

  assertOk(t, await patch(key, { inline_destinations_for_api_keys: false })); // closing them needs nothing more
  assertError(t, await pay(key, { destination: mobileMoney('51') }), 'IKW-PAY-008', 'destination');
  assertError(t, await pay(key, { destination: mobileMoney('52') }, { path: '/api/v1/payouts' }), 'IKW-PAY-008', 'destination');
  assertOk(t, await pay(m.api_keys.sandbox, { destination: mobileMoney('52') }, { environment: 'sandbox' })); // the setting is the environment’s own
  const method = await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234553' });
  svc.clock.advance(24 * 3_600_000);
  assertOk(t, await pay(key, { payout_method_id: method })); // a saved payout method is still fine
  const finance = await signIn(financeEmail); // a day on
  assertOk(t, await pay(finance, { destination: mobileMoney('51') })); // a signed-in user is not bound by it

  assertError(t, await patch(key, { inline_destinations_for_api_keys: true }), 'IKW-PAY-005', 'inline_destinations_for_api_keys');
  assertError(t, await patch(finance, { inline_destinations_for_api_keys: true }), 'IKW-PAY-006', 'challenge_id');
  const viewer = await signIn(viewerEmail);
  assertError(t, await patch(viewer, { inline_destinations_for_api_keys: true, challenge_id: await verifiedChallenge(viewer, viewerEmail, 'payout-settings/delay') }), 'IKW-AUT-004');
  assertError(t, await patch(finance, { inline_destinations_for_api_keys: true, challenge_id: await verifiedChallenge(finance, financeEmail) }), 'IKW-ACC-007', 'challenge_id');
  t.equal((await settings()).inline_destinations_for_api_keys, false, 'none of them opened them');

  const challengeId = await verifiedChallenge(finance, financeEmail, 'payout-settings/delay');
  const opened = await patch(finance, { inline_destinations_for_api_keys: true, challenge_id: challengeId });
  assertOk(t, opened);
  t.equal(opened.body.inline_destinations_for_api_keys, true);
  const events = await svc.system.store.readStream(merchantSettingsStream(m.id, 'live'));
  t.match(events.at(-1), { data: { inlineDestinationsReopened: { challengeId } }, metadata: { actor: /^user:/ } }, 'recorded with who and the challenge that allowed it');
  t.match(mailsTo(ownerEmail).at(-1), /inline destinations/, 'the owners are told');
  t.match(mailsTo(ownerEmail).at(-1), financeEmail, 'who did it');
  assertOk(t, await pay(key, { destination: mobileMoney('51') }));
});

t.test('marketplace seller payouts follow the same rule (camelCase challengeId)', async (t) => {
  const { owner, ownerEmail } = await team('Marketplace');
  const seller = await svc.request('POST', '/api/v1/marketplace/sellers', { key: owner, headers: { ...live, 'idempotency-key': 'seller-1' }, body: { sellerId: 'seller-1', displayName: 'Seller 1' } });
  assertOk(t, seller, 201);
  const sellerPayout = (body: Record<string, unknown>, idempotencyKey: string) =>
    svc.request('POST', `/api/v1/marketplace/sellers/${seller.body.id}/payouts`, {
      key: owner,
      body: { amountMinor: 5_000, currency: 'xof', destination: mobileMoney('61'), ...body },
      headers: { ...live, 'idempotency-key': idempotencyKey },
    });
  assertError(t, await sellerPayout({}, 'seller-payout-1'), 'IKW-PAY-007', 'challengeId');
  assertError(t, await sellerPayout({ challengeId: await verifiedChallenge(owner, ownerEmail, 'payout-settings/delay') }, 'seller-payout-2'), 'IKW-ACC-007', 'challengeId');
  // Past the challenge, the seller has no funds to pay out.
  assertError(t, await sellerPayout({ challengeId: await verifiedChallenge(owner, ownerEmail) }, 'seller-payout-3'), 'IKW-MKT-007');
});

t.test('an automation saved by a user pays inline only destinations paid before; one saved by an API key as the settings allow', async (t) => {
  const { m, key, owner } = await team('Automations');
  const payoutStep = (lastTwo: string) => [{ id: 'payout', action: 'create_payout', params: { amount: 2_500, currency: 'xof', destination: mobileMoney(lastTwo) }, retry: { maxAttempts: 1 } }];
  const save = async (token: string, lastTwo: string) => {
    const res = await svc.request('POST', AUTOMATIONS, { key: token, headers: live, body: { name: `Pay ${lastTwo}`, ...onPaymentIntent(payoutStep(lastTwo)) } });
    if (res.status !== 200) throw new Error(res.text);
    return res.body.id as string;
  };
  const byUserNew = await save(owner, '71');
  assertOk(t, await pay(key, { destination: mobileMoney('72') }));
  const byUserKnown = await save(owner, '72');
  const byKey = await save(key, '73');
  const intent = await svc.request('POST', '/api/v1/payment-intents', { key, headers: { 'idempotency-key': 'automation-intent' }, body: { amount: 10_000, currency: 'xof', transaction_country: 'SN' } });
  assertOk(t, intent);
  await svc.system.drain();

  const [refused] = await runsOf(svc, key, byUserNew);
  t.match(refused, { status: 'failed', error: /IKW-PAY-007/ }, 'no one is there to give a second factor');
  t.equal((await runOf(svc, key, byUserNew, refused!.id)).logs[0]!.status, 'failed');
  t.match((await runsOf(svc, key, byUserKnown))[0], { status: 'succeeded' }, 'a destination paid before');
  t.match((await runsOf(svc, key, byKey))[0], { status: 'succeeded' }, 'an API key’s, the settings open');
  t.equal(await payoutsOf(m.id), 3, 'the key’s first payout and the two runs’');
});

t.test('the migration keys the payouts made before it with the function the projection uses', async (t) => {
  const { knex } = svc.system;
  const keyed = () => knex('read.payouts').orderBy('id').select('id', 'destination_key');
  const before = await keyed();
  t.ok(before.length > 10 && before.every((r) => typeof r.destination_key === 'string'));
  const migration = payoutsProjection.migrations.find((m) => m.name === 'payouts/002-destination-key')!;
  await knex.transaction(async (trx) => {
    await trx.raw('ALTER TABLE read.payouts DROP COLUMN destination_key');
    await migration.up(trx);
  });
  t.same(await keyed(), before);
});
