/**
 * The typed TypeScript client (clients/typescript, built by `make build`) against a real server:
 * the first payment and payout as the README shows them, an Idempotency-Key on every POST (and the
 * same one on a retry, so a lost answer creates nothing twice), retries on 429 honouring
 * Retry-After, on requests that got no answer, on 409 IKW-IDM-003 and on a 5xx, none on other
 * refusals, typed errors, every page of cursor and page lists, and webhook verification of a real
 * delivery.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from '#tap';
import type * as Client from '../../clients/typescript/dist/index.js';
import { root } from '../support/child-process.js';
import { fund, fundedMerchant } from '../support/payouts.js';
import { advance, OPERATOR_DELAY_MS } from '../support/system.js';
import { listeningEndpoint, settle, startWebhookService } from '../support/webhooks.js';

const { Sika, SikaError } = (await import(pathToFileURL(path.join(root, 'clients/typescript/dist/index.js')).href)) as typeof Client;

const svc = await startWebhookService(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS), RATE_LIMIT: '5/1s' } });

/** The requests a client sent (each attempt), through the fetch port production uses; `fail` loses an answer, sends nothing, or answers in the service's place. */
function recording(fail: (attempt: number, request: Request) => 'drop_answer' | 'no_answer' | Response | null = () => null) {
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request.clone());
    const failure = fail(sent.length, request);
    if (failure instanceof Response) return failure;
    if (failure === 'no_answer') throw new TypeError('fetch failed', { cause: new Error('connect ECONNRESET') });
    const response = await globalThis.fetch(request);
    if (failure === 'drop_answer') throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    return response;
  };
  return { sent, fetch };
}

/** Waits move the service's manual clock instead of the real one, and are recorded. */
function clockSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void (waits.push(ms), svc.clock.advance(ms)) };
}

t.test('the first payment and the first payout, typed', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const wire = recording();
  const sika = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: wire.fetch });

  const intent = await sika.post('/api/v1/payment-intents', { body: { amount: 5_000, currency: 'xof', transaction_country: 'SN', description: 'Order 1042' } });
  t.equal(intent.status, 'requires_payment_method');
  const confirmed = await sika.post('/api/v1/payment-intents/{id}/confirm', {
    params: { path: { id: intent.id } },
    body: { payment_method: { type: 'mobile_money', mobile_money: { msisdn: '+221771234567', operator: 'orange_money', country: 'SN' } } },
  });
  t.equal(confirmed.status, 'processing');
  await advance(svc);
  t.equal((await sika.get('/api/v1/payment-intents/{id}', { params: { path: { id: intent.id } } })).status, 'succeeded');

  const payout = await sika.post('/api/v1/payouts', { body: { amount: 10_000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } } });
  t.match(payout, { object: 'payout', amount: 10_000, currency: 'xof' });
  t.equal(wire.sent.at(-1)!.headers.get('x-environment'), 'sandbox', "the key's environment, sent by the client");

  const posts = wire.sent.filter((r) => r.method === 'POST');
  t.equal(posts.length, 3);
  for (const r of posts) t.match(r.headers.get('idempotency-key'), /^[0-9a-f-]{36}$/, 'every POST has an Idempotency-Key');
  t.equal(new Set(posts.map((r) => r.headers.get('idempotency-key'))).size, 3, 'a new one each time');
  t.notOk(wire.sent.find((r) => r.method === 'GET')!.headers.has('idempotency-key'));
});

t.test('an answer lost on the way: the retry carries the same key and creates nothing twice', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const wire = recording((attempt) => (attempt === 1 ? 'drop_answer' : null));
  const { waits, sleep } = clockSleep();
  const sika = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: wire.fetch, sleep });
  const intent = await sika.post('/api/v1/payment-intents', { body: { amount: 7_000, currency: 'xof', transaction_country: 'SN' } });
  t.equal(wire.sent.length, 2, 'sent twice');
  t.equal(wire.sent[0]!.headers.get('idempotency-key'), wire.sent[1]!.headers.get('idempotency-key'), 'with one key');
  t.equal(waits.length, 1);
  t.ok(waits[0]! >= 250 && waits[0]! <= 500, `backoff ${waits[0]} ms`);
  const all = [];
  for await (const pi of sika.list('/api/v1/payment-intents')) all.push(pi.id);
  t.same(all, [intent.id], 'one payment intent');

  const given = recording();
  const withKey = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: given.fetch });
  await withKey.post('/api/v1/payment-intents', { body: { amount: 7_000, currency: 'xof', transaction_country: 'SN' }, headers: { 'Idempotency-Key': 'order-1042' } });
  t.equal(given.sent[0]!.headers.get('idempotency-key'), 'order-1042', 'a key given is kept');

  const never = recording(() => 'no_answer');
  const down = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: never.fetch, sleep: clockSleep().sleep, maxRetries: 3 });
  const error = await down.get('/api/v1/balance').catch((e: unknown) => e);
  t.ok(error instanceof SikaError);
  t.match(error, { status: 0, code: undefined, retryable: true, message: /ECONNRESET/ });
  t.equal(never.sent.length, 4, 'one attempt and three retries');
});

t.test('409 IKW-IDM-003 and a 5xx are retried with the same key; retries end', async (t) => {
  const { key } = await svc.sandboxMerchant();
  // What the service answers while the first request with a key is still running, then a load balancer's 503 (no body of ours).
  const stillRunning = () => Response.json({ code: 'IKW-IDM-003', message: 'A request with this Idempotency-Key is still being processed', retryable: true, request_id: 'req_injected' }, { status: 409 });
  const proxyDown = () => new Response('<html><body>503 Service Unavailable</body></html>', { status: 503, headers: { 'content-type': 'text/html' } });
  const wire = recording((attempt) => (attempt === 1 ? stillRunning() : attempt === 2 ? proxyDown() : null));
  const { waits, sleep } = clockSleep();
  const sika = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: wire.fetch, sleep, maxRetries: 2 });
  const intent = await sika.post('/api/v1/payment-intents', { body: { amount: 8_000, currency: 'xof', transaction_country: 'SN' } });
  t.equal(wire.sent.length, 3, '409, 503, then the service');
  t.equal(new Set(wire.sent.map((r) => r.headers.get('idempotency-key'))).size, 1, 'one key on the three attempts');
  t.equal(waits.length, 2);
  const all = [];
  for await (const pi of sika.list('/api/v1/payment-intents')) all.push(pi.id);
  t.same(all, [intent.id], 'one payment intent');

  const always = recording(() => stillRunning());
  const gives = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: always.fetch, sleep: clockSleep().sleep, maxRetries: 2 });
  const error = await gives.post('/api/v1/payment-intents', { body: { amount: 8_001, currency: 'xof', transaction_country: 'SN' } }).catch((e: unknown) => e);
  t.match(error, { name: 'SikaError', status: 409, code: 'IKW-IDM-003', retryable: true, requestId: 'req_injected' });
  t.equal(always.sent.length, 3, 'an attempt and two retries, then the error');
  t.equal(new Set(always.sent.map((r) => r.headers.get('idempotency-key'))).size, 1);

  const down = recording(() => proxyDown());
  const behind = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: down.fetch, sleep: clockSleep().sleep, maxRetries: 1 });
  t.match(await behind.get('/api/v1/balance').catch((e: unknown) => e), { name: 'SikaError', status: 503, code: undefined, retryable: true, message: 'HTTP 503' }, "a 5xx that is not the API's own");
  t.equal(down.sent.length, 2);
});

t.test('429: waits as Retry-After says, then succeeds; other refusals are not retried', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const wire = recording();
  const { waits, sleep } = clockSleep();
  const sika = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: wire.fetch, sleep, maxRetries: 2 });
  for (let i = 0; i < 5; i++) await sika.get('/api/v1/balance'); // the 5 of this second
  const balance = await sika.get('/api/v1/balance');
  t.equal(balance.object, 'balance');
  t.equal(wire.sent.length, 7, 'the sixth was refused once, then sent again');
  t.equal(waits.length, 1);
  t.ok(waits[0]! > 0 && waits[0]! <= 1_000, `waited ${waits[0]} ms, as Retry-After said`);

  const before = wire.sent.length;
  const refused = await sika.post('/api/v1/payouts', { body: { amount: -5, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } } }).catch((e: unknown) => e);
  t.ok(refused instanceof SikaError);
  t.match(refused, { status: 400, code: 'IKW-VAL-001', param: 'amount', retryable: false, requestId: /^req_/ });
  t.equal(wire.sent.length - before, 1, 'not retried');

  const missing = await sika.get('/api/v1/payouts/{id}', { params: { path: { id: 'po_missing' } } }).catch((e: unknown) => e);
  t.match(missing, { name: 'SikaError', status: 404, code: 'IKW-RES-001' });
  t.same((missing as InstanceType<typeof SikaError>).errors, [], 'no item errors on a refusal of one thing');

  // A list refused item by item: each bad instruction, by its index, on the error.
  const batch = await sika
    .post('/api/v1/payout-engine/batches', {
      body: {
        currency: 'xof',
        instructions: [
          { amount: 1_000, destination_type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
          { amount: 1_000, destination_type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+2217' },
        ],
      },
    })
    .catch((e: unknown) => e);
  t.match(batch, { status: 400, code: 'IKW-PEN-001', errors: [{ index: 1, code: 'IKW-VAL-007', param: 'instructions.1.msisdn' }] });
  t.equal((batch as InstanceType<typeof SikaError>).errors.length, 1, 'only the bad one');
});

t.test('list: every item of cursor lists and page lists, page after page', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 1_000_000);
  const wire = recording();
  const sika = new Sika({ apiKey: key, baseUrl: svc.baseUrl, fetch: wire.fetch, sleep: clockSleep().sleep });
  const created: string[] = [];
  for (let i = 0; i < 5; i++) {
    created.push((await sika.post('/api/v1/payment-intents', { body: { amount: 1_000 + i, currency: 'xof', transaction_country: 'SN' } })).id);
    svc.clock.advance(1_000); // the rate limit's next window
  }
  const before = wire.sent.length;
  const cursor: string[] = [];
  for await (const pi of sika.list('/api/v1/payment-intents', { params: { query: { limit: 2 } } })) cursor.push(pi.id);
  t.same(cursor, [...created].reverse(), 'newest first, all five');
  t.equal(wire.sent.length - before, 3, 'three pages of two');
  t.match(wire.sent.at(-1)!.url, new RegExp(`starting_after=${created[1]}`));

  const payouts: string[] = [];
  for (let i = 0; i < 3; i++) {
    payouts.push((await sika.post('/api/v1/payouts', { body: { amount: 1_000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } } })).id);
    svc.clock.advance(1_000);
  }
  const paged: string[] = [];
  for await (const p of sika.list('/api/v1/merchant/payouts', { params: { query: { limit: 2 } } })) paged.push(p.id);
  t.same([...paged].sort(), [...payouts].sort(), 'a page list: every payout');
  t.match(wire.sent.at(-1)!.url, /page=2/);
});

t.test('webhooks.verify: a real delivery verifies; a changed one does not', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const sika = new Sika({ apiKey: key, baseUrl: svc.baseUrl, sleep: clockSleep().sleep });
  const intent = await sika.post('/api/v1/payment-intents', { body: { amount: 3_000, currency: 'xof', transaction_country: 'SN' } });
  await settle(svc);
  await receiver.received(1);
  const delivery = receiver.requests[0]!;
  const event = sika.webhooks.verify(delivery.body, delivery.headers, endpoint.secret);
  t.match(event, { object: 'event', type: 'payment_intent.created', data: { id: intent.id } });
  t.same(await sika.get('/api/v1/events/{id}', { params: { path: { id: event.id } } }), event, 'the events API holds the same event');
  t.throws(() => sika.webhooks.verify(delivery.body.replace('3000', '3001'), delivery.headers, endpoint.secret));
  t.throws(() => sika.webhooks.verify(delivery.body, delivery.headers, 'whsec_' + Buffer.alloc(32, 7).toString('base64')));
});
