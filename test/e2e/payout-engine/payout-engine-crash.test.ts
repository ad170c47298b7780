/**
 * Crash-resume of a payout batch: the service is killed with SIGKILL while a batch is being sent,
 * then started again. The runner resumes where it stood: every item ends paid exactly once (one
 * payout per item, no other), and the balance is the funding less each item's amount and fee, once.
 */
import t from '#tap';
import { crashableService, until } from '../../support/child-process.js';

const ITEMS = 600;
const AMOUNT = 150;
const wallet = { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' };

t.test('SIGKILL mid-batch, restart: the batch completes and no item is paid twice', async (t) => {
  const { api, serve, sandboxKey } = await crashableService(t, 'Batch crash test');
  const headers = { authorization: `Bearer ${sandboxKey}`, 'x-environment': 'sandbox' };
  const request = async (method: string, path: string, body?: string, contentType = 'application/json') => {
    const res = await fetch(`${api}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': contentType }) }, ...(body === undefined ? {} : { body }) });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const available = async () => {
    const b = await request('GET', '/api/v1/balance');
    const of = (field: string) => (b.body[field] as { amount: number }[] | undefined)?.[0]?.amount ?? 0;
    return { available: of('available'), reserved: of('reserved') };
  };

  let service = await serve();
  const funding = await request('POST', '/api/v1/payment-intents', JSON.stringify({ amount: 300_000, currency: 'xof', transaction_country: 'SN' }));
  await request('POST', `/api/v1/payment-intents/${funding.body.id}/confirm`, JSON.stringify({ payment_method: { type: 'mobile_money', mobile_money: wallet } }));
  const funded = await until('the funding payment is available', async () => ((await available()).available > 0 ? (await available()).available : undefined), 60_000);

  const csv = ['amount,currency,destination_type,country,operator,msisdn,reference', ...Array.from({ length: ITEMS }, (_, i) => `${AMOUNT},XOF,mobile_money,SN,orange_money,${wallet.msisdn},R-${i}`)].join('\n');
  const created = await request('POST', '/api/v1/payout-engine/batches', csv, 'text/csv');
  t.equal(created.status, 200, 'batch created from CSV');
  const batchId = created.body.id as string;
  const fee = (created.body.total_fee as number) / ITEMS;
  t.equal((await request('POST', `/api/v1/payout-engine/batches/${batchId}/execute`)).status, 200, 'executing');

  // Kill once some items have payouts and the batch is not done.
  const atKill = await until(
    'some items sent',
    async () => {
      const b = (await request('GET', `/api/v1/payout-engine/batches/${batchId}`)).body;
      const payouts = (await request('GET', '/api/v1/merchant/payouts?limit=1')).body.total as number;
      return payouts >= 20 ? b : undefined;
    },
    60_000,
  );
  service.child.kill('SIGKILL');
  await service.exit;
  t.equal(atKill.status, 'executing', 'killed mid-batch');
  t.ok(atKill.counts.queued > 0, `items still queued at the kill (${atKill.counts.queued})`);

  service = await serve();
  const done = await until(
    'the batch completed after the restart',
    async () => {
      const b = (await request('GET', `/api/v1/payout-engine/batches/${batchId}`)).body;
      return b.status === 'completed' ? b : undefined;
    },
    120_000,
  );
  t.match(done.counts, { paid: ITEMS, queued: 0, failed: 0, canceled: 0 }, 'every item paid');

  const payouts = (await request('GET', '/api/v1/merchant/payouts?limit=1')).body;
  t.equal(payouts.total, ITEMS, 'one payout per item, and no other');
  const seen = new Set<string>();
  for (let after: number | undefined = undefined; ;) {
    const page = (await request('GET', `/api/v1/payout-engine/batches/${batchId}/items?limit=100${after === undefined ? '' : `&starting_after=${after}`}`)).body as {
      data: { index: number; status: string; payout_id: string; attempt: number }[];
      has_more: boolean;
    };
    for (const item of page.data) {
      if (item.status !== 'paid' || item.attempt !== 1) t.fail(`item ${item.index}: ${item.status}, attempt ${item.attempt}`);
      seen.add(item.payout_id);
      after = item.index;
    }
    if (!page.has_more) break;
  }
  t.equal(seen.size, ITEMS, 'distinct payouts');
  const settled = await until(
    'nothing left reserved',
    async () => {
      const b = await available();
      return b.reserved === 0 ? b : undefined;
    },
    60_000,
  );
  t.same(settled, { available: funded - ITEMS * (AMOUNT + fee), reserved: 0 }, 'balance = funding − Σ(amount + fee), each once');
  const logs = (await request('GET', `/api/v1/payout-engine/batches/${batchId}/execution-logs?limit=100`)).body;
  t.equal(logs.data[0].type, 'payout_batch.created', 'the execution log starts with the batch');

  service.child.kill('SIGTERM');
  t.equal(await service.exit, 0, 'and it stops cleanly');
});
