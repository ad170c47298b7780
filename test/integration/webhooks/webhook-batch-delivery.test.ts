/**
 * Deliveries run as a batch (`WebhookDeliverer.deliverMany`, the `webhook.deliver` jobs of one
 * claim): one batch whose receivers answer 2xx, 500, nothing (refused), too late, and whose
 * endpoint was disabled meanwhile, each recorded as its own attempt; a record that fails after
 * the requests went out (a crash) means the whole batch is sent again and recorded once, never
 * lost; a batch run again after its record sends nothing; requests waiting for one of an
 * endpoint's connections do not spend their deadline waiting.
 */
import net from 'node:net';
import t from '#tap';
import { assertOk } from '../../support/assertions.js';
import type { TestService } from '../../support/system.js';
import { attemptsOf, createEndpoint, createIntentEvent, deliveriesOf, firstAttemptJobOf, listeningEndpoint, MINUTE, settle, startWebhookService, updateEndpoint, verifies, WEBHOOK_TIMEOUT_MS } from '../../support/webhooks.js';

const svc = await startWebhookService(t);

/** Records the size of every deliverMany call the scheduler makes. */
function batchSizes(s: TestService): number[] {
  const sizes: number[] = [];
  const deliverer = s.system.webhookDeliverer;
  const original = deliverer.deliverMany.bind(deliverer);
  deliverer.deliverMany = (ids) => {
    sizes.push(ids.length);
    return original(ids);
  };
  return sizes;
}

/** Waits until the dispatcher (a bus consumer running in the background) has made `n` deliveries of the merchant. */
async function dispatched(s: TestService, merchantId: string, n: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Number((await s.system.knex('webhook_deliveries').where({ merchant_id: merchantId }).count<{ count: string }[]>('* as count'))[0]!.count) < n) {
    if (Date.now() > deadline) throw new Error(`fewer than ${n} deliveries after 20 s`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

t.test('one batch, mixed outcomes: each delivery recorded as it went, retries scheduled, a disabled endpoint skipped', async (t) => {
  const sizes = batchSizes(svc);
  t.teardown(() => void (svc.system.webhookDeliverer.deliverMany = Object.getPrototypeOf(svc.system.webhookDeliverer).deliverMany));
  const { merchant, key } = await svc.sandboxMerchant();
  const ok = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const broken = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  broken.receiver.behaviour = { kind: 'answer', status: 500, body: 'boom' };
  const hanging = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  hanging.receiver.behaviour = { kind: 'hang' };
  const refused = await createEndpoint(svc, key, `http://127.0.0.1:${await closedPort()}/hooks`, ['payment_intent.created']);
  const disabled = await listeningEndpoint(t, svc, key, ['payment_intent.created']);

  await createIntentEvent(svc, key);
  await createIntentEvent(svc, key);
  await dispatched(svc, merchant.id, 10);
  // Disabled after its deliveries were queued and before they ran.
  assertOk(t, await updateEndpoint(svc, key, disabled.endpoint.id, { enabled: false }));
  const sentAt = svc.clock.now().getTime();
  await settle(svc);

  t.same(sizes, [10], 'the ten deliveries ran as one batch');
  t.equal(ok.receiver.count, 2);
  t.ok(
    ok.receiver.requests.every((r) => verifies(ok.endpoint.secret, r)),
    'signed with the endpoint’s secret',
  );
  t.equal(broken.receiver.count, 2);
  t.ok(broken.receiver.requests.every((r) => verifies(broken.endpoint.secret, r)));
  t.equal(hanging.receiver.count, 2);
  t.equal(disabled.receiver.count, 0, 'nothing to the disabled endpoint');

  const expected = [
    { endpoint: ok.endpoint.id, status: 'succeeded', next: null, response: 200, error: null },
    { endpoint: broken.endpoint.id, status: 'retrying', next: sentAt + 5 * MINUTE, response: 500, error: /^HTTP 500$/ },
    { endpoint: hanging.endpoint.id, status: 'retrying', next: sentAt + 5 * MINUTE, response: null, error: new RegExp(`no answer within ${WEBHOOK_TIMEOUT_MS} ms`) },
    { endpoint: refused.id, status: 'retrying', next: sentAt + 5 * MINUTE, response: null, error: /ECONNREFUSED/ },
  ];
  for (const e of expected) {
    const deliveries = await deliveriesOf(svc, e.endpoint);
    t.equal(deliveries.length, 2);
    for (const d of deliveries) {
      t.match(d, { status: e.status, attempts: 1 }, `${e.status}: ${d.id}`);
      t.equal(d.next_attempt_at?.getTime() ?? null, e.next);
      const attempts = await attemptsOf(svc, d.id);
      t.equal(attempts.length, 1, 'one attempt recorded');
      t.match(attempts[0], { attempt: 1, response_status: e.response, error: e.error });
      t.equal(attempts[0]!.started_at.getTime(), sentAt);
      const retry = await svc.system
        .knex('scheduled_jobs')
        .where({ key: `deliver:${d.id}:2` })
        .first<{ run_at: Date } | undefined>();
      t.equal(retry?.run_at.getTime() ?? null, e.next, e.next ? 'the retry is scheduled' : 'no retry');
      t.equal(await firstAttemptJobOf(svc, d.id), undefined, 'the first attempt’s job is done');
    }
  }
  for (const d of await deliveriesOf(svc, disabled.endpoint.id)) {
    t.match(d, { status: 'skipped', attempts: 0, next_attempt_at: null });
    t.same(await attemptsOf(svc, d.id), []);
  }

  // The retries, five minutes later, are one batch too; the receivers now answer 200.
  broken.receiver.behaviour = { kind: 'answer', status: 200 };
  hanging.receiver.behaviour = { kind: 'answer', status: 204 };
  svc.clock.advance(5 * MINUTE);
  await settle(svc);
  t.same(sizes, [10, 6]);
  for (const id of [broken.endpoint.id, hanging.endpoint.id]) {
    for (const d of await deliveriesOf(svc, id)) t.match(d, { status: 'succeeded', attempts: 2, next_attempt_at: null });
  }
  for (const d of await deliveriesOf(svc, refused.id)) t.match(d, { status: 'retrying', attempts: 2 });
  assertOk(t, await updateEndpoint(svc, key, refused.id, { enabled: false }));
});

t.test('a crash between sending a batch and recording it: every delivery sent again, recorded once; a rerun after the record sends nothing', async (t) => {
  const { knex } = svc.system;
  const { merchant, key } = await svc.sandboxMerchant();
  const receivers = [await listeningEndpoint(t, svc, key, ['payment_intent.created']), await listeningEndpoint(t, svc, key, ['payment_intent.created'])];
  // The record of the batch fails once, after the requests went out (as if the process died then).
  // A sequence, since it is not rolled back with the failed transaction.
  await knex.raw(`CREATE SEQUENCE batch_crash_once;
    CREATE FUNCTION batch_crash_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('batch_crash_once') = 1 THEN
        RAISE EXCEPTION 'simulated crash before the batch was recorded';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER batch_crash_once BEFORE INSERT ON webhook_attempts FOR EACH ROW EXECUTE FUNCTION batch_crash_once()`);
  t.teardown(() => knex.raw('DROP TRIGGER IF EXISTS batch_crash_once ON webhook_attempts; DROP FUNCTION IF EXISTS batch_crash_once(); DROP SEQUENCE IF EXISTS batch_crash_once'));

  for (let i = 0; i < 3; i++) await createIntentEvent(svc, key);
  await dispatched(svc, merchant.id, 6);
  await settle(svc);
  t.same(
    receivers.map((r) => r.receiver.count),
    [3, 3],
    'every request went out',
  );
  const deliveries = [...(await deliveriesOf(svc, receivers[0]!.endpoint.id)), ...(await deliveriesOf(svc, receivers[1]!.endpoint.id))];
  for (const d of deliveries) {
    t.match(d, { status: 'pending', attempts: 0 }, 'nothing was recorded');
    t.same(await attemptsOf(svc, d.id), []);
    t.match(await firstAttemptJobOf(svc, d.id), { last_error: /simulated crash/ }, 'its job is still there');
  }

  svc.clock.advance(1000);
  await settle(svc);
  for (const { receiver, endpoint } of receivers) {
    t.equal(receiver.count, 6, 'each sent again');
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    t.same(ids.slice(3).sort(), ids.slice(0, 3).sort(), 'with the same webhook-ids');
    t.ok(receiver.requests.every((r) => verifies(endpoint.secret, r)));
  }
  for (const d of deliveries) {
    t.match((await knex('webhook_deliveries').where({ id: d.id }).first()) as object, { status: 'succeeded', attempts: 1 });
    t.match(await attemptsOf(svc, d.id), [{ attempt: 1, response_status: 200, error: null }], 'recorded once');
    t.equal(await firstAttemptJobOf(svc, d.id), undefined, 'the job is done');
  }

  // The batch's jobs run again after the record (the process stopped before they were deleted).
  t.same(
    await svc.system.webhookDeliverer.deliverMany(deliveries.map((d) => ({ deliveryId: d.id, attempt: 1 }))),
    deliveries.map(() => null),
  );
  t.same(
    receivers.map((r) => r.receiver.count),
    [6, 6],
    'nothing is sent again',
  );
  for (const d of deliveries) t.equal((await attemptsOf(svc, d.id)).length, 1, 'nor recorded again');
});

t.test('one job holds the first attempts of the deliveries one batch of the log queued; it never makes a later attempt', async (t) => {
  const { knex } = svc.system;
  const { merchant, key } = await svc.sandboxMerchant();
  const receivers = [await listeningEndpoint(t, svc, key, ['payment_intent.created']), await listeningEndpoint(t, svc, key, ['payment_intent.created'])];
  receivers[1]!.receiver.behaviour = { kind: 'answer', status: 500 };
  // Jobs run when the test settles: until then the one event's two deliveries wait in their job.
  await createIntentEvent(svc, key);
  await dispatched(svc, merchant.id, 2);
  const ids = [...(await deliveriesOf(svc, receivers[0]!.endpoint.id)), ...(await deliveriesOf(svc, receivers[1]!.endpoint.id))].map((d) => d.id);
  const job = await firstAttemptJobOf(svc, ids[0]!);
  t.same(job?.payload.deliveryIds.slice().sort(), ids.slice().sort(), 'both deliveries in one job');
  t.equal(
    Number(
      (
        await knex('scheduled_jobs')
          .whereIn(
            'key',
            ids.map((id) => `deliver:${id}:1`),
          )
          .count<{ n: string }[]>('* as n')
      )[0]!.n,
    ),
    0,
    'and no job per delivery',
  );

  await settle(svc);
  t.same(
    receivers.map((r) => r.receiver.count),
    [1, 1],
  );
  t.equal(await firstAttemptJobOf(svc, ids[0]!), undefined, 'the job is done');
  const failed = ids[1]!;
  t.match(await knex('webhook_deliveries').where({ id: failed }).first(), { status: 'retrying', attempts: 1 });

  // The retry is due; a first-attempts job run again (left behind by a crash) does not make it.
  svc.clock.advance(5 * MINUTE);
  t.same(await svc.system.webhookDeliverer.deliverMany([{ deliveryId: failed, attempt: 1 }]), [null]);
  t.same(
    receivers.map((r) => r.receiver.count),
    [1, 1],
    'attempt 2 is the retry job’s',
  );
  await settle(svc);
  t.same(
    receivers.map((r) => r.receiver.count),
    [1, 2],
    'which sends it once',
  );
  t.same(
    (await attemptsOf(svc, failed)).map((a) => a.attempt),
    [1, 2],
  );
});

t.test('requests waiting for one of an endpoint’s 16 connections do not spend their deadline waiting', async (t) => {
  // A deadline of its own: the suites' 300 ms left 240 ms to spare per answer, and a stall of the
  // loaded machine outlasted it once (two retried, 26 connections).
  const deadlineMs = 1_500;
  const svc = await startWebhookService(t, { webhookTimeoutMs: deadlineMs });
  const { merchant, key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  // A fifth of the deadline per answer: 96 requests over 16 connections take six rounds, longer
  // than one deadline, and each answer has four fifths of its deadline to spare.
  receiver.behaviour = { kind: 'late', afterMs: deadlineMs / 5, status: 200 };
  for (let i = 0; i < 96; i++) await createIntentEvent(svc, key, 1_000 + i);
  await dispatched(svc, merchant.id, 96);
  await settle(svc);
  t.equal(receiver.count, 96);
  t.ok(receiver.connections <= 16, `${receiver.connections} connections`);
  const deliveries = await deliveriesOf(svc, endpoint.id);
  t.same(
    deliveries.map((d) => d.status),
    deliveries.map(() => 'succeeded'),
    'every one answered in time',
  );
});
