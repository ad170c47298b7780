/**
 * The merchant's risk rules (docs/risk.md), through the real server on a real PostgreSQL, the
 * sandbox rails wrapped to count their calls, and a manual clock: each rule blocks, holds a payout
 * for review or only scores as configured; a blocked attempt reaches no rail and answers
 * IKW-LIM-007 naming no rule; a held payout is sent once when a person releases it; every
 * decision is in Insights with its reasons; another merchant's rules, entries and payouts are apart;
 * `sika projections verify` is clean.
 */
import t, { type Test } from '#tap';
import type { Environment } from '#packages/core/owner.js';
import type { Rails } from '#packages/connectors/port.js';
import { advance, assertError, assertOk, balance, fund, getPayout, mobileMoney as payoutTo, PayoutProbe, postPayout } from '../../support/payouts.js';
import { confirm, createIntent, mobileMoney as payWith, ProviderProbe, snNumber } from '../../support/payments.js';
import { startPaymentsService, type TestService } from '../../support/system.js';

const collects = new ProviderProbe();
const payouts = new PayoutProbe();
const svc: TestService = await startPaymentsService(t, { rails: (environment: Environment, base: Rails) => payouts.wrap(environment, collects.wrap(environment, base)) });
const PASSWORD = 'correct horse battery staple';
const MINUTE = 60_000;

const putRules = (key: string, body: unknown) => svc.request('PUT', '/api/v1/risk/rules', { key, body });
const rulesOff = { payerPaymentsPerHour: null, payerPaymentsPerDay: null, payoutsPerDestinationPerDay: null, amountCeiling: null, repeatedPayment: null };

/** Confirms a new intent of `amount` paid by the number ending in `lastTwo`; the confirm's answer and the intent. */
async function pay(key: string, lastTwo: string, amount = 10_000, extra: Record<string, unknown> = {}) {
  const intent = await createIntent(svc, key, { amount, ...extra });
  return { res: await confirm(svc, key, intent.id, { payment_method: payWith(snNumber(lastTwo)) }), intent };
}

/** A success, said in words. */
function passes(t: Test, res: { status: number; text: string }, what: string) {
  t.equal(res.status, 200, `${what} (${res.text.slice(0, 200)})`);
}

/** A refusal by the risk rules: IKW-LIM-007, a message that names no rule, and no rail asked. */
function assertDeclined(t: Test, res: Awaited<ReturnType<typeof pay>>['res'], param: string) {
  assertError(t, res, 'IKW-LIM-007', param);
  t.notMatch(res.body.message, /rule|velocity|blocklist|ceiling|repeat|hour|day/i, 'the message names no rule');
}

/** The merchant's risk decisions in Insights, newest first (the decisions read model follows the log). */
async function riskDecisions(key: string, subject?: string) {
  await svc.system.drain();
  const res = await svc.request('GET', `/api/v1/intelligence/decisions?kind=risk&limit=100${subject ? `&subject=${subject}` : ''}`, { key });
  t.equal(res.status, 200, res.text);
  return res.body.data as { kind: string; subject: string; outcome: Record<string, string>; reason: string }[];
}

t.test('the defaults are on and documented; a merchant sets its own over them, and another merchant keeps the defaults', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const defaults = await svc.request('GET', '/api/v1/risk/rules', { key });
  t.equal(defaults.status, 200, defaults.text);
  t.same(defaults.body.customized, []);
  t.match(defaults.body.rules, { payerPaymentsPerHour: { limit: 10, action: 'score' }, repeatedPayment: { minutes: 10, action: 'score' }, blocklist: { action: 'block' } });

  const set = await putRules(key, { payerPaymentsPerHour: { limit: 3, action: 'block' }, repeatedPayment: null });
  t.equal(set.status, 200, set.text);
  t.same(set.body.customized, ['payerPaymentsPerHour', 'repeatedPayment']);
  t.same(set.body.rules.payerPaymentsPerHour, { limit: 3, action: 'block' });
  t.equal(set.body.rules.repeatedPayment, null, 'null turns a rule off');
  t.same(set.body.rules.payerPaymentsPerDay, defaults.body.rules.payerPaymentsPerDay, 'a rule left out follows the default');

  assertError(t, await putRules(key, { amountCeiling: { amounts: { zzz: 5 }, action: 'block' } }), 'IKW-LIM-008');
  assertError(t, await putRules(key, { payerPaymentsPerHour: { limit: 0, action: 'block' } }), 'IKW-VAL-001');
  assertError(t, await putRules(key, { payerPaymentsPerHour: { limit: 2, action: 'forbid' } }), 'IKW-VAL-001');
  assertError(t, await putRules(key, { noSuchRule: null }), 'IKW-VAL-002');

  const other = await svc.sandboxMerchant();
  t.same((await svc.request('GET', '/api/v1/risk/rules', { key: other.key })).body.customized, [], "another merchant's rules are its own");
  const readOnly = await svc.apiKey((await svc.merchant()).id, ['balance.read']);
  t.equal((await svc.request('GET', '/api/v1/risk/rules', { key: readOnly.secret })).status, 403, 'a key without risk.read reads nothing');
});

t.test("velocity per payer number: the attempt beyond the hour's limit is blocked before any rail, the next hour passes", async (t) => {
  const { key } = await svc.sandboxMerchant();
  assertOk(t, await putRules(key, { ...rulesOff, payerPaymentsPerHour: { limit: 2, action: 'block' } }));
  assertOk(t, (await pay(key, '11', 1_000)).res);
  assertOk(t, (await pay(key, '11', 2_000)).res);
  const third = await pay(key, '11', 3_000);
  assertDeclined(t, third.res, 'payment_method');
  t.equal(collects.callsFor(third.intent.id), 0, 'the blocked attempt reached no rail');
  t.equal((await svc.request('GET', `/api/v1/payment-intents/${third.intent.id}`, { key })).body.status, 'requires_payment_method', 'the intent may be paid another way');
  passes(t, (await pay(key, '12', 3_000)).res, 'another payer passes');
  svc.clock.advance(61 * MINUTE);
  passes(t, (await pay(key, '11', 4_000)).res, 'an hour later the payer passes again');

  const decisions = await riskDecisions(key, third.intent.id);
  t.equal(decisions.length, 1);
  t.match(
    decisions[0],
    { kind: 'risk', subject: third.intent.id, outcome: { decision: 'block', direction: 'payment', rules: 'payerPaymentsPerHour' }, reason: /Declined by the risk rules.*2 payment attempts in the last hour/ },
    'the merchant reads why',
  );
});

t.test('velocity per payer e-mail per day, whatever the number', async (t) => {
  const { key } = await svc.sandboxMerchant();
  assertOk(t, await putRules(key, { ...rulesOff, payerPaymentsPerDay: { limit: 1, action: 'block' } }));
  const email = { customer_email: 'payer-velocity@example.com' };
  assertOk(t, (await pay(key, '21', 1_000, email)).res);
  assertDeclined(t, (await pay(key, '22', 1_000, email)).res, 'payment_method');
  passes(t, (await pay(key, '23', 1_000, { customer_email: 'someone-else@example.com' })).res, 'another payer passes');
  svc.clock.advance(24 * 60 * MINUTE + MINUTE);
  passes(t, (await pay(key, '22', 1_000, email)).res, 'a day later it passes');
});

t.test('the same payer and amount within the minutes is blocked; another amount, or after the window, passes', async (t) => {
  const { key } = await svc.sandboxMerchant();
  assertOk(t, await putRules(key, { ...rulesOff, repeatedPayment: { minutes: 10, action: 'block' } }));
  assertOk(t, (await pay(key, '31', 5_000)).res);
  const repeat = await pay(key, '31', 5_000);
  assertDeclined(t, repeat.res, 'payment_method');
  t.equal(collects.callsFor(repeat.intent.id), 0, 'no rail asked');
  passes(t, (await pay(key, '31', 5_001)).res, 'another amount passes');
  svc.clock.advance(11 * MINUTE);
  passes(t, (await pay(key, '31', 5_000)).res, 'after the window it passes');
});

t.test('an amount above the ceiling only scored: the payment goes on, the decision is recorded', async (t) => {
  const { key } = await svc.sandboxMerchant();
  assertOk(t, await putRules(key, { ...rulesOff, amountCeiling: { amounts: { XOF: 5_000 }, action: 'score' } }));
  const at = await pay(key, '41', 5_000);
  assertOk(t, at.res);
  const above = await pay(key, '41', 5_001);
  passes(t, above.res, 'a score does not stop the payment');
  t.equal(collects.callsFor(above.intent.id), 1, 'the rail was asked');
  const decisions = await riskDecisions(key);
  t.same(
    decisions.map((d) => d.subject),
    [above.intent.id],
    'only the attempt a rule matched is a decision',
  );
  t.match(decisions[0], { outcome: { decision: 'score', rules: 'amountCeiling' }, reason: /5001 xof is above the ceiling of 5000/ });
  const event = (await svc.system.store.readStream(`payment_intent-${above.intent.id as string}`)).map((e) => e.type);
  t.ok(event.includes('payment_intent.confirmation_started'));
});

t.test('the blocklist: phones, e-mails and destinations blocked, another merchant apart, removed again', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 100_000);
  let request = 0;
  const add = (body: unknown) => svc.request('POST', '/api/v1/risk/blocklist', { key, body, headers: { 'idempotency-key': `blocklist-${++request}` } });
  const phone = await add({ kind: 'phone', value: snNumber('51'), note: 'chargeback' });
  t.equal(phone.status, 200, phone.text);
  t.match(phone.body, { object: 'risk_blocklist_entry', kind: 'phone', value: '221771234551', note: 'chargeback' });
  t.equal((await add({ kind: 'phone', value: '+221 77 123 45 51' })).body.id, phone.body.id, 'a value blocked already answers its entry');
  assertError(t, await add({ kind: 'phone', value: '771234551' }), 'IKW-LIM-008', 'value');
  assertError(t, await add({ kind: 'email', value: 'not an address' }), 'IKW-LIM-008', 'value');
  assertOk(t, await add({ kind: 'email', value: 'Fraud@Example.com' }));
  assertOk(t, await add({ kind: 'destination', value: snNumber('52') }));

  const blocked = await pay(key, '51');
  assertDeclined(t, blocked.res, 'payment_method');
  t.equal(collects.callsFor(blocked.intent.id), 0, 'no rail asked');
  assertDeclined(t, (await pay(key, '53', 10_000, { customer_email: 'fraud@example.com' })).res, 'payment_method');

  const before = await balance(svc, key);
  const sentBefore = payouts.calls.length;
  assertDeclined(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: payoutTo('52') }), 'destination');
  t.equal(payouts.calls.length, sentBefore, 'the blocked payout reached no rail');
  t.same(await balance(svc, key), before, 'and held nothing');
  passes(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: payoutTo('51') }), "a payer's number blocked is not a destination blocked");

  const list = await svc.request('GET', '/api/v1/risk/blocklist', { key });
  t.same(
    list.body.data.map((e: { kind: string }) => e.kind),
    ['phone', 'email', 'destination'],
  );
  const other = await svc.sandboxMerchant();
  t.same((await svc.request('GET', '/api/v1/risk/blocklist', { key: other.key })).body.data, [], "another merchant's list is its own");
  assertError(t, await svc.request('DELETE', `/api/v1/risk/blocklist/${phone.body.id}`, { key: other.key }), 'IKW-RES-001', 'id');
  passes(t, (await pay(other.key, '51')).res, "another merchant's payers are not blocked by this one's list");

  const removed = await svc.request('DELETE', `/api/v1/risk/blocklist/${phone.body.id}`, { key });
  t.same(removed.body, { id: phone.body.id, object: 'risk_blocklist_entry', deleted: true });
  assertError(t, await svc.request('DELETE', `/api/v1/risk/blocklist/${phone.body.id}`, { key }), 'IKW-RES-001', 'id');
  passes(t, (await pay(key, '51', 7_000)).res, 'removed: the payer pays again');

  // The platform's blocklist rule (block) still applies: a merchant's own rule only adds to it (docs/risk.md).
  assertOk(t, await putRules(key, { blocklist: { action: 'score' } }));
  assertDeclined(t, (await pay(key, '54', 10_000, { customer_email: 'fraud@example.com' })).res, 'payment_method');
});

t.test('a payout held for review: created and held, sent once when a person releases it, a second release changes nothing', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 100_000);
  assertOk(t, await putRules(key, { ...rulesOff, payoutsPerDestinationPerDay: { limit: 1, action: 'review' } }));
  const destination = payoutTo('61');
  const first = await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination });
  assertOk(t, first);
  t.notOk('review_status' in first.body, 'a payout no rule held has no review_status');

  const sentBefore = payouts.calls.length;
  const body = { amount: 2_000, currency: 'xof', destination };
  const held = await postPayout(svc, key, body, { idempotencyKey: 'held-1' });
  t.equal(held.status, 200, held.text);
  t.match(held.body, { status: 'pending', review_status: 'held' });
  t.equal(payouts.calls.length, sentBefore, 'held: not sent');
  const { available } = await balance(svc, key);
  t.equal((await postPayout(svc, key, body, { idempotencyKey: 'held-1' })).body.id, held.body.id, 'the retry finds the same payout');
  t.equal(payouts.calls.length, sentBefore, 'and sends nothing');
  t.equal((await balance(svc, key)).available, available, 'its money held once');
  await advance(svc, 60 * MINUTE);
  t.match((await getPayout(svc, key, held.body.id)).body, { status: 'pending', review_status: 'held', delay_state: null }, 'held past its expected time is not late');

  const release = (k: string) => svc.request('POST', `/api/v1/payouts/${held.body.id}/release`, { key: k, headers: { 'x-environment': 'sandbox' } });
  assertError(t, await release(key), 'IKW-LIM-010', 'id');
  const email = 'finance-risk@shop.example';
  await svc.member(merchant, email, PASSWORD, 'finance');
  const user = await svc.signIn(email, PASSWORD);
  const other = await svc.sandboxMerchant();
  await svc.member(other.merchant, 'other-risk@shop.example', PASSWORD, 'finance');
  assertError(t, await release(await svc.signIn('other-risk@shop.example', PASSWORD)), 'IKW-RES-001', 'id');
  t.equal(payouts.calls.length, sentBefore, "another merchant's user released nothing");

  const released = await release(user);
  t.equal(released.status, 200, released.text);
  t.match(released.body, { id: held.body.id, review_status: 'released' });
  t.equal(payouts.calls.filter((c) => c.payoutId === held.body.id).length, 1, 'released: sent once');
  const again = await release(user);
  t.equal(again.status, 200, again.text);
  t.equal(payouts.calls.filter((c) => c.payoutId === held.body.id).length, 1, 'a second release sends nothing');
  t.equal(again.body.review_status, 'released');
  assertError(t, await svc.request('POST', `/api/v1/payouts/${first.body.id}/release`, { key: user, headers: { 'x-environment': 'sandbox' } }), 'IKW-LIM-009', 'id');

  const decisions = await riskDecisions(key, held.body.id);
  t.match(decisions, [{ kind: 'risk', outcome: { decision: 'review', direction: 'payout', rules: 'payoutsPerDestinationPerDay' }, reason: /Held for review.*1 payouts went to this destination/ }]);
  const events = (await svc.system.store.readStream(`payout-${held.body.id as string}`)).map((e) => e.type);
  t.same(events.slice(0, 2), ['payout.created', 'payout.review_released'], "the release is on the payout's stream");
  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean');
});

t.test('a payout above the ceiling set to block: refused before anything is held', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 100_000);
  assertOk(t, await putRules(key, { amountCeiling: { amounts: { xof: 10_000 }, action: 'block' } }));
  const before = await balance(svc, key);
  const sent = payouts.calls.length;
  assertDeclined(t, await postPayout(svc, key, { amount: 10_001, currency: 'xof', destination: payoutTo('71') }), 'destination');
  t.same(await balance(svc, key), before, 'nothing held');
  t.equal(payouts.calls.length, sent, 'no rail asked');
  passes(t, await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: payoutTo('71') }), 'at the ceiling passes');
  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean');
});
