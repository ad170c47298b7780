/**
 * What payment intents do to money, the event store and the read models: the ledger credit of a
 * successful payment (amount − fee, the fee being the quote's), no movement on failure, no double
 * credit on repeated callbacks, settlement delay in live, the domain events with their metadata,
 * and a projection rebuild that reproduces the live rows.
 */
import type { Knex } from 'knex';
import t from '#tap';
import { PUBLIC_PAYMENT_INTENT_EVENTS, paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';
import type { CollectCallback } from '#packages/connectors/callbacks.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { assertOk, card, confirm, createIntent, mobileMoney, operatorAnswers, rawRequest, retrieve, snNumber } from '../../support/payments.js';
import { balanceObject, balanceTransactions } from '../../support/payouts.js';
import { readModelRows } from '../../support/projection-spec.js';
import { activateLive, failCommitOnce, startPaymentsService, type TestService } from '../../support/system.js';

const svc = await startPaymentsService(t);

async function quote(key: string, body: Record<string, unknown>, s: TestService = svc): Promise<{ fee: number; net: number }> {
  const res = await s.request('POST', '/api/v1/fees/quote', { key, body: { direction: 'payin', ...body } });
  if (res.status !== 200) throw new Error(`quote failed: ${res.text}`);
  return res.body;
}

t.test('a successful mobile money payment credits amount − fee, the quoted fee', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key, { amount: 12_345 });
  const q = await quote(key, { amount: 12_345, currency: 'xof', method: 'mobile_money', country: 'SN', operator: 'orange_money' });
  t.ok(q.fee > 0, `a fee (${q.fee})`);

  assertOk(t, await confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('67')) }));
  t.same((await balanceObject(svc, key)).available, [], 'nothing before the operator answers');
  await operatorAnswers(svc);

  const b = await balanceObject(svc, key);
  t.match(b, { object: 'balance', livemode: false });
  t.same(b.available, [{ amount: 12_345 - q.fee, currency: 'xof' }]);
  t.same(b.pending, [{ amount: 0, currency: 'xof' }], 'sandbox settles at once');
  t.same(b.reserved, [{ amount: 0, currency: 'xof' }]);
  t.equal((await retrieve(svc, key, o.id)).fee, q.fee, 'the intent shows the fee charged');

  const txns = await balanceTransactions(svc, key);
  t.equal(txns.length, 1);
  t.match(txns[0], {
    id: /^txn_/,
    object: 'balance_transaction',
    type: 'payment',
    source: o.id,
    amount: 12_345,
    fee: q.fee,
    net: 12_345 - q.fee,
    currency: 'xof',
    status: 'available',
    livemode: false,
  });
  t.equal(txns[0].available_on, Math.floor(svc.clock.now().getTime() / 1000));
  t.same(
    (await balanceTransactions(svc, key, `?source=${o.id}`)).map((x: { id: string }) => x.id),
    [txns[0].id],
    'found by source',
  );
  t.same(await balanceTransactions(svc, key, '?type=payout'), []);
});

t.test('a card payment uses the card fee; Wave in Senegal its own rate', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const c = await createIntent(svc, key, { amount: 20_000 });
  const w = await createIntent(svc, key, { amount: 30_000 });
  assertOk(t, await confirm(svc, key, c.id, { payment_method: card('tok_visa') }));
  assertOk(t, await confirm(svc, key, w.id, { payment_method: mobileMoney(snNumber('55'), 'wave') }));
  await operatorAnswers(svc);
  const cardFee = (await quote(key, { amount: 20_000, currency: 'XOF', method: 'card', country: 'SN' })).fee;
  const waveFee = (await quote(key, { amount: 30_000, currency: 'xof', method: 'mobile_money', country: 'SN', operator: 'wave' })).fee;
  t.not(cardFee, waveFee);
  t.same((await balanceObject(svc, key)).available, [{ amount: 50_000 - cardFee - waveFee, currency: 'xof' }]);
  const txns = await balanceTransactions(svc, key, '?type=payment');
  // Both operator answers fall due together and are applied side by side: either may post first.
  t.same(
    txns.map((x: { source: string; fee: number }) => [x.source, x.fee]).sort(),
    [
      [w.id, waveFee],
      [c.id, cardFee],
    ].sort(),
    'one payment transaction each, with its own fee',
  );
});

t.test('3-D Secure completion credits the merchant too', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key, { amount: 5_000 });
  const first = await confirm(svc, key, o.id, { payment_method: card('tok_3ds_required') });
  const path = new URL(first.body.next_action.redirect_to_url.url).pathname;
  t.equal((await rawRequest(svc, 'POST', `${path}/complete`)).status, 303);
  const fee = (await quote(key, { amount: 5_000, currency: 'xof', method: 'card', country: 'SN' })).fee;
  t.same((await balanceObject(svc, key)).available, [{ amount: 5_000 - fee, currency: 'xof' }]);
});

t.test('failed, pending and canceled payments move no money', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  for (const [pm, cancelIt] of [
    [mobileMoney(snNumber('01')), false],
    [mobileMoney(snNumber('04')), false],
    [mobileMoney(snNumber('03')), false],
    [card('tok_visa_declined'), false],
    [mobileMoney(snNumber('02')), true],
  ] as const) {
    const o = await createIntent(svc, key);
    assertOk(t, await confirm(svc, key, o.id, { payment_method: pm }));
    if (cancelIt) assertOk(t, await svc.request('POST', `/api/v1/payment-intents/${o.id}/cancel`, { key }));
  }
  await operatorAnswers(svc);
  await operatorAnswers(svc);
  const b = await balanceObject(svc, key);
  t.same(b.available, []);
  t.same(b.pending, []);
  t.same(await balanceTransactions(svc, key), []);
  const streams = await svc.system.knex('streams').select('stream_id').where('stream_id', 'like', `balance-${m.id}-%`);
  t.same(streams, [], 'no ledger stream was even opened');
});

t.test('a repeated operator callback does not credit twice', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key);
  assertOk(t, await confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('67')) }));
  const job = await svc.system.knex('scheduled_jobs').where('key', 'like', 'payin:%').andWhereRaw("payload->>'paymentIntentId' = ?", [o.id]).first<{ kind: string; key: string; payload: CollectCallback } | undefined>();
  if (!job) throw new Error('the operator\u2019s answer should be a durable job');
  await operatorAnswers(svc);
  const once = await balanceObject(svc, key);
  const intentAfter = await retrieve(svc, key, o.id);

  await svc.system.scheduler.runUntilIdle();
  await operatorAnswers(svc);
  // The same callback delivered again, as an at-least-once scheduler or an operator retry would.
  const callback = job.payload;
  await svc.system.collectionOutcomes.applyCallback(callback);
  await svc.system.collectionOutcomes.applyCallback(callback);
  await svc.system.scheduler.schedule({ kind: job.kind, key: `${job.key}:again`, runAt: svc.clock.now(), payload: callback as unknown as Record<string, unknown> });
  await svc.system.scheduler.runUntilIdle();
  // And a contradicting late one.
  await svc.system.collectionOutcomes.applyCallback({ ...callback, outcome: { status: 'failed', failureCode: 'insufficient_funds', failureMessage: 'late' } });

  t.same(await balanceObject(svc, key), once, 'balance unchanged');
  t.equal((await balanceTransactions(svc, key)).length, 1, 'one balance transaction');
  t.same(await retrieve(svc, key, o.id), intentAfter, 'intent unchanged');
  const events = await svc.system.store.readStream(paymentIntentStream(o.id));
  t.equal(events.filter((e) => e.type === 'payment_intent.succeeded').length, 1, 'one succeeded event');
  const ledger = await svc.system.store.readStream(`balance-${m.id}-sandbox-xof`);
  t.same(
    ledger.map((e) => (e.data as { kind: string }).kind),
    ['payment', 'payment_settlement'],
    'one payment entry',
  );
});

t.test('a callback naming another merchant changes nothing', async (t) => {
  const m = await svc.merchant();
  const other = await svc.merchant('Other');
  const key = m.api_keys.sandbox;
  const o = await createIntent(svc, key);
  const first = await confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('03')) });
  const result = await svc.system.collectionOutcomes.applyCallback({ paymentIntentId: o.id, operationId: first.body.latest_operation, merchantId: other.id, environment: 'sandbox', outcome: { status: 'succeeded' } });
  t.equal(result, null);
  t.equal((await retrieve(svc, key, o.id)).status, 'processing');
  t.same((await balanceObject(svc, other.api_keys.sandbox)).available, []);
});

t.test('events: stream payment_intent-<id>, public events carry the resource, metadata names who and why', async (t) => {
  const m = await svc.merchant();
  const apiKey = await svc.apiKey(m.id, ['*']);
  const key = apiKey.secret;
  const publicTypes = PUBLIC_PAYMENT_INTENT_EVENTS as readonly string[];
  const read = (id: string) => svc.system.store.readStream(paymentIntentStream(id));
  const publicOf = (events: RecordedEvent[]) => events.filter((e) => publicTypes.includes(e.type));
  const objectOf = (e: RecordedEvent) => (e.data as { object: unknown }).object;

  await t.test('created → processing → succeeded', async (t) => {
    const created = await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 10_000, currency: 'xof', transaction_country: 'SN', metadata: { a: 'b' } } });
    const id = created.body.id;
    const confirmed = await confirm(svc, key, id, { payment_method: mobileMoney(snNumber('67')) });
    await operatorAnswers(svc);
    const final = await retrieve(svc, key, id);
    const events = await read(id);
    t.same(
      events.map((e) => e.type),
      ['payment_intent.created', 'payment_intent.confirmation_started', 'payment_intent.processing', 'payment_intent.succeeded'],
    );
    t.same(
      events.map((e) => e.version),
      [0, 1, 2, 3],
      'versions from 0',
    );
    const pub = publicOf(events);
    t.same(objectOf(pub[0]!), created.body, 'created carries what the API returned');
    t.same(objectOf(pub[1]!), confirmed.body, 'processing carries what confirm returned');
    t.same(objectOf(pub[2]!), final, 'succeeded carries the final resource');
    t.notOk('object' in (events[1]!.data as object), 'the internal event carries no resource');

    for (const e of [events[0]!, events[1]!, events[2]!]) {
      t.match(e.metadata, { merchant_id: m.id, environment: 'sandbox', actor: apiKey.id, correlation_id: id, occurred_at: /^\d{4}-/ }, `${e.type} metadata`);
    }
    t.equal(events[0]!.metadata.request_id, created.headers.get('request-id'), 'created: the request id of the create');
    t.equal(events[1]!.metadata.request_id, confirmed.headers.get('request-id'), 'confirmation: the request id of the confirm');
    t.equal(events[2]!.metadata.request_id, confirmed.headers.get('request-id'));
    t.match(events[3]!.metadata, { merchant_id: m.id, environment: 'sandbox', actor: 'connector:sandbox', causation_id: final.latest_operation, correlation_id: id });
  });

  await t.test('requires_action → succeeded; payment_failed; canceled', async (t) => {
    const action = await createIntent(svc, key);
    await confirm(svc, key, action.id, { payment_method: mobileMoney(snNumber('02')) });
    const failed = await createIntent(svc, key);
    await confirm(svc, key, failed.id, { payment_method: card('tok_visa_declined') });
    await operatorAnswers(svc);
    const canceled = await createIntent(svc, key);
    const cancelRes = await svc.request('POST', `/api/v1/payment-intents/${canceled.id}/cancel`, { key, body: { cancellation_reason: 'duplicate' } });

    t.same(
      publicOf(await read(action.id)).map((e) => e.type),
      ['payment_intent.created', 'payment_intent.requires_action', 'payment_intent.succeeded'],
    );
    t.same(
      publicOf(await read(failed.id)).map((e) => e.type),
      ['payment_intent.created', 'payment_intent.processing', 'payment_intent.payment_failed'],
    );
    const c = await read(canceled.id);
    t.same(
      c.map((e) => e.type),
      ['payment_intent.created', 'payment_intent.canceled'],
    );
    t.same(objectOf(c[1]!), cancelRes.body);
    t.match(c[1]!.metadata, { actor: apiKey.id, request_id: cancelRes.headers.get('request-id'), merchant_id: m.id, environment: 'sandbox' });
    for (const id of [action.id, failed.id]) {
      const events = publicOf(await read(id));
      t.same(objectOf(events[events.length - 1]!), await retrieve(svc, key, id), 'the last event carries the resource as GET shows it');
    }
    const failure = (await read(failed.id)).find((e) => e.type === 'payment_intent.payment_failed')!;
    t.match(failure.data, { failureCode: 'card_declined', object: { status: 'failed', last_payment_error: { code: 'card_declined' } } });
  });

  await t.test('PATCH is recorded with its request id; live intents are stamped live', async (t) => {
    const o = await createIntent(svc, key);
    const res = await svc.request('PATCH', `/api/v1/payment-intents/${o.id}`, { key, body: { description: 'x' } });
    const events = await read(o.id);
    t.equal(events[1]!.type, 'payment_intent.updated');
    t.same(objectOf(events[1]!), res.body);
    t.equal(events[1]!.metadata.request_id, res.headers.get('request-id'));
    const live = await createIntent(svc, m.api_keys.live);
    const liveEvents = await read(live.id);
    t.equal(liveEvents[0]!.metadata.environment, 'live');
    t.equal((objectOf(liveEvents[0]!) as { livemode: boolean }).livemode, true);
  });
});

const snapshot = (knex: Knex) => readModelRows(knex, ['read.payment_intents', 'read.operations', 'read.balances', 'read.balance_transactions', 'read.customers']);

t.test('rebuild: the read models come back identical', async (t) => {
  const m = await svc.merchant();
  const other = await svc.merchant('Other');
  const key = m.api_keys.sandbox;
  const methods = [mobileMoney(snNumber('67')), mobileMoney(snNumber('01')), mobileMoney(snNumber('02')), mobileMoney(snNumber('03')), mobileMoney(snNumber('04')), card('tok_visa'), card('tok_visa_declined'), card('tok_3ds_required')];
  for (const [i, pm] of methods.entries()) {
    const o = await createIntent(svc, i % 2 ? key : other.api_keys.sandbox, { amount: 1_000 * (i + 1), customer_email: `c${i % 3}@example.com`, metadata: { i: String(i) } });
    await confirm(svc, i % 2 ? key : other.api_keys.sandbox, o.id, { payment_method: pm, ...(i === 2 ? { return_url: 'https://shop.example/r' } : {}) });
    svc.clock.advance(500);
  }
  const toCancel = await createIntent(svc, key, { customer_phone: '771234567' });
  await svc.request('POST', `/api/v1/payment-intents/${toCancel.id}/cancel`, { key });
  const action = await createIntent(svc, key);
  await confirm(svc, key, action.id, { payment_method: card('tok_3ds_required') });
  await svc.request('POST', `/api/v1/payment-intents/${action.id}/cancel`, { key, body: { cancellation_reason: 'abandoned' } });
  const updated = await createIntent(svc, key);
  await svc.request('PATCH', `/api/v1/payment-intents/${updated.id}`, { key, body: { description: 'changed', metadata: { x: 'y' } } });
  await createIntent(svc, m.api_keys.live, { customer_email: 'c0@example.com' });
  await operatorAnswers(svc);

  const live = await snapshot(svc.system.knex);
  t.ok((live['read.payment_intents'] ?? []).length >= 12, 'intents recorded');
  t.ok((live['read.operations'] ?? []).length >= 9, 'operations recorded');
  t.ok((live['read.balance_transactions'] ?? []).length >= 2, 'payments recorded');
  t.ok((live['read.customers'] ?? []).length >= 4, 'customers recorded');

  await svc.system.knex('read.payment_intents').delete();
  await svc.system.knex('read.operations').update({ status: 'wrong' });
  await svc.system.knex('read.balances').update({ available: 0 });
  await svc.system.knex('read.balance_transactions').delete();
  await svc.system.knex('read.customers').delete();
  const applied = await svc.system.rebuildProjections();
  t.ok(applied > 0, `${applied} events replayed`);
  t.same(await snapshot(svc.system.knex), live, 'identical rows');

  await t.test('and the API answers from the rebuilt models', async (t) => {
    t.equal((await retrieve(svc, key, updated.id)).description, 'changed');
    t.equal((await retrieve(svc, key, action.id)).status, 'canceled');
  });
});

t.test('live: funds stay pending until the settlement delay has passed', async (t) => {
  // Live has no connector; this one stands in for a real operator and reports success on demand.
  const callbacks: CollectCallback[] = [];
  const SETTLEMENT_MS = 2 * 3_600_000;
  const liveSvc: TestService = await startPaymentsService(t, {
    env: { SETTLEMENT_DELAY: '2h' },
    rails: (environment, base) => {
      if (environment !== 'live') return base;
      const connector = Object.create(base) as typeof base;
      connector.assertCanCollect = () => undefined;
      connector.collect = async (req) => {
        callbacks.push({ paymentIntentId: req.paymentIntentId, operationId: req.operationId, merchantId: req.merchantId, environment: req.environment, outcome: { status: 'succeeded' }, connector: 'live-stand-in' });
        return { status: 'processing' };
      };
      return connector;
    },
  });
  const m = await liveSvc.merchant();
  await activateLive(liveSvc, m.id);
  const key = m.api_keys.live;
  const o = await createIntent(liveSvc, key, { amount: 40_000 });
  assertOk(t, await confirm(liveSvc, key, o.id, { payment_method: mobileMoney(snNumber('67')) }));
  t.equal(callbacks.length, 1);
  for (const cb of callbacks) await liveSvc.system.collectionOutcomes.applyCallback(cb);
  const fee = (await quote(m.api_keys.sandbox, { amount: 40_000, currency: 'xof', method: 'mobile_money', country: 'SN', operator: 'orange_money' }, liveSvc)).fee;
  t.equal((await retrieve(liveSvc, key, o.id)).status, 'succeeded');

  const before = await balanceObject(liveSvc, key);
  t.equal(before.livemode, true);
  t.same(before.available, [{ amount: 0, currency: 'xof' }]);
  t.same(before.pending, [{ amount: 40_000 - fee, currency: 'xof' }]);
  const [txn] = await balanceTransactions(liveSvc, key);
  t.match(txn, { type: 'payment', status: 'pending', net: 40_000 - fee, livemode: true });
  t.equal(txn.available_on, Math.floor((liveSvc.clock.now().getTime() + SETTLEMENT_MS) / 1000));
  t.same((await balanceObject(liveSvc, m.api_keys.sandbox)).available, [], 'sandbox untouched');

  liveSvc.clock.advance(SETTLEMENT_MS - 1000);
  await liveSvc.system.scheduler.runUntilIdle();
  t.same((await balanceObject(liveSvc, key)).pending, [{ amount: 40_000 - fee, currency: 'xof' }], 'not yet');
  liveSvc.clock.advance(1000);
  await liveSvc.system.scheduler.runUntilIdle();
  const after = await balanceObject(liveSvc, key);
  t.same(after.available, [{ amount: 40_000 - fee, currency: 'xof' }]);
  t.same(after.pending, [{ amount: 0, currency: 'xof' }]);
  t.equal((await balanceTransactions(liveSvc, key))[0].status, 'available');
});

/** The transaction ids of a stream's events of one type, and of the payment entries posted for a source. */
async function commitsOf(s: TestService, where: { stream: string; type: string }, ledger: { stream: string; source: string }) {
  const rows: { stream_id: string; type: string; data: { source?: string; kind?: string }; transaction_id: string }[] = await s.system
    .knex('events')
    .select('stream_id', 'type', 'data', 'transaction_id')
    .whereIn('stream_id', [where.stream, ledger.stream]);
  return {
    fact: rows.filter((r) => r.stream_id === where.stream && r.type === where.type).map((r) => r.transaction_id),
    money: rows.filter((r) => r.stream_id === ledger.stream && r.data.source === ledger.source && r.data.kind === 'payment').map((r) => r.transaction_id),
  };
}

t.test("a payment's success and its ledger posting are one commit: no read shows one without the other", async (t) => {
  const { key, merchant } = await svc.sandboxMerchant();
  const o = await createIntent(svc, key, { amount: 20_000 });
  assertOk(t, await confirm(svc, key, o.id, { payment_method: mobileMoney(snNumber('67')) }));
  await operatorAnswers(svc);
  const { fact, money } = await commitsOf(svc, { stream: paymentIntentStream(o.id), type: 'payment_intent.succeeded' }, { stream: `balance-${merchant.id}-sandbox-xof`, source: o.id });
  t.equal(fact.length, 1, 'the intent succeeded once');
  t.equal(money.length, 1, 'one posting for it');
  t.equal(money[0], fact[0], 'in the same transaction as the success');
  const read = await retrieve(svc, key, o.id);
  t.equal(read.status, 'succeeded');
  t.same((await balanceObject(svc, key)).available, [{ amount: 20_000 - read.fee, currency: 'xof' }], 'the money is there at the first read after the success');
});

t.test('a store failure between the outcome and the posting leaves neither; the retried answer writes both once', async (t) => {
  const s = await startPaymentsService(t);
  const { key, merchant } = await s.sandboxMerchant();
  const o = await createIntent(s, key, { amount: 5_000 });
  assertOk(t, await confirm(s, key, o.id, { payment_method: mobileMoney(snNumber('67')) }));
  // The commit that carries the ledger posting fails once, as a crash at that point would.
  const commits = failCommitOnce(t, s, (writes) => writes.some((w) => w.streamId.startsWith('balance-')));
  await operatorAnswers(s);
  t.equal(commits.failed, 1, 'the commit with the posting was tried and failed');
  const during = await retrieve(s, key, o.id);
  t.not(during.status, 'succeeded', 'the intent does not read succeeded without its money');
  t.same((await balanceObject(s, key)).available, [], 'and no money moved');
  await operatorAnswers(s);
  const after = await retrieve(s, key, o.id);
  t.equal(after.status, 'succeeded', 'the retried answer succeeds');
  const { fact, money } = await commitsOf(s, { stream: paymentIntentStream(o.id), type: 'payment_intent.succeeded' }, { stream: `balance-${merchant.id}-sandbox-xof`, source: o.id });
  t.equal(money.length, 1, 'posted once');
  t.equal(money[0], fact[0], 'with the success');
  t.same((await balanceObject(s, key)).available, [{ amount: 5_000 - after.fee, currency: 'xof' }]);
});
