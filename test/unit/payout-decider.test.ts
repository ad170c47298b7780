/**
 * The payout aggregate as a pure Decider (no database, no clock): the lifecycle
 * pending → in_transit → paid | failed and pending → failed | canceled, the delay overlay that never
 * changes the status, idempotent late or repeated callbacks, the public object carried by every
 * event; and the pure parts around it: saved destinations (payout methods), their usability rule,
 * merchant payout settings and destination normalisation.
 */
import t from 'tap';
import { fold } from '../../packages/core/decider.js';
import { merchantSettingsDecider } from '../../packages/domain/merchant-settings/decider.js';
import { defaultPayoutSettings, type MerchantSettingsEvent } from '../../packages/domain/merchant-settings/events.js';
import { payoutMethodDecider, unusableReason } from '../../packages/domain/payout-method/decider.js';
import { normalizeDestination } from '../../packages/domain/payout-method/destination.js';
import type { PayoutMethodCreated, PayoutMethodEvent } from '../../packages/domain/payout-method/events.js';
import { FINAL_PAYOUT_STATUSES, payoutDecider, toPayoutObject, type Owner, type PayoutCommand } from '../../packages/domain/payout/decider.js';
import type { PayoutCreated, PayoutEvent } from '../../packages/domain/payout/events.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MIN = 60_000;
const owner: Owner = { merchantId: 'acct_1', environment: 'sandbox' };

const created: PayoutCreated = {
  id: 'po_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  amount: 10_000,
  currency: 'xof',
  fee: 100,
  destination: { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
  payoutMethodId: null,
  metadata: { order: '42', source: 'api', environment: 'sandbox' },
  expectedBy: at(10 * MIN).toISOString(),
  createdAt: T0.toISOString(),
};

function run(history: PayoutEvent[], command: PayoutCommand): PayoutEvent[] {
  return payoutDecider.decide(command, fold(payoutDecider, history));
}

/** Runs commands one after the other; returns every event decided. */
function script(commands: PayoutCommand[], history: PayoutEvent[] = []): PayoutEvent[] {
  const all = [...history];
  for (const c of commands) all.push(...run(all, c));
  return all;
}

const create: PayoutCommand = { type: 'create', payout: created };
const accepted: PayoutCommand = { type: 'submit', owner, at: at(1000), result: { status: 'accepted' } };
const rejected: PayoutCommand = { type: 'submit', owner, at: at(1000), result: { status: 'rejected', failureCode: 'invalid_account', failureMessage: 'No such wallet' } };
const delay = (reason: 'operator_pending' | 'operator_timeout' | 'operator_down' | 'unknown', ms = 2000): PayoutCommand => ({ type: 'report_delay', owner, at: at(ms), reason });
const complete = (ms = 3000): PayoutCommand => ({ type: 'complete', owner, at: at(ms) });
const fail = (ms = 3000): PayoutCommand => ({ type: 'fail', owner, at: at(ms), failureCode: 'recipient_not_found', failureMessage: 'No account' });
const overdue = (ms: number): PayoutCommand => ({ type: 'check_overdue', owner, at: at(ms) });
const cancel: PayoutCommand = { type: 'cancel', owner, at: at(500) };

const stateOf = (events: PayoutEvent[]) => fold(payoutDecider, events);

t.test('create: payout.created with the public object, status pending', async (t) => {
  const events = run([], create);
  t.same(events.map((e) => e.type), ['payout.created']);
  const object = events[0]!.data.object;
  t.same(object, {
    id: 'po_1',
    object: 'payout',
    amount: 10_000,
    currency: 'xof',
    status: 'pending',
    destination: created.destination,
    payout_method_id: null,
    arrival_date_estimate: created.expectedBy,
    expected_by: created.expectedBy,
    delay_state: null,
    delay_reason: null,
    delayed_at: null,
    metadata: { order: '42', source: 'api', environment: 'sandbox' },
    failure_code: null,
    failure_message: null,
    fee: 100,
    created: Math.floor(T0.getTime() / 1000),
    livemode: false,
  });
  t.same(toPayoutObject(stateOf(events)), object, 'the object is the state after the event');
  t.equal(toPayoutObject(stateOf(run([], { type: 'create', payout: { ...created, environment: 'live' } }))).livemode, true, 'livemode from the environment');
});

t.test('a payout is created once', async (t) => {
  t.throws(() => run(run([], create), create), { code: 'IKW-RES-003' });
});

t.test('commands on a payout that does not exist, or of another merchant or environment: 404', async (t) => {
  const history = run([], create);
  for (const c of [accepted, delay('unknown'), overdue(20 * MIN), complete(), fail(), cancel]) {
    t.throws(() => run([], c), { code: 'IKW-RES-001' }, `${c.type} without a payout`);
    t.throws(() => run(history, { ...c, owner: { merchantId: 'acct_2', environment: 'sandbox' } } as PayoutCommand), { code: 'IKW-RES-001' }, `${c.type} of another merchant`);
    t.throws(() => run(history, { ...c, owner: { merchantId: 'acct_1', environment: 'live' } } as PayoutCommand), { code: 'IKW-RES-001' }, `${c.type} of the other environment`);
  }
});

t.test('pending → in_transit → paid', async (t) => {
  const events = script([create, accepted, complete()]);
  t.same(events.map((e) => e.type), ['payout.created', 'payout.updated', 'payout.paid']);
  t.same(events.map((e) => e.data.object.status), ['pending', 'in_transit', 'paid']);
  t.same(events[1]!.data, { status: 'in_transit', at: at(1000).toISOString(), object: events[1]!.data.object });
  const s = stateOf(events);
  t.equal(s.status, 'paid');
  t.equal(toPayoutObject(s).failure_code, null);
});

t.test('pending → in_transit → failed, with the failure on the object', async (t) => {
  const events = script([create, accepted, fail()]);
  t.same(events.map((e) => e.type), ['payout.created', 'payout.updated', 'payout.failed']);
  t.match(events[2]!.data, { failureCode: 'recipient_not_found', failureMessage: 'No account', object: { status: 'failed', failure_code: 'recipient_not_found', failure_message: 'No account' } });
});

t.test('pending → failed when the operator refuses at initiation', async (t) => {
  const events = script([create, rejected]);
  t.same(events.map((e) => e.type), ['payout.created', 'payout.failed']);
  t.match(events[1]!.data.object, { status: 'failed', failure_code: 'invalid_account', failure_message: 'No such wallet' });
});

t.test('pending → canceled; cancel from any other state is refused', async (t) => {
  const events = script([create, cancel]);
  t.same(events.map((e) => e.type), ['payout.created', 'payout.canceled']);
  t.equal(events[1]!.data.object.status, 'canceled');
  t.throws(() => run(events, cancel), { code: 'IKW-RES-002' }, 'canceled twice');
  t.throws(() => run(script([create, accepted]), cancel), { code: 'IKW-RES-002' }, 'in_transit');
  t.throws(() => run(script([create, accepted, complete()]), cancel), { code: 'IKW-RES-002' }, 'paid');
  t.throws(() => run(script([create, rejected]), cancel), { code: 'IKW-RES-002' }, 'failed');
});

t.test('submit decides only once, from pending', async (t) => {
  const history = script([create, accepted]);
  t.same(run(history, accepted), [], 'a second accepted submit');
  t.same(run(history, rejected), [], 'a rejected submit after in_transit');
  t.same(run(script([create, accepted, complete()]), accepted), [], 'after paid');
  t.same(run(script([create, cancel]), accepted), [], 'after canceled');
});

t.test('final states are final: late or repeated callbacks decide nothing', async (t) => {
  for (const [name, final] of [
    ['paid', script([create, accepted, complete()])],
    ['failed', script([create, accepted, fail()])],
    ['canceled', script([create, cancel])],
  ] as const) {
    for (const c of [complete(9000), fail(9000), delay('operator_down', 9000), overdue(60 * MIN), accepted]) {
      t.same(run(final, c), [], `${c.type} after ${name}`);
    }
    t.ok(FINAL_PAYOUT_STATUSES.includes(stateOf(final).status), `${name} is final`);
  }
});

t.test('the delay overlay: reason and first detection time, status unchanged', async (t) => {
  const events = script([create, accepted, delay('operator_pending', 2000)]);
  t.same(events.map((e) => e.type), ['payout.created', 'payout.updated', 'payout.delayed']);
  t.match(events[2]!.data, { reason: 'operator_pending', at: at(2000).toISOString() });
  t.match(events[2]!.data.object, { status: 'in_transit', delay_state: 'delayed', delay_reason: 'operator_pending', delayed_at: at(2000).toISOString() });

  t.same(run(events, delay('operator_pending', 2500)), [], 'the same reason again decides nothing');
  const changed = run(events, delay('operator_timeout', 4000));
  t.equal(changed.length, 1, 'another reason is recorded');
  t.match(changed[0]!.data.object, { status: 'in_transit', delay_reason: 'operator_timeout', delayed_at: at(2000).toISOString() }, 'delayed_at keeps the first detection');

  const paid = script([complete(5000)], events);
  t.match(paid.at(-1)!.data.object, { status: 'paid', delay_reason: 'operator_pending' }, 'a delayed payout can still be paid');
  const pendingDelayed = script([create, delay('operator_down', 100)]);
  t.equal(pendingDelayed.at(-1)!.data.object.status, 'pending', 'a pending payout stays pending when delayed');
});

t.test('check_overdue: delayed unknown once expected_by has passed, and only then', async (t) => {
  const inTransit = script([create, accepted]);
  t.same(run(inTransit, overdue(10 * MIN - 1)), [], 'one millisecond before expected_by');
  const late = run(inTransit, overdue(10 * MIN));
  t.same(late.map((e) => e.type), ['payout.delayed'], 'at expected_by');
  t.match(late[0]!.data, { reason: 'unknown', at: at(10 * MIN).toISOString() });
  t.match(late[0]!.data.object, { status: 'in_transit', delay_state: 'delayed', delay_reason: 'unknown', delayed_at: at(10 * MIN).toISOString() });
  t.same(run([...inTransit, ...late], overdue(11 * MIN)), [], 'once');
  t.same(run(script([delay('operator_down', 2000)], inTransit), overdue(11 * MIN)), [], 'the operator already said why: its reason stays');
  t.same(run(script([create, accepted, complete()]), overdue(11 * MIN)), [], 'not when paid');
  t.same(run(script([create, accepted, fail()]), overdue(11 * MIN)), [], 'not when failed');
  t.equal(run(script([create]), overdue(11 * MIN)).length, 1, 'a payout still pending is late too');
});

t.test('every event carries the object as the state after it', async (t) => {
  const events = script([create, accepted, delay('operator_timeout'), overdue(20 * MIN), fail(21 * MIN)]);
  for (let i = 0; i < events.length; i++) {
    t.same(events[i]!.data.object, toPayoutObject(stateOf(events.slice(0, i + 1))), `${events[i]!.type}`);
  }
  t.throws(() => toPayoutObject(payoutDecider.initialState), 'no object without a payout');
});

t.test('payout methods (saved destinations)', async (t) => {
  const method: PayoutMethodCreated = {
    id: '0190c6a8-0000-7000-8000-000000000001',
    merchantId: 'acct_1',
    environment: 'sandbox',
    destination: created.destination,
    usableFrom: at(30 * MIN).toISOString(),
    createdAt: T0.toISOString(),
  };
  const runM = (history: PayoutMethodEvent[], c: Parameters<typeof payoutMethodDecider.decide>[0]) => payoutMethodDecider.decide(c, fold(payoutMethodDecider, history));
  const made = runM([], { type: 'create', method });
  t.same(made, [{ type: 'payout_method.created', data: method }]);
  t.throws(() => runM(made, { type: 'create', method }), { code: 'IKW-RES-003' }, 'created once');

  const deactivate = { type: 'deactivate', merchantId: 'acct_1', environment: 'sandbox', at: at(MIN) } as const;
  const off = runM(made, deactivate);
  t.same(off, [{ type: 'payout_method.deactivated', data: { id: method.id, deactivatedAt: at(MIN).toISOString() } }]);
  t.same(runM([...made, ...off], deactivate), [], 'deactivating twice is fine');
  t.throws(() => runM(made, { ...deactivate, merchantId: 'acct_2' }), { code: 'IKW-RES-001' }, 'another merchant');
  t.throws(() => runM(made, { ...deactivate, environment: 'live' }), { code: 'IKW-RES-001' }, 'the other environment');
  t.throws(() => runM([], deactivate), { code: 'IKW-RES-001' }, 'no such method');

  const active = fold(payoutMethodDecider, made);
  t.equal(unusableReason(payoutMethodDecider.initialState, 'acct_1', 'sandbox', at(40 * MIN)), 'missing');
  t.equal(unusableReason(active, 'acct_2', 'sandbox', at(40 * MIN)), 'missing', 'another merchant: as if missing');
  t.equal(unusableReason(active, 'acct_1', 'live', at(40 * MIN)), 'missing', 'the other environment: as if missing');
  t.equal(unusableReason(active, 'acct_1', 'sandbox', at(30 * MIN - 1)), 'safety_delay', 'before usableFrom');
  t.equal(unusableReason(active, 'acct_1', 'sandbox', at(30 * MIN)), null, 'from usableFrom on');
  t.equal(unusableReason(fold(payoutMethodDecider, [...made, ...off]), 'acct_1', 'sandbox', at(40 * MIN)), 'inactive');
});

t.test('merchant payout settings', async (t) => {
  t.same(defaultPayoutSettings('sandbox'), { defaultReturnUrl: null, safetyDelayMinutes: 0, defaultCurrency: null, defaultPayoutMethodId: null });
  t.equal(defaultPayoutSettings('live').safetyDelayMinutes, 1440, 'a day in live');
  const update = (history: MerchantSettingsEvent[], changes: Parameters<typeof merchantSettingsDecider.decide>[0]['changes'], ms = 0) =>
    merchantSettingsDecider.decide({ type: 'update', merchantId: 'acct_1', environment: 'sandbox', changes, at: at(ms) }, fold(merchantSettingsDecider, history));
  t.same(update([], {}), [], 'no change');
  t.same(update([], { safetyDelayMinutes: 0 }), [], 'a value equal to the default is no change');
  const first = update([], { safetyDelayMinutes: 30, defaultReturnUrl: 'https://shop.example/back' });
  t.same(first[0]!.data, {
    merchantId: 'acct_1',
    environment: 'sandbox',
    changes: { safetyDelayMinutes: 30, defaultReturnUrl: 'https://shop.example/back' },
    settings: { defaultReturnUrl: 'https://shop.example/back', safetyDelayMinutes: 30, defaultCurrency: null, defaultPayoutMethodId: null },
    updatedAt: T0.toISOString(),
  });
  const second = update(first, { defaultCurrency: 'xof', safetyDelayMinutes: 30 }, MIN);
  t.same(second[0]!.data.changes, { defaultCurrency: 'xof' }, 'only what changed');
  t.same(fold(merchantSettingsDecider, [...first, ...second]).settings, { defaultReturnUrl: 'https://shop.example/back', safetyDelayMinutes: 30, defaultCurrency: 'xof', defaultPayoutMethodId: null });
  const cleared = update([...first, ...second], { defaultReturnUrl: null }, 2 * MIN);
  t.equal(cleared[0]!.data.settings.defaultReturnUrl, null, 'null clears');
});

t.test('destinations are checked against the catalog and normalised', async (t) => {
  t.same(normalizeDestination({ type: 'mobile_money', country: 'sn', operator: 'orange_money', msisdn: '77 123 45 67' }, 'XOF'), {
    type: 'mobile_money',
    currency: 'xof',
    country: 'SN',
    operator: 'orange_money',
    msisdn: '+221771234567',
  }, 'E.164, upper-case country, currency from the payout');
  t.same(normalizeDestination({ type: 'bank', currency: 'XOF', bank_code: ' SN012 ', account_number: '1234 5678 9001', account_name: ' Awa Diop ' }, 'xof'), {
    type: 'bank',
    currency: 'xof',
    bank_code: 'SN012',
    account_number: '123456789001',
    account_name: 'Awa Diop',
  });
  const mm = { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } as const;
  const cases: [string, () => unknown, string, string][] = [
    ['a currency other than the payout currency', () => normalizeDestination({ ...mm, currency: 'ghs' }, 'xof'), 'IKW-VAL-009', 'destination.currency'],
    ['an unknown currency', () => normalizeDestination({ ...mm, currency: 'zzz' }, null), 'IKW-VAL-003', 'destination.currency'],
    ['no currency at all', () => normalizeDestination(mm, null), 'IKW-VAL-001', 'destination.currency'],
    ['an unknown country', () => normalizeDestination({ ...mm, country: 'XX' }, 'xof'), 'IKW-VAL-004', 'destination.country'],
    ['an unknown pair', () => normalizeDestination({ ...mm, operator: 'mpesa' }, 'xof'), 'IKW-VAL-005', 'destination.operator'],
    ['a payin-only operator', () => normalizeDestination({ ...mm, operator: 'e_money' }, 'xof'), 'IKW-VAL-006', 'destination.operator'],
    ['a country of another currency', () => normalizeDestination({ ...mm, country: 'GH', operator: 'mtn', msisdn: '+233241234567' }, 'xof'), 'IKW-VAL-009', 'destination.currency'],
    ['an invalid number', () => normalizeDestination({ ...mm, msisdn: '+2217712' }, 'xof'), 'IKW-VAL-007', 'destination.msisdn'],
    ['a number of another country', () => normalizeDestination({ ...mm, msisdn: '+233241234567' }, 'xof'), 'IKW-VAL-007', 'destination.msisdn'],
  ];
  for (const [name, fn, code, param] of cases) t.throws(fn, { code, param }, name);
  t.throws(() => normalizeDestination({ ...mm, msisdn: 'x' }, null, 'saved'), { code: 'IKW-VAL-001', param: 'saved.currency' }, 'the param prefix is the caller\u2019s');
  t.throws(() => normalizeDestination({ ...mm, currency: 'xof', operator: 'e_money' }, null, ''), { code: 'IKW-VAL-006', param: 'operator' }, 'no prefix when the destination is the whole body');
});
