/**
 * The scale-out mode on a real Kafka broker (`make test-kafka` starts one: infra/kafka/broker.sh):
 * EVENT_STORE=postgres BUS=kafka, the processes of infra/README.md started from dist/ (two API
 * processes, projector, dispatcher, relay), a workload of payments and payouts (some of each
 * failing) with two webhook endpoints, and, mid-run, SIGKILL of the relay and then of the
 * dispatcher, each started again at once.
 *
 * Checked afterwards: every event of the log is on the topic once per stream position and in
 * stream order; the read models equal their rebuild (`sika projections verify`); every webhook
 * event reached every endpoint and verifies with `standardwebhooks` (a repeat carries the same
 * webhook-id and body); every acknowledged payment and payout exists and is final; the
 * dispatcher's consumer group has no lag. The figures are printed as comments.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import knexFactory from 'knex';
import t from '#tap';
import { Webhook } from 'standardwebhooks';
import { KafkaBusConsumer } from '#packages/bus/kafka/consumer.js';
import { groupIdFor } from '#packages/bus/kafka/codec.js';
import { freePort } from '#packages/core/embedded-postgres.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { encodePosition } from '#packages/eventstore/postgres/store.js';
import { DISPATCH_CONSUMER } from '#packages/families/webhooks/consumer.js';
import { serviceNodeFlags, startProcess, until, type ServiceProcess } from '../support/child-process.js';
import { freshDatabase } from '../support/db.js';
import { Receiver, type ReceivedRequest } from '../support/webhooks.js';

const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);
const PAYMENTS = 60;
const PAYOUTS = 60;
const CLIENTS = 8;
const FUNDING = 1_500_000;
/** Sandbox numbers: the last two digits choose the outcome (docs/catalog.md); 01 fails. */
const number = (fails: boolean) => (fails ? '+221771234501' : '+221771234567');

if (brokers.length === 0) {
  t.plan(0, 'KAFKA_BROKERS not set: the scale-out test needs a broker; run `make test-kafka`');
} else {
  t.test('scale-out on Kafka: relay and dispatcher killed mid-run, nothing lost, nothing twice on the topic', async (t) => {
    t.setTimeout(600_000);
    const url = await freshDatabase(t);
    const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
    t.teardown(() => knex.destroy());
    // A topic of its own (KAFKA_TOPIC): the test does not depend on what else the broker carries.
    const topic = `sika-scale-out-${randomUUID().slice(0, 8)}`;
    const kafka = new Kafka({ clientId: 'sika-scale-out-test', brokers, logLevel: logLevel.NOTHING });
    const env = {
      DATABASE_URL: url,
      EVENT_STORE: 'postgres',
      BUS: 'kafka',
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_TOPIC: topic,
      SANDBOX_OPERATOR_DELAY_MS: '200',
      RATE_LIMIT: 'off',
      RATE_LIMIT_ADDRESS: 'off',
      WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1',
      LOG_LEVEL: 'warn',
    };
    const running = new Set<ServiceProcess>();
    t.teardown(() => {
      for (const p of running) p.child.kill('SIGKILL');
    });
    const start = async (name: string, ready: RegExp, extra: Record<string, string> = {}) => {
      const p = startProcess(`services/${name}/main.js`, { ...env, LOG_LEVEL: 'info', ...extra }, [], serviceNodeFlags());
      running.add(p);
      void p.exit.then(() => running.delete(p));
      await p.waitFor(ready, 60_000);
      return p;
    };
    const kill = async (p: ServiceProcess) => {
      p.child.kill('SIGKILL');
      t.equal(await p.exit, null, 'killed with SIGKILL');
    };

    // The merchant and its first key, as an operator makes them (bin/sika).
    const cli = startProcess('bin/cli.js', { DATABASE_URL: url, LOG_LEVEL: 'silent' }, ['merchants', 'create', '--name', 'Scale-out test', '--json']);
    t.equal(await cli.exit, 0, 'merchant created');
    const key = (JSON.parse(cli.output().trim().split('\n').pop()!) as { api_keys: { sandbox: string } }).api_keys.sandbox;

    const ports = [await freePort(), await freePort()];
    const apis = await Promise.all(ports.map((port) => start('api', /api listening/, { PORT: String(port) })));
    await start('projector', /projecting/);
    let relay = await start('relay', /relaying/);
    let dispatcher = await start('dispatcher', /dispatcher running/);

    let turn = 0;
    const request = async (method: string, path: string, body?: unknown, idempotencyKey?: string) => {
      const api = `http://127.0.0.1:${ports[turn++ % ports.length]}`;
      const res = await fetch(`${api}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-environment': 'sandbox', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> & { id?: string; status?: string } };
    };

    // Two webhook endpoints, every event type.
    const clock = { now: () => new Date() };
    const receivers = await Promise.all([Receiver.start(t, { clock }), Receiver.start(t, { clock })]);
    const endpoints: { receiver: Receiver; id: string; secret: string }[] = [];
    for (const receiver of receivers) {
      const created = await request('POST', '/api/v1/webhook-endpoints', { url: receiver.url, enabled_events: ['*'] });
      t.equal(created.status, 200, 'webhook endpoint created');
      endpoints.push({ receiver, id: created.body.id!, secret: created.body.secret as string });
    }

    // Funding, settled by the dispatcher's sandbox operator.
    const funding = await request('POST', '/api/v1/payment-intents', { amount: FUNDING, currency: 'xof', transaction_country: 'SN' });
    const fundingConfirm = await request('POST', `/api/v1/payment-intents/${funding.body.id}/confirm`, { payment_method: { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'orange_money', msisdn: number(false) } } });
    t.equal(funding.status, 200, `funding created ${funding.body.code ?? ''}`);
    t.equal(fundingConfirm.status, 200, `funding confirmed ${fundingConfirm.body.code ?? ''}`);
    await until(
      'the funding is available',
      async () => {
        const balance = await request('GET', '/api/v1/balance');
        return ((balance.body.available as { amount: number }[] | undefined)?.[0]?.amount ?? 0) > 0 ? true : undefined;
      },
      60_000,
    );

    // The workload: 8 clients; a third of the way through the relay is killed, at two thirds the dispatcher.
    type Job = { kind: 'payment' | 'payout'; i: number; fails: boolean };
    const jobs: Job[] = [...Array.from({ length: PAYMENTS }, (_, i): Job => ({ kind: 'payment', i, fails: i % 6 === 5 })), ...Array.from({ length: PAYOUTS }, (_, i): Job => ({ kind: 'payout', i, fails: i % 5 === 4 }))].sort(
      (a, b) => a.i - b.i || a.kind.localeCompare(b.kind),
    );
    const created: { kind: Job['kind']; id: string; fails: boolean }[] = [];
    let done = 0;
    let killing: Promise<void> = Promise.resolve();
    const afterEach = () => {
      done++;
      if (done === Math.floor(jobs.length / 3)) {
        killing = killing.then(async () => {
          await kill(relay);
          relay = await start('relay', /relaying/);
        });
      }
      if (done === Math.floor((2 * jobs.length) / 3)) {
        killing = killing.then(async () => {
          await kill(dispatcher);
          dispatcher = await start('dispatcher', /dispatcher running/);
        });
      }
    };
    const run = async (job: Job) => {
      const wallet = { country: 'SN', operator: 'orange_money', msisdn: number(job.fails) };
      if (job.kind === 'payment') {
        const intent = await request('POST', '/api/v1/payment-intents', { amount: 1_000 + job.i, currency: 'xof', transaction_country: 'SN' }, `pi-${job.i}`);
        const confirm = await request('POST', `/api/v1/payment-intents/${intent.body.id}/confirm`, { payment_method: { type: 'mobile_money', mobile_money: wallet } }, `confirm-${job.i}`);
        if (intent.status !== 200 || confirm.status !== 200) throw new Error(`payment ${job.i}: ${intent.status} ${confirm.status} ${JSON.stringify(confirm.body)}`);
        created.push({ kind: 'payment', id: intent.body.id!, fails: job.fails });
      } else {
        const payout = await request('POST', '/api/v1/payouts', { amount: 500 + job.i, currency: 'xof', destination: { type: 'mobile_money', ...wallet } }, `po-${job.i}`);
        if (payout.status !== 200) throw new Error(`payout ${job.i}: ${payout.status} ${JSON.stringify(payout.body)}`);
        created.push({ kind: 'payout', id: payout.body.id!, fails: job.fails });
      }
      afterEach();
    };
    const queue = [...jobs];
    const startedAt = Date.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let job = queue.shift(); job; job = queue.shift()) await run(job);
      }),
    );
    await killing;
    t.equal(created.length, jobs.length, `every request answered 200 (${jobs.length} in ${Date.now() - startedAt} ms)`);

    // Every payment and payout ends as its sandbox number says.
    const wrong: string[] = [];
    for (const c of created) {
      const path = c.kind === 'payment' ? `/api/v1/payment-intents/${c.id}` : `/api/v1/payouts/${c.id}`;
      const final = c.kind === 'payment' ? (c.fails ? 'failed' : 'succeeded') : c.fails ? 'failed' : 'paid';
      const status = await until(
        `${c.id} final`,
        async () => {
          const got = await request('GET', path);
          return got.status === 200 && ['succeeded', 'failed', 'paid', 'canceled'].includes(got.body.status!) ? got.body.status : undefined;
        },
        60_000,
      );
      if (status !== final) wrong.push(`${c.id} is ${status}, expected ${final}`);
    }
    t.same(wrong, [], `every payment and payout final as its number says (${created.length})`);

    // The relay has put the whole log on the topic; the dispatcher's group has handled all of it.
    const admin = kafka.admin();
    await admin.connect();
    t.teardown(() => admin.disconnect());
    const lagOf = async (groupId: string) => {
      const high = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return high.reduce((sum, p) => {
        const at = BigInt(committed?.partitions.find((c) => c.partition === p.partition)?.offset ?? '-1');
        const from = at < 0n ? BigInt(p.low) : at;
        return sum + Number(BigInt(p.high) - from);
      }, 0);
    };
    // Positions are fixed-width text (packages/eventstore/postgres/store.ts): they compare as strings.
    const head = async () => {
      const row = (await knex.raw<{ rows: { tx: string; pos: string }[] }>('SELECT transaction_id::text AS tx, global_position::text AS pos FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1')).rows[0]!;
      return encodePosition(row.tx, row.pos);
    };
    await until(
      'the relay caught up',
      async () => {
        const row = await knex('bus_checkpoints')
          .where({ name: `relay:${topic}` })
          .first<{ position: string | null } | undefined>();
        return row?.position && row.position >= (await head()) ? true : undefined;
      },
      60_000,
    );
    const dispatcherGroup = groupIdFor(topic, DISPATCH_CONSUMER);
    await until('the dispatcher has no lag', async () => ((await lagOf(dispatcherGroup)) === 0 ? true : undefined), 60_000);

    // Every webhook event reaches both endpoints. Until then the probe says which deliveries are
    // open, their last attempt and their jobs; a failure adds the dispatcher's last words.
    await until(
      'every delivery succeeded',
      async () => {
        const { rows: open } = await knex.raw<{ rows: { n: string; id: string; status: string; attempts: number; last_attempt: unknown; jobs: unknown }[] }>(
          `SELECT count(*) OVER () AS n, d.id, d.status, d.attempts,
                  (SELECT row_to_json(a) FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.attempt DESC LIMIT 1) AS last_attempt,
                  (SELECT json_agg(json_build_object('kind', j.kind, 'run_at', j.run_at, 'locked_by', j.locked_by, 'attempts', j.attempts, 'last_error', j.last_error))
                     FROM scheduled_jobs j WHERE j.payload->>'deliveryId' = d.id OR j.payload->'deliveryIds' @> jsonb_build_array(d.id)) AS jobs
             FROM webhook_deliveries d WHERE d.status <> 'succeeded' ORDER BY d.created_at LIMIT 3`,
        );
        if (open.length === 0) return true;
        throw new Error(`${open[0]!.n} open, the first: ${JSON.stringify(open.map(({ n: _, ...d }) => d))}`);
      },
      60_000,
    ).catch((err: unknown) => {
      t.comment(`the dispatcher's output, its end:\n${dispatcher.output().slice(-6000)}`);
      throw err;
    });
    const webhookEvents = await knex('webhook_events').select<{ id: string; type: string; payload: string }[]>('id', 'type', 'payload');
    let deliveriesReceived = 0;
    let repeats = 0;
    for (const { receiver, secret } of endpoints) {
      const byId = new Map<string, ReceivedRequest[]>();
      let unverified = 0;
      for (const req of receiver.requests) {
        deliveriesReceived++;
        try {
          new Webhook(secret).verify(req.body, req.headers);
        } catch {
          unverified++;
        }
        const id = req.headers['webhook-id']!;
        byId.set(id, [...(byId.get(id) ?? []), req]);
      }
      t.equal(unverified, 0, 'every delivery verifies with standardwebhooks');
      const missing = webhookEvents.filter((e) => !byId.has(e.id));
      t.same(
        missing.map((e) => e.type),
        [],
        `every webhook event delivered to ${receiver.url} (${webhookEvents.length})`,
      );
      t.same(
        [...byId.keys()].filter((id) => !webhookEvents.some((e) => e.id === id)),
        [],
        'nothing delivered that is not a webhook event',
      );
      for (const [, reqs] of byId) {
        repeats += reqs.length - 1;
        if (reqs.some((r) => r.body !== reqs[0]!.body)) t.fail(`a repeat of ${reqs[0]!.headers['webhook-id']} carries another body`);
      }
    }
    // Each object's outcome was announced.
    const announced = new Set(webhookEvents.map((e) => `${e.type}:${(JSON.parse(e.payload) as { data: { id: string } }).data.id}`));
    const unannounced = created.filter((c) => {
      const type = c.kind === 'payment' ? (c.fails ? 'payment_intent.payment_failed' : 'payment_intent.succeeded') : c.fails ? 'payout.failed' : 'payout.paid';
      return !announced.has(`${type}:${c.id}`);
    });
    t.same(unannounced, [], 'every payment and payout outcome has its webhook event');

    // The topic, read by a new consumer group: every stream position once, in order.
    const seen: RecordedEvent[] = [];
    const audit = new KafkaBusConsumer({
      kafka,
      knex,
      topic: topic,
      spec: { name: `topic-reader-${randomUUID().slice(0, 8)}`, checkpointTable: 'bus_checkpoints', handle: async (_trx, events) => void seen.push(...events) },
    });
    await audit.start();
    await audit.caughtUp();
    await audit.stop();
    const log = await knex('events').select<{ stream_id: string; version: string; event_id: string }[]>('stream_id', 'version', 'event_id').orderBy('global_position');
    const onTopic = new Map<string, number>();
    for (const e of seen) onTopic.set(`${e.streamId}@${e.version}`, (onTopic.get(`${e.streamId}@${e.version}`) ?? 0) + 1);
    const absent = log.filter((e) => !onTopic.has(`${e.stream_id}@${e.version}`));
    const duplicates = [...onTopic.values()].reduce((sum, n) => sum + n - 1, 0);
    t.equal(absent.length, 0, `every event of the log is on the topic (${log.length})`);
    t.equal(duplicates, 0, 'each stream position once');
    const lastVersion = new Map<string, number>();
    let outOfOrder = 0;
    for (const e of seen) {
      if (e.version !== (lastVersion.get(e.streamId) ?? -1) + 1) outOfOrder++;
      lastVersion.set(e.streamId, e.version);
    }
    t.equal(outOfOrder, 0, 'each stream in version order, without holes');

    // The read models equal their rebuild from the log.
    const verify = startProcess('bin/cli.js', { DATABASE_URL: url, LOG_LEVEL: 'silent' }, ['projections', 'verify']);
    t.equal(await verify.exit, 0, 'sika projections verify exits 0');
    t.match(verify.output(), /^ok: all read models equal their rebuild from the log/m);

    const lag = await lagOf(dispatcherGroup);
    t.equal(lag, 0, 'the dispatcher group has no lag');
    t.comment(
      `scale-out figures: ${log.length} events in the log, ${seen.length} messages on the topic (${duplicates} duplicates), ${webhookEvents.length} webhook events, ${deliveriesReceived} deliveries received by ${endpoints.length} endpoints (${repeats} repeats), consumer lag ${lag}`,
    );

    for (const p of [...running]) p.child.kill('SIGTERM');
    for (const p of [relay, dispatcher, ...apis]) {
      const code = await p.exit;
      // On a failure, the process's last words say why (its output is not printed otherwise).
      t.equal(code, 0, 'clean exit on SIGTERM', code === 0 ? {} : { output: p.output().slice(-4000) });
    }
  });
}
