/**
 * Payouts held for review, turned down or let through (docs/risk.md, "Review"; docs/operator.md,
 * "Held payouts"), on the real server and ledger with the sandbox rails wrapped to count their
 * calls: a decline fails the payout without any rail and gives its amount and fee back to
 * available in the same commit; each refusal; another merchant's is 404; an Idempotency-Key
 * answers the first decline again; a release and a decline racing end with exactly one; the
 * operators' queue of every merchant's held payouts, their release and decline recorded with the
 * operator as actor, and the roles turned away; `sika projections verify` is clean.
 */
import t, { type Test } from '#tap';
import type { Environment } from '#packages/core/owner.js';
import type { Rails } from '#packages/connectors/port.js';
import { assertError, assertOk, balance, fund, mobileMoney as payoutTo, PayoutProbe, postPayout } from '../../support/payouts.js';
import { operatorSession } from '../../support/operators.js';
import { startPaymentsService, type TestService } from '../../support/system.js';

const payouts = new PayoutProbe();
const svc: TestService = await startPaymentsService(t, { rails: (environment: Environment, base: Rails) => payouts.wrap(environment, base) });
const PASSWORD = 'correct horse battery staple';
const SANDBOX = { 'x-environment': 'sandbox' };
const rulesOff = { payerPaymentsPerHour: null, payerPaymentsPerDay: null, payoutsPerDestinationPerDay: null, amountCeiling: null, repeatedPayment: null };
let members = 0;

/** A funded sandbox merchant whose second payout to a destination each day is held for review, with a signed-in finance user. */
async function reviewingMerchant(t: Test) {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 100_000);
  assertOk(t, await svc.request('PUT', '/api/v1/risk/rules', { key, body: { ...rulesOff, payoutsPerDestinationPerDay: { limit: 1, action: 'review' } } }));
  const email = `held-${++members}@shop.example`;
  await svc.member(merchant, email, PASSWORD, 'finance');
  return { merchant, key, user: await svc.signIn(email, PASSWORD) };
}

/** A payout held for review of `amount` to a destination ending in `lastTwo` (its first payout there passes). */
async function heldPayout(t: Test, key: string, lastTwo: string, amount = 2_000) {
  const destination = payoutTo(lastTwo);
  assertOk(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination }));
  const held = await postPayout(svc, key, { amount, currency: 'xof', destination });
  t.equal(held.status, 200, held.text);
  t.equal(held.body.review_status, 'held');
  return held.body as { id: string; amount: number; fee: number };
}

const decline = (id: string, key: string, body?: unknown, headers: Record<string, string> = {}) => svc.request('POST', `/api/v1/payouts/${id}/decline`, { key, headers: { ...SANDBOX, ...headers }, ...(body === undefined ? {} : { body }) });
const release = (id: string, key: string) => svc.request('POST', `/api/v1/payouts/${id}/release`, { key, headers: SANDBOX });
const sentTo = (id: string) => payouts.calls.filter((c) => c.payoutId === id).length;

t.test('a decline fails the held payout, sends nothing and gives amount and fee back to available; each refusal', async (t) => {
  const { key, user } = await reviewingMerchant(t);
  const held = await heldPayout(t, key, '31');
  const before = await balance(svc, key);

  assertError(t, await decline(held.id, key), 'IKW-LIM-010', 'id');
  const other = await reviewingMerchant(t);
  assertError(t, await decline(held.id, other.user), 'IKW-RES-001', 'id');
  assertError(t, await decline('po_nothing', user), 'IKW-RES-001', 'id');
  assertError(t, await decline(held.id, user, { reason: '' }), 'IKW-VAL-001');

  const declined = await decline(held.id, user, { reason: 'The recipient could not be verified' });
  t.equal(declined.status, 200, declined.text);
  t.match(declined.body, { id: held.id, status: 'failed', review_status: 'declined', failure_code: 'declined_in_review', failure_message: 'The recipient could not be verified' });
  t.equal(sentTo(held.id), 0, 'no rail was asked');
  const back = held.amount + held.fee;
  t.same(await balance(svc, key), { ...before, available: before.available + back, reserved: before.reserved - back }, 'amount and fee are available again, no longer reserved');

  const again = await decline(held.id, user);
  t.equal(again.status, 200, again.text);
  t.match(again.body, { status: 'failed', review_status: 'declined', failure_message: 'The recipient could not be verified' }, 'declining again answers it as it is');
  t.same(await balance(svc, key), { ...before, available: before.available + back, reserved: before.reserved - back }, 'and gives nothing back twice');
  assertError(t, await release(held.id, user), 'IKW-LIM-009', 'id');
  t.equal(sentTo(held.id), 0, 'a declined payout is never released');

  const events = (await svc.system.store.readStream(`payout-${held.id}`)).map((e) => [e.type, e.metadata.actor]);
  t.match(
    events.slice(1),
    [
      ['payout.review_declined', /^user:/],
      ['payout.failed', /^user:/],
    ],
    "the decline and the end on the payout's stream, by the user",
  );
  await svc.system.drain();
  const history = await svc.request('GET', `/api/v1/payouts/${held.id}/events`, { key, headers: SANDBOX });
  t.equal(history.body.data[0].type, 'payout.failed', 'the payout.failed webhook event, as for any failed payout');

  const plain = await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: payoutTo('32') });
  assertError(t, await decline(plain.body.id, user), 'IKW-LIM-009', 'id');
  const releasedOne = await heldPayout(t, key, '33');
  assertOk(t, await release(releasedOne.id, user));
  assertError(t, await decline(releasedOne.id, user), 'IKW-LIM-009', 'id');

  const list = await svc.request('GET', '/api/v1/merchant/payouts?review_status=held', { key });
  t.same(list.body.data, [], 'none held any more');
  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean');
});

t.test('the merchant list filters held payouts; an Idempotency-Key answers the first decline again', async (t) => {
  const { key, user } = await reviewingMerchant(t);
  const held = await heldPayout(t, key, '41');
  const list = await svc.request('GET', '/api/v1/merchant/payouts?review_status=held', { key });
  t.equal(list.status, 200, list.text);
  t.same(
    list.body.data.map((p: { id: string }) => p.id),
    [held.id],
    'only the held payout',
  );
  const before = await balance(svc, key);
  const first = await decline(held.id, user, { reason: 'No' }, { 'idempotency-key': 'decline-1' });
  t.equal(first.status, 200, first.text);
  const retry = await decline(held.id, user, { reason: 'No' }, { 'idempotency-key': 'decline-1' });
  t.equal(retry.status, 200, retry.text);
  t.same(retry.body, first.body, 'the same answer');
  t.equal((await balance(svc, key)).available, before.available + held.amount + held.fee, 'given back once');
});

t.test('a release and a decline racing: exactly one wins', async (t) => {
  const { key, user } = await reviewingMerchant(t);
  for (const lastTwo of ['51', '52', '53']) {
    const held = await heldPayout(t, key, lastTwo);
    const [released, declined] = await Promise.all([release(held.id, user), decline(held.id, user)]);
    t.same([released.status, declined.status].sort(), [200, 409], `one wins, the other is refused (${released.status}, ${declined.status})`);
    const loser = released.status === 409 ? released : declined;
    t.equal(loser.body.code, 'IKW-LIM-009');
    const types = (await svc.system.store.readStream(`payout-${held.id}`)).map((e) => e.type);
    t.equal(types.filter((e) => e === 'payout.review_released' || e === 'payout.review_declined').length, 1, 'one decision on the stream');
    t.equal(sentTo(held.id), released.status === 200 ? 1 : 0, 'sent only when the release won');
  }
  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean');
});

t.test("the operators' queue of held payouts, their release and decline, and the roles turned away", async (t) => {
  const risk = await operatorSession(svc, 'risk');
  const admin = await operatorSession(svc, 'admin');
  const reviewer = await operatorSession(svc, 'reviewer');
  const a = await reviewingMerchant(t);
  const b = await reviewingMerchant(t);
  const first = await heldPayout(t, a.key, '61');
  const second = await heldPayout(t, b.key, '62');
  const third = await heldPayout(t, a.key, '63');
  const asOperator = (method: string, path: string, token: string, body?: unknown) => svc.request(method, path, { key: token, ...(body === undefined ? {} : { body }) });

  const queue = await asOperator('GET', '/api/v1/operator/payouts/held?environment=sandbox&limit=100', risk.token);
  t.equal(queue.status, 200, queue.text);
  const ours = (queue.body.data as { merchant_id: string; payout: { id: string } }[]).filter((h) => [first.id, second.id, third.id].includes(h.payout.id));
  t.same(
    ours.map((h) => [h.merchant_id, h.payout.id]),
    [
      [a.merchant.id, first.id],
      [b.merchant.id, second.id],
      [a.merchant.id, third.id],
    ],
    "every merchant's, oldest first",
  );
  t.match(queue.body, { object: 'list', page: 1, limit: 100 });
  const live = await asOperator('GET', '/api/v1/operator/payouts/held', risk.token);
  t.notOk(
    (live.body.data as { payout: { id: string } }[]).some((h) => h.payout.id === first.id),
    "live's queue holds no sandbox payout",
  );

  t.equal((await asOperator('GET', '/api/v1/operator/payouts/held?environment=sandbox', reviewer.token)).status, 403, 'a reviewer reads no queue');
  t.equal((await asOperator('POST', `/api/v1/operator/payouts/${first.id}/release`, reviewer.token)).status, 403, 'nor releases');
  t.equal((await asOperator('POST', `/api/v1/operator/payouts/${first.id}/decline`, reviewer.token)).status, 403, 'nor declines');
  t.equal((await svc.request('GET', '/api/v1/operator/payouts/held', { key: a.user })).status, 404, "a merchant's user has no operator routes");
  assertError(t, await asOperator('POST', '/api/v1/operator/payouts/po_nothing/release', risk.token), 'IKW-RES-001', 'id');

  const before = await balance(svc, a.key);
  const released = await asOperator('POST', `/api/v1/operator/payouts/${first.id}/release`, risk.token);
  t.equal(released.status, 200, released.text);
  t.match(released.body, { id: first.id, review_status: 'released' });
  t.equal(sentTo(first.id), 1, 'sent');
  const declined = await asOperator('POST', `/api/v1/operator/payouts/${second.id}/decline`, admin.token, { reason: 'Mule account' });
  t.equal(declined.status, 200, declined.text);
  t.match(declined.body, { id: second.id, status: 'failed', review_status: 'declined', failure_code: 'declined_in_review', failure_message: 'Mule account' });
  assertError(t, await asOperator('POST', `/api/v1/operator/payouts/${first.id}/decline`, risk.token), 'IKW-LIM-009', 'id');
  t.equal((await balance(svc, a.key)).available, before.available, "the release leaves the merchant's available as it was");

  const actorOf = async (id: string, type: string) => (await svc.system.store.readStream(`payout-${id}`)).find((e) => e.type === type)?.metadata.actor;
  t.equal(await actorOf(first.id, 'payout.review_released'), `operator:${risk.operatorId}`, 'the release names the operator');
  t.equal(await actorOf(second.id, 'payout.review_declined'), `operator:${admin.operatorId}`, 'the decline names the operator');
  const after = await asOperator('GET', '/api/v1/operator/payouts/held?environment=sandbox&limit=100', risk.token);
  t.same(
    (after.body.data as { payout: { id: string } }[]).map((h) => h.payout.id).filter((id) => [first.id, second.id, third.id].includes(id)),
    [third.id],
    'only the one still held',
  );
  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean');
});
