import { postPayment, settleDue as settleDueAction } from '#packages/families/payments/payment-intent/postings.js';
import { randomUUID } from 'node:crypto';
import t from '#tap';
import { unixSeconds } from '#packages/core/clock.js';
import { runLedger } from '#packages/families/ledger/commands.js';
import { startProcess } from '../../support/child-process.js';
import { startPaymentsService, type TestService } from '../../support/system.js';
import { advance, assertError, balanceObject, balanceTransactions, fund, fundedMerchant, mobileMoney, OPERATOR_DELAY_MS, payout, payoutFee } from '../../support/payouts.js';

/**
 * Issue 20 §2: balances and balance transactions as they stood at a past moment. A workload runs
 * on the manual clock (a funding, a payment still pending, a payout held then paid, the payment
 * settling); the balance is captured after each step, then asked for at each of those moments.
 */

const DAY = 86_400_000;

/** A card-free payment of `amount` whose funds become available after a day (pending until then). */
function pendingPayment(svc: TestService, merchantId: string, amount: number) {
  const at = svc.clock.now();
  return runLedger(
    { ledger: svc.system.ledger, store: svc.system.store, clock: svc.clock },
    merchantId,
    'sandbox',
    'xof',
    postPayment({ source: `pi_test_${randomUUID().replace(/-/g, '')}`, clearing: 'operator_clearing:wave', amount, fee: 100, availableOn: new Date(at.getTime() + DAY) }),
    { merchant_id: merchantId, environment: 'sandbox', actor: 'test', occurred_at: at.toISOString() },
  );
}

function settleDue(svc: TestService, merchantId: string) {
  return runLedger({ ledger: svc.system.ledger, store: svc.system.store, clock: svc.clock }, merchantId, 'sandbox', 'xof', settleDueAction(), { merchant_id: merchantId, environment: 'sandbox', actor: 'test' });
}

function ledgerBalanceCli(svc: TestService, merchantId: string, at: number) {
  return startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['ledger', 'balance', '--merchant', merchantId, '--at', String(at), '--json']);
}

t.test('balance?as_of, balance-transactions?created[lte] and `sika ledger balance --at` give the ledger as it stood', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await fundedMerchant(svc, 100_000);
  const other = await svc.sandboxMerchant('Other');
  const moments: { at: number; balance: unknown; transactions: { id: string; status: string }[] }[] = [];
  const capture = async () => {
    const txns = await balanceTransactions(svc, key, '?limit=100');
    moments.push({ at: unixSeconds(svc.clock.now()), balance: await balanceObject(svc, key), transactions: txns.map((x) => ({ id: x.id, status: x.status })) });
    svc.clock.advance(60_000);
  };
  const before = unixSeconds(svc.clock.now()) - 1;
  await capture(); // funded
  await pendingPayment(svc, merchant.id, 20_000);
  await capture(); // a payment pending
  await payout(svc, key, { amount: 10_000, destination: mobileMoney('21') });
  await capture(); // payout held
  await advance(svc);
  await capture(); // payout paid
  svc.clock.advance(DAY);
  await settleDue(svc, merchant.id);
  await capture(); // payment settled
  const fee = payoutFee(10_000, { type: 'mobile_money', operator: 'orange_money' });
  t.same(
    moments.at(-1)!.balance,
    { object: 'balance', livemode: false, available: [{ amount: 100_000 - 10_000 - fee + 19_900, currency: 'xof' }], pending: [{ amount: 0, currency: 'xof' }], reserved: [{ amount: 0, currency: 'xof' }] },
    'the workload did what it should',
  );

  for (const [i, m] of moments.entries()) {
    const res = await svc.request('GET', `/api/v1/balance?as_of=${m.at}`, { key });
    t.equal(res.status, 200);
    t.same(res.body, m.balance, `as_of moment ${i} answers the balance captured then`);
    const then = await balanceTransactions(svc, key, `?limit=100&created[lte]=${m.at}`);
    t.same(
      then.map((x) => ({ id: x.id, status: x.status })),
      m.transactions,
      `created[lte] at moment ${i}: the transactions and statuses of then`,
    );
    const cli = ledgerBalanceCli(svc, merchant.id, m.at);
    t.equal(await cli.exit, 0, cli.output());
    const printed = JSON.parse(cli.output()) as { balances: { environment: string; currency: string; available: number; pending: number; reserved: number }[] };
    const captured = m.balance as Record<'available' | 'pending' | 'reserved', { amount: number }[]>;
    t.same(
      printed.balances,
      [{ environment: 'sandbox', currency: 'xof', available: captured.available[0]!.amount, pending: captured.pending[0]!.amount, reserved: captured.reserved[0]!.amount }],
      `the CLI, from the log, agrees at moment ${i}`,
    );
  }
  t.same((await svc.request('GET', `/api/v1/balance?as_of=${before}`, { key })).body, { object: 'balance', livemode: false, available: [], pending: [], reserved: [] }, 'before the first entry: nothing');
  t.same(await balanceTransactions(svc, key, `?created[lte]=${before}`), []);

  const range = await balanceTransactions(svc, key, `?limit=100&created[gte]=${moments[1]!.at}&created[lt]=${moments[3]!.at}`);
  t.same(range.map((x) => x.type).sort(), ['payment', 'payout'], 'a created range: the payment and the payout, not the funding');
  t.same((await balanceTransactions(svc, key, `?created[gt]=${moments[2]!.at}`)).length, 0, 'nothing was created after the payout');

  // Tenant isolation: another merchant's key sees its own (empty) ledger at every moment.
  const theirs = await svc.request('GET', `/api/v1/balance?as_of=${moments.at(-1)!.at}`, { key: other.key });
  t.same(theirs.body, { object: 'balance', livemode: false, available: [], pending: [], reserved: [] });
  t.same(await balanceTransactions(svc, other.key, `?created[lte]=${moments.at(-1)!.at}`), []);
});

t.test('moments captured between rounds of parallel writers are answered exactly', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await fundedMerchant(svc, 500_000);
  const moments: { at: number; balance: unknown; count: number }[] = [];
  for (let round = 0; round < 4; round++) {
    svc.clock.advance(OPERATOR_DELAY_MS);
    // Ten fundings, two payouts and the operator's answers to the previous round's, all at once.
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => fund(svc, merchant.id, 1_000 + 10 * round + i)),
      ...Array.from({ length: 2 }, (_, i) => payout(svc, key, { amount: 5_000 + i, destination: mobileMoney(`8${i}`) })),
      svc.system.scheduler.runUntilIdle(),
    ]);
    moments.push({ at: unixSeconds(svc.clock.now()), balance: await balanceObject(svc, key), count: (await balanceTransactions(svc, key, '?limit=100')).length });
  }
  await advance(svc);
  t.ok(
    moments.some((m, i) => i > 0 && JSON.stringify(m.balance) !== JSON.stringify(moments[i - 1]!.balance)),
    'the rounds moved the balance',
  );
  for (const [i, m] of moments.entries()) {
    t.same((await svc.request('GET', `/api/v1/balance?as_of=${m.at}`, { key })).body, m.balance, `round ${i}`);
    t.equal((await balanceTransactions(svc, key, `?limit=100&created[lte]=${m.at}`)).length, m.count, `round ${i}: the transactions of then`);
  }
  const cli = ledgerBalanceCli(svc, merchant.id, moments[1]!.at);
  t.equal(await cli.exit, 0, cli.output());
  const captured = moments[1]!.balance as Record<'available' | 'pending' | 'reserved', { amount: number }[]>;
  t.match(JSON.parse(cli.output()), { balances: [{ available: captured.available[0]!.amount, reserved: captured.reserved[0]!.amount }] }, 'the CLI agrees');
});

t.test('as_of and created bounds are Unix seconds: anything else is refused', async (t) => {
  const svc = await startPaymentsService(t);
  const { key } = await fundedMerchant(svc, 1_000);
  for (const bad of ['as_of=yesterday', 'as_of=-1', 'as_of=1.5', 'as_of=99999999999999']) {
    assertError(t, await svc.request('GET', `/api/v1/balance?${bad}`, { key }), 'IKW-VAL-001', 'as_of');
  }
  assertError(t, await svc.request('GET', '/api/v1/balance?at=1', { key }), 'IKW-VAL-002', 'at');
  assertError(t, await svc.request('GET', '/api/v1/balance-transactions?created[lte]=soon', { key }), 'IKW-VAL-001', 'created[lte]');
  assertError(t, await svc.request('GET', '/api/v1/balance-transactions?created[before]=1', { key }), 'IKW-VAL-002', 'created[before]');
});
