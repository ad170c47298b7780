/**
 * The events API (docs/webhooks.md, "Missed webhooks"): GET /api/v1/events and /api/v1/events/{id}
 * answer the merchant's public events of the last 30 days, in its environment, each exactly the
 * payload its webhook carried; filters by type (with `family.*`) and `created`; cursor pages both
 * ways; `wait` long-polls for a newer event. A webhook the receiver missed is recovered from here.
 */
import t from '#tap';
import { Webhook } from 'standardwebhooks';
import { assertError, assertOk } from '../../support/assertions.js';
import { confirm, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { fund, mobileMoney as payoutDestination, payout } from '../../support/payouts.js';
import { createIntentEvent, listeningEndpoint, settle, startWebhookService } from '../../support/webhooks.js';

const svc = await startWebhookService(t);
const events = (key: string, query = '', headers: Record<string, string> = {}) => svc.request('GET', `/api/v1/events${query}`, { key, headers });
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((e) => e.id);
const types = (res: { body: { data: { type: string }[] } }) => res.body.data.map((e) => e.type);

t.test('a webhook the receiver missed is recovered from the events API, byte for byte the same payload', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['*']);
  receiver.behaviour = { kind: 'answer', status: 503, body: 'down for maintenance' };
  const intent = await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 1, 'the delivery was attempted and failed');
  const missed = new Webhook(endpoint.secret).verify(receiver.requests[0]!.body, receiver.requests[0]!.headers) as { id: string };

  const list = await events(key);
  assertOk(t, list);
  t.same(list.body.data, [JSON.parse(receiver.requests[0]!.body)], 'the list holds the payload the webhook carried');
  const one = await svc.request('GET', `/api/v1/events/${missed.id}`, { key });
  assertOk(t, one);
  t.equal(JSON.stringify(one.body), receiver.requests[0]!.body, 'retrieved: the same bytes');
  t.match(one.body, { id: missed.id, object: 'event', type: 'payment_intent.created', livemode: false, data: { id: intent.id } });
});

t.test('filters: types (one, several, a family), created; newest first; cursor pages both ways', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const first = await createIntentEvent(svc, key);
  svc.clock.advance(10_000);
  const second = await createIntentEvent(svc, key);
  assertOk(t, await confirm(svc, key, second.id, { payment_method: mobileMoney(snNumber('67')) }));
  await operatorAnswers(svc);
  await settle(svc);

  const all = await events(key);
  t.same(types(all), ['payment_intent.succeeded', 'payment_intent.processing', 'payment_intent.created', 'payment_intent.created']);
  t.equal(all.body.data[3].data.id, first.id);
  t.same(types(await events(key, '?type=payment_intent.created')), ['payment_intent.created', 'payment_intent.created']);
  t.same(types(await events(key, '?type=payment_intent.succeeded,payment_intent.processing')), ['payment_intent.succeeded', 'payment_intent.processing']);
  t.same(types(await events(key, '?type=payment_intent.succeeded&type=payment_intent.created&limit=2')), ['payment_intent.succeeded', 'payment_intent.created']);
  t.same(ids(await events(key, '?type=payment_intent.*')), ids(all));
  t.same(ids(await events(key, '?type=payout.*')), []);
  assertError(t, await events(key, '?type=payment_intent.sucess'), 'IKW-VAL-001', 'type');
  assertError(t, await events(key, '?type=nothing.*'), 'IKW-VAL-001', 'type');

  const createdOfFirst = all.body.data[3].created as number;
  t.same(ids(await events(key, `?created[lte]=${createdOfFirst}`)), [all.body.data[3].id]);
  t.same(ids(await events(key, `?created[gte]=${createdOfFirst + 1}`)), ids(all).slice(0, 3));

  const page1 = await events(key, '?limit=2');
  t.same(ids(page1), ids(all).slice(0, 2));
  t.equal(page1.body.has_more, true);
  const page2 = await events(key, `?limit=2&starting_after=${ids(page1)[1]}`);
  t.same(ids(page2), ids(all).slice(2));
  t.equal(page2.body.has_more, false);
  const newer = await events(key, `?limit=2&ending_before=${ids(all)[3]}`);
  t.same(ids(newer), ids(all).slice(1, 3), 'ending_before: the next newer ones, newest first');
});

t.test("another merchant's or environment's events are not found; events older than 30 days are gone", async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant();
  await createIntentEvent(svc, key);
  await settle(svc);
  const mine = await events(key);
  const id = ids(mine)[0]!;
  t.same(ids(await events(other.key)), []);
  assertError(t, await svc.request('GET', `/api/v1/events/${id}`, { key: other.key }), 'IKW-RES-001', 'id');
  assertError(t, await events(other.key, `?starting_after=${id}`), 'IKW-VAL-001', 'starting_after');
  const live = await svc.apiKey(merchant.id, ['*'], 'live');
  t.same(ids(await events(live.secret)), [], 'the live environment has none');
  assertError(t, await svc.request('GET', `/api/v1/events/${id}`, { key: live.secret }), 'IKW-RES-001', 'id');

  const narrow = await svc.apiKey(merchant.id, ['balance.read']);
  assertError(t, await events(narrow.secret), 'IKW-AUT-004');
  const reader = await svc.apiKey(merchant.id, ['*.read']);
  t.same(ids(await events(reader.secret)), [id], 'events.read comes with *.read');

  svc.clock.advance(30 * 86_400_000 + 1_000);
  t.same(ids(await events(key)), []);
  assertError(t, await svc.request('GET', `/api/v1/events/${id}`, { key }), 'IKW-RES-001', 'id');
});

t.test("a key's events.read reaches only the families it reads: other events are absent, a filter naming them refused", async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 100_000);
  const intent = await createIntentEvent(svc, key);
  const paid = await payout(svc, key, { destination: payoutDestination() }, { environment: 'sandbox' });
  await settle(svc);
  const all = await events(key);
  const ofFamily = (prefix: string) => all.body.data.filter((e: { type: string }) => e.type.startsWith(prefix)).map((e: { id: string }) => e.id) as string[];
  const [paymentEvent] = ofFamily('payment_intent.');
  const payoutEvents = ofFamily('payout.');
  t.ok(paymentEvent && payoutEvents.length > 0, 'a key of every scope sees both families');

  const payments = (await svc.apiKey(merchant.id, ['events.read', 'payment_intents.read'])).secret;
  const seen = await events(payments);
  t.same(types(seen), ['payment_intent.created'], 'payment events, no payout event');
  t.equal(seen.body.data[0].data.id, intent.id);
  assertOk(t, await svc.request('GET', `/api/v1/events/${paymentEvent}`, { key: payments }));
  assertError(t, await svc.request('GET', `/api/v1/events/${payoutEvents[0]}`, { key: payments }), 'IKW-RES-001', 'id');
  assertError(t, await events(payments, `?ending_before=${payoutEvents[0]}`), 'IKW-VAL-001', 'ending_before');
  t.same(types(await events(payments, '?type=*')), ['payment_intent.created'], '* is every type the key reads');
  const refused = await events(payments, '?type=payment_intent.created,payout.*');
  assertError(t, refused, 'IKW-AUT-004', 'type');
  t.match(refused.body.message, /payouts\.read/, 'the refusal names the scope that is missing');
  assertError(t, await events(payments, '?type=payout.created'), 'IKW-AUT-004', 'type');

  const payouts = (await svc.apiKey(merchant.id, ['events.read', 'payouts.read'])).secret;
  const seenByPayouts = await events(payouts);
  t.same(ids(seenByPayouts), payoutEvents, 'the payout events, no payment event');
  t.ok(seenByPayouts.body.data.every((e: { data: { id: string } }) => e.data.id === paid.id));
  const none = (await svc.apiKey(merchant.id, ['events.read'])).secret;
  t.same(ids(await events(none)), [], 'events.read alone reads no family');
});

t.test('wait: the answer comes when a newer event is stored, or empty when the wait ends', async (t) => {
  const { key } = await svc.sandboxMerchant();
  await createIntentEvent(svc, key);
  await settle(svc);
  const [last] = ids(await events(key));

  const waiting = events(key, `?ending_before=${last}&wait=30`);
  const intent = await createIntentEvent(svc, key);
  await settle(svc);
  const answered = await waiting;
  assertOk(t, answered);
  t.same(
    answered.body.data.map((e: { data: { id: string } }) => e.data.id),
    [intent.id],
    'the new event, as soon as it was stored',
  );

  const empty = await events(key, `?ending_before=${ids(answered)[0]}&wait=1`);
  assertOk(t, empty);
  t.same(empty.body.data, []);
  assertError(t, await events(key, `?starting_after=${last}&wait=5`), 'IKW-VAL-001', 'wait');
  assertError(t, await events(key, '?wait=31'), 'IKW-VAL-001', 'wait');
});
