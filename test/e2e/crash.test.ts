/**
 * The crash test: the service is killed with SIGKILL while 32 clients create payouts, 8 create
 * payment intents and 8 confirm others, each request with its own Idempotency-Key; it is started again and every client
 * retries what it got no answer for, with the same key and body. Then: no key made two objects,
 * every acknowledged object exists, every balance transaction points to an object that exists,
 * the balance is the funding less what was paid out, and in-flight payouts are final within 10 s.
 */
import t from '#tap';
import { crashableService, until } from '../support/child-process.js';

const PAYOUTS = 32;
const PAYMENTS = 8;
const PAYOUT_AMOUNT = 150;
const FUNDING = 200_000;
const wallet = { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' };

interface Call {
  key: string;
  method: 'POST';
  path: string;
  body: unknown;
  /** The answer, once one arrived (before or after the crash). */
  answer?: { status: number; body: { id?: string; code?: string } };
}

t.test('SIGKILL during payouts and payments, restart, retries with the same keys: nothing twice, nothing lost', async (t) => {
  const { api, serve, sandboxKey } = await crashableService(t, 'Crash test');
  const headers = { authorization: `Bearer ${sandboxKey}`, 'content-type': 'application/json', 'x-environment': 'sandbox' };
  const request = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await fetch(`${api}${path}`, { method, headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { id?: string; code?: string } };
  };

  let service = await serve();
  // Funding: one payment that succeeds; its net is what the payouts draw on.
  const funding = await request('POST', '/api/v1/payment-intents', { amount: FUNDING, currency: 'xof', transaction_country: 'SN' });
  t.equal(funding.status, 200, 'funding payment created');
  const confirmed = await request('POST', `/api/v1/payment-intents/${funding.body.id}/confirm`, { payment_method: { type: 'mobile_money', mobile_money: wallet } });
  t.equal(confirmed.status, 200, 'and confirmed');
  const funded = await until('the funding payment is available', async () => {
    const b = await request('GET', '/api/v1/balance');
    const available = (b.body.available as { amount: number }[] | undefined)?.[0]?.amount ?? 0;
    return available > 0 ? available : undefined;
  });

  const toConfirm: string[] = [];
  for (let i = 0; i < PAYMENTS; i++) toConfirm.push((await request('POST', '/api/v1/payment-intents', { amount: 2_000 + i, currency: 'xof', transaction_country: 'SN' })).body.id!);

  const calls: Call[] = [
    ...Array.from({ length: PAYOUTS }, (_, i): Call => ({
      key: `payout-${i}`,
      method: 'POST',
      path: '/api/v1/payouts',
      body: { amount: PAYOUT_AMOUNT, currency: 'xof', destination: { type: 'mobile_money', ...wallet } },
    })),
    ...Array.from({ length: PAYMENTS }, (_, i): Call => ({
      key: `payment-${i}`,
      method: 'POST',
      path: '/api/v1/payment-intents',
      body: { amount: 1_000 + i, currency: 'xof', transaction_country: 'SN' },
    })),
    ...toConfirm.map((id, i): Call => ({
      key: `confirm-${i}`,
      method: 'POST',
      path: `/api/v1/payment-intents/${id}/confirm`,
      body: { payment_method: { type: 'mobile_money', mobile_money: wallet } },
    })),
  ];
  // Killed by the answer that makes a quarter, not at the next poll: a fast service had answered
  // all 48 within one poll's 50 ms.
  let killed = false;
  const send = (c: Call) =>
    request(c.method, c.path, c.body, c.key).then(
      (answer) => {
        if (answer.status !== 409 || answer.body.code !== 'IKW-IDM-003') c.answer = answer;
        if (!killed && calls.filter((x) => x.answer).length >= calls.length / 4) {
          killed = true;
          service.child.kill('SIGKILL');
        }
      },
      () => undefined, // the connection died with the process: no answer
    );

  // Kill the service while the requests are in flight.
  const inFlight = calls.map(send);
  await until('the kill, once a quarter of the requests answered', async () => (killed ? true : undefined), 30_000);
  await service.exit;
  await Promise.all(inFlight);
  const unanswered = calls.filter((c) => !c.answer).length;
  t.ok(unanswered > 0, `the kill cut requests off (${unanswered} of ${calls.length} unanswered)`);

  // Restart; every client retries what it has no answer for, with the same key and body.
  service = await serve();
  await until('every request answered after retries', async () => {
    await Promise.all(calls.filter((c) => !c.answer).map(send));
    return calls.every((c) => c.answer) ? true : undefined;
  });
  for (const c of calls) t.equal(c.answer!.status, 200, c.answer!.status === 200 ? c.key : `${c.key}: ${JSON.stringify(c.answer!.body)}`);

  const list = async (path: string) => (await request('GET', `${path}?limit=100`)).body.data as { id: string; status: string }[];
  // The merchant portal's list shows every payout of the merchant, whichever surface made it.
  const payouts = await list('/api/v1/merchant/payouts');
  const payoutIds = new Set(calls.filter((c) => c.path === '/api/v1/payouts').map((c) => c.answer!.body.id));
  t.equal(payouts.length, PAYOUTS, 'one payout per key');
  t.same(new Set(payouts.map((p) => p.id)), payoutIds, 'every acknowledged payout exists, and no other');
  const intents = await list('/api/v1/payment-intents');
  t.equal(intents.length, 2 * PAYMENTS + 1, 'one payment intent per key, the confirmed ones and the funding one');
  for (const c of calls.filter((c) => c.path === '/api/v1/payment-intents'))
    t.ok(
      intents.some((i) => i.id === c.answer!.body.id),
      `${c.key} exists`,
    );

  await until('every payout final within 10 s', async () => ((await list('/api/v1/merchant/payouts')).every((p) => p.status === 'paid') ? true : undefined));
  const received = await until('every confirmed payment final within 10 s', async () => {
    const confirmed = await Promise.all(toConfirm.map(async (id) => (await request('GET', `/api/v1/payment-intents/${id}`)).body as { status: string; amount: number; fee: number }));
    return confirmed.every((pi) => pi.status === 'succeeded') ? confirmed.reduce((sum, pi) => sum + pi.amount - pi.fee, 0) : undefined;
  });
  const fee = (await request('POST', '/api/v1/fees/quote', { amount: PAYOUT_AMOUNT, currency: 'xof', direction: 'payout', method: 'mobile_money', country: 'SN', operator: 'orange_money' })).body.fee as number;
  // A payout shows paid a moment before its ledger side is posted: wait for the balance to settle.
  const settled = await until('no funds left reserved', async () => {
    const b = await request('GET', '/api/v1/balance');
    const of = (field: string) => (b.body[field] as { amount: number }[])[0]?.amount ?? 0;
    return of('reserved') === 0 ? { available: of('available'), reserved: 0 } : undefined;
  });
  t.same(settled, { available: funded + received - PAYOUTS * (PAYOUT_AMOUNT + fee), reserved: 0 }, 'the balance is the funding and the payments, less every payout and its fee, each once');
  const transactions = (await request('GET', '/api/v1/balance-transactions?limit=100')).body.data as { source: string }[];
  for (const source of new Set(transactions.map((x) => x.source))) {
    const path = source.startsWith('po_') ? `/api/v1/payouts/${source}` : `/api/v1/payment-intents/${source}`;
    t.equal((await request('GET', path)).status, 200, `balance transaction source ${source} exists`);
  }

  service.child.kill('SIGTERM');
  t.equal(await service.exit, 0, 'and it stops cleanly');
});
