/**
 * Payouts racing for one balance, through the real server: the balance check and the hold are
 * one append to the balance stream, so N parallel payouts that together exceed the balance succeed
 * exactly as far as the balance covers amount + fee; the others get IKW-BAL-001 and `available`
 * never goes negative. Idempotency keys under concurrency: one key, one payout.
 */
import t from '#tap';
import { balanceStream, type LedgerEvent } from '#packages/families/ledger/events.js';
import { advance, assertError, balance, balanceTransactions, fund, fundedMerchant, ledgerOf, mobileMoney, payoutFee, postPayout } from '../../support/payouts.js';
import { startPaymentsService, type TestResponse } from '../../support/system.js';

const svc = await startPaymentsService(t);
const N = 50;

t.test(`${N} parallel payouts that together exceed the balance`, async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const amount = 1_000;
  const destination = mobileMoney('67');
  const fee = payoutFee(amount, destination);
  t.equal(fee, 100, 'the minimum fee applies');
  const funded = 20 * (amount + fee) + 999; // covers 20, not 21
  await fund(svc, m.id, funded);
  const expected = Math.floor(funded / (amount + fee));
  t.equal(expected, 20);

  const answers: TestResponse[] = await Promise.all(Array.from({ length: N }, (_, i) => postPayout(svc, key, { amount, currency: 'xof', destination, metadata: { i: String(i) } })));
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  t.equal(ok.length, expected, `exactly ${expected} succeed`);
  t.equal(refused.length, N - expected, 'the rest are refused');
  for (const r of refused) assertError(t, r, 'IKW-BAL-001', 'amount');
  t.equal(new Set(ok.map((a) => a.body.id)).size, expected, 'distinct payouts');
  t.ok(ok.every((a) => a.body.status === 'in_transit' && a.body.fee === fee));

  const held = expected * (amount + fee);
  const after = await balance(svc, key);
  t.same(after, { available: funded - held, pending: 0, reserved: held }, 'available never below zero; the holds are reserved');
  t.ok(after.available >= 0);
  t.equal(after.available + after.reserved, funded, 'available + reserved = funded');

  const { state: ledger } = await ledgerOf(svc, m.id);
  t.equal(ledger.holds.size, expected, 'one hold per successful payout');
  const history = await svc.system.store.readStream(balanceStream(m.id, 'sandbox', 'xof'));
  let running = 0;
  for (const e of history) {
    for (const line of (e.data as LedgerEvent['data']).lines) if (line.account === 'available') running += line.amount;
    t.ok(running >= 0, `available after ${e.version} is ${running}`);
  }
  const rows = await svc.system.knex('read.payouts').where({ merchant_id: m.id });
  t.equal(rows.length, expected, 'read.payouts holds only the successful ones');

  await t.test('once the operator pays them: available + reserved + paid out add up', async (t) => {
    await advance(svc);
    const paid = await balance(svc, key);
    t.same(paid, { available: funded - held, pending: 0, reserved: 0 });
    const { state: settled } = await ledgerOf(svc, m.id);
    const paidOut = settled.balances.get('operator_clearing:orange_money') ?? 0;
    const fees = settled.balances.get('fees') ?? 0;
    t.equal(paidOut, expected * amount, 'the recipients got the amounts');
    t.equal(fees, expected * fee, 'the fees went to the platform');
    t.equal(paid.available + paid.reserved + paidOut + fees, funded, 'nothing created, nothing lost');
    const txns = await balanceTransactions(svc, key, '?type=payout&limit=100');
    t.equal(txns.length, expected);
    t.ok(txns.every((x) => x.status === 'available' && x.amount === -amount && x.fee === fee && x.net === -(amount + fee)));
  });
});

t.test(`${N} parallel payouts across two currencies do not mix balances`, async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await fund(svc, m.id, 5 * 1_100, 'sandbox', 'xof');
  await fund(svc, m.id, 5 * 1_100, 'sandbox', 'xaf');
  const cm = { type: 'mobile_money', country: 'CM', operator: 'mtn', msisdn: '+237671234567' };
  const answers = await Promise.all(
    Array.from({ length: N }, (_, i) => (i % 2 === 0 ? postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney('67') }) : postPayout(svc, key, { amount: 1_000, currency: 'xaf', destination: cm }))),
  );
  const okBy = (currency: string) => answers.filter((a) => a.status === 200 && a.body.currency === currency).length;
  t.equal(okBy('xof'), 5);
  t.equal(okBy('xaf'), 5);
  t.equal(answers.filter((a) => a.status === 400 && a.body.code === 'IKW-BAL-001').length, N - 10);
  t.same(await balance(svc, key, 'xof'), { available: 0, pending: 0, reserved: 5_500 });
  t.same(await balance(svc, key, 'xaf'), { available: 0, pending: 0, reserved: 5_500 });
});

t.test(`${N} parallel payouts, each with its own Idempotency-Key: ${N} payouts`, async (t) => {
  const { key } = await fundedMerchant(svc, N * 1_100);
  const body = { amount: 1_000, currency: 'xof', destination: mobileMoney('67') };
  const answers = await Promise.all(Array.from({ length: N }, (_, i) => postPayout(svc, key, body, { idempotencyKey: `key-${i}` })));
  t.ok(
    answers.every((a) => a.status === 200),
    'all succeed',
  );
  t.equal(new Set(answers.map((a) => a.body.id)).size, N, `${N} distinct payouts`);
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: N * 1_100 });
});

t.test(`${N} parallel payouts with the same Idempotency-Key: one payout`, async (t) => {
  const { merchant: m, key } = await fundedMerchant(svc, N * 1_100);
  const body = { amount: 1_000, currency: 'xof', destination: mobileMoney('67') };
  const answers = await Promise.all(Array.from({ length: N }, () => postPayout(svc, key, body, { idempotencyKey: 'same-key' })));
  const ok = answers.filter((a) => a.status === 200);
  const busy = answers.filter((a) => a.status !== 200);
  t.ok(ok.length >= 1, `${ok.length} answered with the payout`);
  t.equal(new Set(ok.map((a) => a.body.id)).size, 1, 'all the same payout');
  for (const b of busy) assertError(t, b, 'IKW-IDM-003');
  t.ok(ok.filter((a) => a.headers.get('idempotent-replayed') === 'true').length === ok.length - 1, 'all but the first are replays');

  const rows = await svc.system.knex('read.payouts').where({ merchant_id: m.id });
  t.equal(rows.length, 1, 'one payout exists');
  t.same(await balance(svc, key), { available: (N - 1) * 1_100, pending: 0, reserved: 1_100 }, 'held once');

  const again = await postPayout(svc, key, body, { idempotencyKey: 'same-key' });
  t.equal(again.status, 200);
  t.equal(again.body.id, ok[0]!.body.id, 'a later retry replays it');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
});

t.test(`${N} parallel payouts on one balance share commits, each payout and its hold exactly once`, async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  await fund(svc, m.id, 10_000_000);
  const answers = await Promise.all(Array.from({ length: N }, (_, i) => postPayout(svc, key, { amount: 1_000 + i, currency: 'xof', destination: mobileMoney('67') })));
  t.same(
    answers.map((a) => a.status),
    answers.map(() => 200),
    'every payout accepted',
  );
  const holds = await svc.system
    .knex('events')
    .where({ stream_id: balanceStream(m.id, 'sandbox', 'xof') })
    .whereRaw("data->>'kind' = 'payout_hold'")
    .select('data', svc.system.knex.raw('transaction_id::text AS tx'));
  const held = holds.filter((h: { data: { source?: string } }) => answers.some((a) => a.body.id === h.data.source));
  t.equal(held.length, N, 'one hold per payout');
  t.ok(new Set(held.map((h: { tx: string }) => h.tx)).size < N, `${new Set(held.map((h: { tx: string }) => h.tx)).size} commits held ${N} payouts`);
  const spent = answers.reduce((sum, a) => sum + (a.body.amount as number) + (a.body.fee as number), 0);
  t.same(await balance(svc, key), { available: 10_000_000 - spent, pending: 0, reserved: spent });
});
