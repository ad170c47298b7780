/**
 * The payout engine's pure parts: the batch decider (validated → executing → completed |
 * partially_failed | failed, or canceled; retry; idempotent item news; the transition table walked),
 * the recipient decider, the payout's dispatch guard (a dispatched payout cannot be canceled), the
 * ledger's batch hold, allocation and release (every entry balances, the reserved total is kept),
 * and the CSV reader.
 */
import { postPayment } from '#packages/families/payments/payment-intent/postings.js';
import { holdBatch, holdBatchItem, releaseBatch } from '#packages/families/payout-engine/payout-batch/postings.js';
import { completePayout } from '#packages/families/payouts/payout/postings.js';
import t from '#tap';
import { isRefused } from '#packages/core/refusal.js';
import { persistentMapWork } from '#packages/core/persistent-map.js';
import type { LedgerCommand } from '#packages/ledger/decider.js';
import { familiesLedger } from '../../support/ledger.js';
import { batchBodyFromCsv, parseCsv } from '#packages/families/payout-engine/payout-batch/csv.js';
import { PAYOUT_BATCH_TRANSITIONS, type ItemNews, type PayoutBatchCommand, type PayoutBatchState } from '#packages/families/payout-engine/payout-batch/decider.js';
import { payoutBatchAggregate } from '#packages/families/payout-engine/payout-batch/render.js';
import type { BatchItem, PayoutBatchCreated } from '#packages/families/payout-engine/payout-batch/events.js';
import { recipientAggregate } from '#packages/families/payout-engine/payout-recipient/render.js';
import type { PayoutCommand } from '#packages/families/payouts/payout/decider.js';
import { payoutAggregate } from '#packages/families/payouts/payout/render.js';
import { spec } from '../../support/decider-spec.js';

const owner = { merchantId: 'acct_1', environment: 'sandbox' } as const;
const stranger = { merchantId: 'acct_2', environment: 'sandbox' } as const;
const T0 = new Date('2026-01-01T00:00:00Z');
const destination = { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } as const;
const item = (index: number, amount: number): BatchItem => ({ index, amount, fee: 100, destination, recipientId: null, reference: null, metadata: {} });
const created: PayoutBatchCreated = {
  id: 'pob_1',
  ...owner,
  currency: 'xof',
  idempotencyKey: null,
  metadata: null,
  format: 'json',
  fingerprint: 'f1',
  items: [item(0, 1_000), item(1, 2_000), item(2, 3_000)],
  createdAt: T0.toISOString(),
};
const batches = spec(payoutBatchAggregate);
const create: PayoutBatchCommand = { type: 'create', batch: created };
const execute: PayoutBatchCommand = { type: 'execute', owner, at: T0 };
const retry: PayoutBatchCommand = { type: 'retry', owner, at: T0 };
const cancel: PayoutBatchCommand = { type: 'cancel', owner, at: T0 };
const news = (index: number, outcome: 'paid' | 'failed' | 'canceled', attempt = 1): ItemNews => ({
  index,
  attempt,
  payoutId: `po_${index}_${attempt}`,
  outcome,
  failureCode: outcome === 'failed' ? 'recipient_not_found' : null,
});
const settle = (index: number, outcome: 'paid' | 'failed' | 'canceled', attempt = 1): PayoutBatchCommand => ({ type: 'settle_items', owner, at: T0, items: [news(index, outcome, attempt)] });

t.test('create: validated, totals; the same request again decides nothing, another is refused', async (t) => {
  const events = batches
    .given([])
    .when(create)
    .thenState((s) => {
      t.equal(s.status, 'validated');
      t.equal(s.totalAmount, 6_000);
      t.equal(s.totalFee, 300);
      t.same(s.counts, { validated: 3, queued: 0, paid: 0, failed: 0, canceled: 0 });
    });
  batches.given(events).when(create).thenNothing(t);
  batches
    .given(events)
    .when({ type: 'create', batch: { ...created, fingerprint: 'f2' } })
    .thenThrows(t, { code: 'IKW-IDM-002', param: 'idempotencyKey' });
});

t.test('execute holds every item; all paid → completed', async (t) => {
  const started = batches
    .given(batches.history(create))
    .when(execute)
    .thenMatch(t, [{ type: 'payout_batch.execution_started', data: { attempt: 1, indexes: [0, 1, 2], amount: 6_000, fee: 300, holdSource: 'pob_1/1' } }]);
  const done = batches.given(started).history(settle(0, 'paid'), settle(1, 'paid'));
  batches
    .given(done)
    .when(settle(2, 'paid'))
    .thenMatch(t, [{ type: 'payout_batch.item_settled' }, { type: 'payout_batch.completed', data: { object: { status: 'completed' } } }]);
  batches.given(done).when(settle(1, 'paid')).thenNothing(t, 'the same news twice');
  batches
    .given(done)
    .when(settle(2, 'paid', 2))
    .thenNothing(t, 'news of another attempt');
  batches
    .given(started)
    .when({ type: 'settle_items', owner: stranger, at: T0, items: [news(0, 'paid')] })
    .thenThrows(t, 'IKW-RES-001');
});

t.test('some failed → partially_failed, retry the failed only; none paid → failed', async (t) => {
  const partial = batches.given(batches.history(create, execute)).history(settle(0, 'paid'), settle(1, 'failed'), settle(2, 'paid'));
  t.equal(batches.state(partial).status, 'partially_failed');
  const retried = batches
    .given(partial)
    .when(retry)
    .thenMatch(t, [{ type: 'payout_batch.execution_started', data: { attempt: 2, indexes: [1], amount: 2_000, fee: 100 } }]);
  batches
    .given(retried)
    .when(settle(1, 'paid', 2))
    .thenMatch(t, [{ type: 'payout_batch.item_settled' }, { type: 'payout_batch.completed' }]);
  const failed = batches.given(batches.history(create, execute)).history(settle(0, 'failed'), settle(1, 'failed'), settle(2, 'failed'));
  t.equal(batches.state(failed).status, 'failed');
  batches.given(batches.history(create, execute)).when(retry).thenThrows(t, { code: 'IKW-PEN-005', param: 'batchId' });
  const completed = batches.given(batches.history(create, execute)).history(settle(0, 'paid'), settle(1, 'paid'), settle(2, 'paid'));
  batches.given(completed).when(retry).thenThrows(t, 'IKW-PEN-005');
});

t.test('cancel: before execution every item is canceled; during it the queued ones wait for the runner', async (t) => {
  batches
    .given(batches.history(create))
    .when(cancel)
    .thenState((s) => {
      t.equal(s.status, 'canceled');
      t.same(s.counts, { validated: 0, queued: 0, paid: 0, failed: 0, canceled: 3 });
    });
  const running = batches.given(batches.history(create, execute)).history(settle(0, 'paid'), cancel);
  t.same(batches.state(running).counts, { validated: 0, queued: 2, paid: 1, failed: 0, canceled: 0 });
  const stopped = batches.given(running).history(settle(1, 'canceled'), settle(2, 'canceled'));
  t.equal(batches.state(stopped).status, 'canceled', 'stays canceled once every item is final');
  t.same(batches.state(stopped).counts, { validated: 0, queued: 0, paid: 1, failed: 0, canceled: 2 });
});

t.test('mark_sent records each item once per attempt', async (t) => {
  const started = batches.history(create, execute);
  const sent = batches
    .given(started)
    .when({ type: 'mark_sent', owner, at: T0, attempt: 1, indexes: [0, 1] })
    .thenMatch(t, [{ type: 'payout_batch.items_sent', data: { indexes: [0, 1] } }]);
  batches
    .given(sent)
    .when({ type: 'mark_sent', owner, at: T0, attempt: 1, indexes: [0, 1, 2] })
    .thenMatch(t, [{ type: 'payout_batch.items_sent', data: { indexes: [2] } }]);
  batches
    .given(sent)
    .when({ type: 'mark_sent', owner, at: T0, attempt: 1, indexes: [1] })
    .thenNothing(t);
  batches
    .given(batches.history(create))
    .when({ type: 'mark_sent', owner, at: T0, attempt: 1, indexes: [0] })
    .thenNothing(t, 'nothing to mark before execution');
});

t.test('settle_items: many items in one command, each once; a repeat (a job run again) decides nothing', async (t) => {
  const started = batches.history(create, execute);
  const many: PayoutBatchCommand = { type: 'settle_items', owner, at: T0, items: [news(0, 'paid'), news(2, 'failed'), news(0, 'paid'), news(1, 'paid', 2), news(7, 'paid')] };
  const settled = batches
    .given(started)
    .when(many)
    .thenMatch(t, [
      { type: 'payout_batch.item_settled', data: { index: 0, outcome: 'paid', object: { counts: { queued: 2, paid: 1 } } } },
      { type: 'payout_batch.item_settled', data: { index: 2, outcome: 'failed', object: { counts: { queued: 1, paid: 1, failed: 1 } } } },
    ]);
  batches.given(settled).when(many).thenNothing(t, 'the same news again: a retried job lands on the same result');
  batches
    .given(settled)
    .when({ type: 'settle_items', owner, at: T0, items: [news(0, 'paid'), news(1, 'paid'), news(2, 'failed')] })
    .thenMatch(t, [
      { type: 'payout_batch.item_settled', data: { index: 1 } },
      { type: 'payout_batch.partially_failed', data: { object: { status: 'partially_failed', counts: { paid: 2, failed: 1, queued: 0 } } } },
    ]);
  batches
    .given(started)
    .when({ type: 'settle_items', owner, at: T0, items: [news(0, 'paid'), news(1, 'paid'), news(2, 'paid')] })
    .thenMatch(t, [{ type: 'payout_batch.item_settled' }, { type: 'payout_batch.item_settled' }, { type: 'payout_batch.item_settled' }, { type: 'payout_batch.completed' }]);
});

t.test('a large batch executed and settled item by item: work linear in its items; states decided on stay unchanged', async (t) => {
  const run = (n: number) => {
    const batch: PayoutBatchCreated = { ...created, items: Array.from({ length: n }, (_, i) => item(i, 1_000)) };
    let state = payoutBatchAggregate.initialState;
    const apply = (command: PayoutBatchCommand) => {
      for (const e of payoutBatchAggregate.decide(command, state)) state = payoutBatchAggregate.evolve(state, e);
    };
    const before = persistentMapWork();
    apply({ type: 'create', batch });
    apply(execute);
    apply({ type: 'mark_sent', owner, at: T0, attempt: 1, indexes: Array.from({ length: n }, (_, i) => i) });
    const halfway = state;
    for (let i = 0; i < n; i++) apply({ type: 'settle_items', owner, at: T0, items: [news(i, 'paid')] });
    return { work: persistentMapWork() - before, state, halfway };
  };
  const small = run(2_000);
  const large = run(8_000);
  t.equal(large.state.status, 'completed');
  t.same(large.state.counts, { validated: 0, queued: 0, paid: 8_000, failed: 0, canceled: 0 });
  t.ok(small.work > 2_000, 'items are kept in a persistent map');
  // Linear (times a logarithm) is about 4.5×; a copy of every item per event is 16×.
  t.ok(large.work < 6 * small.work, `4× the items, ${(large.work / small.work).toFixed(2)}× the work`);
  t.equal(large.halfway.counts.queued, 8_000, 'the state before the settlements is unchanged');
  t.equal(large.halfway.items.get('0')?.outcome, 'queued');
});

t.test('the transition table: each command acts in its statuses only', async (t) => {
  const histories: Record<string, PayoutBatchCommand[]> = {
    validated: [create],
    executing: [create, execute],
    completed: [create, execute, settle(0, 'paid'), settle(1, 'paid'), settle(2, 'paid')],
    partially_failed: [create, execute, settle(0, 'paid'), settle(1, 'failed'), settle(2, 'paid')],
    failed: [create, execute, settle(0, 'failed'), settle(1, 'failed'), settle(2, 'failed')],
    canceled: [create, cancel],
  };
  const commands: Record<keyof typeof PAYOUT_BATCH_TRANSITIONS, PayoutBatchCommand> = {
    execute,
    retry,
    cancel,
    mark_sent: { type: 'mark_sent', owner, at: T0, attempt: 1, indexes: [0] },
    settle_items: settle(0, 'paid'),
  };
  for (const [status, history] of Object.entries(histories)) {
    const events = batches.history(...history);
    t.equal(batches.state(events).status, status);
    for (const [name, command] of Object.entries(commands) as [keyof typeof PAYOUT_BATCH_TRANSITIONS, PayoutBatchCommand][]) {
      let outcome: string;
      try {
        outcome = payoutBatchAggregate.decide(command, batches.state(events) as PayoutBatchState).length > 0 ? 'acts' : 'nothing';
      } catch (err) {
        outcome = isRefused(err) ? err.code : 'crash';
      }
      const allowed = PAYOUT_BATCH_TRANSITIONS[name].includes(batches.state(events).status);
      if (name === 'settle_items' || name === 'mark_sent') t.not(outcome, 'IKW-PEN-005', `${name} in ${status} is never refused`);
      else t.equal(outcome === 'acts', allowed, `${name} in ${status}: ${outcome}`);
    }
  }
});

t.test('recipients: update and archive; an archived one is not edited; another merchant’s is no recipient', async (t) => {
  const recipients = spec(recipientAggregate);
  const history = recipients.history({ type: 'create', recipient: { id: 'rcp_1', ...owner, displayName: 'Awa', destination, createdAt: T0.toISOString() } });
  const updated = recipients
    .given(history)
    .when({ type: 'update', owner, at: T0, displayName: 'Awa D.', destination })
    .thenMatch(t, [{ type: 'payout_recipient.updated', data: { object: { display_name: 'Awa D.' } } }]);
  const archived = recipients
    .given(updated)
    .when({ type: 'archive', owner, at: T0 })
    .thenMatch(t, [{ type: 'payout_recipient.archived', data: { object: { status: 'archived' } } }]);
  recipients.given(archived).when({ type: 'archive', owner, at: T0 }).thenNothing(t);
  recipients.given(archived).when({ type: 'update', owner, at: T0, displayName: 'x', destination }).thenThrows(t, 'IKW-RES-002');
  recipients.given(history).when({ type: 'archive', owner: stranger, at: T0 }).thenThrows(t, 'IKW-RES-001');
});

t.test('payout dispatch: recorded once; a dispatched payout cannot be canceled', async (t) => {
  const payouts = spec(payoutAggregate);
  const history = payouts.history({
    type: 'create',
    payout: {
      id: 'po_1',
      ...owner,
      amount: 1_000,
      currency: 'xof',
      fee: 100,
      destination,
      payoutMethodId: null,
      metadata: {},
      source: 'payout_engine',
      batch: { id: 'pob_1', index: 0, attempt: 1 },
      expectedBy: T0.toISOString(),
      createdAt: T0.toISOString(),
    },
  });
  const dispatch: PayoutCommand = { type: 'dispatch', owner, at: T0 };
  const dispatched = payouts
    .given(history)
    .when(dispatch)
    .thenMatch(t, [{ type: 'payout.dispatched' }]);
  payouts.given(dispatched).when(dispatch).thenNothing(t);
  payouts.given(dispatched).when({ type: 'cancel', owner, at: T0 }).thenThrows(t, 'IKW-RES-002');
  payouts
    .given(history)
    .when({ type: 'cancel', owner, at: T0 })
    .thenMatch(t, [{ type: 'payout.canceled', data: { object: { status: 'canceled' } } }]);
});

t.test('payout answers committed with their ledger side are strict: a final payout refuses, so the ledger side never goes alone', async (t) => {
  const payouts = spec(payoutAggregate);
  const history = payouts.history({
    type: 'create',
    payout: { id: 'po_1', ...owner, amount: 1_000, currency: 'xof', fee: 100, destination, payoutMethodId: null, metadata: {}, source: 'api', expectedBy: T0.toISOString(), createdAt: T0.toISOString() },
  });
  payouts
    .given(history)
    .when({ type: 'complete', owner, at: T0, strict: true })
    .thenMatch(t, [{ type: 'payout.paid' }]);
  const failed = payouts
    .given(history)
    .when({ type: 'fail', owner, at: T0, failureCode: 'x', failureMessage: 'x', strict: true })
    .thenMatch(t, [{ type: 'payout.failed' }]);
  payouts.given(failed).when({ type: 'complete', owner, at: T0 }).thenNothing(t, 'late news alone changes nothing');
  payouts.given(failed).when({ type: 'complete', owner, at: T0, strict: true }).thenThrows(t, 'IKW-RES-002');
  payouts.given(failed).when({ type: 'fail', owner, at: T0, failureCode: 'x', failureMessage: 'x', strict: true }).thenThrows(t, 'IKW-RES-002');
});

t.test('ledger: a batch hold, allocations carved from it, the remainder released; every entry balances', async (t) => {
  const ctx = { merchantId: 'acct_1', environment: 'sandbox' as const, currency: 'xof', at: T0, newEntryId: () => 'txn_1' };
  const ledger = spec(familiesLedger.decider);
  const funded = ledger.history({ ...ctx, ...postPayment({ source: 'pi_1', clearing: 'operator_clearing:wave', amount: 10_000, fee: 0, availableOn: T0 }) });
  ledger
    .given(funded)
    .when({ ...ctx, ...holdBatch({ source: 'pob_1/1', amount: 10_000, fee: 300 }) } as LedgerCommand)
    .thenThrows(t, 'IKW-BAL-001');
  const held = ledger.given(funded).history({ ...ctx, ...holdBatch({ source: 'pob_1/1', amount: 6_000, fee: 300 }) });
  const allocated = ledger.given(held).history({ ...ctx, ...holdBatchItem({ source: 'po_a', amount: 1_000, fee: 100, batch: 'pob_1/1' }) });
  ledger
    .given(allocated)
    .when({ ...ctx, ...holdBatchItem({ source: 'po_a', amount: 1_000, fee: 100, batch: 'pob_1/1' }) })
    .thenNothing(t, 'idempotent');
  const s = ledger.state(allocated);
  t.equal(s.balances.get('available'), 3_700);
  t.equal(s.balances.get('reserved'), 6_300, 'the reserved total is unchanged by an allocation');
  t.match(s.holds.get('pob_1/1'), { total: 5_200, fee: 200, heldIn: 'reserved', returnTo: 'available' });
  t.match(s.holds.get('po_a'), { total: 1_100, fee: 100, heldIn: 'reserved', returnTo: 'available' });
  const paid = ledger.given(allocated).history({ ...ctx, ...completePayout('po_a', 'operator_clearing:orange_money') }, { ...ctx, ...releaseBatch('pob_1/1') });
  const end = ledger.state(paid);
  t.same([end.balances.get('available'), end.balances.get('reserved'), end.balances.get('fees')], [8_900, 0, 100], 'funding − (amount + fee) of the one payout');
  for (const e of paid)
    t.equal(
      e.data.lines.reduce((sum, l) => sum + l.amount, 0),
      0,
      `${e.data.kind} balances`,
    );
  ledger
    .given(paid)
    .when({ ...ctx, ...releaseBatch('pob_1/1') })
    .thenNothing(t);
});

t.test('CSV: quotes, doubled quotes, CRLF, a byte-order mark; malformed text refused', async (t) => {
  t.same(
    parseCsv('\ufeffa,b\r\n"1,2","say ""hi"""\n3,\n').map((r) => r.fields),
    [
      ['a', 'b'],
      ['1,2', 'say "hi"'],
      ['3', ''],
    ],
  );
  t.same(
    parseCsv('a\n"multi\nline"\nb').map((r) => r.line),
    [1, 3, 4],
    'records know the line they end on',
  );
  t.throws(() => parseCsv('a\n"open'), { code: 'IKW-PEN-004' });
  t.throws(() => parseCsv('a\nx"y'), { code: 'IKW-PEN-004' });
  t.throws(() => parseCsv('a\n"x"y'), { code: 'IKW-PEN-004' });
  t.same(batchBodyFromCsv('Amount, Currency ,msisdn\n100,XOF,\n\n12.5,xof,+221\n'), {
    currency: 'XOF',
    instructions: [
      { amount: 100, currency: 'XOF' },
      { amount: '12.5', currency: 'xof', msisdn: '+221' },
    ],
  });
  t.throws(() => batchBodyFromCsv('amount,amount\n1,2\n'), { code: 'IKW-PEN-004' });
  t.throws(() => batchBodyFromCsv('\n\n'), { code: 'IKW-PEN-004' });
});
