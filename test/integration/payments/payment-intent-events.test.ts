/**
 * GET /api/v1/payment-intents/{id}/events: an intent's history as webhooks carry it, newest first,
 * cursor-paged, each event with the intent as it left it; the same event ids as the webhooks';
 * another merchant's or environment's intent is a 404.
 */
import t from '#tap';
import { publicEventId } from '#packages/core/ids.js';
import { paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';
import { assertError, assertOk, confirm, createIntent, mobileMoney, operatorAnswers, retrieve, snNumber } from '../../support/payments.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

/** The actor of the intent's first event: the API key that created it. */
const recordedActor = (events: { metadata: { actor?: string } }[]) => events[0]!.metadata.actor;

t.test('the history of an intent: every public event, newest first, with the intent as it was', async (t) => {
  const m = await svc.merchant();
  const key = m.api_keys.sandbox;
  const o = await createIntent(svc, key, { description: 'Order 1' });
  assertOk(t, await svc.request('PATCH', `/api/v1/payment-intents/${o.id}`, { key, body: { description: 'Order 1, gift wrapped' } }));
  assertOk(t, await confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('67')) }));
  await operatorAnswers(svc);
  const final = await retrieve(svc, key, o.id);
  t.equal(final.status, 'succeeded');

  const res = await svc.request('GET', `/api/v1/payment-intents/${o.id}/events`, { key });
  assertOk(t, res);
  t.match(res.body, { object: 'list', has_more: false, url: `/api/v1/payment-intents/${o.id}/events` });
  const events = res.body.data as { id: string; object: string; type: string; created: number; livemode: boolean; data: Record<string, unknown> }[];
  t.same(
    events.map((e) => e.type),
    ['payment_intent.succeeded', 'payment_intent.processing', 'payment_intent.updated', 'payment_intent.created'],
  );
  for (const e of events) t.match(e, { id: /^evt_[0-9A-Za-z]{24}$/, object: 'event', livemode: false });
  t.equal(events[3]!.created, o.created, 'created: when the event happened, in Unix seconds');
  t.ok(events[0]!.created > events[3]!.created, 'the outcome came after the operator\u2019s delay');
  t.same(events[0]!.data, final, 'the newest event carries the intent as GET shows it');
  t.match(events[3]!.data, { status: 'requires_payment_method', description: 'Order 1' }, 'the oldest, as it was created');
  t.match(events[2]!.data, { description: 'Order 1, gift wrapped' });
  t.equal(events[1]!.data.status, 'processing');
  const keyId = recordedActor(await svc.system.store.readStream(paymentIntentStream(o.id)));
  const actors = events.map((e) => (e as unknown as { actor: string | null }).actor);
  t.same(actors.slice(1), [keyId, keyId, keyId], 'who caused each: the API key for what the merchant did');
  t.ok(actors[0] && actors[0] !== keyId, `and the service for the operator's answer (${actors[0]})`);

  // The same ids the webhooks carry: a merchant can match a delivery to the history.
  const recorded = await svc.system.store.readStream(paymentIntentStream(o.id));
  const publicIds = recorded.filter((e) => 'object' in (e.data as object)).map((e) => publicEventId(e.eventId));
  t.same(
    events.map((e) => e.id),
    publicIds.reverse(),
    'each history event has the id its webhook carries',
  );

  const first = await svc.request('GET', `/api/v1/payment-intents/${o.id}/events?limit=2`, { key });
  t.same(
    first.body.data.map((e: { id: string }) => e.id),
    events.slice(0, 2).map((e) => e.id),
  );
  t.equal(first.body.has_more, true);
  const next = await svc.request('GET', `/api/v1/payment-intents/${o.id}/events?limit=2&starting_after=${events[1]!.id}`, { key });
  t.same(
    next.body.data.map((e: { id: string }) => e.id),
    events.slice(2).map((e) => e.id),
  );
  t.equal(next.body.has_more, false);
  const back = await svc.request('GET', `/api/v1/payment-intents/${o.id}/events?ending_before=${events[2]!.id}`, { key });
  t.same(
    back.body.data.map((e: { id: string }) => e.id),
    events.slice(0, 2).map((e) => e.id),
    'ending_before pages back',
  );
});

t.test('a failed confirmation and a cancel show in the history; internal lock events do not', async (t) => {
  const m = await svc.merchant();
  const key = m.api_keys.sandbox;
  const failed = await createIntent(svc, key);
  assertOk(t, await confirm(svc, key, failed.id, { payment_method: mobileMoney(snNumber('01')) }));
  await operatorAnswers(svc);
  const history = await svc.request('GET', `/api/v1/payment-intents/${failed.id}/events`, { key });
  t.equal((await retrieve(svc, key, failed.id)).status, 'failed');
  t.same(
    history.body.data.map((e: { type: string }) => e.type),
    ['payment_intent.payment_failed', 'payment_intent.processing', 'payment_intent.created'],
  );
  t.notOk(
    history.body.data.some((e: { type: string }) => e.type.startsWith('payment_intent.confirmation_')),
    'no internal events',
  );
  const canceled = await createIntent(svc, key);
  assertOk(t, await svc.request('POST', `/api/v1/payment-intents/${canceled.id}/cancel`, { key, body: {} }));
  const c = await svc.request('GET', `/api/v1/payment-intents/${canceled.id}/events`, { key });
  t.same(
    c.body.data.map((e: { type: string }) => e.type),
    ['payment_intent.canceled', 'payment_intent.created'],
  );
});

t.test("another merchant's intent, another environment's, or none: 404; bad cursors and limits: 400", async (t) => {
  const m = await svc.merchant();
  const other = await svc.merchant('Other');
  const o = await createIntent(svc, m.api_keys.sandbox);
  assertError(t, await svc.request('GET', `/api/v1/payment-intents/${o.id}/events`, { key: other.api_keys.sandbox }), 'IKW-RES-001');
  assertError(t, await svc.request('GET', `/api/v1/payment-intents/${o.id}/events`, { key: m.api_keys.live }), 'IKW-RES-001');
  assertError(t, await svc.request('GET', '/api/v1/payment-intents/pi_000000000000000000000000/events', { key: m.api_keys.sandbox }), 'IKW-RES-001');
  assertError(t, await svc.request('GET', `/api/v1/payment-intents/${o.id}/events?limit=0`, { key: m.api_keys.sandbox }), 'IKW-VAL-001');
  assertError(t, await svc.request('GET', `/api/v1/payment-intents/${o.id}/events?starting_after=evt_nope`, { key: m.api_keys.sandbox }), 'IKW-VAL-001');
  const theirs = await createIntent(svc, other.api_keys.sandbox);
  const theirEvent = (await svc.request('GET', `/api/v1/payment-intents/${theirs.id}/events`, { key: other.api_keys.sandbox })).body.data[0].id;
  assertError(t, await svc.request('GET', `/api/v1/payment-intents/${o.id}/events?starting_after=${theirEvent}`, { key: m.api_keys.sandbox }), 'IKW-VAL-001');
});
