/**
 * The payment intent Decider on its own (no database): lifecycle, the confirmation lock, cancel
 * rules, idempotent provider answers, tenant checks, and the public object every event carries.
 */
import t, { type Test } from 'tap';
import { ApiError } from '../../packages/core/errors.js';
import { fold } from '../../packages/core/decider.js';
import {
  CONFIRMATION_IN_PROGRESS,
  CONFIRMATION_LEASE_MS,
  paymentIntentDecider,
  toObject,
  type Owner,
  type PaymentIntentCommand,
  type PaymentIntentState,
} from '../../packages/domain/payment-intent/decider.js';
import { PUBLIC_PAYMENT_INTENT_EVENTS, type Created, type NextAction, type PaymentIntentEvent, type PaymentMethodDetails } from '../../packages/domain/payment-intent/events.js';

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

function stateOf(history: PaymentIntentEvent[]): PaymentIntentState {
  return fold(paymentIntentDecider, history);
}

/** Decides on the history and returns the history with the new events appended. */
function run(history: PaymentIntentEvent[], command: Command): PaymentIntentEvent[] {
  return [...history, ...paymentIntentDecider.decide(command, stateOf(history))];
}

function decide(history: PaymentIntentEvent[], command: Command): PaymentIntentEvent[] {
  return paymentIntentDecider.decide(command, stateOf(history));
}

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

const created = () => run([], create());
const processing = () => run(run(created(), start()), initiation({ status: 'processing' }));
const requiresAction = () => run(run(created(), start()), initiation({ status: 'requires_action', nextAction: redirect }));
const succeededHistory = () => run(processing(), succeeded());
const failedHistory = () => run(processing(), failed());
const canceledHistory = () => run(created(), cancel());

function throwsCode(t: Test, fn: () => unknown, code: string, message?: string): void {
  try {
    fn();
    t.fail(`expected ${code}`);
  } catch (err) {
    t.ok(err instanceof ApiError, 'an ApiError');
    t.equal((err as ApiError).code, code, `code ${code}`);
    if (message !== undefined) t.equal((err as ApiError).message, message);
  }
}

t.test('create: one public event carrying the new object; platform metadata is stored, not shown', async (t) => {
  const events = created();
  t.same(events.map((e) => e.type), ['payment_intent.created']);
  const e = events[0]!;
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
  t.same(e.data.object, toObject(stateOf(events)), 'the event object is the state object');
});

t.test('create twice is refused; a live intent is livemode', async (t) => {
  throwsCode(t, () => decide(created(), create()), 'IKW-RES-003');
  const live = paymentIntentDecider.decide({ type: 'create', intent: { ...intent, environment: 'live' }, at: T0 }, stateOf([]));
  t.equal(live[0]!.type === 'payment_intent.created' && live[0]!.data.object.livemode, true);
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
    for (const c of commands(o)) throwsCode(t, () => decide(processing(), c), 'IKW-RES-001');
  }
  for (const c of commands(owner)) throwsCode(t, () => decide([], c), 'IKW-RES-001');
});

t.test('update: description set or cleared, metadata keys added or replaced', async (t) => {
  let h = run(created(), { type: 'update', owner, at: T0, description: 'New', metadata: { order: '43', color: 'red' } });
  let o = toObject(stateOf(h));
  t.equal(o.description, 'New');
  t.same(o.metadata, { order: '43', color: 'red' });
  t.equal(stateOf(h).metadata.Environment, 'sandbox', 'platform keys survive an update');
  h = run(h, { type: 'update', owner, at: T0, metadata: { size: 'L' } });
  o = toObject(stateOf(h));
  t.equal(o.description, 'New', 'an absent description is left alone');
  t.same(o.metadata, { order: '43', color: 'red', size: 'L' });
  h = run(h, { type: 'update', owner, at: T0, description: null });
  t.equal(toObject(stateOf(h)).description, null, 'null clears it');
  const last = h[h.length - 1]!;
  t.equal(last.type, 'payment_intent.updated');
  t.same(last.type === 'payment_intent.updated' && last.data.object, toObject(stateOf(h)));
});

t.test('update: at most 50 merchant keys in all', async (t) => {
  const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
  const h = run(created(), { type: 'update', owner, at: T0, metadata: many });
  t.equal(Object.keys(toObject(stateOf(h)).metadata).length, 50, 'order + 49 = 50 is fine');
  throwsCode(t, () => decide(h, { type: 'update', owner, at: T0, metadata: { one_more: 'v' } }), 'IKW-VAL-001');
  t.same(decide(h, { type: 'update', owner, at: T0, metadata: { k1: 'replaced' } }).length, 1, 'replacing a key adds none');
});

t.test('start_confirmation takes the lock: an internal event, no public object', async (t) => {
  const events = decide(created(), start());
  t.same(events.map((e) => e.type), ['payment_intent.confirmation_started']);
  const e = events[0]!;
  t.notOk('object' in e.data, 'internal events carry no object');
  t.match(e.data, { operationId: 'op_1', amount: 10_000, currency: 'xof', livemode: false, returnUrl: 'https://shop.test/back', startedAt: later(1000).toISOString() });
  const s = stateOf([...created(), ...events]);
  t.equal(s.status, 'processing');
  t.equal(s.confirmation?.inFlight, true);
});

t.test('a second confirmation while the first is with the provider: 409 IKW-RES-003, retryable', async (t) => {
  const h = run(created(), start());
  try {
    decide(h, start('op_2', later(1500)));
    t.fail('expected a conflict');
  } catch (err) {
    t.ok(err instanceof ApiError);
    t.equal((err as ApiError).code, 'IKW-RES-003');
    t.equal((err as ApiError).retryable, true);
    t.equal((err as ApiError).message, CONFIRMATION_IN_PROGRESS);
    t.equal(CONFIRMATION_IN_PROGRESS, 'Payment intent confirmation is already in progress');
  }
  throwsCode(t, () => decide(h, cancel()), 'IKW-RES-003', CONFIRMATION_IN_PROGRESS);
});

t.test('a confirmation whose provider call never answered is taken over after the lease', async (t) => {
  const h = run(created(), start());
  throwsCode(t, () => decide(h, start('op_2', later(1000 + CONFIRMATION_LEASE_MS - 1))), 'IKW-RES-003');
  const taken = run(h, start('op_2', later(1000 + CONFIRMATION_LEASE_MS)));
  t.equal(stateOf(taken).confirmation?.operationId, 'op_2');
  t.same(decide(taken, initiation({ status: 'processing' }, 'op_1')), [], 'the dead operation answers nothing');
  t.same(decide(taken, succeeded('op_1')), [], 'nor does its late callback');
  t.same(decide(taken, initiation({ status: 'processing' }, 'op_2')).map((e) => e.type), ['payment_intent.processing']);
});

t.test('confirm on an intent past requires_payment_method decides nothing (no provider call)', async (t) => {
  for (const [name, h] of [
    ['processing', processing()],
    ['requires_action', requiresAction()],
    ['succeeded', succeededHistory()],
    ['failed', failedHistory()],
  ] as const) {
    t.same(decide(h, start('op_9', later(10 * CONFIRMATION_LEASE_MS))), [], name);
  }
  throwsCode(t, () => decide(canceledHistory(), start()), 'IKW-RES-002');
});

t.test('the provider first answer: processing, requires_action or failed', async (t) => {
  const h = run(created(), start());
  const p = decide(h, initiation({ status: 'processing' }));
  t.same(p.map((e) => e.type), ['payment_intent.processing']);
  const ps = stateOf([...h, ...p]);
  t.equal(ps.confirmation?.inFlight, false, 'the lock is released');
  t.match(toObject(ps), { status: 'processing', latest_operation: 'op_1', return_url: 'https://shop.test/back', next_action: null });
  t.same(toObject(ps).payment_method, { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'orange_money', msisdn: '••••4567' } }, 'the number is masked');

  const r = decide(h, initiation({ status: 'requires_action', nextAction: redirect }));
  t.same(r.map((e) => e.type), ['payment_intent.requires_action']);
  t.same(toObject(stateOf([...h, ...r])).next_action, redirect);

  const f = decide(h, initiation({ status: 'failed', failureCode: 'card_declined', failureMessage: 'Declined' }));
  t.same(f.map((e) => e.type), ['payment_intent.payment_failed']);
  const fo = toObject(stateOf([...h, ...f]));
  t.equal(fo.status, 'failed');
  t.same(fo.last_payment_error, { code: 'card_declined', message: 'Declined' });
  t.notOk('FailureReason' in fo.metadata, 'FailureReason is the platform\u2019s');
  t.equal(stateOf([...h, ...f]).metadata.FailureReason, 'card_declined', 'but it is stored');

  t.same(decide([...h, ...p], initiation({ status: 'processing' })), [], 'a repeated answer changes nothing');
  t.same(decide(h, initiation({ status: 'processing' }, 'op_other')), [], 'an answer for another operation changes nothing');
});

t.test('abort (provider call failed) releases the lock and goes back to requires_payment_method', async (t) => {
  const h = run(run(created(), start()), { type: 'abort_confirmation', owner, at: later(2000), operationId: 'op_1', reason: 'timeout' });
  t.equal(stateOf(h).status, 'requires_payment_method');
  t.equal(stateOf(h).confirmation?.inFlight, false);
  t.same(decide(h, { type: 'abort_confirmation', owner, at: later(2000), operationId: 'op_1', reason: 'again' }), [], 'abort is idempotent');
  t.same(decide(h, succeeded('op_1')), [], 'a callback of the aborted operation changes nothing');
  t.same(decide(h, start('op_2')).map((e) => e.type), ['payment_intent.confirmation_started'], 'a new confirmation may start');
});

t.test('final outcome: succeeded once, failed once; repeated, late or foreign callbacks change nothing', async (t) => {
  const s = run(processing(), succeeded('op_1', 150));
  const o = toObject(stateOf(s));
  t.match(o, { status: 'succeeded', amount_received: 10_000, fee: 150, next_action: null, last_payment_error: null });
  t.same(decide(s, succeeded()), [], 'a duplicate success');
  t.same(decide(s, failed()), [], 'a late failure after success');
  t.same(decide(failedHistory(), succeeded()), [], 'a late success after failure');
  t.same(decide(processing(), succeeded('op_other')), [], 'another operation');
  t.same(decide(created(), succeeded()), [], 'nothing was started');
  t.same(decide(canceledHistory(), succeeded()), [], 'canceled stays canceled');

  const fromAction = run(requiresAction(), succeeded());
  t.match(toObject(stateOf(fromAction)), { status: 'succeeded', next_action: null }, 'requires_action → succeeded');
  const f = toObject(stateOf(failedHistory()));
  t.match(f, { status: 'failed', amount_received: 0, last_payment_error: { code: 'insufficient_funds' } });
});

t.test('cancel: from requires_payment_method and requires_action only', async (t) => {
  const fromNew = run(created(), cancel('duplicate'));
  t.same(fromNew.slice(-1).map((e) => e.type), ['payment_intent.canceled']);
  t.match(toObject(stateOf(fromNew)), { status: 'canceled', cancellation_reason: 'duplicate', canceled_at: Math.floor(later(3000).getTime() / 1000) });
  const fromAction = run(requiresAction(), cancel(null));
  t.match(toObject(stateOf(fromAction)), { status: 'canceled', cancellation_reason: null, next_action: null });
  for (const [name, h] of [
    ['processing', processing()],
    ['succeeded', succeededHistory()],
    ['failed', failedHistory()],
    ['canceled', canceledHistory()],
  ] as const) {
    throwsCode(t, () => decide(h, cancel()), 'IKW-RES-002');
    t.pass(`cancel from ${name} refused`);
  }
});

t.test('every public event carries the object as it is after the event; internal ones carry none', async (t) => {
  const h = run(run(run(run(created(), { type: 'update', owner, at: T0, metadata: { a: 'b' } }), start()), initiation({ status: 'requires_action', nextAction: redirect })), succeeded());
  for (let i = 0; i < h.length; i++) {
    const e = h[i]!;
    const after = toObject(stateOf(h.slice(0, i + 1)));
    if (e.type === 'payment_intent.confirmation_started' || e.type === 'payment_intent.confirmation_aborted') {
      t.notOk('object' in e.data, `${e.type} is internal`);
      t.notOk((PUBLIC_PAYMENT_INTENT_EVENTS as readonly string[]).includes(e.type));
    } else {
      t.same(e.data.object, after, `${e.type} carries the object after it`);
    }
  }
  t.same(h.map((e) => e.type), [
    'payment_intent.created',
    'payment_intent.updated',
    'payment_intent.confirmation_started',
    'payment_intent.requires_action',
    'payment_intent.succeeded',
  ]);
});

t.test('cards are shown by brand and last4, never by token', async (t) => {
  for (const [token, brand] of [
    ['tok_visa', 'visa'],
    ['tok_3ds_required', 'visa'],
    ['tok_other', 'unknown'],
  ] as const) {
    const h = run(run(created(), start('op_1', later(1000), { type: 'card', token })), initiation({ status: 'processing' }));
    const pm = toObject(stateOf(h)).payment_method;
    t.equal(pm?.type, 'card');
    t.equal(pm?.type === 'card' && pm.card.brand, brand);
    t.notMatch(JSON.stringify(pm), /tok_/, 'no token in the object');
  }
});
