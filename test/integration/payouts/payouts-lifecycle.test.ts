/**
 * The payout lifecycle against the real server, database and scheduler: the sandbox operator's
 * payout column (last two digits of the MSISDN or bank account number), pending → in_transit →
 * paid | failed, the delay overlay (the operator's reason, or `unknown` once expected_by passes),
 * the events on the payout stream, the ledger at each step (hold, paid, failed), repeated
 * callbacks, the reconcile job, and a projection rebuild that reproduces the read models.
 */
import { holdOnAvailable } from '#packages/families/payouts/payout/postings.js';
import type { Knex } from 'knex';
import t, { type Test } from '#tap';
import { runLedger } from '#packages/families/ledger/commands.js';
import { balanceStream, type EntryPosted } from '#packages/families/ledger/events.js';
import { payoutStream, type PayoutObject } from '#packages/families/payouts/payout/events.js';
import { payoutPublicEvents } from '#packages/families/payouts/payout/public-events.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { decodePosition } from '#packages/eventstore/postgres/store.js';
import type { PayoutReport } from '#packages/connectors/port.js';
import { readModelRows } from '../../support/projection-spec.js';
import { advance, assertOk, balance, balanceTransactions, bank, fund, fundedMerchant, ledgerOf, MINUTE, mobileMoney, OPERATOR_DELAY_MS, payout, PayoutProbe, postPayout, retrievePayout } from '../../support/payouts.js';
import { startPaymentsService } from '../../support/system.js';

const probe = new PayoutProbe();
const svc = await startPaymentsService(t, { rails: probe.wrap });
const D = OPERATOR_DELAY_MS;
const FUNDS = 100_000;
const AMOUNT = 10_000;
const FEE = 100; // 1 % of 10,000, at least XOF 100 (Orange Money, SN)

async function events(id: string): Promise<RecordedEvent[]> {
  return svc.system.store.readStream(payoutStream(id));
}
const objectOf = (e: RecordedEvent) => (e.data as { object: PayoutObject }).object;
const typesOf = async (id: string) => (await events(id)).map((e) => e.type);

/** A funded merchant and one payout to `destination`; the Payout object as POST answered it. */
async function start(destination: object, amount = AMOUNT) {
  const { merchant: m, key } = await fundedMerchant(svc, FUNDS);
  const res = await postPayout(svc, key, { amount, currency: 'xof', destination });
  if (res.status !== 200) throw new Error(`payout failed: ${res.status} ${res.text}`);
  return { m, key, p: res.body, requestId: res.headers.get('request-id') };
}

/** The events of a payout: the public types, each with the object as the state after it, and the last one as GET shows it. */
async function assertEvents(t: Test, key: string, id: string, types: string[]): Promise<void> {
  const recorded = await events(id);
  t.same(
    recorded.map((e) => e.type),
    types,
    `events ${types.join(', ')}`,
  );
  for (const e of recorded) {
    t.ok(
      payoutPublicEvents.types.some((p) => p.type === e.type),
      `${e.type} is public`,
    );
    t.match(objectOf(e), { id, object: 'payout' }, `${e.type} carries data.object`);
    t.equal(e.metadata.correlation_id, id);
  }
  t.same(objectOf(recorded.at(-1)!), await retrievePayout(svc, key, id), 'the last event carries the payout as GET shows it');
}

t.test('anything else → paid: pending → in_transit → paid, the hold spent', async (t) => {
  const { m, key, p, requestId } = await start(mobileMoney('67'));
  t.equal(p.status, 'in_transit', 'the operator took it');
  t.equal(p.fee, FEE);
  const created = await events(p.id);
  t.same(
    created.map((e) => e.type),
    ['payout.created', 'payout.updated'],
  );
  t.same(
    created.map((e) => objectOf(e).status),
    ['pending', 'in_transit'],
    'pending first, then in_transit',
  );
  for (const e of created) {
    t.match(e.metadata, { merchant_id: m.id, environment: 'sandbox', correlation_id: p.id, request_id: requestId });
  }
  t.match(created[0]!.data, { id: p.id, merchantId: m.id, environment: 'sandbox', amount: AMOUNT, fee: FEE, currency: 'xof' });

  await t.test('the hold: available − (amount + fee), reserved + (amount + fee)', async (t) => {
    t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: AMOUNT + FEE });
    const txns = await balanceTransactions(svc, key);
    t.equal(txns.length, 2, 'the funding payment and the payout');
    t.match(txns[0], { object: 'balance_transaction', type: 'payout', source: p.id, amount: -AMOUNT, fee: FEE, net: -(AMOUNT + FEE), currency: 'xof', status: 'pending', livemode: false });
    t.match(txns[1], { type: 'payment', amount: FUNDS });
  });

  await advance(svc, D - 1);
  t.equal((await retrievePayout(svc, key, p.id)).status, 'in_transit', 'not before the operator delay');
  await advance(svc, 1);
  const paid = await retrievePayout(svc, key, p.id);
  t.match(paid, { status: 'paid', delay_state: null, delay_reason: null, delayed_at: null, failure_code: null, failure_message: null });
  await assertEvents(t, key, p.id, ['payout.created', 'payout.updated', 'payout.paid']);
  const last = (await events(p.id)).at(-1)!;
  t.equal(last.metadata.actor, 'connector:sandbox');

  await t.test('paid: reserved → clearing (amount) + fees (fee)', async (t) => {
    t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: 0 });
    const txns = await balanceTransactions(svc, key);
    t.equal(txns.length, 2, 'completion updates the payout row, adds none');
    t.match(txns[0], { type: 'payout', source: p.id, amount: -AMOUNT, fee: FEE, net: -(AMOUNT + FEE), status: 'available' });
    const { state } = await ledgerOf(svc, m.id);
    t.equal(state.balances.get('operator_clearing:orange_money'), AMOUNT);
    t.equal(state.balances.get('fees'), FEE, 'the fee is kept');
    t.equal(state.holds.size, 0);
  });
});

t.test('01 → failed recipient_not_found, funds back to available', async (t) => {
  const { key, p } = await start(mobileMoney('01'));
  t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: AMOUNT + FEE });
  await advance(svc);
  const failed = await retrievePayout(svc, key, p.id);
  t.match(failed, { status: 'failed', failure_code: 'recipient_not_found', delay_state: null });
  t.type(failed.failure_message, 'string');
  t.ok(failed.failure_message.length > 0);
  await assertEvents(t, key, p.id, ['payout.created', 'payout.updated', 'payout.failed']);
  t.same(await balance(svc, key), { available: FUNDS, pending: 0, reserved: 0 }, 'amount and fee back');
  t.equal(
    await svc.system
      .knex('scheduled_jobs')
      .where({ key: `overdue:${p.id}` })
      .first(),
    undefined,
    'failed: its overdue check dropped',
  );
  const txns = await balanceTransactions(svc, key);
  t.equal(txns.length, 3);
  t.match(txns[0], { type: 'payout_failure', source: p.id, amount: AMOUNT, fee: -FEE, net: AMOUNT + FEE, status: 'available' });
  t.match(txns[1], { type: 'payout', source: p.id, amount: -AMOUNT, fee: FEE, net: -(AMOUNT + FEE) });
  const types = await balanceTransactions(svc, key, '?type=payout_failure');
  t.equal(types.length, 1);
});

t.test("an operator's final answer commits with its ledger side: one transaction, so a crash cannot keep one without the other", async (t) => {
  for (const [lastTwo, type, kind] of [
    ['67', 'payout.paid', 'payout_paid'],
    ['01', 'payout.failed', 'payout_release'],
  ] as const) {
    const { m, p } = await start(mobileMoney(lastTwo));
    await advance(svc);
    const final = (await events(p.id)).find((e) => e.type === type);
    const ledger = await svc.system.store.readStream(balanceStream(m.id, 'sandbox', 'xof'));
    const entry = ledger.find((e) => (e.data as EntryPosted).source === p.id && (e.data as EntryPosted).kind === kind);
    t.ok(final && entry, `${type} and its ${kind} entry`);
    t.equal(decodePosition(entry!.position).transactionId, decodePosition(final!.position).transactionId, `${type}: the same transaction as its ${kind} entry`);
  }
});

t.test('the hold and the payout are one commit, so no reconcile job is set; the overdue check is', async (t) => {
  const { m, key, p } = await start(mobileMoney('67'));
  const created = (await events(p.id)).find((e) => e.type === 'payout.created')!;
  const ledger = await svc.system.store.readStream(balanceStream(m.id, 'sandbox', 'xof'));
  const hold = ledger.find((e) => (e.data as EntryPosted).source === p.id)!;
  t.equal(decodePosition(hold.position).transactionId, decodePosition(created.position).transactionId, 'the hold commits with payout.created');
  t.equal(
    await svc.system
      .knex('scheduled_jobs')
      .where({ key: `reconcile:${p.id}` })
      .first(),
    undefined,
    'no mend job: nothing can be left half done',
  );
  t.ok(
    await svc.system
      .knex('scheduled_jobs')
      .where({ key: `overdue:${p.id}` })
      .first(),
    'the overdue check is set',
  );
  await advance(svc);
  t.equal((await retrievePayout(svc, key, p.id)).status, 'paid');
  t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: 0 }, 'the hold spent');
  t.equal(
    await svc.system
      .knex('scheduled_jobs')
      .where({ key: `overdue:${p.id}` })
      .first(),
    undefined,
    'paid: its overdue check dropped',
  );
});

t.test('saga mode (a store without atomic commits): the reconcile job is set before the hold, which commits apart', async (t) => {
  const store = svc.system.store as { appendAtomically?: unknown };
  const atomic = store.appendAtomically;
  // The same database through the store as EventStoreDB is: one stream per commit.
  store.appendAtomically = undefined;
  t.teardown(() => {
    store.appendAtomically = atomic;
  });
  const { m, key, p } = await start(mobileMoney('67'));
  const job = await svc.system
    .knex('scheduled_jobs')
    .where({ key: `reconcile:${p.id}` })
    .first<{ run_at: Date; created_at: Date } | undefined>();
  t.ok(job, 'the mend job is set');
  const created = (await events(p.id)).find((e) => e.type === 'payout.created')!;
  const ledger = await svc.system.store.readStream(balanceStream(m.id, 'sandbox', 'xof'));
  const hold = ledger.find((e) => (e.data as EntryPosted).source === p.id)!;
  t.not(decodePosition(hold.position).transactionId, decodePosition(created.position).transactionId, 'the hold commits before the payout');
  store.appendAtomically = atomic;
  await advance(svc, 2 * MINUTE);
  t.equal(
    await svc.system
      .knex('scheduled_jobs')
      .where({ key: `reconcile:${p.id}` })
      .first(),
    undefined,
    'the job ran',
  );
  t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: 0 }, 'paid once, the hold spent, nothing released');
});

t.test('02 → delayed operator_pending, then paid', async (t) => {
  const { key, p } = await start(mobileMoney('02'));
  await advance(svc);
  const delayedAt = svc.clock.now().toISOString();
  const delayed = await retrievePayout(svc, key, p.id);
  t.match(delayed, { status: 'in_transit', delay_state: 'delayed', delay_reason: 'operator_pending', delayed_at: delayedAt });
  t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: AMOUNT + FEE }, 'still held');
  await advance(svc);
  const paid = await retrievePayout(svc, key, p.id);
  t.match(paid, { status: 'paid', delay_state: null, delay_reason: 'operator_pending', delayed_at: delayedAt, failure_code: null }, 'paid is not late; why it was stays');
  await assertEvents(t, key, p.id, ['payout.created', 'payout.updated', 'payout.delayed', 'payout.paid']);
  t.match((await events(p.id))[2]!.data, { reason: 'operator_pending', at: delayedAt, object: { status: 'in_transit', delay_state: 'delayed' } });
  t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: 0 });
});

t.test('03 → delayed operator_timeout, then failed', async (t) => {
  const { key, p } = await start(mobileMoney('03'));
  await advance(svc);
  t.match(await retrievePayout(svc, key, p.id), { status: 'in_transit', delay_state: 'delayed', delay_reason: 'operator_timeout' });
  await advance(svc);
  t.match(await retrievePayout(svc, key, p.id), { status: 'failed', failure_code: 'operator_timeout', delay_state: null, delay_reason: 'operator_timeout' });
  await assertEvents(t, key, p.id, ['payout.created', 'payout.updated', 'payout.delayed', 'payout.failed']);
  t.same(await balance(svc, key), { available: FUNDS, pending: 0, reserved: 0 }, 'funds back');
});

t.test('04 → delayed operator_down, stays in_transit with its funds held', async (t) => {
  const { key, p } = await start(mobileMoney('04'));
  await advance(svc);
  const delayedAt = svc.clock.now().toISOString();
  t.match(await retrievePayout(svc, key, p.id), { status: 'in_transit', delay_state: 'delayed', delay_reason: 'operator_down', delayed_at: delayedAt });
  await advance(svc, 60 * MINUTE);
  t.match(await retrievePayout(svc, key, p.id), { status: 'in_transit', delay_reason: 'operator_down', delayed_at: delayedAt }, 'expected_by passing keeps the operator\u2019s reason');
  await assertEvents(t, key, p.id, ['payout.created', 'payout.updated', 'payout.delayed']);
  t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: AMOUNT + FEE });
});

t.test('pending → failed: the operator refuses at initiation, funds back at once', async (t) => {
  probe.rejectNext = { failureCode: 'invalid_account', failureMessage: 'The wallet is closed' };
  const { key, p } = await start(mobileMoney('67'));
  t.match(p, { status: 'failed', failure_code: 'invalid_account', failure_message: 'The wallet is closed' });
  await assertEvents(t, key, p.id, ['payout.created', 'payout.failed']);
  t.same(
    (await events(p.id)).map((e) => objectOf(e).status),
    ['pending', 'failed'],
  );
  t.same(await balance(svc, key), { available: FUNDS, pending: 0, reserved: 0 });
  t.equal(
    await svc.system
      .knex('scheduled_jobs')
      .where({ key: `overdue:${p.id}` })
      .first(),
    undefined,
    'refused: its overdue check dropped before the answer',
  );
  t.equal((await balanceTransactions(svc, key, '?type=payout_failure')).length, 1);
  const rows: { type: string; data: { kind?: string; source?: string }; transaction_id: string }[] = await svc.system
    .knex('events')
    .select('type', 'data', 'transaction_id')
    .whereIn('stream_id', [`payout-${p.id}`])
    .orWhere((q) => {
      q.where('stream_id', 'like', 'balance-%').whereRaw(`data->>'source' = ? and data->>'kind' = 'payout_release'`, [p.id]);
    });
  const failed = rows.find((r) => r.type === 'payout.failed');
  const back = rows.find((r) => r.data.kind === 'payout_release');
  t.ok(failed && back && failed.transaction_id === back.transaction_id, 'the refusal and the funds back are one commit');
  await advance(svc, 20 * MINUTE);
  t.same(await typesOf(p.id), ['payout.created', 'payout.failed'], 'no delay for a failed payout');
});

t.test('a connector that throws: the payout is answered pending with its funds held, and a retry replays it', async (t) => {
  const { key } = await fundedMerchant(svc, FUNDS);
  probe.throwNext = true;
  const body = { amount: AMOUNT, currency: 'xof', destination: mobileMoney('67') };
  const first = await postPayout(svc, key, body, { idempotencyKey: 'retry-me' });
  t.equal(first.status, 200);
  t.match(first.body, { object: 'payout', status: 'pending' });
  const calls = probe.calls.length;
  const retry = await postPayout(svc, key, body, { idempotencyKey: 'retry-me' });
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.equal(retry.text, first.text, 'the same payout, byte for byte');
  t.equal(probe.calls.length, calls, 'no second disbursement');
  t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: AMOUNT + FEE });
});

t.test('bank destinations follow the same column by account number', async (t) => {
  const BANK_FEE = 1_000;
  await t.test('…67 → paid, into bank clearing', async (t) => {
    const { m, key, p } = await start(bank('67'));
    t.equal(p.fee, BANK_FEE);
    await advance(svc);
    t.equal((await retrievePayout(svc, key, p.id)).status, 'paid');
    const { state } = await ledgerOf(svc, m.id);
    t.equal(state.balances.get('bank_clearing'), AMOUNT);
    t.equal(state.balances.get('fees'), BANK_FEE);
    t.same(await balance(svc, key), { available: FUNDS - AMOUNT - BANK_FEE, pending: 0, reserved: 0 });
  });
  await t.test('…01 → failed recipient_not_found', async (t) => {
    const { key, p } = await start(bank('01'));
    await advance(svc);
    t.match(await retrievePayout(svc, key, p.id), { status: 'failed', failure_code: 'recipient_not_found' });
    t.same(await balance(svc, key), { available: FUNDS, pending: 0, reserved: 0 });
  });
  await t.test('…02 → delayed, then paid', async (t) => {
    const { key, p } = await start(bank('02'));
    await advance(svc);
    t.match(await retrievePayout(svc, key, p.id), { status: 'in_transit', delay_reason: 'operator_pending' });
    await advance(svc);
    t.equal((await retrievePayout(svc, key, p.id)).status, 'paid');
  });
});

t.test('delay detection: an operator that never answers', async (t) => {
  probe.silent = true;
  t.teardown(() => {
    probe.silent = false;
  });
  const { m, key, p } = await start(mobileMoney('67'));
  t.equal(probe.calls.at(-1)?.payoutId, p.id, 'the operator was asked');
  t.equal(p.status, 'in_transit');
  const expectedBy = Date.parse(p.expected_by);
  t.equal(expectedBy, svc.clock.now().getTime() + 10 * MINUTE);

  await advance(svc, 10 * MINUTE - 1);
  t.match(await retrievePayout(svc, key, p.id), { status: 'in_transit', delay_state: null, delay_reason: null, delayed_at: null }, 'not late before expected_by');
  await advance(svc, 1);
  const late = await retrievePayout(svc, key, p.id);
  t.match(late, { status: 'in_transit', delay_state: 'delayed', delay_reason: 'unknown', delayed_at: new Date(expectedBy).toISOString() }, 'late at expected_by; status unchanged');
  await assertEvents(t, key, p.id, ['payout.created', 'payout.updated', 'payout.delayed']);
  t.equal((await events(p.id)).at(-1)!.metadata.actor, 'scheduler');
  await advance(svc, 60 * MINUTE);
  t.equal((await events(p.id)).length, 3, 'detected once');

  await t.test('the operator finally answers; repeated callbacks move nothing twice', async (t) => {
    const callback = (report: PayoutReport) => ({ payoutId: p.id, merchantId: m.id, environment: 'sandbox' as const, report });
    const answered = await svc.system.payoutOperatorSide.applyCallback(callback({ type: 'paid' }));
    t.match(answered, { id: p.id, status: 'paid', delay_reason: 'unknown' });
    const ledger = await ledgerOf(svc, m.id);
    const streamLength = (await events(p.id)).length;
    t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: 0 });

    await svc.system.payoutOperatorSide.applyCallback(callback({ type: 'paid' }));
    await svc.system.payoutOperatorSide.applyCallback(callback({ type: 'paid' }));
    await svc.system.payoutOperatorSide.applyCallback(callback({ type: 'failed', failureCode: 'recipient_not_found', failureMessage: 'late' }));
    await svc.system.payoutOperatorSide.applyCallback(callback({ type: 'delayed', reason: 'operator_down' }));
    // The same news delivered again by the scheduler (at-least-once).
    await svc.system.scheduler.schedule({ kind: 'payout.callback', key: `dup:${p.id}`, runAt: svc.clock.now(), payload: { ...callback({ type: 'paid' }) } });
    await svc.system.scheduler.runUntilIdle();
    await svc.system.scheduler.runUntilIdle();

    t.equal((await events(p.id)).length, streamLength, 'no new payout event');
    t.equal((await ledgerOf(svc, m.id)).version, ledger.version, 'no new ledger entry');
    t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: 0 });
    t.equal((await retrievePayout(svc, key, p.id)).status, 'paid');
    t.equal(await svc.system.payoutOperatorSide.applyCallback({ ...callback({ type: 'paid' }), payoutId: 'po_000000000000000000000000' }), null, 'an unknown payout: nothing');
  });

  await t.test('a reason from the operator before expected_by is kept', async (t) => {
    const { m, key, p } = await start(mobileMoney('67'));
    await svc.system.payoutOperatorSide.applyCallback({ payoutId: p.id, merchantId: m.id, environment: 'sandbox', report: { type: 'delayed', reason: 'operator_pending' } });
    const at = svc.clock.now().toISOString();
    await advance(svc, 11 * MINUTE);
    t.match(await retrievePayout(svc, key, p.id), { status: 'in_transit', delay_reason: 'operator_pending', delayed_at: at });
    t.same(await typesOf(p.id), ['payout.created', 'payout.updated', 'payout.delayed']);
  });
});

t.test('a failed payout: repeated failure callbacks release the funds once', async (t) => {
  const { m, key, p } = await start(mobileMoney('01'));
  await advance(svc);
  t.same(await balance(svc, key), { available: FUNDS, pending: 0, reserved: 0 });
  const ledger = await ledgerOf(svc, m.id);
  const report: PayoutReport = { type: 'failed', failureCode: 'recipient_not_found', failureMessage: 'again' };
  for (let i = 0; i < 3; i++) await svc.system.payoutOperatorSide.applyCallback({ payoutId: p.id, merchantId: m.id, environment: 'sandbox', report });
  await svc.system.payoutOperatorSide.applyCallback({ payoutId: p.id, merchantId: m.id, environment: 'sandbox', report: { type: 'paid' } });
  await svc.system.payouts.reconcile({ merchantId: m.id, environment: 'sandbox', payoutId: p.id, currency: 'xof' });
  t.equal((await ledgerOf(svc, m.id)).version, ledger.version, 'no new ledger entry');
  t.same(await balance(svc, key), { available: FUNDS, pending: 0, reserved: 0 }, 'not credited twice');
  t.equal((await balanceTransactions(svc, key, '?type=payout_failure')).length, 1);
  t.match(await retrievePayout(svc, key, p.id), { status: 'failed', failure_code: 'recipient_not_found' }, 'the first failure stays');
});

t.test('reconcile: a hold whose payout was never created is released', async (t) => {
  const { merchant: m, key } = await fundedMerchant(svc, FUNDS);
  const meta = { merchant_id: m.id, environment: 'sandbox' as const, actor: 'test', occurred_at: svc.clock.now().toISOString() };
  const hold = (source: string) => runLedger({ ledger: svc.system.ledger, store: svc.system.store, clock: svc.clock }, m.id, 'sandbox', 'xof', holdOnAvailable({ source, amount: 5_000, fee: 100 }), meta);

  await t.test('called directly', async (t) => {
    const ghost = 'po_ghost00000000000000000001';
    await hold(ghost);
    t.same(await balance(svc, key), { available: FUNDS - 5_100, pending: 0, reserved: 5_100 }, 'held');
    await svc.system.payouts.reconcile({ merchantId: m.id, environment: 'sandbox', payoutId: ghost, currency: 'xof' });
    t.same(await balance(svc, key), { available: FUNDS, pending: 0, reserved: 0 }, 'released');
    const version = (await ledgerOf(svc, m.id)).version;
    await svc.system.payouts.reconcile({ merchantId: m.id, environment: 'sandbox', payoutId: ghost, currency: 'xof' });
    t.equal((await ledgerOf(svc, m.id)).version, version, 'a second reconcile moves nothing');
    const failures = await balanceTransactions(svc, key, `?source=${ghost}`);
    t.same(failures.map((x) => x.type).sort(), ['payout', 'payout_failure']);
  });

  await t.test('as the scheduled job', async (t) => {
    const ghost = 'po_ghost00000000000000000002';
    await hold(ghost);
    await svc.system.scheduler.schedule({
      kind: 'payout.reconcile',
      key: `reconcile:${ghost}`,
      runAt: new Date(svc.clock.now().getTime() + MINUTE),
      payload: { merchantId: m.id, environment: 'sandbox', payoutId: ghost, currency: 'xof' },
    });
    await advance(svc, MINUTE - 1);
    t.same(await balance(svc, key), { available: FUNDS - 5_100, pending: 0, reserved: 5_100 }, 'not before it is due');
    await advance(svc, 1);
    t.same(await balance(svc, key), { available: FUNDS, pending: 0, reserved: 0 }, 'released by the job');
  });

  await t.test('a payout in flight keeps its hold', async (t) => {
    probe.silent = true;
    t.teardown(() => {
      probe.silent = false;
    });
    const p = await payout(svc, key, { destination: mobileMoney('67') });
    await advance(svc, 2 * MINUTE); // past when a saga's reconcile job would run
    await svc.system.payouts.reconcile({ merchantId: m.id, environment: 'sandbox', payoutId: p.id, currency: 'xof' });
    t.same(await balance(svc, key), { available: FUNDS - AMOUNT - FEE, pending: 0, reserved: AMOUNT + FEE });
    t.equal((await retrievePayout(svc, key, p.id)).status, 'in_transit');
  });
});

t.test('a refused payout leaves no hold behind', async (t) => {
  const { merchant: m, key } = await fundedMerchant(svc, 1_000);
  const res = await postPayout(svc, key, { amount: AMOUNT, currency: 'xof', destination: mobileMoney('67') });
  t.equal(res.status, 400);
  await advance(svc, 2 * MINUTE);
  t.same(await balance(svc, key), { available: 1_000, pending: 0, reserved: 0 });
  const version = (await ledgerOf(svc, m.id)).version;
  t.equal(version, 2, 'only the funding entries');
});

const snapshot = (knex: Knex) => readModelRows(knex, ['read.payouts', 'read.payout_methods', 'read.payout_settings', 'read.balances', 'read.balance_transactions']);

t.test('rebuild: the read models come back identical', async (t) => {
  const { merchant: m, key } = await fundedMerchant(svc, 1_000_000);
  await fund(svc, m.id, 1_000_000, 'live');
  assertOk(t, await svc.request('PATCH', '/api/v1/merchant/settings/payouts', { key, body: { default_return_url: 'https://shop.example/back', default_currency: 'XOF' } }));
  assertOk(t, await svc.request('PATCH', '/api/v1/merchant/settings/payouts', { key: m.api_keys.live, body: { safety_delay_minutes: 2880 } }));
  const saved = await svc.request('POST', '/api/v1/merchant/settings/payouts/destinations', { key, body: { ...mobileMoney('67'), currency: 'xof' } });
  assertOk(t, saved);
  const gone = await svc.request('POST', '/api/v1/merchant/settings/payouts/destinations', { key, body: { ...bank('67'), currency: 'xof' } });
  assertOk(t, await svc.request('DELETE', `/api/v1/merchant/settings/payouts/destinations/${gone.body.id}`, { key }));
  assertOk(t, await svc.request('POST', '/api/v1/merchant/settings/payouts/destinations', { key: m.api_keys.live, body: { ...mobileMoney('67'), currency: 'xof' } }));

  for (const [i, destination] of [mobileMoney('67'), mobileMoney('01'), mobileMoney('02'), mobileMoney('03'), mobileMoney('04'), bank('67'), bank('01')].entries()) {
    await payout(svc, key, { amount: 1_000 * (i + 1), destination, metadata: { i: String(i) } });
    svc.clock.advance(1_000);
  }
  await payout(svc, key, { amount: 2_500, payout_method_id: saved.body.id });
  await svc.request('POST', '/api/v1/merchant/payouts', { key, body: { amount: 3_000, currency: 'xof', destination: mobileMoney('67') }, headers: { 'x-environment': 'sandbox' } });
  await postPayout(svc, key, { amount: 10_000_000, currency: 'xof', destination: mobileMoney('67') }); // refused
  await advance(svc);
  await advance(svc, 11 * MINUTE);

  const before = await snapshot(svc.system.knex);
  t.ok(before['read.payouts']!.length >= 9, 'payouts recorded');
  t.ok(before['read.payout_methods']!.length >= 3);
  t.ok(before['read.payout_settings']!.length >= 2);
  await svc.system.knex('read.payouts').update({ status: 'canceled' });
  await svc.system.knex('read.payout_methods').delete();
  await svc.system.knex('read.payout_settings').delete();
  await svc.system.knex('read.balances').update({ available: 0 });
  await svc.system.knex('read.balance_transactions').delete();
  const applied = await svc.system.rebuildProjections(['payouts', 'payout_methods', 'payout_settings', 'balances', 'balance_transactions']);
  t.ok(applied > 0, `${applied} events replayed`);
  t.same(await snapshot(svc.system.knex), before, 'identical rows');
  const all = await svc.system.rebuildProjections();
  t.ok(all >= applied);
  t.same(await snapshot(svc.system.knex), before, 'and again with every projection');

  const list = await svc.request('GET', '/api/v1/merchant/payouts?limit=100', { key, headers: { 'x-environment': 'sandbox' } });
  assertOk(t, list);
  t.equal(list.body.total, 9, 'the API answers from the rebuilt models');
});
