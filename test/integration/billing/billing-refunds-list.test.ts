/**
 * Issue 65 §8: the refunds of every payment (GET /api/v1/merchant/refunds) against the real server:
 * newest first, cursor pages, the status and period filters, another merchant's refunds never
 * listed, and the CSV export (`Accept: text/csv`) with the same filters, in the time zone asked.
 */
import { parse } from 'csv-parse/sync';
import t from '#tap';
import { assertError, assertOk } from '../../support/payments.js';
import { succeededPayment } from '../../support/billing.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

const refund = async (key: string, paymentId: string, body: Record<string, unknown>) => {
  const res = await svc.request('POST', `/api/v1/merchant/payments/${paymentId}/refund`, { key, body });
  assertOk(t, res);
  return res.body as { id: string; created: number };
};
const list = async (key: string, query = '') => {
  const res = await svc.request('GET', `/api/v1/merchant/refunds${query}`, { key });
  assertOk(t, res);
  return res.body as { object: string; data: { id: string; payment_intent: string }[]; has_more: boolean; url: string };
};
const csv = async (key: string, query = '') => {
  const res = await svc.request('GET', `/api/v1/merchant/refunds${query}`, { key, headers: { accept: 'text/csv' } });
  return { status: res.status, type: res.headers.get('content-type'), header: res.text.split(/\r?\n/)[0], rows: res.status === 200 ? (parse(res.text, { columns: true }) as Record<string, string>[]) : [] };
};

t.test('the refunds of every payment, newest first, filtered, paged; none of another merchant', async (t) => {
  const { key } = await svc.sandboxMerchant('Refunding shop');
  const other = await svc.sandboxMerchant('Other shop');
  await succeededPayment(svc, key, 50_000);
  const shoes = await succeededPayment(svc, key, 10_000);
  const hat = await succeededPayment(svc, key, 8_000);
  const theirPayment = await succeededPayment(svc, other.key, 9_000);
  const first = await refund(key, shoes.id, { amount: 3_000, reason: 'requested_by_customer' });
  svc.clock.advance(60_000);
  const second = await refund(key, hat.id, { reason: 'duplicate' });
  const third = await refund(key, shoes.id, { amount: 1_000 });
  const theirs = await refund(other.key, theirPayment.id, { amount: 500 });

  const all = await list(key);
  t.match(all, { object: 'list', has_more: false, url: '/api/v1/merchant/refunds' });
  t.same(
    all.data.map((r) => r.id),
    [third.id, second.id, first.id],
    'every payment’s refunds, newest first',
  );
  t.same(
    all.data.map((r) => r.payment_intent),
    [shoes.id, hat.id, shoes.id],
  );
  t.notOk(
    all.data.some((r) => r.id === theirs.id),
    'another merchant’s refund is not listed',
  );
  t.same(
    (await list(other.key)).data.map((r) => r.id),
    [theirs.id],
    'the other merchant sees only its own',
  );

  const page1 = await list(key, '?limit=2');
  t.same(
    page1.data.map((r) => r.id),
    [third.id, second.id],
  );
  t.equal(page1.has_more, true);
  const page2 = await list(key, `?limit=2&starting_after=${second.id}`);
  t.same(
    page2.data.map((r) => r.id),
    [first.id],
    'the next page after a cursor',
  );
  assertError(t, await svc.request('GET', `/api/v1/merchant/refunds?starting_after=${theirs.id}`, { key }), 'IKW-VAL-001', 'starting_after');

  t.same(
    (await list(key, '?status=succeeded')).data.map((r) => r.id),
    [third.id, second.id, first.id],
    'status',
  );
  t.same((await list(key, '?status=failed')).data, [], 'no failed refund');
  t.same(
    (await list(key, `?created[gte]=${second.created}`)).data.map((r) => r.id),
    [third.id, second.id],
    'period: from the second one',
  );
  t.same(
    (await list(key, `?created[lt]=${second.created}`)).data.map((r) => r.id),
    [first.id],
    'period: before it',
  );
  assertError(t, await svc.request('GET', '/api/v1/merchant/refunds?status=lost', { key }), 'IKW-VAL-001', 'status');

  const file = await csv(key, '?time_zone=Africa/Lagos');
  t.equal(file.status, 200);
  t.match(file.type, /^text\/csv/);
  t.equal(file.header, 'id,created,payment_intent,amount,currency,reason,status,failure_code,failure_message');
  t.same(
    file.rows.map((r) => r.id),
    [third.id, second.id, first.id],
    'the export: newest first',
  );
  t.match(file.rows[2], { payment_intent: shoes.id, amount: '3000', currency: 'xof', reason: 'requested_by_customer', status: 'succeeded' });
  t.match(file.rows[2]!.created, /\+01:00$/, 'created in Lagos’s time');
  t.same(
    (await csv(key, `?created[gte]=${second.created}`)).rows.map((r) => r.id),
    [third.id, second.id],
    'the export takes the list’s period',
  );
  t.same(
    (await csv(other.key)).rows.map((r) => r.id),
    [theirs.id],
    'another merchant exports only its own',
  );
  assertError(t, await svc.request('GET', '/api/v1/merchant/refunds?time_zone=Mars/Olympus', { key, headers: { accept: 'text/csv' } }), 'IKW-VAL-001', 'time_zone');
});

t.test('an export of more refunds than one batch streams them all, none twice', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Many refunds');
  const paid = await succeededPayment(svc, key, 10_000);
  const real = await refund(key, paid.id, { amount: 100 });
  // 2,500 stored refunds (two and a half export batches) written straight into the read model.
  await svc.system.knex.raw(
    `INSERT INTO read.refunds (id, seq, merchant_id, environment, payment_intent, status, object)
     SELECT 're_bulk' || lpad(n::text, 6, '0'), 'zz' || lpad(n::text, 8, '0'), ?, 'sandbox', ?, 'succeeded',
            json_build_object('id', 're_bulk' || lpad(n::text, 6, '0'), 'object', 'refund', 'amount', 1, 'currency', 'xof', 'payment_intent', ?::text,
                              'status', 'succeeded', 'reason', null, 'failure_reason', null, 'created', 1767225600, 'livemode', false)
     FROM generate_series(1, 2500) AS n`,
    [merchant.id, paid.id, paid.id],
  );
  const file = await csv(key);
  t.equal(file.rows.length, 2_501, 'every refund, no limit of rows');
  t.equal(new Set(file.rows.map((r) => r.id)).size, 2_501, 'none twice across batches');
  // The stored ones' seq ('zz…') sorts after every event position: they are the newest.
  t.same([file.rows[0]!.id, file.rows[2_499]!.id, file.rows[2_500]!.id], ['re_bulk002500', 're_bulk000001', real.id], 'newest first');
});
