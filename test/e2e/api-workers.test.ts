/**
 * Several API worker processes on one database (API_WORKERS, docs/performance.md): 40 payouts
 * fired at once on one merchant's balance are served by both workers, which race on the same
 * balance stream; every payout is answered once and exists, and the balance is the funding less
 * Σ (amount + fee). SIGTERM to the service stops the workers, then the service.
 */
import t from '#tap';
import { crashableService } from '../support/child-process.js';

const PAYOUTS = 40;
const wallet = { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' };

t.test('two API workers race on one balance: every payout once, the balance exact', async (t) => {
  const { api, serve, sandboxKey } = await crashableService(t, 'Workers test', { API_WORKERS: '2' });
  const headers = { authorization: `Bearer ${sandboxKey}`, 'content-type': 'application/json', 'x-environment': 'sandbox' };
  const request = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await fetch(`${api}${path}`, { method, headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { id?: string; fee?: number; amount?: number } };
  };
  const available = async () => ((await request('GET', '/api/v1/balance')).body.available as { amount: number }[] | undefined)?.[0]?.amount ?? 0;

  const service = await serve();
  t.match(service.output(), /"api_workers":2/, 'the service says it runs two workers');
  const funding = await request('POST', '/api/v1/payment-intents', { amount: 500_000, currency: 'xof', transaction_country: 'SN' });
  t.equal((await request('POST', `/api/v1/payment-intents/${funding.body.id}/confirm`, { payment_method: { type: 'mobile_money', mobile_money: wallet } })).status, 200);
  // The sandbox operator answers after 200 ms of real time (a real process: no manual clock here).
  const deadline = Date.now() + 15_000;
  let funded: number;
  while ((funded = await available()) === 0) {
    if (Date.now() > deadline) throw new Error('the funding payment never became available');
    await new Promise((r) => setTimeout(r, 50));
  }

  const answers = await Promise.all(
    Array.from({ length: PAYOUTS }, (_, i) => request('POST', '/api/v1/payouts', { amount: 1_000 + i, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'wave', msisdn: '+221771234599' } }, `payout-${i}`)),
  );
  t.same(
    answers.map((a) => a.status),
    answers.map(() => 200),
    'every payout accepted',
  );
  t.equal(new Set(answers.map((a) => a.body.id)).size, PAYOUTS, 'each its own payout');
  const spent = answers.reduce((sum, a) => sum + a.body.amount! + a.body.fee!, 0);
  t.equal(await available(), funded - spent, 'available = funding − Σ (amount + fee)');
  for (const a of answers) t.equal((await request('GET', `/api/v1/payouts/${a.body.id}`)).status, 200);

  const servedBy = new Set([...service.output().matchAll(/"worker":(\d+)[^\n]*"path":"\/api\/v1\/payouts","status":200/g)].map((m) => m[1]));
  t.equal(servedBy.size, 2, 'both workers answered payouts');

  service.child.kill('SIGTERM');
  t.equal(await service.exit, 0, 'stopped cleanly, workers first');
});
