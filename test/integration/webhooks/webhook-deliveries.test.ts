/**
 * GET /api/v1/webhook-endpoints/{id}/deliveries and …/deliveries/{deliveryId}: an endpoint's
 * deliveries newest first, paged and filtered by status; a delivery's attempts with the answer's
 * status, time, duration and the first 4 KiB of its body; other merchants, the other environment,
 * unknown ids and the scope. Against real receivers on loopback; the retry schedule is one minute.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/payments.js';
import { createEndpoint, createIntentEvent, listeningEndpoint, MINUTE, OK, settle, startWebhookService } from '../../support/webhooks.js';

const svc = await startWebhookService(t, { env: { WEBHOOK_RETRY_SCHEDULE: '1m' } });
const get = (key: string, path: string) => svc.request('GET', path, { key });

t.test('a delivery that succeeded, one that got 503 and then succeeded on its retry, newest first', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const base = `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`;

  receiver.behaviour = { kind: 'answer', status: 200, body: 'thanks' };
  await createIntentEvent(svc, key);
  await settle(svc);
  const firstEvent = receiver.requests[0]!.headers['webhook-id']!;

  receiver.behaviour = { kind: 'answer', status: 503, body: 'busy, try later' };
  const startedAt = svc.clock.now();
  await createIntentEvent(svc, key);
  await settle(svc);
  const secondEvent = receiver.requests[1]!.headers['webhook-id']!;

  let list = await get(key, base);
  assertOk(t, list);
  t.match(list.body, { object: 'list', has_more: false, url: base });
  t.match(list.body.data, [
    { object: 'webhook_delivery', webhook_endpoint_id: endpoint.id, event_id: secondEvent, event_type: 'payment_intent.created', status: 'retrying', attempt_count: 1, livemode: false },
    { object: 'webhook_delivery', event_id: firstEvent, status: 'succeeded', attempt_count: 1, next_attempt_at: null, replay_of: null },
  ]);
  const retrying = list.body.data[0];
  t.equal(retrying.next_attempt_at, new Date(startedAt.getTime() + MINUTE).toISOString(), 'the retry is due a minute later');
  t.equal(retrying.created, Math.floor(startedAt.getTime() / 1000));

  let one = await get(key, `${base}/${retrying.id}`);
  assertOk(t, one);
  t.equal(one.body.attempts.length, 1);
  t.match(one.body.attempts[0], { attempt: 1, started_at: startedAt.toISOString(), response_status: 503, error: 'HTTP 503', response_body: 'busy, try later' });
  t.type(one.body.attempts[0].duration_ms, 'number');

  receiver.behaviour = { kind: 'answer', status: 200, body: '{"received":true}' };
  svc.clock.advance(MINUTE);
  await settle(svc);
  t.equal(receiver.count, 3);
  one = await get(key, `${base}/${retrying.id}`);
  t.match(one.body, { status: 'succeeded', attempt_count: 2, next_attempt_at: null });
  t.match(one.body.attempts, [
    { attempt: 1, response_status: 503, error: 'HTTP 503', response_body: 'busy, try later' },
    { attempt: 2, response_status: 200, error: null, response_body: '{"received":true}' },
  ]);

  const first = await get(key, `${base}/${list.body.data[1].id}`);
  t.match(first.body.attempts, [{ attempt: 1, response_status: 200, error: null, response_body: 'thanks' }]);

  // Paging, newest first, and the status filter.
  list = await get(key, `${base}?limit=1`);
  t.match(list.body, { has_more: true, data: [{ id: retrying.id }] });
  list = await get(key, `${base}?limit=1&starting_after=${retrying.id}`);
  t.match(list.body, { has_more: false, data: [{ event_id: firstEvent }] });
  list = await get(key, `${base}?ending_before=${list.body.data[0].id}`);
  t.match(list.body, { data: [{ id: retrying.id }] });
  list = await get(key, `${base}?status=retrying`);
  t.same(list.body.data, []);
  list = await get(key, `${base}?status=succeeded`);
  t.equal(list.body.data.length, 2);
  assertError(t, await get(key, `${base}?status=lost`), 'IKW-VAL-001', 'status');
});

t.test('an answer is kept to its first 4 KiB; a connection refused has no answer', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  receiver.behaviour = { kind: 'answer', status: 500, body: 'é'.repeat(3000) };
  await createIntentEvent(svc, key);
  await settle(svc);
  const [d] = (await get(key, `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`)).body.data;
  const one = await get(key, `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${d.id}`);
  const body: string = one.body.attempts[0].response_body;
  t.equal(body, 'é'.repeat(2048), '4096 bytes of a 6000-byte answer');

  await receiver.close();
  svc.clock.advance(MINUTE);
  await settle(svc);
  const again = await get(key, `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${d.id}`);
  t.match(again.body, { status: 'failed', attempt_count: 2 });
  t.match(again.body.attempts[1], { attempt: 2, response_status: null, response_body: null, error: /ECONNREFUSED/ });
});

t.test("another merchant's endpoint or delivery, an unknown one, the other environment, the scope", async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  receiver.behaviour = OK;
  await createIntentEvent(svc, key);
  await settle(svc);
  const base = `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`;
  const [d] = (await get(key, base)).body.data;

  const intruder = (await svc.merchant('Intruder')).api_keys.sandbox;
  assertError(t, await get(intruder, base), 'IKW-RES-001', 'id');
  assertError(t, await get(intruder, `${base}/${d.id}`), 'IKW-RES-001', 'id');
  const theirs = await createEndpoint(svc, intruder, 'https://hooks.example.com/theirs');
  assertError(t, await get(intruder, `/api/v1/webhook-endpoints/${theirs.id}/deliveries/${d.id}`), 'IKW-RES-001', 'deliveryId');
  assertOk(t, await get(intruder, `/api/v1/webhook-endpoints/${theirs.id}/deliveries`));
  t.same((await get(intruder, `/api/v1/webhook-endpoints/${theirs.id}/deliveries`)).body.data, [], 'none of ours');

  assertError(t, await get(key, `/api/v1/webhook-endpoints/we_unknown/deliveries`), 'IKW-RES-001', 'id');
  assertError(t, await get(key, `${base}/whd_unknown`), 'IKW-RES-001', 'deliveryId');
  assertError(t, await get(key, `${base}?starting_after=whd_unknown`), 'IKW-VAL-001', 'starting_after');

  assertError(t, await get(m.api_keys.live, base), 'IKW-RES-001', 'id');
  assertError(t, await get(m.api_keys.live, `${base}/${d.id}`), 'IKW-RES-001', 'id');
  const live = await createEndpoint(svc, m.api_keys.live, 'https://hooks.example.com/live');
  t.same((await get(m.api_keys.live, `/api/v1/webhook-endpoints/${live.id}/deliveries`)).body.data, [], 'live has its own');
  assertError(t, await get(m.api_keys.live, `/api/v1/webhook-endpoints/${live.id}/deliveries/${d.id}`), 'IKW-RES-001', 'deliveryId');

  const eventsOnly = await svc.apiKey(m.id, ['events.read']);
  assertError(t, await get(eventsOnly.secret, base), 'IKW-AUT-004');
  const readOnly = await svc.apiKey(m.id, ['webhooks.read']);
  assertOk(t, await get(readOnly.secret, `${base}/${d.id}`));
});
