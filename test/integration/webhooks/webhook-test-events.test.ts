/**
 * POST /api/v1/webhook-endpoints/{id}/send_test_event: a signed test event to that endpoint alone,
 * through the delivery jobs (attempts, retries, replays); never in the events API, never money;
 * the refusals, another merchant's endpoint, idempotency, sends side by side. Real receivers on
 * loopback, verified with `standardwebhooks`. The suite's retry schedule is one minute.
 */
import t, { type Test } from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { balance, fundedMerchant, ledgerOf } from '../../support/payouts.js';
import type { TestResponse } from '../../support/system.js';
import { deliveriesOf, listeningEndpoint, MINUTE, OK, settle, startWebhookService, updateEndpoint, verify } from '../../support/webhooks.js';

const svc = await startWebhookService(t, { env: { WEBHOOK_RETRY_SCHEDULE: '1m' } });
const sendTest = (key: string, id: string, body?: Record<string, unknown>, headers?: Record<string, string>): Promise<TestResponse> =>
  svc.request('POST', `/api/v1/webhook-endpoints/${id}/send_test_event`, { key, ...(body ? { body } : {}), ...(headers ? { headers } : {}) });

/** A funded merchant with three endpoints: `a` listens to two payout and payment types, `b` to everything, `c` to payout.paid. */
async function setup(t: Test) {
  const { merchant, key } = await fundedMerchant(svc, 100_000);
  const { receiver: ra, endpoint: a } = await listeningEndpoint(t, svc, key, ['payout.paid', 'payment_intent.succeeded']);
  const { receiver: rb, endpoint: b } = await listeningEndpoint(t, svc, key, ['*']);
  const { receiver: rc, endpoint: c } = await listeningEndpoint(t, svc, key, ['payout.paid']);
  return { merchant, key, ra, rb, rc, a, b, c };
}

t.test('a signed test event of the first subscribed type reaches that endpoint alone, shows in its deliveries, not in the events, and moves no money', async (t) => {
  const { merchant, key, ra, rb, rc, a, b, c } = await setup(t);
  const balanceBefore = await balance(svc, key);
  const ledgerBefore = await ledgerOf(svc, merchant.id);

  const res = await sendTest(key, a.id);
  assertOk(t, res, 202);
  t.match(res.body, {
    id: /^whd_/,
    object: 'webhook_delivery',
    webhook_endpoint_id: a.id,
    event_id: /^evt_test_[0-9A-Za-z]{24}$/,
    event_type: 'payout.paid',
    status: 'pending',
    attempt_count: 0,
    replay_of: null,
    livemode: false,
    created: Math.floor(svc.clock.now().getTime() / 1000),
    attempts: [],
  });
  const eventId: string = res.body.event_id;

  await settle(svc);
  t.same([ra.count, rb.count, rc.count], [1, 0, 0], 'only the endpoint named, though the others listen to payout.paid too');
  const request = ra.requests[0]!;
  t.equal(request.headers['webhook-id'], eventId);
  const event = verify(a.secret, request) as unknown as { id: string; type: string; test: boolean; livemode: boolean; data: Record<string, unknown> };
  t.match(event, { id: eventId, object: 'event', type: 'payout.paid', test: true, livemode: false, data: { id: /^po_test_/, object: 'payout', status: 'paid', currency: 'xof' } }, 'verified with the endpoint’s secret, marked as a test');

  const listed = await svc.request('GET', `/api/v1/webhook-endpoints/${a.id}/deliveries`, { key });
  assertOk(t, listed);
  t.match(listed.body.data, [{ id: res.body.id, event_id: eventId, event_type: 'payout.paid', status: 'succeeded', attempt_count: 1 }]);
  const one = await svc.request('GET', `/api/v1/webhook-endpoints/${a.id}/deliveries/${res.body.id}`, { key });
  assertOk(t, one);
  t.match(one.body.attempts, [{ attempt: 1, response_status: 200, error: null, response_body: 'ok' }]);
  t.equal(one.body.attempts.length, 1);

  const events = await svc.request('GET', '/api/v1/events', { key });
  assertOk(t, events);
  t.same(events.body.data, [], 'the events API lists no test event');
  assertError(t, await svc.request('GET', `/api/v1/events/${eventId}`, { key }), 'IKW-RES-001');

  t.same(await balance(svc, key), balanceBefore, 'the balance is unchanged');
  t.equal((await ledgerOf(svc, merchant.id)).version, ledgerBefore.version, 'no ledger entry');
  for (const other of [b, c]) t.same(await deliveriesOf(svc, other.id), [], 'no delivery to another endpoint');
});

t.test('a type the endpoint listens to: any type with `*`, payment_intent.succeeded by default', async (t) => {
  const { key, ra, rb, a, b } = await setup(t);
  const chosen = await sendTest(key, a.id, { type: 'payment_intent.succeeded' });
  assertOk(t, chosen, 202);
  t.equal(chosen.body.event_type, 'payment_intent.succeeded');
  const any = await sendTest(key, b.id, { type: 'refund.failed' });
  assertOk(t, any, 202);
  const byDefault = await sendTest(key, b.id);
  assertOk(t, byDefault, 202);
  t.equal(byDefault.body.event_type, 'payment_intent.succeeded', '`*` names no type: payment_intent.succeeded');
  await settle(svc);
  t.match(verify(a.secret, ra.requests[0]!), { type: 'payment_intent.succeeded', test: true, data: { object: 'payment_intent', status: 'succeeded', amount_received: 5000 } });
  t.match(
    rb.requests.map((r) => verify(b.secret, r)),
    [
      { type: 'refund.failed', test: true, data: { object: 'refund', status: 'failed' } },
      { type: 'payment_intent.succeeded', test: true },
    ],
  );
});

t.test('refusals: unknown or unsubscribed type, disabled, unknown, deleted or another merchant’s endpoint; nothing is queued', async (t) => {
  const { key, ra, a, c } = await setup(t);
  assertError(t, await sendTest(key, a.id, { type: 'payout.teleported' }), 'IKW-VAL-001', 'type');
  assertError(t, await sendTest(key, a.id, { type: 'payout.*' }), 'IKW-VAL-001', 'type');
  const unsubscribed = await sendTest(key, c.id, { type: 'payment_intent.succeeded' });
  assertError(t, unsubscribed, 'IKW-VAL-001', 'type');
  t.match(unsubscribed.body.message, /does not listen to 'payment_intent\.succeeded'.*payout\.paid/);
  assertError(t, await sendTest(key, a.id, { type: '' }), 'IKW-VAL-001', 'type');
  assertError(t, await sendTest(key, a.id, { type: 'payout.paid', amount: 5 }), 'IKW-VAL-002', 'amount');

  assertOk(t, await updateEndpoint(svc, key, c.id, { enabled: false }));
  const disabled = await sendTest(key, c.id);
  assertError(t, disabled, 'IKW-RES-002', 'id');
  t.equal(disabled.status, 409);

  assertError(t, await sendTest(key, 'we_doesnotexist00000000000'), 'IKW-RES-001', 'id');
  const other = await svc.sandboxMerchant();
  assertError(t, await sendTest(other.key, a.id), 'IKW-RES-001', 'id');
  assertOk(t, await svc.request('DELETE', `/api/v1/webhook-endpoints/${c.id}`, { key }));
  assertError(t, await sendTest(key, c.id), 'IKW-RES-001', 'id');

  await settle(svc);
  t.equal(ra.count, 0);
  t.same([...(await deliveriesOf(svc, a.id)), ...(await deliveriesOf(svc, c.id))], [], 'no delivery was queued');
});

t.test('Idempotency-Key replays the first answer; sends side by side are each delivered', async (t) => {
  const { key, ra, a } = await setup(t);
  const headers = { 'idempotency-key': 'test-event-1' };
  const first = await sendTest(key, a.id, { type: 'payout.paid' }, headers);
  assertOk(t, first, 202);
  const again = await sendTest(key, a.id, { type: 'payout.paid' }, headers);
  t.equal(again.status, 202);
  t.same(again.body, first.body, 'the same delivery');
  assertError(t, await sendTest(key, a.id, { type: 'payment_intent.succeeded' }, headers), 'IKW-IDM-002');
  await settle(svc);
  t.equal(ra.count, 1, 'sent once');

  const together = await Promise.all([1, 2, 3, 4].map(() => sendTest(key, a.id)));
  for (const r of together) assertOk(t, r, 202);
  t.equal(new Set(together.map((r) => r.body.event_id)).size, 4, 'four test events');
  await settle(svc);
  t.equal(ra.count, 5);
  t.same(new Set(ra.requests.slice(1).map((r) => r.headers['webhook-id'])), new Set(together.map((r) => r.body.event_id)));
  t.same(
    (await deliveriesOf(svc, a.id)).map((d) => d.status),
    ['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded'],
  );
});

t.test('a failed test delivery is retried, fails, and is replayed to its endpoint alone', async (t) => {
  const { key, ra, rb, rc, a, b } = await setup(t);
  ra.behaviour = { kind: 'answer', status: 503, body: 'down' };
  const res = await sendTest(key, a.id);
  assertOk(t, res, 202);
  const eventId: string = res.body.event_id;
  await settle(svc);
  t.match(await deliveriesOf(svc, a.id), [{ id: res.body.id, status: 'retrying', attempts: 1 }]);
  svc.clock.advance(MINUTE);
  await settle(svc);
  t.equal(ra.count, 2, 'retried on the schedule');
  t.match(await deliveriesOf(svc, a.id), [{ id: res.body.id, status: 'failed', attempts: 2 }]);
  const failed = await svc.request('GET', `/api/v1/webhook-endpoints/${a.id}/deliveries/${res.body.id}`, { key });
  t.match(failed.body.attempts, [
    { attempt: 1, response_status: 503, error: 'HTTP 503', response_body: 'down' },
    { attempt: 2, response_status: 503, error: 'HTTP 503' },
  ]);

  ra.behaviour = OK;
  const replayed = await svc.request('POST', '/api/v1/webhook-replays', { key, body: { webhook_endpoint_id: a.id } });
  assertOk(t, replayed);
  t.match(replayed.body, { queued: 1, deliveries: [{ event_id: eventId, webhook_endpoint_id: a.id }] });
  const byEvent = await svc.request('POST', '/api/v1/webhook-replays', { key, body: { event_id: eventId } });
  assertOk(t, byEvent);
  t.match(byEvent.body, { queued: 1, deliveries: [{ event_id: eventId, webhook_endpoint_id: a.id }] }, 'the event alone: its endpoint, not every endpoint listening to payout.paid');
  assertError(t, await svc.request('POST', '/api/v1/webhook-replays', { key, body: { event_id: eventId, webhook_endpoint_id: b.id } }), 'IKW-RES-001', 'event_id');
  await settle(svc);
  t.equal(ra.count, 4);
  t.same([rb.count, rc.count], [0, 0], 'the other endpoints never get it');
  for (const r of ra.requests) {
    t.equal(r.headers['webhook-id'], eventId, 'the same event id on every attempt and replay');
    t.match(verify(a.secret, r), { id: eventId, test: true });
  }
  const listed = await svc.request('GET', `/api/v1/webhook-endpoints/${a.id}/deliveries`, { key });
  t.match(
    listed.body.data,
    [
      { id: byEvent.body.deliveries[0].id, status: 'succeeded', replay_of: null },
      { id: replayed.body.deliveries[0].id, status: 'succeeded', replay_of: res.body.id },
      { id: res.body.id, status: 'failed', replay_of: null },
    ],
    'newest first: the replay by event, the replay of the failed delivery, the test',
  );
  t.equal(listed.body.data.length, 3);
});
