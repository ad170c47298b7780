/**
 * Hub2Connector against a tiny Hub2 of this file's own over real HTTP on loopback: the three
 * headers, the intent booked before the payment, a lost payment answer (the socket destroyed after
 * the body is read) as OutcomeUnknown and a resend that does not pay twice, a 5xx on the intent as
 * nothing charged, payouts found again by reference, a conflict never rejected, and 429 on the list.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from '#tap';
import { ManualClock } from '#packages/core/clock.js';
import { Hub2Connector, type Hub2Book } from '#packages/connectors/hub2/index.js';
import { OutcomeUnknown, type CollectRequest, type PayoutRequest } from '#packages/connectors/port.js';

type Fault = 'destroy' | { status: number; code: string };

interface Hub2 {
  url: string;
  /** Every request as it came: method, path with query, body. */
  seen: { method: string; path: string; body: unknown }[];
  intents: Map<string, Record<string, unknown>>;
  transfers: Record<string, unknown>[];
  /** A fault for the next request to `METHOD path` (path without query); used once. */
  faults: Map<string, Fault>;
  /** Called as a payments POST arrives, before it is answered. */
  onPayment?: () => Promise<void>;
}

async function fakeHub2(t: Test): Promise<Hub2> {
  const hub2: Hub2 = { url: '', seen: [], intents: new Map(), transfers: [], faults: new Map() };
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url!, 'http://x');
        const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>) : undefined;
        hub2.seen.push({ method: req.method!, path: req.url!, body });
        const send = (status: number, json: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
        if (req.headers.apikey !== 'key' || req.headers.merchantid !== 'm_1' || req.headers.environment !== 'sandbox') return send(401, { status: 401, code: 'unauthorized', message: 'no', request_id: 'r' });
        const route = `${req.method} ${url.pathname.replace(/\/(pi|tr)_[0-9]+/, '/$1_')}`;
        const fault = hub2.faults.get(route);
        hub2.faults.delete(route);
        const id = url.pathname.split('/')[2] ?? '';
        let answer: [number, unknown];
        if (route === 'POST /payment-intents') {
          const intent = { id: `pi_${++n}`, token: `tok_${n}`, status: 'payment_required', payments: [] as unknown[], ...body, merchantId: 'm_1', mode: 'sandbox' };
          hub2.intents.set(intent.id, intent);
          answer = [201, intent];
        } else if (route === 'POST /payment-intents/pi_/payments') {
          await hub2.onPayment?.();
          const intent = hub2.intents.get(id)!;
          const msisdn = (body!.mobileMoney as { msisdn: string }).msisdn;
          const nextAction = msisdn.endsWith('999') ? { type: 'redirection', data: { url: 'https://pay.example/w/1', method: 'GET', headers: {}, data: {} } } : undefined;
          (intent.payments as unknown[]).push({
            id: `pay_${++n}`,
            intentId: id,
            status: nextAction ? 'action_required' : 'pending',
            amount: intent.amount,
            currency: intent.currency,
            provider: body!.provider,
            country: body!.country,
            ...(nextAction ? { nextAction } : {}),
          });
          intent.status = 'processing';
          answer = [201, intent];
        } else if (route === 'GET /payment-intents/pi_') {
          answer = hub2.intents.has(id) ? [200, hub2.intents.get(id)] : [404, { status: 404, code: 'not_found', message: 'no intent', request_id: 'r' }];
        } else if (route === 'POST /transfers') {
          const transfer = { id: `tr_${++n}`, status: 'created', ...body, fees: [], mode: 'sandbox' };
          hub2.transfers.push(transfer);
          answer = [201, transfer];
        } else if (route === 'GET /transfers') {
          answer = [200, hub2.transfers.filter((x) => x.reference === url.searchParams.get('reference'))];
        } else if (route === 'GET /transfers/tr_') {
          answer = [200, hub2.transfers.find((x) => x.id === id)];
        } else if (route === 'GET /balance') {
          answer = [200, { balances: [{ currency: 'XOF', collection: { available: 1000 }, transfer: { available: 500, reserved: 100 } }] }];
        } else answer = [404, { status: 404, code: 'not_found', message: route, request_id: 'r' }];
        // A lost answer: the request was taken, then the connection breaks.
        if (fault === 'destroy') return req.socket.destroy();
        if (fault) return send(fault.status, { status: fault.status, code: fault.code, message: 'injected', request_id: 'req_1' });
        send(...answer);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  hub2.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return hub2;
}

function memoryBook(): Hub2Book & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: async (k) => entries.get(k) ?? null,
    put: async (k, v) => void entries.set(k, v),
    claim: async (k, v, replacing) => {
      if ((entries.get(k) ?? null) !== replacing) return false;
      entries.set(k, v);
      return true;
    },
  };
}

async function stand(t: Test) {
  const hub2 = await fakeHub2(t);
  const book = memoryBook();
  const connector = new Hub2Connector({ baseUrl: hub2.url, apiKey: 'key', merchantId: 'm_1', environment: 'sandbox', clock: new ManualClock(), book, webhookSecret: 'sec', timeoutMs: 2000 });
  return { hub2, book, connector };
}

const collect = (over: Partial<CollectRequest> = {}): CollectRequest => ({
  operationId: 'op_1',
  paymentIntentId: 'pi_sika_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  amount: 5000,
  currency: 'XOF',
  paymentMethod: { type: 'mobile_money', country: 'CI', operator: 'mtn', msisdn: '+2250512345678' },
  returnUrl: 'https://shop.example/back',
  ...over,
});
const payout = (over: Partial<PayoutRequest> = {}): PayoutRequest => ({
  payoutId: 'po_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  amount: 2500,
  currency: 'XOF',
  destination: { type: 'mobile_money', currency: 'XOF', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
  ...over,
});
const posts = (hub2: Hub2, prefix: string) => hub2.seen.filter((s) => s.method === 'POST' && s.path.startsWith(prefix)).length;

t.test('collect: the intent is booked before the payment; the status follows the payment', async (t) => {
  const { hub2, book, connector } = await stand(t);
  let bookedAtPayment: string | undefined;
  hub2.onPayment = async () => void (bookedAtPayment = book.entries.get('intent:op_1'));
  t.same(await connector.collect(collect()), { status: 'processing' });
  t.same(JSON.parse(bookedAtPayment!), { id: 'pi_1', token: 'tok_1' }, 'booked before the payment was posted');
  t.same(hub2.seen[0]!.body, { customerReference: 'pi_sika_1', purchaseReference: 'op_1', amount: 5000, currency: 'XOF' });
  t.same(hub2.seen[1]!.body, { token: 'tok_1', paymentMethod: 'mobile_money', country: 'CI', provider: 'mtn', mobileMoney: { msisdn: '+2250512345678' } });
  t.match(await connector.collectStatus(collect()), { found: true, final: null });
  const intent = hub2.intents.get('pi_1')!;
  (intent.payments as Record<string, unknown>[])[0]!.status = 'successful';
  intent.status = 'successful';
  t.same(await connector.collectStatus(collect()), { found: true, final: { status: 'succeeded', providerReference: 'pay_2' }, reported: { amount: 5000, currency: 'xof', providerReference: 'pay_2' } });
  t.same(await connector.attemptOfIntent('pi_1'), { operationId: 'op_1', paymentIntentId: 'pi_sika_1' });
  t.equal(await connector.attemptOfIntent('pi_404'), null);
  t.same(await connector.collectStatus(collect({ operationId: 'op_none' })), { found: false });
  t.match(await connector.collect(collect({ operationId: 'op_2', paymentMethod: { type: 'mobile_money', country: 'CI', operator: 'wave', msisdn: '+2250512345999' } })), {
    status: 'requires_action',
    nextAction: { redirect_to_url: { url: 'https://pay.example/w/1', return_url: 'https://shop.example/back' } },
  });
});

t.test('collect: a lost payment answer is OutcomeUnknown; a resend answers from the intent, never pays twice', async (t) => {
  const { hub2, connector } = await stand(t);
  hub2.faults.set('POST /payment-intents/pi_/payments', 'destroy');
  await t.rejects(connector.collect(collect()), OutcomeUnknown);
  t.same(await connector.collect(collect()), { status: 'processing' }, 'answered from the payment Hub2 kept');
  t.equal(posts(hub2, '/payment-intents/pi_1/payments'), 1);
  t.equal(posts(hub2, '/payment-intents'), 2, 'one intent, one payment');
  hub2.faults.set('POST /payment-intents/pi_/payments', { status: 502, code: 'bad_gateway' });
  await t.rejects(connector.collect(collect({ operationId: 'op_5xx' })), OutcomeUnknown, 'a 5xx on the payment');
});

t.test('collect: a 5xx or lost answer on the intent is nothing charged (IKW-PRV-002); amounts refused before any call', async (t) => {
  const { hub2, book, connector } = await stand(t);
  hub2.faults.set('POST /payment-intents', { status: 503, code: 'service_unavailable' });
  await t.rejects(connector.collect(collect()), { name: 'ApiError', code: 'IKW-PRV-002' });
  hub2.faults.set('POST /payment-intents', 'destroy');
  await t.rejects(connector.collect(collect()), { name: 'ApiError', code: 'IKW-PRV-002' });
  t.equal(book.entries.size, 0);
  t.equal(posts(hub2, '/payment-intents/'), 0, 'no payment posted');
  t.throws(() => connector.assertCanCollect(collect().paymentMethod, { amount: 5003, currency: 'XOF' }), { code: 'IKW-PRV-016', param: 'amount', message: /5,000 and 5,005/ });
  t.throws(() => connector.assertCanPayOut({ ...payout().destination, msisdn: '+2250512345678' } as never), { code: 'IKW-VAL-007', param: 'destination.msisdn' });
  await t.rejects(connector.collect(collect({ amount: 50 })), { code: 'IKW-PRV-016' });
  t.equal(hub2.seen.length, 2);
});

t.test('payout: booked on 201, never posted twice; a lost answer found again by reference; 429 throws', async (t) => {
  const { hub2, book, connector } = await stand(t);
  t.same(await connector.payout(payout()), { status: 'accepted' });
  t.equal(book.entries.get('transfer:po_1'), 'tr_1');
  t.same(await connector.payout(payout()), { status: 'accepted' }, 'booked: not posted again');
  t.equal(posts(hub2, '/transfers'), 1);
  t.match(hub2.seen[0]!.body, { reference: 'po_1', amount: 2500, currency: 'XOF', destination: { type: 'mobile_money', country: 'SN', recipientName: 'Sika payout', msisdn: '+221771234567', provider: 'orange' } });
  hub2.transfers[0]!.status = 'successful';
  t.same(await connector.payoutStatus(payout()), { found: true, final: { type: 'paid', providerReference: 'tr_1' }, reported: { amount: 2500, currency: 'xof', providerReference: 'tr_1' } });

  hub2.faults.set('POST /transfers', 'destroy');
  await t.rejects(connector.payout(payout({ payoutId: 'po_2' })), OutcomeUnknown);
  t.notOk(book.entries.has('transfer:po_2'));
  t.match(await connector.payoutStatus(payout({ payoutId: 'po_2' })), { found: true, final: null }, 'found by reference');
  t.ok(hub2.seen.some((s) => s.path === '/transfers?reference=po_2'));
  t.equal(book.entries.get('transfer:po_2'), 'tr_2', 'booked once found');

  t.same(await connector.payoutStatus(payout({ payoutId: 'po_none' })), { found: false }, 'the list has none');
  hub2.faults.set('GET /transfers', { status: 429, code: 'too_many_requests' });
  await t.rejects(connector.payoutStatus(payout({ payoutId: 'po_none' })), /HTTP 429/);
});

t.test('payout: refusals are rejected with a failure; a conflict is never rejected', async (t) => {
  const { hub2, connector } = await stand(t);
  hub2.faults.set('POST /transfers', { status: 402, code: 'insufficient_funds' });
  t.match(await connector.payout(payout({ payoutId: 'po_a' })), { status: 'rejected', failureCode: 'provider_balance_insufficient' });
  hub2.faults.set('POST /transfers', { status: 409, code: 'conflict' });
  await t.rejects(connector.payout(payout({ payoutId: 'po_b' })), OutcomeUnknown);
  hub2.faults.set('POST /transfers', { status: 503, code: 'service_unavailable' });
  await t.rejects(connector.payout(payout({ payoutId: 'po_c' })), OutcomeUnknown);
  t.same(await connector.walletBalances(), [{ wallet: 'XOF', currency: 'xof', amount: 1600 }]);
  const unsigned = new Hub2Connector({ baseUrl: hub2.url, apiKey: 'key', merchantId: 'm_1', environment: 'sandbox', clock: new ManualClock(), book: memoryBook(), webhookSecret: null });
  const body = Buffer.from('{"type":"payment.succeeded","data":{"intentId":"pi_1"}}');
  const header = `s1=${createHmac('sha256', 'sec').update(body).digest('hex')}`;
  t.ok(connector.signed(body, header));
  t.notOk(unsigned.signed(body, header), 'no secret: every webhook refused');
  t.same(connector.eventOf(body), { kind: 'collect', hub2IntentId: 'pi_1' });
  t.same(await connector.refund(), { status: 'rejected', failureCode: 'refund_not_supported', failureMessage: 'Hub2 does not refund mobile money payments' });
});

t.test('HUB2_PAYOUT_OPERATORS: payouts only to the operators the account names; pay-ins as before', async (t) => {
  const hub2 = await fakeHub2(t);
  const connector = new Hub2Connector({ baseUrl: hub2.url, apiKey: 'key', merchantId: 'm_1', environment: 'sandbox', clock: new ManualClock(), book: memoryBook(), webhookSecret: 'sec', payoutOperators: ['ML:orange_money'] });
  const tmoney = { rail: 'mobile_money', country: 'TG', operator: 'tmoney', currency: 'XOF' } as const;
  t.ok(connector.serves('payout', { rail: 'mobile_money', country: 'ML', operator: 'orange_money' }), 'a named operator is paid out to');
  t.notOk(connector.serves('payout', tmoney), 'one it does not name is not');
  t.ok(connector.serves('collect', tmoney), 'and is still collected from');
  t.throws(() => connector.assertCanPayOut({ type: 'mobile_money', currency: 'XOF', country: 'TG', operator: 'tmoney', msisdn: '+22890123456' }), { code: 'IKW-PRV-001' });
  const every = new Hub2Connector({ baseUrl: hub2.url, apiKey: 'key', merchantId: 'm_1', environment: 'sandbox', clock: new ManualClock(), book: memoryBook(), webhookSecret: 'sec' });
  t.ok(every.serves('payout', tmoney), 'unset: every operator Hub2 pays out to');
});
