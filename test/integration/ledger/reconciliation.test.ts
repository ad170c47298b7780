import t from '#tap';
import { REPORTING_ROLE } from '#packages/read-models/reporting.js';
import { startPaymentsService, type TestService } from '../../support/system.js';
import { advance, assertError, balanceTransactions, fund, fundedMerchant, mobileMoney, payout, payoutFee, saveDestination } from '../../support/payouts.js';
import { escrow, ok, paidContract } from '../../support/escrow.js';

/**
 * Issue 20 §4: balance transactions by payout (what each payout drew on), the CSV export, daily
 * summaries per currency and the read-only reporting views.
 */

const DAY = 86_400_000;

async function csv(svc: TestService, key: string, query = '') {
  const res = await svc.request('GET', `/api/v1/balance-transactions${query}`, { key, headers: { accept: 'text/csv' } });
  return { res, lines: res.text.trimEnd().split('\r\n').length > 1 ? res.text.trimEnd().split('\r\n') : res.text.trimEnd().split('\n') };
}

t.test('each payout lists the balance transactions it drew on, first in first out, to the unit', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await fundedMerchant(svc, 100_000);
  svc.clock.advance(1_000);
  await fund(svc, merchant.id, 30_000);
  const [second, first] = await balanceTransactions(svc, key);
  const fee = payoutFee(100_000, { type: 'mobile_money', operator: 'orange_money' });
  const big = await payout(svc, key, { amount: 100_000, destination: mobileMoney('31') });
  const small = await payout(svc, key, { amount: 10_000, destination: mobileMoney('32') });
  await advance(svc);

  const drawn = await balanceTransactions(svc, key, `?payout=${big.id}`);
  t.same(drawn.map((x) => x.id).sort(), [first!.id, second!.id].sort(), 'the first funding whole, the second for the fee');
  const parts = await svc.system.knex('reporting.payout_settlements').where({ payout_id: big.id }).orderBy('amount', 'desc').select('balance_transaction_id', 'amount');
  t.same(
    parts.map((p) => [p.balance_transaction_id, Number(p.amount)]),
    [
      [first!.id, 100_000],
      [second!.id, fee],
    ],
    'amount plus fee, to the unit',
  );
  t.same(
    (await balanceTransactions(svc, key, `?payout=${small.id}`)).map((x) => x.id),
    [second!.id],
    'the next payout continues where the first stopped',
  );

  const other = await svc.sandboxMerchant('Other');
  assertError(t, await svc.request('GET', `/api/v1/balance-transactions?payout=${big.id}`, { key: other.key }), 'IKW-RES-001', 'payout');
  assertError(t, await svc.request('GET', '/api/v1/balance-transactions?payout=po_missing', { key }), 'IKW-RES-001', 'payout');
});

t.test('Accept: text/csv exports every match, oldest first, with a stable header, whatever the size', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await fundedMerchant(svc, 50_000);
  await payout(svc, key, { amount: 10_000, destination: mobileMoney('41') });
  const { res, lines } = await csv(svc, key);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/csv/);
  t.match(res.headers.get('content-disposition'), /attachment; filename="balance_transactions.csv"/);
  t.equal(lines[0], 'id,created,available_on,type,source,status,currency,amount,fee,net');
  t.same(
    lines.slice(1).map((l) => l.split(',')[3]),
    ['payment', 'payout'],
    'oldest first',
  );
  t.match(lines[2], /^txn_\w+,2026-01-01T00:00:00\.000Z,[^,]+,payout,po_\w+,pending,xof,-10000,\d+,-\d+$/);
  t.same((await csv(svc, key, '?type=payout')).lines.length, 2, 'filters apply to the export');

  // Thousands of rows cross the export's pages (1000) without a gap or a repeat.
  await svc.system.knex.raw(
    `INSERT INTO read.balance_transactions (id, seq, merchant_id, environment, type, source, amount, fee, net, currency, status, available_on, created_at, settled_at)
     SELECT 'txn_bulk' || lpad(n::text, 5, '0'), 'zz' || lpad(n::text, 8, '0'), ?, 'sandbox', 'payment', 'pi_bulk' || n, n, 0, n, 'xof', 'available', now(), now(), now()
     FROM generate_series(1, 2500) AS n`,
    [merchant.id],
  );
  const bulk = await csv(svc, key, '?source=');
  const ids = bulk.lines.slice(1).map((l) => l.split(',')[0]);
  t.equal(ids.length, 2502);
  t.equal(new Set(ids).size, 2502, 'no repeats');
  t.same(ids.slice(2, 4), ['txn_bulk00001', 'txn_bulk00002']);
  t.equal(ids.at(-1), 'txn_bulk02500');

  const other = await svc.sandboxMerchant('Other');
  t.same((await csv(svc, other.key)).lines, ['id,created,available_on,type,source,status,currency,amount,fee,net'], "another merchant's export holds none of these");
  assertError(t, await svc.request('GET', '/api/v1/balance-transactions?created[lte]=x', { key, headers: { accept: 'text/csv' } }), 'IKW-VAL-001', 'created[lte]');
});

t.test('daily summaries: opening + in - out - fees = closing, every day, and closing is the balance at the day end', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await fundedMerchant(svc, 80_000); // 2026-01-01
  svc.clock.advance(DAY);
  await payout(svc, key, { amount: 20_000, destination: mobileMoney('51') }); // 2026-01-02, held
  svc.clock.advance(DAY);
  await advance(svc); // 2026-01-03, paid
  await fund(svc, merchant.id, 5_000);
  const fee = payoutFee(20_000, { type: 'mobile_money', operator: 'orange_money' });

  const res = await svc.request('GET', '/api/v1/balance/summaries?from=2025-12-31&to=2026-01-04', { key });
  t.equal(res.status, 200, res.text);
  const days = res.body.data as { date: string; currency: string; opening: number; in: number; out: number; fees: number; closing: number }[];
  t.same(
    days.map((d) => [d.date, d.opening, d.in, d.out, d.fees, d.closing]),
    [
      ['2025-12-31', 0, 0, 0, 0, 0],
      ['2026-01-01', 0, 80_000, 0, 0, 80_000],
      ['2026-01-02', 80_000, 0, 0, 0, 80_000],
      ['2026-01-03', 80_000, 5_000, 20_000, fee, 65_000 - fee],
      ['2026-01-04', 65_000 - fee, 0, 0, 0, 65_000 - fee],
    ],
  );
  for (const d of days) {
    t.equal(d.opening + d.in - d.out - d.fees, d.closing, `${d.date} adds up`);
    const end = Date.parse(`${d.date}T23:59:59Z`) / 1000;
    const then = (await svc.request('GET', `/api/v1/balance?as_of=${end}`, { key })).body;
    const total = ['available', 'pending', 'reserved'].reduce((sum, f) => sum + ((then[f] as { amount: number }[])[0]?.amount ?? 0), 0);
    t.equal(d.closing, total, `${d.date} closes at the balance as it stood at the day's end`);
  }

  const other = await svc.sandboxMerchant('Other');
  t.same((await svc.request('GET', '/api/v1/balance/summaries?from=2026-01-01&to=2026-01-04', { key: other.key })).body.data, [], 'another merchant has no currency yet');
  assertError(t, await svc.request('GET', '/api/v1/balance/summaries?from=2026-01-04&to=2026-01-01', { key }), 'IKW-VAL-001', 'to');
  assertError(t, await svc.request('GET', '/api/v1/balance/summaries?from=2024-01-01&to=2026-01-01', { key }), 'IKW-VAL-001', 'to');
  assertError(t, await svc.request('GET', '/api/v1/balance/summaries?from=2026-02-30&to=2026-03-01', { key }), 'IKW-VAL-001', 'from');
  assertError(t, await svc.request('GET', '/api/v1/balance/summaries?to=2026-01-01', { key }), 'IKW-VAL-001', 'from');

  // The reporting view gives the same days (those with entries) to a finance job reading SQL.
  const viewed = await svc.system.knex('reporting.daily_balances').where({ merchant_id: merchant.id }).orderBy('day').select(svc.system.knex.raw(`to_char(day, 'YYYY-MM-DD') AS date`), 'opening', 'inflow', 'outflow', 'fees', 'closing');
  t.same(
    viewed.map((v) => [v.date, Number(v.opening), Number(v.inflow), Number(v.outflow), Number(v.fees), Number(v.closing)]),
    days.filter((d) => d.in + d.out + d.fees > 0 || d.date === '2026-01-02').map((d) => [d.date, d.opening, d.in, d.out, d.fees, d.closing]),
  );
});

t.test('the reporting role reads the reporting views and nothing else', async (t) => {
  const svc = await startPaymentsService(t);
  await fundedMerchant(svc, 10_000);
  const asReporting = <T>(sql: string) =>
    svc.system.knex.transaction(async (trx) => {
      await trx.raw(`SET LOCAL ROLE ${REPORTING_ROLE}`);
      return (await trx.raw<{ rows: T[] }>(sql)).rows;
    });
  for (const view of ['balances', 'balance_transactions', 'ledger_entries', 'payout_settlements', 'daily_balances']) {
    t.ok(Array.isArray(await asReporting(`SELECT * FROM reporting.${view}`)), `reporting.${view} is readable`);
  }
  t.equal((await asReporting<{ n: string }>('SELECT count(*) AS n FROM reporting.balance_transactions'))[0]!.n, '1');
  for (const forbidden of ['SELECT * FROM read.balances', 'SELECT * FROM events', `UPDATE reporting.balances SET available = 0`, `DELETE FROM reporting.ledger_entries`]) {
    await t.rejects(asReporting(forbidden), { code: '42501' }, `refused: ${forbidden}`);
  }
});

t.test('the reporting view adds up on days with escrow funding, releases and refunds, as the daily summaries do', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await fundedMerchant(svc, 50_000); // 2026-01-01
  svc.clock.advance(DAY);
  // 2026-01-02: a contract funded from the balance (out of available), one funded by a payer (no
  // merchant account moves), releases of both to the balance and a refund to it.
  const fromBalance = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'XOF', amountMinor: 20_000, fundingSourceType: 'merchant_balance' }));
  const { contract: paid } = await paidContract(svc, key, 10_000);
  t.ok(paid.fundedMinor > 0, 'the payer funded the second contract');
  await ok(await escrow(svc, key, 'POST', `/releases/contract/${fromBalance.id}`, { amountMinor: 8_000, mode: 'immediate' }));
  await ok(await escrow(svc, key, 'POST', `/contracts/${fromBalance.id}/refund`, { amountMinor: 2_000 }));
  await ok(await escrow(svc, key, 'POST', `/releases/contract/${paid.id}`, { amountMinor: paid.fundedMinor, mode: 'immediate' }));
  svc.clock.advance(DAY);
  // 2026-01-03: the rest of the first contract released.
  await ok(await escrow(svc, key, 'POST', `/releases/contract/${fromBalance.id}`, { amountMinor: 10_000, mode: 'immediate' }));

  const summaries = (await svc.request('GET', '/api/v1/balance/summaries?from=2026-01-01&to=2026-01-03', { key })).body.data as { date: string; opening: number; in: number; out: number; fees: number; closing: number }[];
  const viewed = await svc.system.knex('reporting.daily_balances').where({ merchant_id: merchant.id }).orderBy('day').select(svc.system.knex.raw(`to_char(day, 'YYYY-MM-DD') AS date`), 'opening', 'inflow', 'outflow', 'fees', 'closing');
  const rows = viewed.map((v) => ({ date: v.date as string, opening: Number(v.opening), in: Number(v.inflow), out: Number(v.outflow), fees: Number(v.fees), closing: Number(v.closing) }));
  t.equal(rows.length, 3, 'a row for each day with entries');
  for (const r of rows) t.equal(r.opening + r.in - r.out - r.fees, r.closing, `${r.date}: opening + inflow - outflow - fees = closing`);
  t.same(
    rows,
    summaries.map((d) => ({ date: d.date, opening: d.opening, in: d.in, out: d.out, fees: d.fees, closing: d.closing })),
    'the same days as GET /api/v1/balance/summaries',
  );
  t.match(rows[1], { out: 20_000, in: 8_000 + 2_000 + paid.fundedMinor }, 'escrow funding out of the balance, releases and the refund into it');
  const now = (await svc.request('GET', '/api/v1/balance', { key })).body;
  t.equal(
    rows.at(-1)!.closing,
    ['available', 'pending', 'reserved'].reduce((sum, f) => sum + ((now[f] as { amount: number }[])[0]?.amount ?? 0), 0),
    'closing is the balance',
  );
});

t.test('daily summaries close at the balance on days with an escrow release paid out, a refund to the payer and a split dispute', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await fundedMerchant(svc, 30_000); // 2026-01-01
  const methodId = await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' });
  svc.clock.advance(DAY);
  // 2026-01-02: a payer funds a contract; part of it is released as a payout (escrow → reserved,
  // then paid with its fee), the rest refunded to the payer (escrow → clearing: none of the
  // merchant's accounts moves). A contract funded from the balance is split by a dispute.
  const { contract: paid } = await paidContract(svc, key, 12_000);
  const r = await ok(await escrow(svc, key, 'POST', `/releases/contract/${paid.id}`, { amountMinor: 7_000 }));
  const done = await ok(await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, { payoutMethodId: methodId }));
  t.ok(done.destination.fee > 0, 'the release is paid out with a fee');
  await advance(svc, 15 * 60_000); // the operator pays it
  await ok(await escrow(svc, key, 'POST', `/contracts/${paid.id}/refund`, {}));
  const split = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'XOF', amountMinor: 10_000, fundingSourceType: 'merchant_balance', defaultReleaseMode: 'immediate' }));
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${split.id}`, { reason: 'Half done' }));
  await ok(await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'split', splitReleaseMinor: 6_000 }));
  svc.clock.advance(DAY);

  const days = (await svc.request('GET', '/api/v1/balance/summaries?from=2026-01-01&to=2026-01-03', { key })).body.data as { date: string; opening: number; in: number; out: number; fees: number; closing: number }[];
  t.equal(days.length, 3);
  for (const day of days) {
    t.equal(day.opening + day.in - day.out - day.fees, day.closing, `${day.date} adds up`);
    const end = Date.parse(`${day.date}T23:59:59Z`) / 1000;
    const then = (await svc.request('GET', `/api/v1/balance?as_of=${end}`, { key })).body;
    const total = ['available', 'pending', 'reserved'].reduce((sum, f) => sum + ((then[f] as { amount: number }[])[0]?.amount ?? 0), 0);
    t.equal(day.closing, total, `${day.date} closes at the balance as it stood at the day's end`);
  }
  t.equal(days[1]!.fees, done.destination.fee, "the release payout's fee is the day's fee");
  const viewed = await svc.system.knex('reporting.daily_balances').where({ merchant_id: merchant.id }).orderBy('day').select(svc.system.knex.raw(`to_char(day, 'YYYY-MM-DD') AS date`), 'opening', 'inflow', 'outflow', 'fees', 'closing');
  t.same(
    viewed.map((v) => ({ date: v.date, opening: Number(v.opening), in: Number(v.inflow), out: Number(v.outflow), fees: Number(v.fees), closing: Number(v.closing) })),
    days.slice(0, 2).map((d) => ({ date: d.date, opening: d.opening, in: d.in, out: d.out, fees: d.fees, closing: d.closing })),
    'the reporting view gives the same days',
  );
});
