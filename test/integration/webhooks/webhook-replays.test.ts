/**
 * POST /api/v1/webhook-replays: event + endpoint (that endpoint only), event only (every matching
 * endpoint), endpoint only (every failed delivery of it within the retention window), neither
 * (every enabled endpoint's failed deliveries); what the
 * response says was queued; replays signed with the current secret; bad input and other merchants.
 * The suite's retry schedule is one minute, so deliveries fail for good quickly.
 */
import { randomUUID } from 'node:crypto';
import t, { type Test } from '#tap';
import { assertError, assertOk } from '../../support/payments.js';
import type { TestResponse } from '../../support/system.js';
import { createEndpoint, createIntentEvent, deliveriesOf, getEndpoint, HOUR, listeningEndpoint, MINUTE, OK, rotate, settle, startWebhookService, updateEndpoint, verifies, verify } from '../../support/webhooks.js';

const svc = await startWebhookService(t, { env: { WEBHOOK_RETRY_SCHEDULE: '1m' } });
const now = () => svc.clock.now().getTime();
const replay = (key: string, body: Record<string, unknown>): Promise<TestResponse> => svc.request('POST', '/api/v1/webhook-replays', { key, body });

/** A merchant with three endpoints and one delivered payment_intent.created event. */
async function setup(t: Test) {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const { receiver: ra, endpoint: a } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const { receiver: rb, endpoint: b } = await listeningEndpoint(t, svc, key, ['*']);
  const { receiver: rc, endpoint: c } = await listeningEndpoint(t, svc, key, ['payout.paid']);
  await createIntentEvent(svc, key);
  await settle(svc);
  const eventId = ra.requests[0]!.headers['webhook-id']!;
  return { m, key, ra, rb, rc, a, b, c, eventId };
}

t.test('event + endpoint: that event to that endpoint only', async (t) => {
  const { key, ra, rb, rc, a, c, eventId } = await setup(t);
  t.same([ra.count, rb.count, rc.count], [1, 1, 0]);

  const res = await replay(key, { event_id: eventId, webhook_endpoint_id: c.id, reason: 'new endpoint wants history' });
  assertOk(t, res);
  t.match(res.body, {
    id: /^whr_/,
    object: 'webhook_replay',
    event_id: eventId,
    webhook_endpoint_id: c.id,
    reason: 'new endpoint wants history',
    queued: 1,
    livemode: false,
    created: Math.floor(now() / 1000),
  });
  t.same(res.body.deliveries.length, 1);
  t.match(res.body.deliveries[0], { id: /^whd_/, event_id: eventId, webhook_endpoint_id: c.id });

  await settle(svc);
  t.same([ra.count, rb.count, rc.count], [1, 1, 1], 'only the named endpoint, even though it does not subscribe to the type');
  const replayed = rc.requests[0]!;
  t.equal(replayed.headers['webhook-id'], eventId, 'the same event id');
  t.equal(replayed.body, ra.requests[0]!.body, 'the same payload');
  t.ok(verifies(c.secret, replayed), 'signed with that endpoint’s secret');
  t.match(await deliveriesOf(svc, c.id), [{ id: res.body.deliveries[0].id, status: 'succeeded', attempts: 1 }]);

  assertOk(t, await replay(key, { event_id: eventId, webhook_endpoint_id: a.id }));
  await settle(svc);
  t.same([ra.count, rb.count, rc.count], [2, 1, 1], 'an endpoint that already got it gets it again');
  t.ok(verifies(a.secret, ra.requests[1]!));
});

t.test('event only: every enabled endpoint whose enabled_events match', async (t) => {
  const { key, ra, rb, rc, a, b, eventId } = await setup(t);
  const { receiver: rd, endpoint: d } = await listeningEndpoint(t, svc, key, ['*']);
  assertOk(t, await updateEndpoint(svc, key, d.id, { enabled: false }));

  const res = await replay(key, { event_id: eventId, reason: 'receiver lost its database' });
  assertOk(t, res);
  t.match(res.body, { event_id: eventId, webhook_endpoint_id: null, reason: 'receiver lost its database', queued: 2 });
  t.same(res.body.deliveries.map((x: { webhook_endpoint_id: string }) => x.webhook_endpoint_id).sort(), [a.id, b.id].sort());
  await settle(svc);
  t.same([ra.count, rb.count, rc.count, rd.count], [2, 2, 0, 0], 'the matching endpoints, not the others nor the disabled one');
  t.ok(verifies(a.secret, ra.requests[1]!) && verifies(b.secret, rb.requests[1]!));
  t.equal(rb.requests[1]!.headers['webhook-id'], eventId);
});

t.test('endpoint only: every failed delivery of it, signed with the current secret; failing cleared', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint: e } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const { receiver: other, endpoint: o } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  other.behaviour = { kind: 'answer', status: 500 };

  await createIntentEvent(svc, key); // delivered
  await settle(svc);
  receiver.behaviour = { kind: 'answer', status: 500 };
  await createIntentEvent(svc, key);
  await createIntentEvent(svc, key);
  await settle(svc);
  svc.clock.advance(MINUTE);
  await settle(svc);
  t.equal(receiver.count, 5, '1 delivered + 2 events × 2 attempts');
  const deliveries = await deliveriesOf(svc, e.id);
  t.same(deliveries.map((d) => d.status).sort(), ['failed', 'failed', 'succeeded']);
  t.equal((await getEndpoint(svc, key, e.id)).body.status, 'failing');
  const failedEvents = deliveries.filter((d) => d.status === 'failed').map((d) => d.event_id);

  // The secret is rotated and the previous one has expired: replays verify with the current one.
  const rotated = await rotate(svc, key, e.id);
  assertOk(t, rotated);
  const current: string = rotated.body.secret;
  svc.clock.advance(24 * HOUR + 1000);
  receiver.behaviour = OK;

  const res = await replay(key, { webhook_endpoint_id: e.id });
  assertOk(t, res);
  t.match(res.body, { event_id: null, webhook_endpoint_id: e.id, reason: null, queued: 2 });
  t.same(res.body.deliveries.map((x: { event_id: string }) => x.event_id).sort(), [...failedEvents].sort(), 'the failed deliveries’ events');
  await settle(svc);
  t.equal(receiver.count, 7);
  t.equal(other.count, 6, 'another endpoint’s failed deliveries are not replayed (3 events × 2 attempts)');
  const replayed = receiver.requests.slice(5);
  t.same(replayed.map((r) => r.headers['webhook-id']).sort(), [...failedEvents].sort());
  for (const r of replayed) {
    t.ok(verify(current, r), 'the current secret verifies');
    t.notOk(verifies(e.secret, r), 'the expired previous one does not');
  }
  const after = await deliveriesOf(svc, e.id);
  const replays = after.filter((d) => d.replay_of !== null);
  t.equal(replays.length, 2);
  t.ok(replays.every((d) => d.status === 'succeeded'));
  t.same(
    replays.map((d) => d.replay_of).sort(),
    deliveries
      .filter((d) => d.status === 'failed')
      .map((d) => d.id)
      .sort(),
    'each replay points at the delivery it replays',
  );
  t.equal((await getEndpoint(svc, key, e.id)).body.status, 'active', 'a success clears failing');

  // Replayed with success, those events are no longer failed deliveries of the endpoint.
  const again = await replay(key, { webhook_endpoint_id: e.id });
  assertOk(t, again);
  t.match(again.body, { queued: 0, deliveries: [] }, 'a second replay queues nothing');
  await settle(svc);
  t.equal(receiver.count, 7, 'and sends nothing');

  // A failed event with a replay still on its way is not queued twice either.
  receiver.behaviour = { kind: 'answer', status: 500 };
  await createIntentEvent(svc, key);
  await settle(svc);
  svc.clock.advance(MINUTE);
  await settle(svc);
  t.equal(receiver.count, 9, 'a new event failed twice');
  const first = await replay(key, { webhook_endpoint_id: e.id });
  t.match(first.body, { queued: 1 });
  t.match((await replay(key, { webhook_endpoint_id: e.id })).body, { queued: 0 }, 'not while its replay is pending');
  receiver.behaviour = OK;
  await settle(svc);
  t.equal(receiver.count, 10, 'sent once');

  // Failed deliveries older than the retention window (30 days) are not replayed.
  svc.clock.advance(30 * 24 * HOUR);
  const late = await replay(key, { webhook_endpoint_id: o.id });
  assertOk(t, late);
  t.match(late.body, { queued: 0, deliveries: [] });
  await updateEndpoint(svc, key, o.id, { enabled: false });
});

t.test('neither id: the failed deliveries of every enabled endpoint of the merchant, and no one else\u2019s', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver: ra, endpoint: a } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const { receiver: rb, endpoint: b } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const { receiver: rc, endpoint: c } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const intruder = await svc.sandboxMerchant('Intruder');
  const { receiver: ri } = await listeningEndpoint(t, svc, intruder.key, ['payment_intent.created']);
  for (const r of [ra, rb, rc, ri]) r.behaviour = { kind: 'answer', status: 500 };
  await createIntentEvent(svc, key);
  await createIntentEvent(svc, intruder.key);
  await settle(svc);
  svc.clock.advance(MINUTE);
  await settle(svc);
  t.same([ra.count, rb.count, rc.count, ri.count], [2, 2, 2, 2], 'every delivery failed for good');
  await updateEndpoint(svc, key, c.id, { enabled: false });
  for (const r of [ra, rb, rc, ri]) r.behaviour = OK;

  for (const body of [{}, { reason: 'our server was down' }]) {
    const res = await replay(key, body);
    assertOk(t, res);
    t.match(res.body, { event_id: null, webhook_endpoint_id: null, reason: body.reason ?? null });
    if (body.reason) t.match(res.body, { queued: 0 }, 'the second time, those replays are on their way');
    else t.same(res.body.deliveries.map((d: { webhook_endpoint_id: string }) => d.webhook_endpoint_id).sort(), [a.id, b.id].sort(), 'one per enabled endpoint');
  }
  await settle(svc);
  t.same([ra.count, rb.count, rc.count, ri.count], [3, 3, 2, 2], 'sent to the enabled endpoints, not the disabled one nor another merchant\u2019s');
});

t.test('bad input: unknown event, another merchant’s event or endpoint, the other environment', async (t) => {
  const { m, key, a, eventId, ra } = await setup(t);
  const intruder = (await svc.merchant('Intruder')).api_keys.sandbox;

  assertError(t, await replay(key, { event_id: 'evt_doesnotexist' }), 'IKW-RES-001', 'event_id');
  assertError(t, await replay(key, { event_id: 'evt_doesnotexist', webhook_endpoint_id: a.id }), 'IKW-RES-001', 'event_id');
  assertError(t, await replay(key, { webhook_endpoint_id: 'we_doesnotexist' }), 'IKW-RES-001', 'webhook_endpoint_id');
  assertError(t, await replay(intruder, { event_id: eventId }), 'IKW-RES-001', 'event_id');
  assertError(t, await replay(intruder, { webhook_endpoint_id: a.id }), 'IKW-RES-001', 'webhook_endpoint_id');
  const theirs = await createEndpoint(svc, intruder, 'https://hooks.example.com/theirs');
  assertError(t, await replay(key, { event_id: eventId, webhook_endpoint_id: theirs.id }), 'IKW-RES-001', 'webhook_endpoint_id');
  assertError(t, await replay(m.api_keys.live, { event_id: eventId }), 'IKW-RES-001', 'event_id');
  assertError(t, await replay(m.api_keys.live, { webhook_endpoint_id: a.id }), 'IKW-RES-001', 'webhook_endpoint_id');
  assertError(t, await replay(key, { event_id: eventId, extra: true }), 'IKW-VAL-002', 'extra');
  assertError(t, await replay(key, { event_id: 42 }), 'IKW-VAL-001', 'event_id');
  assertError(t, await replay(key, { event_id: eventId, reason: 'x'.repeat(1001) }), 'IKW-VAL-001', 'reason');

  await settle(svc);
  t.equal(ra.count, 1, 'no refused replay sent anything');
  t.equal((await deliveriesOf(svc, a.id)).length, 1);
});

/** `count` failed deliveries of `endpointId`, one a second, the oldest first, as a long outage leaves them. */
async function failedDeliveries(merchantId: string, endpointId: string, count: number, prefix: string): Promise<void> {
  const { knex } = svc.system;
  const start = now() - count * 1_000;
  const at = (i: number) => new Date(start + i * 1_000);
  const ids = Array.from({ length: count }, (_, i) => `whd_${prefix}${String(i).padStart(5, '0')}`);
  await knex('webhook_events').insert(
    ids.map((_, i) => ({ id: `evt_${prefix}${String(i).padStart(5, '0')}`, source_event_id: randomUUID(), merchant_id: merchantId, environment: 'sandbox', type: 'payment_intent.created', payload: '{}', created_at: at(i) })),
  );
  await knex.batchInsert(
    'webhook_deliveries',
    ids.map((id, i) => ({
      id,
      event_id: `evt_${prefix}${String(i).padStart(5, '0')}`,
      endpoint_id: endpointId,
      merchant_id: merchantId,
      environment: 'sandbox',
      status: 'failed',
      attempts: 6,
      failure_noted: true,
      created_at: at(i),
      updated_at: at(i),
    })),
    500,
  );
}

// Last: leaves a thousand replays queued that no later test should deliver.
t.test('a replay of failed deliveries queues at most 1,000, oldest first; the answer says more remain and the same request queues the next', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant('After an outage');
  const a = await createEndpoint(svc, key, 'https://hooks.example.com/a');
  const b = await createEndpoint(svc, key, 'https://hooks.example.com/b');
  await failedDeliveries(m.id, a.id, 600, 'a');
  svc.clock.advance(1_000);
  await failedDeliveries(m.id, b.id, 401, 'b');

  const first = await replay(key, {});
  assertOk(t, first);
  t.match(first.body, { queued: 1_000, has_more: true });
  t.equal(first.body.deliveries.length, 1_000);
  const replayed = new Set(first.body.deliveries.map((d: { event_id: string }) => d.event_id));
  t.ok(replayed.has('evt_a00000') && replayed.has('evt_b00399'), 'the oldest thousand, across endpoints');
  t.notOk(replayed.has('evt_b00400'), 'not the newest');
  t.equal((await svc.system.knex('webhook_deliveries').where({ merchant_id: m.id, status: 'pending' }).count<{ count: string }[]>('* as count'))[0]!.count, '1000', 'and only those are queued');
  const ids: string[] = first.body.deliveries.map((d: { id: string }) => d.id);
  const jobs = await svc.system.knex('scheduled_jobs').where({ kind: 'webhook.first_attempts' }).whereRaw(`jsonb_exists_any(payload->'deliveryIds', ?::text[])`, [ids]);
  t.same(
    jobs.map((j: { payload: { deliveryIds: string[] } }) => j.payload.deliveryIds.length),
    Array(10).fill(100),
    'their first attempts in ten jobs of 100',
  );
  t.same(new Set(jobs.flatMap((j: { payload: { deliveryIds: string[] } }) => j.payload.deliveryIds)), new Set(ids), 'each once');

  const second = await replay(key, {});
  t.match(second.body, { queued: 1, has_more: false });
  t.same(
    second.body.deliveries.map((d: { event_id: string }) => d.event_id),
    ['evt_b00400'],
  );
  t.match((await replay(key, {})).body, { queued: 0, has_more: false });

  await t.test('one endpoint\u2019s failed deliveries: the same cap', async (t) => {
    const { merchant: o, key: okey } = await svc.sandboxMerchant('Long outage');
    const c = await createEndpoint(svc, okey, 'https://hooks.example.com/c');
    await failedDeliveries(o.id, c.id, 1_001, 'c');
    t.match((await replay(okey, { webhook_endpoint_id: c.id })).body, { queued: 1_000, has_more: true });
    t.match((await replay(okey, { webhook_endpoint_id: c.id })).body, { queued: 1, has_more: false });
  });
});
