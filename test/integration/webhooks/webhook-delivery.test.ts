/**
 * Webhook delivery to real receivers on loopback: Standard Webhooks signatures checked with the
 * official `standardwebhooks` library, the payload, which endpoints receive what, once per endpoint,
 * signatures during a secret rotation, kept-alive connections the endpoint closes, receivers that
 * fail in every way (500, 302, closed socket, hanging, too slow) with each attempt recorded and
 * retried only on schedule, and a crash between sending and recording (a resend, never a loss).
 * The full retry schedule and the failing e-mail are in webhook-retries.test.ts; replays in
 * webhook-replays.test.ts.
 */
import t from '#tap';
import { Webhook } from 'standardwebhooks';
import { paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';
import { generateSigningSecret } from '#packages/core/secrets.js';
import { assertOk, confirm, mobileMoney, OPERATOR_DELAY_MS, operatorAnswers, retrieve, snNumber } from '../../support/payments.js';
import type { TestService } from '../../support/system.js';
import {
  attemptsOf,
  createEndpoint,
  createIntentEvent,
  deliveriesOf,
  firstAttemptJobOf,
  HOUR,
  listeningEndpoint,
  MINUTE,
  OK,
  Receiver,
  rotate,
  settle,
  startWebhookService,
  updateEndpoint,
  verifies,
  verify,
  WEBHOOK_TIMEOUT_MS,
  type ReceivedRequest,
} from '../../support/webhooks.js';

const svc = await startWebhookService(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });
const now = () => svc.clock.now().getTime();

/** A payment intent paid by mobile money: payment_intent.created, .processing, .succeeded. */
async function paidIntent(s: TestService, key: string): Promise<string> {
  const res = await s.request('POST', '/api/v1/payment-intents', { key, body: { amount: 25_000, currency: 'XOF', transaction_country: 'SN' } });
  assertOk(t, res);
  assertOk(t, await confirm(s, key, res.body.id, { payment_method: mobileMoney(snNumber('67')) }));
  await operatorAnswers(s);
  await settle(s);
  return res.body.id;
}

/** Disables endpoints whose deliveries would otherwise keep retrying while later tests move the clock. */
async function quiet(key: string, ...ids: string[]): Promise<void> {
  for (const id of ids) assertOk(t, await updateEndpoint(svc, key, id, { enabled: false }));
}

const signatures = (req: ReceivedRequest) => req.headers['webhook-signature']!.split(' ');

t.test('each delivery is a POST signed per Standard Webhooks, verified by standardwebhooks', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint: e } = await listeningEndpoint(t, svc, key, ['*']);
  const intentId = await paidIntent(svc, key);

  t.same(receiver.types().sort(), ['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
  const seenIds = new Set<string>();
  for (const req of receiver.requests) {
    t.equal(req.method, 'POST');
    t.equal(req.path, '/hooks');
    t.match(req.headers['content-type'], /^application\/json/);
    // A receiver checking the timestamp against the real time: the suite's clock started at it.
    const payload = new Webhook(e.secret).verify(req.body, req.headers) as { id: string };
    t.same(payload, JSON.parse(req.body), 'verify returns the payload');
    t.match(req.headers['webhook-id'], /^evt_[A-Za-z0-9]{24}$/);
    t.equal(req.headers['webhook-id'], payload.id, 'webhook-id is the event id');
    t.equal(req.headers['webhook-timestamp'], String(Math.floor(req.clockMs / 1000)), 'webhook-timestamp is the Unix second of the attempt');
    t.ok(Math.abs(Number(req.headers['webhook-timestamp']) - req.realMs / 1000) < 300, 'within the receivers’ tolerance of the real time');
    t.equal(signatures(req).length, 1, 'one signature');
    t.match(req.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
    seenIds.add(payload.id);

    t.throws(() => new Webhook(generateSigningSecret()).verify(req.body, req.headers), 'another secret does not verify');
    t.throws(() => new Webhook(e.secret).verify(req.body.replace('"livemode":false', '"livemode":true'), req.headers), 'a changed body does not verify');
    t.throws(() => new Webhook(e.secret).verify(req.body, { ...req.headers, 'webhook-id': 'evt_other' }), 'another id does not verify');
  }
  t.equal(seenIds.size, 3, 'three events, three ids');

  const payloads = receiver.payloads();
  const succeeded = payloads.find((p) => p.type === 'payment_intent.succeeded')!;
  t.same(Object.keys(succeeded).sort(), ['created', 'data', 'id', 'livemode', 'object', 'type']);
  t.match(succeeded, { id: /^evt_/, object: 'event', type: 'payment_intent.succeeded', livemode: false });
  t.equal(succeeded.created, Math.floor(now() / 1000), 'created: when the operator answered');
  t.same(succeeded.data, await retrieve(svc, key, intentId), 'data is the payment intent, as GET shows it');
  const created = payloads.find((p) => p.type === 'payment_intent.created')!;
  t.match(created.data, { id: intentId, object: 'payment_intent', status: 'requires_payment_method', amount: 25_000, currency: 'xof' });
  t.match(payloads.find((p) => p.type === 'payment_intent.processing')!.data, { id: intentId, status: 'processing' });

  const deliveries = await deliveriesOf(svc, e.id);
  t.equal(deliveries.length, 3);
  for (const d of deliveries) {
    t.match(d, { status: 'succeeded', attempts: 1, next_attempt_at: null });
    const attempts = await attemptsOf(svc, d.id);
    t.equal(attempts.length, 1);
    t.match(attempts[0], { attempt: 1, response_status: 200, error: null });
    t.ok(attempts[0]!.duration_ms >= 0 && attempts[0]!.duration_ms < WEBHOOK_TIMEOUT_MS, `duration recorded (${attempts[0]!.duration_ms} ms)`);
  }
  // The event is stored as delivered, for replays.
  const stored = await svc.system.knex('webhook_events').where({ id: succeeded.id }).first<{ payload: string; type: string }>();
  t.equal(stored.payload, receiver.requests.find((r) => r.headers['webhook-id'] === succeeded.id)!.body);
});

t.test('deliveries to one endpoint reuse kept-alive connections', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  for (let i = 0; i < 40; i++) await createIntentEvent(svc, key, 1_000 + i);
  await settle(svc);
  t.equal(receiver.count, 40, 'every event delivered');
  t.ok(receiver.connections >= 1 && receiver.connections <= 16, `${receiver.connections} connections for 40 deliveries (at most one per delivery running side by side)`);
  await quiet(key, endpoint.id);
});

t.test('a kept-alive connection the endpoint closes as the next delivery goes out: sent again at once on a new one, one attempt', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  receiver.behaviour = { kind: 'close_kept_alive' };
  for (const amount of [1_000, 1_001]) {
    await createIntentEvent(svc, key, amount);
    await settle(svc);
  }
  const deliveries = await deliveriesOf(svc, endpoint.id);
  t.same(
    deliveries.map((d) => [d.status, d.attempts]),
    [
      ['succeeded', 1],
      ['succeeded', 1],
    ],
    'both succeeded at their first attempt',
  );
  for (const d of deliveries) t.match(await attemptsOf(svc, d.id), [{ attempt: 1, response_status: 200, error: null }]);
  t.equal(receiver.count, 3, 'the second went out on the closed connection, then on a new one');
  t.equal(receiver.requests[2]!.headers['webhook-id'], receiver.requests[1]!.headers['webhook-id'], 'the same webhook-id');
  t.equal(receiver.requests[2]!.body, receiver.requests[1]!.body, 'the same body');
  t.equal(receiver.connections, 2);
  await quiet(key, endpoint.id);
});

t.test('an endpoint’s Keep-Alive hint is kept: its idle connection is closed a second before the endpoint would', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  // Announces timeout=2, closes after 3 s; the sender closes at 1 s. Real time: the sockets' timers are Node's.
  receiver.keepAlive(2_000);
  await createIntentEvent(svc, key, 1_000);
  await settle(svc);
  await new Promise((r) => setTimeout(r, 2_200));
  await createIntentEvent(svc, key, 1_001);
  await settle(svc);
  t.equal(receiver.count, 2, 'each delivery sent once');
  t.equal(receiver.connections, 2, 'the second on a new connection');
  await quiet(key, endpoint.id);
});

t.test('only enabled endpoints of the merchant and environment whose enabled_events match receive', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const [onlySucceeded, star, payouts, disabled, otherMerchant] = await Promise.all([1, 2, 3, 4, 5].map(() => Receiver.start(t, svc)));
  const a = await createEndpoint(svc, key, onlySucceeded!.url, ['payment_intent.succeeded']);
  const b = await createEndpoint(svc, key, star!.url, ['*']);
  await createEndpoint(svc, key, payouts!.url, ['payout.paid', 'payout.failed']);
  const d = await createEndpoint(svc, key, disabled!.url, ['*']);
  assertOk(t, await updateEndpoint(svc, key, d.id, { enabled: false }));
  await createEndpoint(svc, (await svc.merchant('Other')).api_keys.sandbox, otherMerchant!.url, ['*']);
  const live = await createEndpoint(svc, m.api_keys.live, 'https://hooks.example.invalid/live', ['*']);

  await paidIntent(svc, key);
  t.same(onlySucceeded!.types(), ['payment_intent.succeeded'], 'a specific type: that type only');
  t.same(star!.types().sort(), ['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded'], '`*`: every event');
  t.equal(payouts!.count, 0, 'other types: nothing');
  t.equal(disabled!.count, 0, 'a disabled endpoint: nothing');
  t.equal(otherMerchant!.count, 0, 'another merchant’s endpoint: nothing');
  t.same(await deliveriesOf(svc, live.id), [], 'the live endpoint: not even a delivery');
  t.ok(
    onlySucceeded!.requests.every((r) => verifies(a.secret, r)),
    'signed with the endpoint’s secret',
  );
  t.ok(
    star!.requests.every((r) => verifies(b.secret, r)),
    'signed with the endpoint’s secret',
  );
  t.notOk(
    star!.requests.some((r) => verifies(a.secret, r)),
    'and not with another endpoint’s',
  );
  t.same(await deliveriesOf(svc, d.id), [], 'no delivery row for the disabled endpoint');

  // A live event goes to the live endpoint only.
  await createIntentEvent(svc, m.api_keys.live);
  await settle(svc);
  t.equal(star!.count, 3, 'the sandbox endpoint does not get the live event');
  const liveDeliveries = await deliveriesOf(svc, live.id);
  t.equal(liveDeliveries.length, 1, 'the live endpoint has a delivery of the live event');
  const liveEvent = await svc.system.knex('webhook_events').where({ id: liveDeliveries[0]!.event_id }).first<{ environment: string; payload: string }>();
  t.equal(liveEvent.environment, 'live');
  t.match(JSON.parse(liveEvent.payload), { type: 'payment_intent.created', livemode: true, data: { livemode: true } });

  // Re-enabled, the endpoint gets what happens from then on (not what it missed).
  assertOk(t, await updateEndpoint(svc, key, d.id, { enabled: true }));
  await createIntentEvent(svc, key);
  await settle(svc);
  t.same(disabled!.types(), ['payment_intent.created']);
  t.ok(verifies(d.secret, disabled!.requests[0]!));
  await quiet(m.api_keys.live, live.id);
});

t.test('each event reaches each endpoint once, even when the bus batch is handled again', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const { receiver: r1 } = await listeningEndpoint(t, svc, key, ['*']);
  const { receiver: r2 } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const intent = await createIntentEvent(svc, key);
  await settle(svc);
  await settle(svc);
  t.equal(r1.count, 1);
  t.equal(r2.count, 1);

  // The consumer's handler run again over the same events, as after a crash before the checkpoint moved.
  const events = await svc.system.store.readStream(paymentIntentStream(intent.id));
  t.equal(events.length, 1);
  const before = await svc.system.knex('webhook_deliveries').where({ merchant_id: m.id }).count<{ count: string }[]>('* as count');
  await svc.system.knex.transaction((trx) => svc.system.webhookEventConsumer.consumer().handle(trx, events));
  await svc.system.knex.transaction((trx) => svc.system.webhookEventConsumer.consumer().handle(trx, events));
  await settle(svc);
  await settle(svc);
  t.equal(r1.count, 1, 'still once');
  t.equal(r2.count, 1, 'still once');
  const after = await svc.system.knex('webhook_deliveries').where({ merchant_id: m.id }).count<{ count: string }[]>('* as count');
  t.equal(after[0]!.count, before[0]!.count, 'no new delivery');
  t.equal(r1.requests[0]!.headers['webhook-id'], r2.requests[0]!.headers['webhook-id'], 'one event id for both endpoints');
});

t.test('rotation: the new secret signs at once; both verify for 24 h, then only the new one', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint: e } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const oldSecret = e.secret;

  // A delivery that fails before the rotation is retried with the new secret too.
  receiver.behaviour = { kind: 'answer', status: 503 };
  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 1);
  t.same(signatures(receiver.requests[0]!).length, 1);
  t.ok(verifies(oldSecret, receiver.requests[0]!), 'before: the old secret');

  const rotated = await rotate(svc, key, e.id);
  assertOk(t, rotated);
  const newSecret: string = rotated.body.secret;
  receiver.behaviour = OK;

  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 2, 'the new event at once (the retry is not due yet)');
  const during = receiver.requests[1]!;
  t.equal(signatures(during).length, 2, 'two signatures during the rotation');
  t.ok(verifies(newSecret, during), 'new Webhook(new).verify succeeds');
  t.ok(verifies(oldSecret, during), 'new Webhook(old).verify succeeds');
  t.notOk(verifies(generateSigningSecret(), during), 'a third secret does not');

  svc.clock.advance(5 * MINUTE);
  await settle(svc);
  t.equal(receiver.count, 3, 'the retry of the first event');
  const retry = receiver.requests[2]!;
  t.equal(retry.headers['webhook-id'], receiver.requests[0]!.headers['webhook-id'], 'same event id on the retry');
  t.not(retry.headers['webhook-timestamp'], receiver.requests[0]!.headers['webhook-timestamp'], 'a timestamp of its own');
  t.ok(verifies(newSecret, retry) && verifies(oldSecret, retry), 'the retry carries both signatures');

  svc.clock.advance(24 * HOUR - 5 * MINUTE - 1000);
  await createIntentEvent(svc, key);
  await settle(svc);
  const lastSecond = receiver.requests[3]!;
  t.ok(verifies(newSecret, lastSecond) && verifies(oldSecret, lastSecond), 'one second before 24 h: both still');

  svc.clock.advance(2000);
  await createIntentEvent(svc, key);
  await settle(svc);
  const after = receiver.requests[4]!;
  t.equal(signatures(after).length, 1, 'one signature after 24 h');
  t.ok(verifies(newSecret, after), 'the new secret verifies');
  t.throws(() => verify(oldSecret, after), { message: 'No matching signature found' }, 'the old one no longer does');
  t.equal(receiver.count, 5);
});

t.test('failing receivers: 500, 302, closed socket, hanging, too slow; each attempt recorded, retried after 5 min', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const target = await Receiver.start(t, svc, '/elsewhere');
  const cases = [
    { name: '500', behaviour: { kind: 'answer', status: 500, body: 'boom' }, status: 500, error: /^HTTP 500$/ },
    { name: '302', behaviour: { kind: 'answer', status: 302, headers: { location: target.url } }, status: 302, error: /^HTTP 302$/ },
    { name: 'closed socket', behaviour: { kind: 'close' }, status: null, error: /socket hang up|ECONNRESET/ },
    { name: 'hanging', behaviour: { kind: 'hang' }, status: null, error: new RegExp(`no answer within ${WEBHOOK_TIMEOUT_MS} ms`), slow: true },
    { name: 'answer after the deadline', behaviour: { kind: 'late', afterMs: 5 * WEBHOOK_TIMEOUT_MS, status: 200 }, status: null, error: /no answer within/, slow: true },
    { name: '200 whose body ends after the deadline', behaviour: { kind: 'slow_body', afterMs: 5 * WEBHOOK_TIMEOUT_MS, status: 200 }, status: null, error: /no answer within/, slow: true },
  ] as const;
  const receivers: Receiver[] = [];
  const endpoints: { id: string; secret: string }[] = [];
  for (const c of cases) {
    const r = await Receiver.start(t, svc);
    r.behaviour = c.behaviour;
    receivers.push(r);
    endpoints.push(await createEndpoint(svc, key, r.url, ['payment_intent.created']));
  }
  await createIntentEvent(svc, key);
  const sentAt = now();
  await settle(svc);

  for (const [i, c] of cases.entries()) {
    const r = receivers[i]!;
    t.equal(r.count, 1, `${c.name}: one request`);
    t.ok(verifies(endpoints[i]!.secret, r.requests[0]!), `${c.name}: it verifies`);
    const [d] = await deliveriesOf(svc, endpoints[i]!.id);
    t.match(d, { status: 'retrying', attempts: 1 }, `${c.name}: retrying`);
    t.equal(d!.next_attempt_at?.getTime(), sentAt + 5 * MINUTE, `${c.name}: next attempt in 5 minutes`);
    const attempts = await attemptsOf(svc, d!.id);
    t.equal(attempts.length, 1, `${c.name}: the attempt is recorded`);
    t.equal(attempts[0]!.response_status, c.status, `${c.name}: response code ${c.status}`);
    t.match(attempts[0]!.error, c.error, `${c.name}: error ${attempts[0]!.error}`);
    t.equal(attempts[0]!.started_at.getTime(), sentAt);
    if ('slow' in c) t.ok(attempts[0]!.duration_ms >= WEBHOOK_TIMEOUT_MS - 20 && attempts[0]!.duration_ms < 5 * WEBHOOK_TIMEOUT_MS, `${c.name}: stopped at the deadline (${attempts[0]!.duration_ms} ms)`);
  }
  t.equal(target.count, 0, 'the redirect was not followed');

  svc.clock.advance(5 * MINUTE - 1000);
  await settle(svc);
  t.same(
    receivers.map((r) => r.count),
    cases.map(() => 1),
    'nothing one second early',
  );

  svc.clock.advance(1000);
  await settle(svc);
  t.same(
    receivers.map((r) => r.count),
    cases.map(() => 2),
    'each retried after 5 minutes',
  );
  for (const [i, r] of receivers.entries()) {
    t.equal(r.requests[1]!.headers['webhook-id'], r.requests[0]!.headers['webhook-id'], `${cases[i]!.name}: same webhook-id`);
    t.ok(verifies(endpoints[i]!.secret, r.requests[1]!));
    const [d] = await deliveriesOf(svc, endpoints[i]!.id);
    t.same(
      (await attemptsOf(svc, d!.id)).map((a) => a.attempt),
      [1, 2],
    );
  }
  t.equal(target.count, 0);

  // A receiver that recovers: the next retry (after 30 minutes) succeeds and the delivery is done.
  receivers[0]!.behaviour = OK;
  svc.clock.advance(30 * MINUTE);
  await settle(svc);
  const [first] = await deliveriesOf(svc, endpoints[0]!.id);
  t.match(first, { status: 'succeeded', attempts: 3, next_attempt_at: null });
  t.match((await attemptsOf(svc, first!.id))[2], { attempt: 3, response_status: 200, error: null });

  // Disabled meanwhile: the pending retries are dropped, not sent.
  await quiet(key, ...endpoints.map((e) => e.id));
  svc.clock.advance(2 * HOUR);
  await settle(svc);
  t.same(
    receivers.map((r) => r.count),
    cases.map(() => 3),
    'no attempt after the endpoints were disabled',
  );
  const [skipped] = await deliveriesOf(svc, endpoints[1]!.id);
  t.equal(skipped!.status, 'skipped');
});

t.test('a retry goes to the endpoint’s current URL', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver: broken, endpoint: e } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  broken.behaviour = { kind: 'answer', status: 502 };
  const fixed = await Receiver.start(t, svc);
  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(broken.count, 1);
  assertOk(t, await updateEndpoint(svc, key, e.id, { url: fixed.url }));
  svc.clock.advance(5 * MINUTE);
  await settle(svc);
  t.same([broken.count, fixed.count], [1, 1], 'the retry went to the new URL');
  t.equal(fixed.requests[0]!.headers['webhook-id'], broken.requests[0]!.headers['webhook-id']);
  t.ok(verifies(e.secret, fixed.requests[0]!));
  t.match((await deliveriesOf(svc, e.id))[0], { status: 'succeeded', attempts: 2 });
});

t.test('a crash between sending and recording means a resend with the same webhook-id, never a loss', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint: e } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const { knex } = svc.system;
  // The record of the attempt fails once, after the request went out (as if the process died then).
  // A sequence, since it is not rolled back with the failed transaction.
  await knex.raw(`CREATE SEQUENCE crash_once;
    CREATE FUNCTION crash_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('crash_once') = 1 THEN
        RAISE EXCEPTION 'simulated crash before the attempt was recorded';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER crash_once BEFORE INSERT ON webhook_attempts FOR EACH ROW EXECUTE FUNCTION crash_once()`);
  t.teardown(() => knex.raw('DROP TRIGGER IF EXISTS crash_once ON webhook_attempts; DROP FUNCTION IF EXISTS crash_once(); DROP SEQUENCE IF EXISTS crash_once'));

  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 1, 'the request went out');
  const [d] = await deliveriesOf(svc, e.id);
  t.match(d, { status: 'pending', attempts: 0 }, 'but nothing was recorded');
  t.same(await attemptsOf(svc, d!.id), []);
  const job = await firstAttemptJobOf(svc, d!.id);
  t.match(job, { last_error: /simulated crash/ }, 'the job is still there');

  svc.clock.advance(1000);
  await settle(svc);
  t.equal(receiver.count, 2, 'sent again');
  t.equal(receiver.requests[1]!.headers['webhook-id'], receiver.requests[0]!.headers['webhook-id'], 'with the same webhook-id, so the receiver can drop the duplicate');
  t.ok(verifies(e.secret, receiver.requests[1]!));
  t.match((await deliveriesOf(svc, e.id))[0], { status: 'succeeded', attempts: 1 });
  t.match(await attemptsOf(svc, d!.id), [{ attempt: 1, response_status: 200, error: null }]);
  t.equal(await firstAttemptJobOf(svc, d!.id), undefined, 'the job is done');
});

t.test('a job that runs again after its attempt was recorded neither resends early nor skips a retry', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint: e } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 1);

  // A replay queues a delivery with its job; the attempt runs outside the scheduler first (the
  // job's earlier run, which crashed after recording and before the job was removed).
  receiver.behaviour = { kind: 'answer', status: 500 };
  const replay = await svc.request('POST', '/api/v1/webhook-replays', { key, body: { webhook_endpoint_id: e.id, event_id: receiver.requests[0]!.headers['webhook-id'] } });
  assertOk(t, replay);
  const deliveryId: string = replay.body.deliveries[0].id;
  t.ok(await firstAttemptJobOf(svc, deliveryId), 'its job is scheduled');
  t.same(await svc.system.webhookDeliverer.deliverMany([{ deliveryId, attempt: 1 }]), [null]);
  t.equal(receiver.count, 2, 'attempt 1 sent');
  await settle(svc);
  t.equal(receiver.count, 2, 'the job left behind does not send attempt 2 before its time');
  svc.clock.advance(5 * MINUTE);
  await settle(svc);
  t.equal(receiver.count, 3, 'attempt 2 after 5 minutes');
  const attempts = await attemptsOf(svc, deliveryId);
  t.same(
    attempts.map((a) => [a.attempt, a.started_at.getTime() - attempts[0]!.started_at.getTime()]),
    [
      [1, 0],
      [2, 5 * MINUTE],
    ],
  );
  await quiet(key, e.id);
});
