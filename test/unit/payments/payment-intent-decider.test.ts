/**
 * The payment intent Decider on its own (no database): lifecycle, the confirmation lock, cancel
 * rules, idempotent provider answers, tenant checks, and the public object every event carries.
 */
import t from '#tap';
import { CONFIRMATION_IN_PROGRESS, CONFIRMATION_LEASE_MS, PAYMENT_INTENT_TRANSITIONS, type PaymentIntentCommand } from '#packages/families/payments/payment-intent/decider.js';
import type { Owner } from '#packages/core/owner.js';
import { paymentIntentAggregate, toObject } from '#packages/families/payments/payment-intent/render.js';
import { PUBLIC_PAYMENT_INTENT_EVENTS, type Created, type NextAction, type PaymentIntentEvent, type PaymentMethodDetails } from '#packages/families/payments/payment-intent/events.js';
import { storedSpec } from '../../support/decider-spec.js';

const intents = storedSpec<PaymentIntentEvent>()(paymentIntentAggregate);
const T0 = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(T0.getTime() + ms);
const owner: Owner = { merchantId: 'acct_1', environment: 'sandbox' };
const mm: PaymentMethodDetails = { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' };
const redirect: NextAction = { type: 'redirect_to_url', redirect_to_url: { url: 'https://sika.test/sandbox/3ds/op_1', return_url: 'https://shop.test/back' } };

const intent: Created = {
  id: 'pi_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  amount: 10_000,
  currency: 'xof',
  transactionCountry: 'SN',
  payerCountry: null,
  railCountry: null,
  description: 'Order 42',
  metadata: { order: '42', Environment: 'sandbox', 'country_context.transaction_country': 'SN', 'internal.x': 'y' },
  customer: 'cus_1',
  createdAt: T0.toISOString(),
};

type Command = PaymentIntentCommand;

const create = (): Command => ({ type: 'create', intent, at: T0 });
const start = (operationId = 'op_1', at = later(1000), paymentMethod: PaymentMethodDetails = mm): Command => ({
  type: 'start_confirmation',
  owner,
  at,
  operationId,
  paymentMethod,
  returnUrl: 'https://shop.test/back',
});
const initiation = (result: Extract<Command, { type: 'record_initiation' }>['result'], operationId = 'op_1'): Command => ({
  type: 'record_initiation',
  owner,
  at: later(2000),
  operationId,
  result,
});
const succeeded = (operationId = 'op_1', fee = 150): Command => ({ type: 'record_outcome', owner, at: later(5000), operationId, outcome: { status: 'succeeded', fee } });
const failed = (operationId = 'op_1'): Command => ({
  type: 'record_outcome',
  owner,
  at: later(5000),
  operationId,
  outcome: { status: 'failed', failureCode: 'insufficient_funds', failureMessage: 'Too low' },
});
const cancel = (reason: Extract<Command, { type: 'cancel' }>['reason'] = 'requested_by_customer', at = later(3000)): Command => ({ type: 'cancel', owner, at, reason });

const created = intents.history(create());
const processing = intents.history(create(), start(), initiation({ status: 'processing' }));
const requiresAction = intents.history(create(), start(), initiation({ status: 'requires_action', nextAction: redirect }));
const succeededHistory = intents.given(processing).history(succeeded());
const failedHistory = intents.given(processing).history(failed());
const canceledHistory = intents.history(create(), cancel());

t.test('create: one public event carrying the new object; platform metadata is stored, not shown', async (t) => {
  intents
    .given()
    .when(create())
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payment_intent.created'],
      );
      const e = decided[0]!;
      if (e.type !== 'payment_intent.created') throw new Error('unreachable');
      t.same(e.data.metadata, intent.metadata, 'the event stores every key');
      t.match(e.data.object, {
        id: 'pi_1',
        object: 'payment_intent',
        created: Math.floor(T0.getTime() / 1000),
        livemode: false,
        amount: 10_000,
        currency: 'xof',
        status: 'requires_payment_method',
        description: 'Order 42',
        next_action: null,
        customer: 'cus_1',
        transaction_country: 'SN',
        payment_method: null,
        latest_operation: null,
        return_url: null,
        amount_received: 0,
        cancellation_reason: null,
      });
      t.same(e.data.object.metadata, { order: '42' }, 'reserved keys and prefixes are filtered');
      t.same(e.data.object, toObject(s), 'the event object is the state object');
    });
});

t.test('create twice is refused; a live intent is livemode', async (t) => {
  intents.given(created).when(create()).thenThrows(t, 'IKW-RES-003');
  intents
    .given()
    .when({ type: 'create', intent: { ...intent, environment: 'live' }, at: T0 })
    .thenState((_, live) => t.equal(live[0]!.type === 'payment_intent.created' && live[0]!.data.object.livemode, true));
});

t.test('another merchant, the other environment, or no intent at all: no such payment intent', async (t) => {
  const others: Owner[] = [
    { merchantId: 'acct_2', environment: 'sandbox' },
    { merchantId: 'acct_1', environment: 'live' },
  ];
  const commands = (o: Owner): Command[] => [
    { type: 'update', owner: o, at: T0, description: 'x' },
    { ...start(), owner: o } as Command,
    { type: 'cancel', owner: o, at: T0, reason: null },
    { type: 'record_outcome', owner: o, at: T0, operationId: 'op_1', outcome: { status: 'succeeded', fee: 1 } },
  ];
  for (const o of others) {
    for (const c of commands(o)) intents.given(processing).when(c).thenThrows(t, 'IKW-RES-001', `${c.type} of ${o.merchantId} in ${o.environment}`);
  }
  for (const c of commands(owner)) intents.given().when(c).thenThrows(t, 'IKW-RES-001', `${c.type} without an intent`);
});

t.test('update: description set or cleared, metadata keys added or replaced', async (t) => {
  const first = intents
    .given(created)
    .when({ type: 'update', owner, at: T0, description: 'New', metadata: { order: '43', color: 'red' } })
    .thenState((s) => {
      const o = toObject(s);
      t.equal(o.description, 'New');
      t.same(o.metadata, { order: '43', color: 'red' });
      t.equal(s.metadata.Environment, 'sandbox', 'platform keys survive an update');
    });
  const second = intents
    .given(first)
    .when({ type: 'update', owner, at: T0, metadata: { size: 'L' } })
    .thenState((s) => {
      const o = toObject(s);
      t.equal(o.description, 'New', 'an absent description is left alone');
      t.same(o.metadata, { order: '43', color: 'red', size: 'L' });
    });
  intents
    .given(second)
    .when({ type: 'update', owner, at: T0, description: null })
    .thenState((s, decided) => {
      t.equal(toObject(s).description, null, 'null clears it');
      const last = decided.at(-1)!;
      t.equal(last.type, 'payment_intent.updated');
      t.same(last.type === 'payment_intent.updated' && last.data.object, toObject(s));
    });
});

t.test('update: at most 50 merchant keys in all', async (t) => {
  const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
  const h = intents
    .given(created)
    .when({ type: 'update', owner, at: T0, metadata: many })
    .thenState((s) => t.equal(Object.keys(toObject(s).metadata).length, 50, 'order + 49 = 50 is fine'));
  intents
    .given(h)
    .when({ type: 'update', owner, at: T0, metadata: { one_more: 'v' } })
    .thenThrows(t, 'IKW-VAL-001');
  intents
    .given(h)
    .when({ type: 'update', owner, at: T0, metadata: { k1: 'replaced' } })
    .thenMatch(t, [{ type: 'payment_intent.updated' }], 'replacing a key adds none');
});

t.test('start_confirmation takes the lock: an internal event, no public object', async (t) => {
  intents
    .given(created)
    .when(start())
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payment_intent.confirmation_started'],
      );
      const e = decided[0]!;
      t.notOk('object' in e.data, 'internal events carry no object');
      t.match(e.data, { operationId: 'op_1', amount: 10_000, currency: 'xof', livemode: false, returnUrl: 'https://shop.test/back', startedAt: later(1000).toISOString() });
      t.equal(s.status, 'processing');
      t.equal(s.confirmation?.inFlight, true);
    });
});

t.test('a second confirmation while the first is with the provider: 409 IKW-RES-003, retryable', async (t) => {
  const h = intents.given(created).history(start());
  intents
    .given(h)
    .when(start('op_2', later(1500)))
    .thenThrows(t, { code: 'IKW-RES-003', retryable: true, message: CONFIRMATION_IN_PROGRESS }, 'a conflict');
  t.equal(CONFIRMATION_IN_PROGRESS, 'Payment intent confirmation is already in progress');
  intents.given(h).when(cancel()).thenThrows(t, { code: 'IKW-RES-003', message: 'This payment intent is being confirmed; cancel it once the provider has answered' }, 'cancel says why it waits');
});

t.test('a confirmation whose provider call never answered is taken over after the lease', async (t) => {
  const h = intents.given(created).history(start());
  intents
    .given(h)
    .when(start('op_2', later(1000 + CONFIRMATION_LEASE_MS - 1)))
    .thenThrows(t, 'IKW-RES-003');
  const taken = intents
    .given(h)
    .when(start('op_2', later(1000 + CONFIRMATION_LEASE_MS)))
    .thenState((s) => t.equal(s.confirmation?.operationId, 'op_2'));
  intents
    .given(taken)
    .when(initiation({ status: 'processing' }, 'op_1'))
    .thenNothing(t, 'the dead operation answers nothing');
  intents.given(taken).when(succeeded('op_1')).thenNothing(t, 'nor does its late callback');
  intents
    .given(taken)
    .when(initiation({ status: 'processing' }, 'op_2'))
    .thenMatch(t, [{ type: 'payment_intent.processing' }]);
});

t.test('confirm on an intent past requires_payment_method decides nothing (no provider call)', async (t) => {
  for (const [name, h] of [
    ['processing', processing],
    ['requires_action', requiresAction],
    ['succeeded', succeededHistory],
    ['failed', failedHistory],
  ] as const) {
    intents
      .given(h)
      .when(start('op_9', later(10 * CONFIRMATION_LEASE_MS)))
      .thenNothing(t, name);
  }
  intents.given(canceledHistory).when(start()).thenThrows(t, 'IKW-RES-002');
});

t.test('the provider first answer: processing, requires_action or failed', async (t) => {
  const h = intents.given(created).history(start());
  const p = intents
    .given(h)
    .when(initiation({ status: 'processing' }))
    .thenState((ps, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payment_intent.processing'],
      );
      t.equal(ps.confirmation?.inFlight, false, 'the lock is released');
      t.match(toObject(ps), { status: 'processing', latest_operation: 'op_1', return_url: 'https://shop.test/back', next_action: null });
      t.same(toObject(ps).payment_method, { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'orange_money', msisdn: '••••4567' } }, 'the number is masked');
    });

  intents
    .given(h)
    .when(initiation({ status: 'requires_action', nextAction: redirect }))
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payment_intent.requires_action'],
      );
      t.same(toObject(s).next_action, redirect);
    });

  intents
    .given(h)
    .when(initiation({ status: 'failed', failureCode: 'card_declined', failureMessage: 'Declined' }))
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payment_intent.payment_failed'],
      );
      const fo = toObject(s);
      t.equal(fo.status, 'failed');
      t.same(fo.last_payment_error, { code: 'card_declined', message: 'Declined' });
      t.notOk('FailureReason' in fo.metadata, 'FailureReason is the platform\u2019s');
      t.equal(s.metadata.FailureReason, 'card_declined', 'but it is stored');
    });

  intents
    .given(p)
    .when(initiation({ status: 'processing' }))
    .thenNothing(t, 'a repeated answer changes nothing');
  intents
    .given(h)
    .when(initiation({ status: 'processing' }, 'op_other'))
    .thenNothing(t, 'an answer for another operation changes nothing');
});

t.test('abort (provider call failed) releases the lock and goes back to requires_payment_method', async (t) => {
  const abort = (reason: string): Command => ({ type: 'abort_confirmation', owner, at: later(2000), operationId: 'op_1', reason });
  const h = intents.given(created).history(start(), abort('timeout'));
  t.equal(intents.state(h).status, 'requires_payment_method');
  t.equal(intents.state(h).confirmation?.inFlight, false);
  intents.given(h).when(abort('again')).thenNothing(t, 'abort is idempotent');
  intents.given(h).when(succeeded('op_1')).thenNothing(t, 'a callback of the aborted operation changes nothing');
  intents
    .given(h)
    .when(start('op_2'))
    .thenMatch(t, [{ type: 'payment_intent.confirmation_started' }], 'a new confirmation may start');
});

t.test('final outcome: succeeded once, failed once; repeated, late or foreign callbacks change nothing', async (t) => {
  const s = intents
    .given(processing)
    .when(succeeded('op_1', 150))
    .thenState((state) => t.match(toObject(state), { status: 'succeeded', amount_received: 10_000, fee: 150, next_action: null, last_payment_error: null }));
  intents.given(s).when(succeeded()).thenNothing(t, 'a duplicate success');
  intents.given(s).when(failed()).thenNothing(t, 'a late failure after success');
  intents.given(failedHistory).when(succeeded()).thenNothing(t, 'a late success after failure');
  intents.given(processing).when(succeeded('op_other')).thenNothing(t, 'another operation');
  intents.given(created).when(succeeded()).thenNothing(t, 'nothing was started');
  intents.given(canceledHistory).when(succeeded()).thenNothing(t, 'canceled stays canceled');

  intents
    .given(requiresAction)
    .when(succeeded())
    .thenState((state) => t.match(toObject(state), { status: 'succeeded', next_action: null }, 'requires_action → succeeded'));
  t.match(toObject(intents.state(failedHistory)), { status: 'failed', amount_received: 0, last_payment_error: { code: 'insufficient_funds' } });
});

t.test('cancel: from requires_payment_method and requires_action only', async (t) => {
  intents
    .given(created)
    .when(cancel('duplicate'))
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payment_intent.canceled'],
      );
      t.match(toObject(s), { status: 'canceled', cancellation_reason: 'duplicate', canceled_at: Math.floor(later(3000).getTime() / 1000) });
    });
  intents
    .given(requiresAction)
    .when(cancel(null))
    .thenState((s) => t.match(toObject(s), { status: 'canceled', cancellation_reason: null, next_action: null }));
  for (const [name, h] of [
    ['processing', processing],
    ['succeeded', succeededHistory],
    ['failed', failedHistory],
    ['canceled', canceledHistory],
  ] as const) {
    intents.given(h).when(cancel()).thenThrows(t, 'IKW-RES-002', `cancel from ${name} refused`);
  }
});

t.test('every public event carries the object as it is after the event; internal ones carry none', async (t) => {
  const h = intents.history(create(), { type: 'update', owner, at: T0, metadata: { a: 'b' } }, start(), initiation({ status: 'requires_action', nextAction: redirect }), succeeded());
  for (let i = 0; i < h.length; i++) {
    const e = h[i]!;
    const after = toObject(intents.state(h.slice(0, i + 1)));
    if (e.type === 'payment_intent.confirmation_started' || e.type === 'payment_intent.confirmation_aborted' || e.type === 'payment_intent.escrow_assigned') {
      t.notOk('object' in e.data, `${e.type} is internal`);
      t.notOk((PUBLIC_PAYMENT_INTENT_EVENTS as readonly string[]).includes(e.type));
    } else {
      t.same(e.data.object, after, `${e.type} carries the object after it`);
    }
  }
  t.same(
    h.map((e) => e.type),
    ['payment_intent.created', 'payment_intent.updated', 'payment_intent.confirmation_started', 'payment_intent.requires_action', 'payment_intent.succeeded'],
  );
});

t.test('cards are shown by brand and last4, never by token', async (t) => {
  for (const [token, brand] of [
    ['tok_visa', 'visa'],
    ['tok_3ds_required', 'visa'],
    ['tok_other', 'unknown'],
  ] as const) {
    const h = intents.history(create(), start('op_1', later(1000), { type: 'card', token }), initiation({ status: 'processing' }));
    const pm = toObject(intents.state(h)).payment_method;
    t.equal(pm?.type, 'card');
    t.equal(pm?.type === 'card' && pm.card.brand, brand);
    t.notMatch(JSON.stringify(pm), /tok_/, 'no token in the object');
  }
});

t.test('a confirmation whose process died is taken over at once; the dead process is recorded, then forgotten', async (t) => {
  const h = intents.given(created).history({ ...start(), instanceId: 7 } as Command);
  intents
    .given(h)
    .when({ ...start('op_2', later(1500)), instanceId: 8, holderGone: false } as Command)
    .thenThrows(t, 'IKW-RES-003', 'its process is alive: still locked');
  const taken = intents
    .given(h)
    .when({ ...start('op_2', later(1500)), instanceId: 8, holderGone: true } as Command)
    .thenState((s) => {
      t.equal(s.confirmation?.operationId, 'op_2', 'taken over well inside the lease');
      t.equal(s.confirmation?.instanceId, 8, 'now held by the new process');
    });
  intents
    .given(taken)
    .when(initiation({ status: 'processing' }, 'op_1'))
    .thenNothing(t, 'the dead operation answers nothing');
});

t.test('the transition table: outside its statuses a command changes nothing, except the refusals it names', async (t) => {
  const byStatus = { requires_payment_method: created, processing, requires_action: requiresAction, succeeded: succeededHistory, failed: failedHistory, canceled: canceledHistory };
  const update: Command = { type: 'update', owner, at: later(6000), description: 'x' };
  // Each command as it would come for the current operation, after any lease.
  const commands: Record<keyof typeof PAYMENT_INTENT_TRANSITIONS, Command> = {
    update,
    start_confirmation: start('op_2', later(CONFIRMATION_LEASE_MS * 2)),
    record_initiation: initiation({ status: 'processing' }),
    record_otp: { type: 'record_otp', owner, at: later(2500), operationId: 'op_1', result: { status: 'processing' } },
    abort_confirmation: { type: 'abort_confirmation', owner, at: later(2000), operationId: 'op_1', reason: 'provider error' },
    record_outcome: succeeded(),
    cancel: cancel('requested_by_customer', later(CONFIRMATION_LEASE_MS * 2)),
    assign_escrow: { type: 'assign_escrow', owner, at: later(1000), contractId: 'esc_1' },
  };
  for (const [type, statuses] of Object.entries(PAYMENT_INTENT_TRANSITIONS) as [keyof typeof commands, readonly string[]][]) {
    for (const [status, history] of Object.entries(byStatus)) {
      if (statuses.includes(status)) continue;
      const then = intents.given(history).when(commands[type]);
      if (type === 'cancel' || type === 'record_otp' || (type === 'start_confirmation' && status === 'canceled')) then.thenThrows(t, 'IKW-RES-002', `${type} in ${status} is refused`);
      else if (type === 'assign_escrow') then.thenThrows(t, { code: 'IKW-ESC-002', param: 'paymentIntentId' }, `${type} in ${status} is refused`);
      else then.thenNothing(t, `${type} in ${status} changes nothing`);
    }
  }
  // And inside them it acts, where the operation is the current one and in flight.
  const inFlight = intents.given(created).history(start());
  intents
    .given(inFlight)
    .when(commands.record_initiation)
    .thenMatch(t, [{ type: 'payment_intent.processing' }]);
  intents
    .given(inFlight)
    .when(commands.abort_confirmation)
    .thenMatch(t, [{ type: 'payment_intent.confirmation_aborted' }]);
  intents
    .given(requiresAction)
    .when(commands.record_outcome)
    .thenMatch(t, [{ type: 'payment_intent.succeeded' }]);
  intents
    .given(requiresAction)
    .when(commands.cancel)
    .thenMatch(t, [{ type: 'payment_intent.canceled' }]);
  intents
    .given(succeededHistory)
    .when(update)
    .thenMatch(t, [{ type: 'payment_intent.updated' }], 'update acts in every status');
  const assigned = intents.given(created).history(commands.assign_escrow);
  intents.given(assigned).when(commands.assign_escrow).thenNothing(t, 'the same contract again');
  intents
    .given(assigned)
    .when({ ...commands.assign_escrow, contractId: 'esc_2' } as Command)
    .thenThrows(t, { code: 'IKW-ESC-002', param: 'paymentIntentId' }, 'never two contracts');
  intents
    .given(assigned)
    .when(start())
    .thenState((s) => t.equal(s.escrowContract, 'esc_1', 'a confirmation keeps it'));
});

t.test('record_otp: the answer to the payer’s one-time code, only while the intent waits for one', async (t) => {
  const otp: NextAction = { type: 'mobile_money_otp', mobile_money_otp: { instructions: 'Enter the code' } };
  const waiting = intents.history(create(), start(), initiation({ status: 'requires_action', nextAction: otp }));
  const answer = (result: Extract<Command, { type: 'record_otp' }>['result'], operationId = 'op_1'): Command => ({ type: 'record_otp', owner, at: later(2500), operationId, result });
  t.match(toObject(intents.state(waiting)), { status: 'requires_action', next_action: otp });
  const taken = intents
    .given(waiting)
    .when(answer({ status: 'processing' }))
    .thenMatch(t, [{ type: 'payment_intent.processing', data: { operationId: 'op_1' } }]);
  t.match(toObject(intents.state(taken)), { status: 'processing', next_action: null }, 'processing, the code asked no more');
  intents
    .given(waiting)
    .when(answer({ status: 'failed', failureCode: 'authentication_failed', failureMessage: 'wrong code' }))
    .thenMatch(t, [{ type: 'payment_intent.payment_failed', data: { failureCode: 'authentication_failed' } }]);
  intents
    .given(waiting)
    .when(answer({ status: 'requires_action', nextAction: otp }))
    .thenNothing(t, 'still waiting for a code: nothing');
  intents
    .given(waiting)
    .when(answer({ status: 'processing' }, 'op_0'))
    .thenThrows(t, 'IKW-RES-002', 'another operation');
  intents
    .given(requiresAction)
    .when(answer({ status: 'processing' }))
    .thenThrows(t, 'IKW-RES-002', 'waiting for another action (a page)');
  intents
    .given(waiting)
    .when({ ...answer({ status: 'processing' }), owner: { merchantId: 'acct_2', environment: 'sandbox' } } as Command)
    .thenThrows(t, 'IKW-RES-001', 'another merchant');
});
