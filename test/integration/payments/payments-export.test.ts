import { parse } from 'csv-parse/sync';
import t from '#tap';
import { startPaymentsService, type TestService } from '../../support/system.js';
import { assertError, bulkPayments, confirm, createIntent, mobileMoney as payerMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { fundedMerchant, mobileMoney, payout } from '../../support/payouts.js';

/**
 * Issue 65 §8: payments and payouts as CSV (`Accept: text/csv` on their lists): every match, the
 * lists' filters, times in the asked time zone, streamed page by page from the read model, and
 * never another merchant's rows.
 */

async function csv(svc: TestService, key: string, path: string): Promise<{ status: number; type: string | null; rows: Record<string, string>[]; header: string }> {
  const res = await svc.request('GET', path, { key, headers: { accept: 'text/csv' } });
  const rows = res.status === 200 ? (parse(res.text, { columns: true }) as Record<string, string>[]) : [];
  return { status: res.status, type: res.headers.get('content-type'), rows, header: res.text.split(/\r?\n/)[0] ?? '' };
}

t.test('payments: every one of 10,000 exported, filtered as the list, in the time zone asked, none of another merchant', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await fundedMerchant(svc, 10_000);
  const other = await svc.sandboxMerchant('Other shop');
  const paid = await createIntent(svc, key, { amount: 7_500, description: 'Red shoes' });
  if ((await confirm(svc, key, paid.id, { payment_method: payerMoney(snNumber('00')) })).status !== 200) throw new Error('confirm failed');
  await operatorAnswers(svc);
  const open = await createIntent(svc, key, { amount: 2_000, description: 'Straw hat' });
  const theirs = await createIntent(svc, other.key, { amount: 3_000, description: 'Their hat' });

  const small = await csv(svc, key, '/api/v1/payment-intents?time_zone=Africa/Lagos');
  t.equal(small.status, 200);
  t.match(small.type, /^text\/csv/);
  t.equal(small.header, 'id,created,description,customer,amount,currency,fee,status,failure_code,failure_message,method,operator,number,operation,provider_reference');
  t.same(
    small.rows.map((r) => r.id),
    [open.id, paid.id],
    'newest first, as the list',
  );
  const shoes = small.rows[1]!;
  t.equal(shoes.created, '2026-01-01T01:00:00+01:00', 'created in Lagos’s time (the clock starts at midnight UTC)');
  t.match(shoes, { description: 'Red shoes', amount: '7500', currency: 'xof', status: 'succeeded', method: 'mobile_money', operator: 'orange_money' });
  t.match(shoes.number, /4500$/, 'the number as the API keeps it (its last digits)');
  t.equal((await csv(svc, key, '/api/v1/payment-intents')).rows[1]!.created, '2026-01-01T00:00:00Z', 'UTC by default');

  t.same(
    (await csv(svc, key, '/api/v1/payment-intents?status=succeeded')).rows.map((r) => r.id),
    [paid.id],
    'status',
  );
  t.same(
    (await csv(svc, key, '/api/v1/payment-intents?amount[lte]=5000')).rows.map((r) => r.id),
    [open.id],
    'amount',
  );
  t.same(
    (await csv(svc, key, '/api/v1/payment-intents?q=shoes')).rows.map((r) => r.id),
    [paid.id],
    'search',
  );
  t.same(
    (await csv(svc, key, '/api/v1/payment-intents?created[gte]=1767225601')).rows.map((r) => r.id),
    [open.id],
    'period: the one made after the first second (the operator’s answer moved the clock)',
  );
  t.same(
    (await csv(svc, other.key, '/api/v1/payment-intents')).rows.map((r) => r.id),
    [theirs.id],
    'another merchant gets only its own',
  );
  t.notOk(
    small.rows.some((r) => r.id === theirs.id),
    'and its rows never appear in this one’s',
  );
  assertError(t, await svc.request('GET', '/api/v1/payment-intents?time_zone=Mars/Olympus', { key, headers: { accept: 'text/csv' } }), 'IKW-VAL-001', 'time_zone');

  await bulkPayments(svc, merchant.id, 10_000, 1_767_300_000);
  const started = Date.now();
  const all = await csv(svc, key, '/api/v1/payment-intents');
  const ms = Date.now() - started;
  t.comment(`10,002 payments exported in ${ms} ms`);
  t.equal(all.rows.length, 10_002, 'every payment, no limit of rows');
  t.equal(new Set(all.rows.map((r) => r.id)).size, 10_002, 'none twice across the export’s batches');
  t.same([all.rows[0]!.id, all.rows[9_999]!.id, all.rows[10_000]!.id], ['pi_bulk010000', 'pi_bulk000001', open.id], 'newest first');
  t.equal(all.rows[0]!.description, 'Bulk, order 10000', 'a comma inside a cell is quoted');
  t.equal((await csv(svc, key, '/api/v1/payment-intents?amount[gte]=10990')).rows.length, 11, 'filters hold across batches');
  t.same(
    (await csv(svc, other.key, '/api/v1/payment-intents')).rows.map((r) => r.id),
    [theirs.id],
    'another merchant still sees only its own',
  );
});

t.test('payouts: exported with the list’s status filter and a period, none of another merchant', async (t) => {
  const svc = await startPaymentsService(t);
  const { key } = await fundedMerchant(svc, 100_000);
  const other = await fundedMerchant(svc, 100_000);
  const first = await payout(svc, key, { amount: 10_000, destination: mobileMoney('41') });
  svc.clock.advance(60_000);
  const second = await payout(svc, key, { amount: 20_000, destination: mobileMoney('42') });
  const theirs = await payout(svc, other.key, { amount: 5_000, destination: mobileMoney('43') });

  const mine = await csv(svc, key, '/api/v1/merchant/payouts?time_zone=Africa/Douala');
  t.equal(mine.status, 200);
  t.equal(mine.header, 'id,created,recipient,operator,number,amount,currency,fee,status,failure_code,failure_message,provider_reference');
  t.same(
    mine.rows.map((r) => r.id),
    [second.id, first.id],
    'newest first',
  );
  t.match(mine.rows[1], { created: '2026-01-01T01:00:00+01:00', amount: '10000', currency: 'xof', status: first.status, operator: first.destination.operator });
  t.same(
    (await csv(svc, key, '/api/v1/merchant/payouts?created[gte]=1767225660')).rows.map((r) => r.id),
    [second.id],
    'period',
  );
  t.same((await csv(svc, key, '/api/v1/merchant/payouts?status=paid')).rows, [], 'status');
  t.same(
    (await csv(svc, other.key, '/api/v1/merchant/payouts')).rows.map((r) => r.id),
    [theirs.id],
    'another merchant gets only its own',
  );
  const json = await svc.request('GET', '/api/v1/merchant/payouts?created[gte]=1767225660', { key });
  t.same(
    (json.body as { data: { id: string }[] }).data.map((p) => p.id),
    [second.id],
    'the JSON list takes the period too',
  );
});
