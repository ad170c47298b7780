/**
 * Payout batches through the real server, on the sandbox operator and a manual clock: every
 * instruction validated (each invalid one reported by index and code), batches from JSON and CSV,
 * execution with the balance check of total + fees, items and execution logs, cancel before and
 * during execution (payouts not yet sent end `canceled`), retry of failed items, tenant isolation,
 * idempotency, and the money races: two batches executed at once, one batch executed many times.
 */
import t from '#tap';
import { balanceStream, type LedgerEvent } from '#packages/families/ledger/events.js';
import { payoutStream } from '#packages/families/payouts/payout/events.js';
import { payoutBatchStream } from '#packages/families/payout-engine/payout-batch/events.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { engine, PayoutGate, postCsvBatch, settle, walletCsv, walletInstruction } from '../../support/payout-engine.js';
import { balance, fund, ledgerOf, OPERATOR_DELAY_MS, payoutFee, PayoutProbe, retrievePayout } from '../../support/payouts.js';
import { startPaymentsService, type TestService } from '../../support/system.js';

const probe = new PayoutProbe();
const svc = await startPaymentsService(t, { rails: probe.wrap });
const wallet = { destination_type: 'mobile_money', country: 'SN', operator: 'orange_money' } as const;
const feeOf = (amount: number) => payoutFee(amount, { type: 'mobile_money', country: 'SN', operator: 'orange_money' });

async function funded(service: TestService, amount: number) {
  const m = await service.sandboxMerchant();
  if (amount > 0) await fund(service, m.merchant.id, amount);
  return m;
}

async function batchOf(service: TestService, key: string, amounts: number[], extra: Record<string, unknown> = {}) {
  const res = await engine(service, key, 'POST', '/batches', { currency: 'xof', instructions: amounts.map((a) => walletInstruction(a)), ...extra });
  if (res.status !== 200) throw new Error(`batch refused: ${res.status} ${res.text}`);
  return res.body;
}

async function items(service: TestService, key: string, batchId: string) {
  const res = await engine(service, key, 'GET', `/batches/${batchId}/items?limit=100`);
  if (res.status !== 200) throw new Error(`items: ${res.status} ${res.text}`);
  return res.body.data as { index: number; status: string; payout_id: string | null; attempt: number; failure_code: string | null; fee: number; amount: number }[];
}

t.test('validation: every invalid instruction is reported with its index and code; nothing is created', async (t) => {
  const { key } = await funded(svc, 0);
  const recipient = (await engine(svc, key, 'POST', '/recipients', { display_name: 'R', ...wallet, msisdn: '+221771234567' })).body;
  await engine(svc, key, 'POST', `/recipients/${recipient.id}/archive`);
  const res = await engine(svc, key, 'POST', '/batches', {
    currency: 'xof',
    instructions: [
      walletInstruction(5_000),
      walletInstruction(5_000, '67', { msisdn: '12' }),
      walletInstruction(5_000, '67', { operator: 'nope' }),
      { amount: 5_000, recipient_id: 'rcp_000000000000000000000000' },
      { amount: 5_000, recipient_id: recipient.id },
      walletInstruction(5_000, '67', { recipient_id: recipient.id }),
      walletInstruction(5_000, '67', { currency: 'ghs' }),
      walletInstruction(5_000, '67', { country: 'ZZ' }),
      walletInstruction(5_000, '67', { reference: 'A' }),
      walletInstruction(5_000, '67', { reference: 'A' }),
      walletInstruction(9_000_000_000),
    ],
  });
  assertError(t, res, 'IKW-PEN-001', 'instructions');
  t.same(
    res.body.errors.map((e: { index: number; code: string; param?: string }) => [e.index, e.code, e.param]),
    [
      [1, 'IKW-VAL-007', 'instructions.1.msisdn'],
      [2, 'IKW-VAL-005', 'instructions.2.operator'],
      [3, 'IKW-PEN-002', 'instructions.3.recipient_id'],
      [4, 'IKW-PEN-003', 'instructions.4.recipient_id'],
      [5, 'IKW-PAY-001', 'instructions.5.recipient_id'],
      [6, 'IKW-VAL-009', 'instructions.6.currency'],
      [7, 'IKW-VAL-004', 'instructions.7.country'],
      [9, 'IKW-VAL-001', 'instructions.9.reference'],
      [10, 'IKW-VAL-008', 'instructions.10.amount'],
    ],
    'one error per invalid instruction, in order',
  );
  t.match(res.body.message, /9 of 11 instructions are invalid/);
  t.equal((await engine(svc, key, 'GET', '/batches')).body.data.length, 0, 'no batch was created');
  assertError(t, await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [] }), 'IKW-VAL-001', 'instructions');
  assertError(t, await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [{ amount: 0 }] }), 'IKW-VAL-001', 'instructions.0.amount');
  assertError(t, await engine(svc, key, 'POST', '/batches', { currency: 'zzz', instructions: [walletInstruction(5_000)] }), 'IKW-VAL-003', 'currency');
  assertError(t, await engine(svc, key, 'POST', '/batches', { instructions: [walletInstruction(5_000)] }), 'IKW-VAL-001', 'currency');
});

t.test('a JSON batch executed: one hold of total + fees, each item paid once, the batch completed', async (t) => {
  const amounts = [5_000, 12_000, 700, 30_000, 2_500, 8_000];
  const total = amounts.reduce((s, a) => s + a + feeOf(a), 0);
  const { merchant, key } = await funded(svc, total + 1_000);
  const recipient = (await engine(svc, key, 'POST', '/recipients', { display_name: 'Saved', ...wallet, msisdn: '771234567' })).body;
  const res = await engine(svc, key, 'POST', '/batches', {
    currency: 'XOF',
    metadata: 'June suppliers',
    instructions: [...amounts.slice(0, 5).map((a, i) => walletInstruction(a, '67', { reference: `S-${i}`, metadata: { invoice: `INV-${i}` } })), { amount: amounts[5], recipient_id: recipient.id }],
  });
  assertOk(t, res);
  const batch = res.body;
  t.match(batch, { object: 'payout_batch', status: 'validated', currency: 'xof', item_count: 6, total_amount: amounts.reduce((s, a) => s + a, 0), metadata: 'June suppliers', source_format: 'json', attempt: 0 });
  t.equal(batch.total_amount + batch.total_fee, total, 'fees quoted per item');
  t.match(batch.id, /^pob_[0-9A-Za-z]{24}$/);
  const before = await items(svc, key, batch.id);
  t.same(
    before.map((i) => [i.index, i.status, i.payout_id]),
    amounts.map((_, i) => [i, 'validated', null]),
  );

  const executed = await engine(svc, key, 'POST', `/batches/${batch.id}/execute`);
  assertOk(t, executed);
  t.match(executed.body, { status: 'executing', attempt: 1, counts: { queued: 6 } });
  t.same(await balance(svc, key), { available: 1_000, pending: 0, reserved: total }, 'total + fees held at once');
  assertError(t, await engine(svc, key, 'POST', `/batches/${batch.id}/execute`), 'IKW-PEN-005', 'batchId');

  await settle(svc, OPERATOR_DELAY_MS);
  const done = (await engine(svc, key, 'GET', `/batches/${batch.id}`)).body;
  t.match(done, { status: 'completed', counts: { paid: 6, queued: 0, failed: 0 } });
  t.type(done.finished_at, 'string');
  const after = await items(svc, key, batch.id);
  t.ok(
    after.every((i) => i.status === 'paid' && i.attempt === 1 && typeof i.payout_id === 'string'),
    'every item paid',
  );
  t.equal(new Set(after.map((i) => i.payout_id)).size, 6, 'one payout each');
  const payout = await retrievePayout(svc, key, after[0]!.payout_id!);
  t.match(payout, { status: 'paid', amount: 5_000, metadata: { invoice: 'INV-0', source: 'payout_engine', environment: 'sandbox' } });
  t.same(await balance(svc, key), { available: 1_000, pending: 0, reserved: 0 }, 'balance = funding − Σ(amount + fee)');
  const { state: ledger } = await ledgerOf(svc, merchant.id);
  t.equal(ledger.balances.get('fees'), total - amounts.reduce((s, a) => s + a, 0), 'the fees went to the platform');
  t.equal(probe.calls.filter((c) => after.some((i) => i.payout_id === c.payoutId)).length, 6, 'the operator was asked once per item');

  const logs = await engine(svc, key, 'GET', `/batches/${batch.id}/execution-logs`);
  assertOk(t, logs);
  const types = logs.body.data.map((l: { type: string }) => l.type);
  t.equal(types[0], 'payout_batch.created');
  t.equal(types[1], 'payout_batch.execution_started');
  t.equal(types.at(-1), 'payout_batch.completed');
  t.equal(types.filter((x: string) => x === 'payout.created').length, 6);
  t.equal(types.filter((x: string) => x === 'payout.paid').length, 6);
  const page = await engine(svc, key, 'GET', `/batches/${batch.id}/execution-logs?limit=2&starting_after=${logs.body.data[1].id}`);
  t.same(
    page.body.data.map((l: { id: string }) => l.id),
    logs.body.data.slice(2, 4).map((l: { id: string }) => l.id),
    'oldest first, paged by entry',
  );
});

t.test('item news settled many at a time: each item once; the same jobs run again change nothing', async (t) => {
  const amounts = Array.from({ length: 14 }, (_, i) => 1_000 + 100 * i);
  const total = amounts.reduce((s, a) => s + a + feeOf(a), 0);
  const { merchant, key } = await funded(svc, total);
  const batch = await batchOf(svc, key, amounts);
  assertOk(t, await engine(svc, key, 'POST', `/batches/${batch.id}/execute`));
  await settle(svc, OPERATOR_DELAY_MS);
  t.match((await engine(svc, key, 'GET', `/batches/${batch.id}`)).body, { status: 'completed', counts: { paid: 14, queued: 0 } });
  const events = await svc.system.store.readStream(payoutBatchStream(batch.id));
  const settled = events.filter((e) => e.type === 'payout_batch.item_settled').map((e) => (e.data as { index: number }).index);
  t.same(
    [...settled].sort((a, b) => a - b),
    amounts.map((_, i) => i),
    'one item_settled per item',
  );
  t.equal(events.filter((e) => e.type === 'payout_batch.completed').length, 1);

  // A claim run again after a crash: the jobs of every item (twice each), and a payout of no batch.
  const list = await items(svc, key, batch.id);
  const refs = list.map((i) => ({ merchantId: merchant.id, environment: 'sandbox' as const, payoutId: i.payout_id! }));
  await svc.system.scheduler.schedule({ kind: 'payout_batch.item_settled', key: 'stray', runAt: svc.clock.now(), payload: { ...refs[0]!, payoutId: 'po_000000000000000000000000' } });
  for (const [n, ref] of [...refs, ...refs].entries()) await svc.system.scheduler.schedule({ kind: 'payout_batch.item_settled', key: `again:${n}`, runAt: svc.clock.now(), payload: { ...ref } });
  await svc.system.drain();
  t.equal((await svc.system.store.readStream(payoutBatchStream(batch.id))).length, events.length, 'nothing more on the batch');
  t.same(
    await svc.system.payoutBatchExecution.settlePayouts(refs),
    refs.map(() => null),
    'every job answered done',
  );
  const left = await svc.system.knex('scheduled_jobs').where({ kind: 'payout_batch.item_settled' }).count<{ n: string }[]>({ n: '*' });
  t.equal(Number(left[0]!.n), 0, 'no job left to retry');
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 }, 'each item paid once');
});

t.test("a run's waves: each wave's answers share the commit of the next wave's dispatches (n + 1 commits for n waves)", async (t) => {
  // 10 items to one operator: waves of 4, 4 and 2.
  const amounts = Array.from({ length: 10 }, (_, i) => 1_000 + i);
  const total = amounts.reduce((s, a) => s + a + feeOf(a), 0);
  const { key } = await funded(svc, total);
  const batch = await batchOf(svc, key, amounts);
  assertOk(t, await engine(svc, key, 'POST', `/batches/${batch.id}/execute`));
  await settle(svc, OPERATOR_DELAY_MS);
  t.match((await engine(svc, key, 'GET', `/batches/${batch.id}`)).body, { status: 'completed', counts: { paid: 10 } });
  const list = await items(svc, key, batch.id);
  const rows: { type: string; tx: string; stream_id: string }[] = await svc.system
    .knex('events')
    .whereIn(
      'stream_id',
      list.map((i) => payoutStream(i.payout_id!)),
    )
    .whereIn('type', ['payout.dispatched', 'payout.updated'])
    .orderByRaw('transaction_id, global_position')
    .select('type', 'stream_id', svc.system.knex.raw('transaction_id::text AS tx'));
  t.equal(rows.length, 20, 'each payout dispatched once and answered once');
  const commits = [...new Set(rows.map((r) => r.tx))];
  t.equal(commits.length, 4, 'three waves in four commits');
  const kinds = commits.map((tx) => rows.filter((r) => r.tx === tx).map((r) => r.type));
  t.same(
    kinds.map((k) => [k.filter((x) => x === 'payout.updated').length, k.filter((x) => x === 'payout.dispatched').length]),
    [
      [0, 4],
      [4, 4],
      [4, 2],
      [2, 0],
    ],
    'commit by commit: (answers, dispatches)',
  );
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 });
});

t.test('a CSV batch: created, listed, and a CSV line in error reported by index', async (t) => {
  const { key } = await funded(svc, 0);
  const res = await postCsvBatch(svc, key, `\ufeff${walletCsv([1_000, 2_000, 3_000])}`.replace('\n', '\r\n'));
  assertOk(t, res);
  t.match(res.body, { status: 'validated', item_count: 3, total_amount: 6_000, source_format: 'csv' });
  const quoted = await postCsvBatch(svc, key, 'amount,currency,destination_type,country,operator,msisdn,reference\n"1500",XOF,mobile_money,SN,orange_money,"+221 77 123 45 67","ref, with ""comma"""\n');
  assertOk(t, quoted);
  t.equal((await items(svc, key, quoted.body.id))[0]!.amount, 1_500);
  t.match((await engine(svc, key, 'GET', `/batches/${quoted.body.id}/items`)).body.data[0], { reference: 'ref, with "comma"' });

  const bad = await postCsvBatch(
    svc,
    key,
    'amount,currency,destination_type,country,operator,msisdn\n1000,XOF,mobile_money,SN,orange_money,+221771234567\n1000,XOF,mobile_money,SN,orange_money,12\n1000,GHS,mobile_money,SN,orange_money,+221771234567\n',
  );
  assertError(t, bad, 'IKW-PEN-001', 'instructions');
  t.same(
    bad.body.errors.map((e: { index: number; code: string }) => [e.index, e.code]),
    [
      [1, 'IKW-VAL-007'],
      [2, 'IKW-VAL-009'],
    ],
  );
  assertError(t, await postCsvBatch(svc, key, 'amount,colour\n1,red\n'), 'IKW-PEN-004', 'body');
  assertError(t, await postCsvBatch(svc, key, 'amount,currency\n1,XOF,extra\n'), 'IKW-PEN-004', 'body');
  assertError(t, await postCsvBatch(svc, key, 'amount,currency\n"1,XOF\n'), 'IKW-PEN-004', 'body');
  assertError(t, await postCsvBatch(svc, key, ''), 'IKW-PEN-004', 'body');
  assertError(t, await postCsvBatch(svc, key, 'amount,currency,destination_type,country,operator,msisdn\n12.5,XOF,mobile_money,SN,orange_money,+221771234567\n'), 'IKW-VAL-001', 'instructions.0.amount');
  const list = await engine(svc, key, 'GET', '/batches?status=validated');
  t.equal(list.body.data.length, 2);
  assertError(t, await svc.request('POST', '/api/v1/payouts', { key, rawBody: 'a,b\n1,2\n', headers: { 'content-type': 'text/csv', 'x-environment': 'sandbox' } }), 'IKW-REQ-002');
});

t.test('execute refused when the balance does not cover total + fees: nothing held', async (t) => {
  const { key } = await funded(svc, 10_000);
  const batch = await batchOf(svc, key, [5_000, 5_000]);
  assertError(t, await engine(svc, key, 'POST', `/batches/${batch.id}/execute`), 'IKW-BAL-001');
  t.same(await balance(svc, key), { available: 10_000, pending: 0, reserved: 0 });
  t.equal((await engine(svc, key, 'GET', `/batches/${batch.id}`)).body.status, 'validated', 'still validated: it can be executed once funded');
});

t.test('cancel before execution: every item canceled, nothing paid, execute refused', async (t) => {
  const { key } = await funded(svc, 100_000);
  const batch = await batchOf(svc, key, [1_000, 2_000]);
  const canceled = await engine(svc, key, 'POST', `/batches/${batch.id}/cancel`);
  assertOk(t, canceled);
  t.match(canceled.body, { status: 'canceled', counts: { canceled: 2, validated: 0 } });
  t.same(
    (await items(svc, key, batch.id)).map((i) => i.status),
    ['canceled', 'canceled'],
  );
  assertError(t, await engine(svc, key, 'POST', `/batches/${batch.id}/execute`), 'IKW-PEN-005', 'batchId');
  assertError(t, await engine(svc, key, 'POST', `/batches/${batch.id}/cancel`), 'IKW-PEN-005', 'batchId');
  assertError(t, await engine(svc, key, 'POST', `/batches/${batch.id}/retry`), 'IKW-PEN-005', 'batchId');
  t.same(await balance(svc, key), { available: 100_000, pending: 0, reserved: 0 });
});

t.test('failed items: the batch is partially_failed, and a retry pays them with new payouts', async (t) => {
  const { key } = await funded(svc, 100_000);
  const batch = await batchOf(svc, key, [1_000, 2_000, 3_000]);
  probe.rejectNext = { failureCode: 'account_blocked', failureMessage: 'The wallet is blocked' };
  assertOk(t, await engine(svc, key, 'POST', `/batches/${batch.id}/execute`));
  await settle(svc, OPERATOR_DELAY_MS);
  const partial = (await engine(svc, key, 'GET', `/batches/${batch.id}`)).body;
  t.match(partial, { status: 'partially_failed', counts: { paid: 2, failed: 1 } });
  const failed = (await items(svc, key, batch.id)).find((i) => i.status === 'failed')!;
  t.equal(failed.failure_code, 'account_blocked');
  const spent = [1_000, 2_000, 3_000].filter((a) => a !== failed.amount).reduce((s, a) => s + a + feeOf(a), 0);
  t.same(await balance(svc, key), { available: 100_000 - spent, pending: 0, reserved: 0 }, 'the failed payout gave its funds back');

  const retried = await engine(svc, key, 'POST', `/batches/${batch.id}/retry`);
  assertOk(t, retried);
  t.match(retried.body, { status: 'executing', attempt: 2, counts: { queued: 1, paid: 2 } });
  await settle(svc, OPERATOR_DELAY_MS);
  t.match((await engine(svc, key, 'GET', `/batches/${batch.id}`)).body, { status: 'completed', counts: { paid: 3 } });
  const again = (await items(svc, key, batch.id)).find((i) => i.index === failed.index)!;
  t.match(again, { status: 'paid', attempt: 2 });
  t.not(again.payout_id, failed.payout_id, 'a new payout for the new attempt');
  t.equal((await retrievePayout(svc, key, failed.payout_id!)).status, 'failed', 'the first one stays failed');
  t.same(await balance(svc, key), { available: 100_000 - spent - failed.amount - feeOf(failed.amount), pending: 0, reserved: 0 });
  assertError(t, await engine(svc, key, 'POST', `/batches/${batch.id}/retry`), 'IKW-PEN-005', 'batchId');
});

t.test('cancel during execution: payouts already sent go on, those not yet sent end canceled', async (t) => {
  const gate = new PayoutGate();
  const gated = await startPaymentsService(t, { rails: gate.wrap });
  const amounts = [1_000, 1_100, 1_200, 1_300, 1_400, 1_500, 1_600, 1_700, 1_800, 1_900];
  const funding = 100_000;
  const { key } = await funded(gated, funding);
  const batch = await batchOf(gated, key, amounts);
  assertOk(t, await engine(gated, key, 'POST', `/batches/${batch.id}/execute`));
  const running = gated.system.scheduler.runUntilIdle();
  await gate.reached(4);
  t.equal(gate.calls.length, 4, 'a few at a time per operator: four in flight');
  const canceled = await engine(gated, key, 'POST', `/batches/${batch.id}/cancel`);
  assertOk(t, canceled);
  t.equal(canceled.body.status, 'canceled');
  gate.open();
  await running;
  await settle(gated, OPERATOR_DELAY_MS);
  const list = await items(gated, key, batch.id);
  const sent = new Set(gate.calls.map((c) => c.payoutId));
  t.equal(sent.size, 4, 'nothing more was sent');
  t.same(
    list.filter((i) => sent.has(i.payout_id!)).map((i) => i.status),
    ['paid', 'paid', 'paid', 'paid'],
  );
  const stopped = list.filter((i) => !sent.has(i.payout_id!));
  t.equal(stopped.length, 6);
  t.ok(
    stopped.every((i) => i.status === 'canceled'),
    'the others are canceled',
  );
  const payout = await retrievePayout(gated, key, stopped[0]!.payout_id!);
  t.equal(payout.status, 'canceled', 'their payouts are canceled');
  const final = (await engine(gated, key, 'GET', `/batches/${batch.id}`)).body;
  t.match(final, { status: 'canceled', counts: { paid: 4, canceled: 6, queued: 0 } });
  const paid = list.filter((i) => i.status === 'paid').reduce((s, i) => s + i.amount + i.fee, 0);
  t.same(await balance(gated, key), { available: funding - paid, pending: 0, reserved: 0 }, 'the canceled ones gave their funds back');
  const logs = (await engine(gated, key, 'GET', `/batches/${batch.id}/execution-logs`)).body.data.map((l: { type: string }) => l.type);
  t.equal(logs.filter((x: string) => x === 'payout.canceled').length, 6);
});

t.test('two batches executed at once that the balance covers only one of: one executes, one is refused, never overdrawn', async (t) => {
  const per = [20_000, 20_000, 20_000];
  const cost = per.reduce((s, a) => s + a + feeOf(a), 0);
  const { merchant, key } = await funded(svc, cost + cost / 2);
  const a = await batchOf(svc, key, per);
  const b = await batchOf(svc, key, per);
  const answers = await Promise.all([a, b, a, b, a, b].map((x) => engine(svc, key, 'POST', `/batches/${x.id}/execute`)));
  const ok = answers.filter((r) => r.status === 200);
  t.equal(ok.length, 1, 'exactly one execution wins');
  for (const r of answers.filter((r) => r.status !== 200)) t.ok(['IKW-BAL-001', 'IKW-PEN-005'].includes(r.body.code), `refused on the merits (${r.body.code})`);
  t.ok(
    answers.some((r) => r.body.code === 'IKW-BAL-001'),
    'the other batch: balance too low',
  );
  await settle(svc, OPERATOR_DELAY_MS);
  t.same(await balance(svc, key), { available: cost / 2, pending: 0, reserved: 0 });
  const history = await svc.system.store.readStream(balanceStream(merchant.id, 'sandbox', 'xof'));
  let available = 0;
  for (const e of history) {
    for (const line of (e.data as LedgerEvent['data']).lines) if (line.account === 'available') available += line.amount;
    t.ok(available >= 0, `available never negative (version ${e.version})`);
  }
});

t.test('many parallel batches on one balance: exactly as many execute as it covers', async (t) => {
  const amount = 10_000;
  const cost = 2 * (amount + feeOf(amount));
  const { key } = await funded(svc, 5 * cost + cost / 2);
  const batches = await Promise.all(Array.from({ length: 12 }, () => batchOf(svc, key, [amount, amount])));
  const answers = await Promise.all(batches.map((x) => engine(svc, key, 'POST', `/batches/${x.id}/execute`)));
  t.equal(answers.filter((r) => r.status === 200).length, 5);
  for (const r of answers.filter((r) => r.status !== 200)) assertError(t, r, 'IKW-BAL-001');
  await settle(svc, OPERATOR_DELAY_MS);
  t.same(await balance(svc, key), { available: cost / 2, pending: 0, reserved: 0 });
});

t.test('idempotency: the body idempotency_key and the Idempotency-Key header each name one batch', async (t) => {
  const { key } = await funded(svc, 0);
  const body = { currency: 'xof', idempotency_key: 'payroll-2026-06', instructions: [walletInstruction(1_000)] };
  const [first, second] = await Promise.all([engine(svc, key, 'POST', '/batches', body), engine(svc, key, 'POST', '/batches', body)]);
  assertOk(t, first);
  t.equal(second.body.id, first.body.id, 'one batch for one idempotency_key');
  assertError(t, await engine(svc, key, 'POST', '/batches', { ...body, instructions: [walletInstruction(2_000)] }), 'IKW-IDM-002', 'idempotency_key');
  const other = await funded(svc, 0);
  t.not((await engine(svc, other.key, 'POST', '/batches', body)).body.id, first.body.id, 'the key is per merchant');

  const viaHeader = await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(3_000)] }, 'hdr-1');
  const replay = await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(3_000)] }, 'hdr-1');
  t.equal(replay.body.id, viaHeader.body.id);
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  const csv = walletCsv([4_000]);
  const c1 = await postCsvBatch(svc, key, csv, 'csv-1');
  const c2 = await postCsvBatch(svc, key, csv, 'csv-1');
  t.equal(c2.body.id, c1.body.id, 'a CSV batch too');
});

t.test("another merchant's batch is 404 for every operation", async (t) => {
  const { key } = await funded(svc, 100_000);
  const other = await funded(svc, 100_000);
  const batch = await batchOf(svc, key, [1_000]);
  for (const [method, path] of [
    ['GET', ''],
    ['GET', '/items'],
    ['GET', '/execution-logs'],
    ['POST', '/execute'],
    ['POST', '/cancel'],
    ['POST', '/retry'],
  ] as const) {
    assertError(t, await engine(svc, other.key, method, `/batches/${batch.id}${path}`), 'IKW-RES-001');
  }
  t.notOk((await engine(svc, other.key, 'GET', '/batches')).body.data.some((b: { id: string }) => b.id === batch.id));
  t.equal((await engine(svc, key, 'GET', `/batches/${batch.id}`)).body.status, 'validated', 'untouched');
  const recipient = (await engine(svc, key, 'POST', '/recipients', { display_name: 'Mine', ...wallet, msisdn: '771234567' })).body;
  const theirs = await engine(svc, other.key, 'POST', '/batches', { currency: 'xof', instructions: [{ amount: 1_000, recipient_id: recipient.id }] });
  assertError(t, theirs, 'IKW-PEN-001');
  t.equal(theirs.body.errors[0].code, 'IKW-PEN-002', "another merchant's recipient is no recipient");
});
