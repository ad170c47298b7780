/**
 * The payout aggregate as a pure Decider (no database, no clock): the lifecycle
 * pending → in_transit → paid | failed and pending → failed | canceled, the delay overlay that never
 * changes the status, idempotent late or repeated callbacks, the public object carried by every
 * event; and the pure parts around it: saved destinations (payout methods), their usability rule,
 * merchant payout settings and destination normalisation.
 */
import t from '#tap';
import { payoutSettingsDecider, type PayoutSettingsCommand } from '#packages/families/payouts/payout/settings-decider.js';
import { portalSettingsDecider, type PortalSettingsCommand } from '#packages/families/customer-portal/settings.js';
import { DEFAULT_CUSTOMER_PORTAL_SETTINGS, defaultPayoutSettings, type MerchantSettingsEvent, type PayoutSettings } from '#packages/families/merchants/merchant-settings/events.js';

type PayoutSettingsUpdate = PayoutSettingsCommand;
/** The data of a payout settings event (the settings stream also holds the customer portal's). */
const payoutData = (e: MerchantSettingsEvent) => e.data as Extract<MerchantSettingsEvent, { type: 'merchant.payout_settings_updated' }>['data'];
import { payoutMethodDecider, unusableReason } from '#packages/families/payouts/payout-method/decider.js';
import { normalizeDestination } from '#packages/families/payouts/payout-method/destination.js';
import type { PayoutMethodCreated } from '#packages/families/payouts/payout-method/events.js';
import { FINAL_PAYOUT_STATUSES, type Owner, type PayoutCommand } from '#packages/families/payouts/payout/decider.js';
import { payoutAggregate, toPayoutObject } from '#packages/families/payouts/payout/render.js';
import type { PayoutCreated, PayoutEvent } from '#packages/families/payouts/payout/events.js';
import { spec, storedSpec } from '../../support/decider-spec.js';

const payouts = storedSpec<PayoutEvent>()(payoutAggregate);
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

const create: PayoutCommand = { type: 'create', payout: created };
const accepted: PayoutCommand = { type: 'submit', owner, at: at(1000), result: { status: 'accepted' } };
const rejected: PayoutCommand = { type: 'submit', owner, at: at(1000), result: { status: 'rejected', failureCode: 'invalid_account', failureMessage: 'No such wallet' } };
const delay = (reason: 'operator_pending' | 'operator_timeout' | 'operator_down' | 'unknown', ms = 2000): PayoutCommand => ({ type: 'report_delay', owner, at: at(ms), reason });
const complete = (ms = 3000): PayoutCommand => ({ type: 'complete', owner, at: at(ms) });
const fail = (ms = 3000): PayoutCommand => ({ type: 'fail', owner, at: at(ms), failureCode: 'recipient_not_found', failureMessage: 'No account' });
const overdue = (ms: number): PayoutCommand => ({ type: 'check_overdue', owner, at: at(ms) });
const cancel: PayoutCommand = { type: 'cancel', owner, at: at(500) };

t.test('create: payout.created with the public object, status pending', async (t) => {
  payouts
    .given()
    .when(create)
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payout.created'],
      );
      const object = decided[0]!.data.object;
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
      t.same(toPayoutObject(s), object, 'the object is the state after the event');
    });
  payouts
    .given()
    .when({ type: 'create', payout: { ...created, environment: 'live' } })
    .thenState((s) => t.equal(toPayoutObject(s).livemode, true, 'livemode from the environment'));
});

t.test('a payout is created once', async (t) => {
  payouts.given(payouts.history(create)).when(create).thenThrows(t, 'IKW-RES-003');
});

t.test('commands on a payout that does not exist, or of another merchant or environment: 404', async (t) => {
  const history = payouts.history(create);
  for (const c of [accepted, delay('unknown'), overdue(20 * MIN), complete(), fail(), cancel]) {
    payouts.given().when(c).thenThrows(t, 'IKW-RES-001', `${c.type} without a payout`);
    payouts
      .given(history)
      .when({ ...c, owner: { merchantId: 'acct_2', environment: 'sandbox' } } as PayoutCommand)
      .thenThrows(t, 'IKW-RES-001', `${c.type} of another merchant`);
    payouts
      .given(history)
      .when({ ...c, owner: { merchantId: 'acct_1', environment: 'live' } } as PayoutCommand)
      .thenThrows(t, 'IKW-RES-001', `${c.type} of the other environment`);
  }
});

t.test('pending → in_transit → paid', async (t) => {
  const events = payouts.history(create, accepted, complete());
  t.same(
    events.map((e) => e.type),
    ['payout.created', 'payout.updated', 'payout.paid'],
  );
  t.same(
    events.map((e) => e.data.object.status),
    ['pending', 'in_transit', 'paid'],
  );
  t.same(events[1]!.data, { status: 'in_transit', at: at(1000).toISOString(), object: events[1]!.data.object });
  const s = payouts.state(events);
  t.equal(s.status, 'paid');
  t.equal(toPayoutObject(s).failure_code, null);
});

t.test('pending → in_transit → failed, with the failure on the object', async (t) => {
  const inTransit = payouts.history(create, accepted);
  const events = payouts
    .given(inTransit)
    .when(fail())
    .thenMatch(t, [{ type: 'payout.failed', data: { failureCode: 'recipient_not_found', failureMessage: 'No account', object: { status: 'failed', failure_code: 'recipient_not_found', failure_message: 'No account' } } }]);
  t.same(
    events.map((e) => e.type),
    ['payout.created', 'payout.updated', 'payout.failed'],
  );
});

t.test('pending → failed when the operator refuses at initiation', async (t) => {
  const events = payouts
    .given(payouts.history(create))
    .when(rejected)
    .thenMatch(t, [{ type: 'payout.failed', data: { object: { status: 'failed', failure_code: 'invalid_account', failure_message: 'No such wallet' } } }]);
  t.same(
    events.map((e) => e.type),
    ['payout.created', 'payout.failed'],
  );
});

t.test('held for review → declined: failed with declined_in_review, never sent; a decline of a payout not held is refused', async (t) => {
  const held: PayoutCommand = { type: 'create', payout: { ...created, review: { reasons: ['payoutsPerDestinationPerDay'] } } };
  const decline: PayoutCommand = { type: 'decline_review', owner, at: at(500), reason: 'Mule account' };
  const release: PayoutCommand = { type: 'release_review', owner, at: at(500) };
  const events = payouts
    .given(payouts.history(held))
    .when(decline)
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payout.review_declined', 'payout.failed'],
      );
      t.match(decided[1]!.data.object, { status: 'failed', review_status: 'declined', failure_code: 'declined_in_review', failure_message: 'Mule account' });
      t.equal(s.status, 'failed');
    });
  payouts
    .given(events)
    .when(decline)
    .thenState((_, decided) => t.same(decided, [], 'declined twice: nothing more'));
  payouts.given(events).when(release).thenThrows(t, 'IKW-LIM-009', 'a declined payout is not released');
  payouts.given(payouts.history(held, release)).when(decline).thenThrows(t, 'IKW-LIM-009', 'a released payout is not declined');
  payouts.given(payouts.history(create)).when(decline).thenThrows(t, 'IKW-LIM-009', 'a payout never held');
  payouts
    .given(payouts.history(held))
    .when({ ...decline, owner: { merchantId: 'acct_2', environment: 'sandbox' } } as PayoutCommand)
    .thenThrows(t, 'IKW-RES-001', "another merchant's");
  payouts
    .given(payouts.history(held))
    .when({ type: 'decline_review', owner, at: at(500) })
    .thenState((_, decided) => t.equal(decided[1]!.data.object.failure_message, 'Declined in review', 'no reason: words of its own'));
});

t.test('pending → canceled; cancel from any other state is refused', async (t) => {
  const events = payouts
    .given(payouts.history(create))
    .when(cancel)
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payout.canceled'],
      );
      t.equal(decided[0]!.data.object.status, 'canceled');
      t.equal(s.status, 'canceled');
    });
  t.same(
    events.map((e) => e.type),
    ['payout.created', 'payout.canceled'],
  );
  payouts.given(events).when(cancel).thenThrows(t, 'IKW-RES-002', 'canceled twice');
  payouts.given(payouts.history(create, accepted)).when(cancel).thenThrows(t, 'IKW-RES-002', 'in_transit');
  payouts
    .given(payouts.history(create, accepted, complete()))
    .when(cancel)
    .thenThrows(t, 'IKW-RES-002', 'paid');
  payouts.given(payouts.history(create, rejected)).when(cancel).thenThrows(t, 'IKW-RES-002', 'failed');
});

t.test('submit decides only once, from pending', async (t) => {
  const history = payouts.history(create, accepted);
  payouts.given(history).when(accepted).thenNothing(t, 'a second accepted submit');
  payouts.given(history).when(rejected).thenNothing(t, 'a rejected submit after in_transit');
  payouts
    .given(payouts.history(create, accepted, complete()))
    .when(accepted)
    .thenNothing(t, 'after paid');
  payouts.given(payouts.history(create, cancel)).when(accepted).thenNothing(t, 'after canceled');
});

t.test('final states are final: late or repeated callbacks decide nothing', async (t) => {
  for (const [name, final] of [
    ['paid', payouts.history(create, accepted, complete())],
    ['failed', payouts.history(create, accepted, fail())],
    ['canceled', payouts.history(create, cancel)],
  ] as const) {
    for (const c of [complete(9000), fail(9000), delay('operator_down', 9000), overdue(60 * MIN), accepted]) {
      payouts.given(final).when(c).thenNothing(t, `${c.type} after ${name}`);
    }
    t.ok(FINAL_PAYOUT_STATUSES.includes(payouts.state(final).status), `${name} is final`);
  }
});

t.test('the delay overlay: reason and first detection time, status unchanged', async (t) => {
  const delayed = payouts
    .given(payouts.history(create, accepted))
    .when(delay('operator_pending', 2000))
    .thenMatch(t, [
      {
        type: 'payout.delayed',
        data: {
          reason: 'operator_pending',
          at: at(2000).toISOString(),
          object: { status: 'in_transit', delay_state: 'delayed', delay_reason: 'operator_pending', delayed_at: at(2000).toISOString() },
        },
      },
    ]);
  t.same(
    delayed.map((e) => e.type),
    ['payout.created', 'payout.updated', 'payout.delayed'],
  );

  payouts.given(delayed).when(delay('operator_pending', 2500)).thenNothing(t, 'the same reason again decides nothing');
  payouts
    .given(delayed)
    .when(delay('operator_timeout', 4000))
    .thenMatch(t, [{ type: 'payout.delayed', data: { object: { status: 'in_transit', delay_reason: 'operator_timeout', delayed_at: at(2000).toISOString() } } }], 'another reason is recorded; delayed_at keeps the first detection');

  payouts
    .given(delayed)
    .when(complete(5000))
    .thenState((_, decided) => {
      t.match(decided.at(-1)?.data.object, { status: 'paid', delay_reason: 'operator_pending' }, 'a delayed payout can still be paid');
    });
  payouts
    .given(payouts.history(create))
    .when(delay('operator_down', 100))
    .thenState((_, decided) => {
      t.equal(decided.at(-1)?.data.object.status, 'pending', 'a pending payout stays pending when delayed');
    });
});

t.test('check_overdue: delayed unknown once expected_by has passed, and only then', async (t) => {
  const inTransit = payouts.history(create, accepted);
  payouts
    .given(inTransit)
    .when(overdue(10 * MIN - 1))
    .thenNothing(t, 'one millisecond before expected_by');
  const late = payouts
    .given(inTransit)
    .when(overdue(10 * MIN))
    .thenMatch(
      t,
      [{ type: 'payout.delayed', data: { reason: 'unknown', at: at(10 * MIN).toISOString(), object: { status: 'in_transit', delay_state: 'delayed', delay_reason: 'unknown', delayed_at: at(10 * MIN).toISOString() } } }],
      'at expected_by',
    );
  payouts
    .given(late)
    .when(overdue(11 * MIN))
    .thenNothing(t, 'once');
  payouts
    .given(payouts.given(inTransit).history(delay('operator_down', 2000)))
    .when(overdue(11 * MIN))
    .thenNothing(t, 'the operator already said why: its reason stays');
  payouts
    .given(payouts.history(create, accepted, complete()))
    .when(overdue(11 * MIN))
    .thenNothing(t, 'not when paid');
  payouts
    .given(payouts.history(create, accepted, fail()))
    .when(overdue(11 * MIN))
    .thenNothing(t, 'not when failed');
  payouts
    .given(payouts.history(create))
    .when(overdue(11 * MIN))
    .thenMatch(t, [{ type: 'payout.delayed' }], 'a payout still pending is late too');
});

t.test('every event carries the object as the state after it', async (t) => {
  const events = payouts.history(create, accepted, delay('operator_timeout'), overdue(20 * MIN), fail(21 * MIN));
  for (let i = 0; i < events.length; i++) {
    t.same(events[i]!.data.object, toPayoutObject(payouts.state(events.slice(0, i + 1))), `${events[i]!.type}`);
  }
  t.throws(() => toPayoutObject(payouts.state([])), 'no object without a payout');
});

t.test('payout methods (saved destinations)', async (t) => {
  const methods = spec(payoutMethodDecider);
  const method: PayoutMethodCreated = {
    id: '0190c6a8-0000-7000-8000-000000000001',
    merchantId: 'acct_1',
    environment: 'sandbox',
    destination: created.destination,
    usableFrom: at(30 * MIN).toISOString(),
    createdAt: T0.toISOString(),
  };
  const made = methods
    .given()
    .when({ type: 'create', method })
    .then(t, [{ type: 'payout_method.created', data: method }]);
  methods.given(made).when({ type: 'create', method }).thenThrows(t, 'IKW-RES-003', 'created once');

  const deactivate = { type: 'deactivate', merchantId: 'acct_1', environment: 'sandbox', at: at(MIN) } as const;
  const off = methods
    .given(made)
    .when(deactivate)
    .then(t, [{ type: 'payout_method.deactivated', data: { id: method.id, deactivatedAt: at(MIN).toISOString() } }]);
  methods.given(off).when(deactivate).thenNothing(t, 'deactivating twice is fine');
  methods
    .given(made)
    .when({ ...deactivate, merchantId: 'acct_2' })
    .thenThrows(t, 'IKW-RES-001', 'another merchant');
  methods
    .given(made)
    .when({ ...deactivate, environment: 'live' })
    .thenThrows(t, 'IKW-RES-001', 'the other environment');
  methods.given().when(deactivate).thenThrows(t, 'IKW-RES-001', 'no such method');

  const active = methods.state(made);
  t.equal(unusableReason(methods.state([]), 'acct_1', 'sandbox', at(40 * MIN)), 'missing');
  t.equal(unusableReason(active, 'acct_2', 'sandbox', at(40 * MIN)), 'missing', 'another merchant: as if missing');
  t.equal(unusableReason(active, 'acct_1', 'live', at(40 * MIN)), 'missing', 'the other environment: as if missing');
  t.equal(unusableReason(active, 'acct_1', 'sandbox', at(30 * MIN - 1)), 'safety_delay', 'before usableFrom');
  t.equal(unusableReason(active, 'acct_1', 'sandbox', at(30 * MIN)), null, 'from usableFrom on');
  t.equal(unusableReason(methods.state(off), 'acct_1', 'sandbox', at(40 * MIN)), 'inactive');
});

t.test('merchant payout settings', async (t) => {
  const settings = spec(payoutSettingsDecider);
  t.same(defaultPayoutSettings('sandbox'), { defaultReturnUrl: null, safetyDelayMinutes: 0, defaultCurrency: null, defaultPayoutMethodId: null, inlineDestinationsForApiKeys: true });
  t.equal(defaultPayoutSettings('live').safetyDelayMinutes, 1440, 'a day in live');
  const update = (changes: PayoutSettingsUpdate['changes'], ms = 0, proof: PayoutSettingsUpdate['proof'] = 'api_key'): PayoutSettingsCommand => ({ type: 'update', merchantId: 'acct_1', environment: 'sandbox', changes, proof, at: at(ms) });
  settings.given().when(update({})).thenNothing(t, 'no change');
  settings
    .given()
    .when(update({ safetyDelayMinutes: 0 }))
    .thenNothing(t, 'a value equal to the default is no change');
  const first = settings
    .given()
    .when(update({ safetyDelayMinutes: 30, defaultReturnUrl: 'https://shop.example/back' }))
    .then(t, [
      {
        type: 'merchant.payout_settings_updated',
        data: {
          merchantId: 'acct_1',
          environment: 'sandbox',
          changes: { safetyDelayMinutes: 30, defaultReturnUrl: 'https://shop.example/back' },
          settings: { defaultReturnUrl: 'https://shop.example/back', safetyDelayMinutes: 30, defaultCurrency: null, defaultPayoutMethodId: null, inlineDestinationsForApiKeys: true },
          updatedAt: T0.toISOString(),
        },
      },
    ]);
  const second = settings
    .given(first)
    .when(update({ defaultCurrency: 'xof', safetyDelayMinutes: 30 }, MIN))
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.data.changes),
        [{ defaultCurrency: 'xof' }],
        'only what changed',
      );
      t.same(s.settings, { defaultReturnUrl: 'https://shop.example/back', safetyDelayMinutes: 30, defaultCurrency: 'xof', defaultPayoutMethodId: null, inlineDestinationsForApiKeys: true });
    });
  settings
    .given(second)
    .when(update({ defaultReturnUrl: null }, 2 * MIN))
    .thenState((_, decided) =>
      t.same(
        decided.map((e) => payoutData(e).settings.defaultReturnUrl),
        [null],
        'null clears',
      ),
    );

  // Lowering the safety delay (30 → 5) needs a user's second-factor challenge; raising needs nothing.
  settings
    .given(first)
    .when(update({ safetyDelayMinutes: 5 }, MIN))
    .thenThrows(t, 'IKW-PAY-005');
  settings
    .given(first)
    .when(update({ safetyDelayMinutes: 5 }, MIN, 'no_challenge'))
    .thenThrows(t, 'IKW-PAY-006');
  settings
    .given(first)
    .when(update({ safetyDelayMinutes: 0, defaultCurrency: 'xof' }, MIN, 'no_challenge'))
    .thenThrows(t, 'IKW-PAY-006');
  settings
    .given(first)
    .when(update({ safetyDelayMinutes: 5 }, MIN, { challengeId: 'ch_1' }))
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => payoutData(e).safetyDelayLowered),
        [{ fromMinutes: 30, toMinutes: 5, challengeId: 'ch_1' }],
        'the lowering is recorded with its challenge',
      );
      t.equal(s.settings?.safetyDelayMinutes, 5);
    });
  settings
    .given(first)
    .when(update({ safetyDelayMinutes: 60 }, MIN))
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => payoutData(e).safetyDelayLowered),
        [undefined],
        'raising is no lowering',
      );
      t.equal(s.settings?.safetyDelayMinutes, 60);
    });
  settings
    .given(first)
    .when(update({ safetyDelayMinutes: 30, defaultCurrency: 'xof' }, MIN))
    .thenState((s) => t.equal(s.settings?.defaultCurrency, 'xof', 'the same delay is no lowering'));

  // Refusing inline destinations to API keys needs nothing; opening them again is a weakening, as lowering the delay is.
  const closed = settings
    .given(first)
    .when(update({ inlineDestinationsForApiKeys: false }, MIN))
    .thenState((s, decided) => {
      t.equal(s.settings?.inlineDestinationsForApiKeys, false, 'an API key may close them');
      t.same(
        decided.map((e) => payoutData(e).inlineDestinationsReopened),
        [undefined],
      );
    });
  settings
    .given(closed)
    .when(update({ inlineDestinationsForApiKeys: true }, 2 * MIN))
    .thenThrows(t, { code: 'IKW-PAY-005', param: 'inlineDestinations' });
  settings
    .given(closed)
    .when(update({ inlineDestinationsForApiKeys: true }, 2 * MIN, 'no_challenge'))
    .thenThrows(t, { code: 'IKW-PAY-006', param: 'challenge' });
  settings
    .given(closed)
    .when(update({ inlineDestinationsForApiKeys: true, safetyDelayMinutes: 5 }, 2 * MIN, { challengeId: 'ch_2' }))
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => payoutData(e).inlineDestinationsReopened),
        [{ challengeId: 'ch_2' }],
        'recorded with its challenge',
      );
      t.same(
        decided.map((e) => payoutData(e).safetyDelayLowered),
        [{ fromMinutes: 30, toMinutes: 5, challengeId: 'ch_2' }],
        'one challenge for both',
      );
      t.equal(s.settings?.inlineDestinationsForApiKeys, true);
    });
  settings
    .given(first)
    .when(update({ inlineDestinationsForApiKeys: true }, MIN))
    .thenNothing(t, 'open already: no change, nothing to prove');
});

t.test('payout settings recorded before a setting existed take its default', async (t) => {
  const recorded = { defaultReturnUrl: null, safetyDelayMinutes: 60, defaultCurrency: 'xof', defaultPayoutMethodId: null };
  const state = payoutSettingsDecider.evolve(payoutSettingsDecider.initialState, {
    type: 'merchant.payout_settings_updated',
    data: { merchantId: 'acct_1', environment: 'live', changes: { safetyDelayMinutes: 60 }, settings: recorded as PayoutSettings, updatedAt: T0.toISOString() },
  });
  t.same(state.settings, { ...recorded, inlineDestinationsForApiKeys: true });
});

t.test('merchant customer portal settings: on the same stream, apart from the payout settings', async (t) => {
  const settings = spec(portalSettingsDecider);
  const payouts = spec(payoutSettingsDecider);
  const update = (changes: PortalSettingsCommand['changes'], ms = 0): PortalSettingsCommand => ({ type: 'update_customer_portal', merchantId: 'acct_1', environment: 'sandbox', changes, at: at(ms) });
  t.same(DEFAULT_CUSTOMER_PORTAL_SETTINGS, { subscriptionCancel: true, customerUpdate: true, returnUrl: null }, 'every feature on by default, as before settings');
  settings
    .given()
    .when(update({ subscriptionCancel: true }))
    .thenNothing(t, 'a value equal to the default is no change');
  const first = settings
    .given()
    .when(update({ subscriptionCancel: false, returnUrl: 'https://shop.example/account' }))
    .then(t, [
      {
        type: 'merchant.customer_portal_settings_updated',
        data: {
          merchantId: 'acct_1',
          environment: 'sandbox',
          changes: { subscriptionCancel: false, returnUrl: 'https://shop.example/account' },
          settings: { subscriptionCancel: false, customerUpdate: true, returnUrl: 'https://shop.example/account' },
          updatedAt: T0.toISOString(),
        },
      },
    ]);
  const payoutChange = payouts
    .given(first)
    .when({ type: 'update', merchantId: 'acct_1', environment: 'sandbox', changes: { defaultCurrency: 'xof' }, proof: 'api_key', at: at(MIN) })
    .thenState((s) => t.same(s.settings, { ...defaultPayoutSettings('sandbox'), defaultCurrency: 'xof' }, 'the portal’s events are not the payout settings’'));
  settings
    .given(payoutChange)
    .when(update({ subscriptionCancel: false }, 2 * MIN))
    .thenState((s, decided) => {
      t.same(decided, [], 'a payout change keeps the portal’s');
      t.same(s.settings, { subscriptionCancel: false, customerUpdate: true, returnUrl: 'https://shop.example/account' });
    });
  settings
    .given(first)
    .when(update({ customerUpdate: false, returnUrl: null, subscriptionCancel: false }, MIN))
    .thenState((s, decided) => {
      t.same(
        decided.map((e) => e.data.changes),
        [{ customerUpdate: false, returnUrl: null }],
        'only what changed',
      );
      t.equal(s.updatedAt, at(MIN).toISOString());
    });
});

t.test('destinations are checked against the catalog and normalised', async (t) => {
  t.same(
    normalizeDestination({ type: 'mobile_money', country: 'sn', operator: 'orange_money', msisdn: '77 123 45 67' }, 'XOF'),
    {
      type: 'mobile_money',
      currency: 'xof',
      country: 'SN',
      operator: 'orange_money',
      msisdn: '+221771234567',
    },
    'E.164, upper-case country, currency from the payout',
  );
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
  for (const [name, fn, code, field] of cases) t.throws(fn, { code, field }, name);
  t.throws(() => normalizeDestination({ ...mm, msisdn: 'x' }, null, 'saved'), { code: 'IKW-VAL-001', field: 'saved.currency' }, 'the field prefix is the caller\u2019s');
  t.throws(() => normalizeDestination({ ...mm, currency: 'xof', operator: 'e_money' }, null, ''), { code: 'IKW-VAL-006', field: 'operator' }, 'no prefix when the destination is the whole body');
});
