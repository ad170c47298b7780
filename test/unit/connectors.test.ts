/**
 * The connector kernel (docs/connectors.md): the router picks the connector that serves an
 * operation or refuses with IKW-PRV-001, the sinks stamp news with its connector, and the sandbox
 * connector's status checks answer what its timers will tell.
 */
import t from '#tap';
import { ManualClock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import { connectorActor, MAX_RESENDS, nextStatusCheck, readStatus, sinksOf, type CallbackSinks, type CollectCallback, type PayoutCallback, type StatusCheck } from '#packages/connectors/callbacks.js';
import { reportedMismatch, withReceipt, type Availability, type CollectRequest, type Connector, type PayoutDestination, type PayoutRequest, type RailSubject } from '#packages/connectors/port.js';
import { ConnectorRouter, type RailHealthGate } from '#packages/connectors/router.js';
import { SandboxConnector } from '#packages/connectors/sandbox/index.js';

const DELAY = 7_000;

function recordingSinks() {
  const collected: { callback: CollectCallback; at: Date }[] = [];
  const paid: { callback: PayoutCallback; at: Date }[] = [];
  const sinks: CallbackSinks = {
    collect: async (callback, at) => void collected.push({ callback, at }),
    payout: async (callback, at) => void paid.push({ callback, at }),
  };
  return { sinks, collected, paid };
}

const mobileMoney = (msisdn: string) => ({ type: 'mobile_money' as const, country: 'SN', operator: 'orange_money', msisdn });
const collectRequest = (msisdn: string): CollectRequest => ({
  operationId: 'op_1',
  paymentIntentId: 'pi_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  amount: 1_000,
  currency: 'xof',
  paymentMethod: mobileMoney(msisdn),
  returnUrl: 'https://shop.example/back',
});
const destination = (msisdn: string): PayoutDestination => ({ type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn });
const payoutRequest = (msisdn: string): PayoutRequest => ({ payoutId: 'po_1', merchantId: 'acct_1', environment: 'sandbox', amount: 1_000, currency: 'xof', destination: destination(msisdn) });

function sandbox() {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const recorded = recordingSinks();
  return { clock, ...recorded, connector: new SandboxConnector(clock, DELAY, 'https://sika.test', sinksOf('sandbox', recorded.sinks)) };
}

/** A connector that serves only what `serves` says, and records what it is asked. */
function onlyFor(name: string, serves: (subject: RailSubject) => boolean): Connector & { asked: string[] } {
  const { connector } = sandbox();
  const asked: string[] = [];
  return Object.assign(Object.create(connector) as Connector, {
    name,
    asked,
    serves: (_direction: string, subject: RailSubject) => serves(subject),
    collect: async (request: CollectRequest) => (asked.push(request.operationId), { status: 'processing' as const }),
  });
}

t.test('the router: the first connector of the environment that serves it; none is IKW-PRV-001 before any call', async (t) => {
  const orange = onlyFor('orange', (s) => s.rail === 'mobile_money' && s.operator === 'orange_money');
  const cards = onlyFor('cards', (s) => s.rail === 'card');
  const router = new ConnectorRouter([
    { environment: 'live', connector: orange },
    { environment: 'live', connector: cards },
  ]);
  t.equal(router.route('live', 'collect', { rail: 'mobile_money', country: 'SN', operator: 'orange_money' }), orange);
  t.equal(router.route('live', 'collect', { rail: 'card' }), cards);
  t.equal(router.route('live', 'collect', { rail: 'mobile_money', country: 'SN', operator: 'wave' }), null);
  t.equal(router.route('sandbox', 'collect', { rail: 'card' }), null, 'another environment has its own lines');

  const live = router.rails('live');
  await live.collect({ ...collectRequest('221770000067'), environment: 'live' });
  t.same(orange.asked, ['op_1']);
  const wave = { ...mobileMoney('221770000067'), operator: 'wave' };
  t.throws(() => live.assertCanCollect(wave), new ApiError('IKW-PRV-001', 'Live processing is not enabled for operator wave (SN): no connector is configured', 'payment_method'));
  await t.rejects(live.collect({ ...collectRequest('221770000067'), paymentMethod: wave }), { code: 'IKW-PRV-001' });
  t.throws(() => live.assertCanPayOut({ type: 'bank', currency: 'ngn', bank_code: '058', account_number: '0123456789', account_name: 'A' }), {
    code: 'IKW-PRV-001',
    message: 'Live payouts are not enabled for bank transfers: no connector is configured',
  });
  t.same(cards.asked, [], 'nothing routed elsewhere');
});

t.test('a payout stays with the connector it recorded, whatever rail the table now puts first', async (t) => {
  const paid: string[] = [];
  const rail = (name: string) =>
    Object.assign(
      onlyFor(name, (s) => s.rail === 'mobile_money'),
      {
        statusChecks: name === 'first' ? [60_000] : [120_000],
        payout: async () => (paid.push(name), { status: 'accepted' as const }),
        payoutStatus: async () => (paid.push(`${name}?`), { found: false as const }),
      },
    );
  const live = new ConnectorRouter([
    { environment: 'live', connector: rail('first') },
    { environment: 'live', connector: rail('second') },
  ]).rails('live');
  const request = { ...payoutRequest('221770000067'), environment: 'live' as const };
  await live.payout(request);
  await live.payout({ ...request, connector: 'second' });
  await live.payoutStatus({ ...request, connector: 'second' });
  t.same(paid, ['first', 'second', 'second?'], 'routed when it recorded none; its own rail otherwise, status checks included');
  t.same(live.statusChecks('payout', request.destination, 'second'), { connector: 'second', schedule: [120_000], sendsAgain: true }, 'on its own rail’s schedule, and what it guarantees (the sandbox’s: one record per id)');
  await t.rejects(live.payout({ ...request, connector: 'gone' }), { code: 'IKW-PRV-001' }, 'a rail no longer configured: refused, never sent elsewhere');
});

/** A health gate that sets aside the rails named, and records the attempts sent. */
function gate(aside: Set<string>): RailHealthGate & { attempts: string[] } {
  const attempts: string[] = [];
  return { attempts, setAside: (_environment, rail) => aside.has(rail), sent: (_environment, rail, direction) => void attempts.push(`${rail}:${direction}`) };
}

t.test('routing by health: a rail set aside or declared closed is passed over; none left is refused in words', async (t) => {
  let declared: Availability | undefined;
  const first = Object.assign(
    onlyFor('first', (s) => s.rail === 'mobile_money'),
    { declaredAvailability: () => declared },
  );
  const second = onlyFor('second', (s) => s.rail === 'mobile_money' && s.operator === 'orange_money');
  const aside = new Set<string>();
  const health = gate(aside);
  const router = new ConnectorRouter(
    [
      { environment: 'live', connector: first },
      { environment: 'live', connector: second },
    ],
    health,
  );
  const orange = { rail: 'mobile_money' as const, country: 'SN', operator: 'orange_money' };
  t.same(router.decide('live', 'collect', orange), { connector: first, skipped: [] }, 'both healthy: precedence');

  aside.add('first');
  t.same(router.decide('live', 'collect', orange), { connector: second, skipped: [{ rail: 'first', why: 'set_aside' }] }, 'the first set aside: the second, and why');
  const live = router.rails('live');
  await live.collect({ ...collectRequest('221770000067'), environment: 'live' });
  t.same([first.asked, second.asked], [[], ['op_1']], 'the collection went to the second');
  t.same(health.attempts, ['second:collect'], 'the gate is told of the attempt sent (a half-open rail counts its probe out)');

  aside.clear();
  declared = 'unavailable';
  t.same(router.decide('live', 'payout', orange), { connector: second, skipped: [{ rail: 'first', why: 'declared_unavailable' }] }, 'its provider says it is closed (pawaPay CLOSED)');
  declared = 'degraded';
  t.equal(router.route('live', 'collect', orange), first, 'degraded still carries');

  aside.add('second');
  declared = 'unavailable';
  const refused = router.decide('live', 'collect', orange);
  t.match(refused, {
    connector: null,
    code: 'IKW-PRV-001',
    skipped: [
      { rail: 'first', why: 'declared_unavailable' },
      { rail: 'second', why: 'set_aside' },
    ],
  });
  t.throws(
    () => live.assertCanCollect(mobileMoney('221770000067')),
    new ApiError('IKW-PRV-001', 'Live payments for operator orange_money (SN) are unavailable for now: every rail that carries them is down (first says it is closed, second has been failing); try again in a few minutes', 'payment_method'),
  );
  const wave = { ...orange, operator: 'wave' };
  t.match(router.decide('live', 'collect', wave), { connector: null, reason: /every rail that carries them is down \(first says it is closed\)/, skipped: [{ rail: 'first' }] }, 'only the rails that serve it are named');
  t.match(router.decide('live', 'collect', { rail: 'card' }), { connector: null, reason: 'Live processing is not enabled for cards: no connector is configured', skipped: [] }, 'a subject no rail serves: refused as before');
  t.equal(new ConnectorRouter([{ environment: 'live', connector: first }]).route('live', 'collect', orange), first, 'without a gate precedence alone decides');
});

t.test('a collection stays with the connector its confirmation recorded, set aside or not: initiation, checks and resend', async (t) => {
  const rail = (name: string) =>
    Object.assign(
      onlyFor(name, (s) => s.rail === 'mobile_money'),
      {
        statusChecks: [60_000],
        holdsFunds: true,
        collectStatus: async () => (asked.push(`${name}?`), { found: false as const }),
      },
    );
  const asked: string[] = [];
  const first = rail('first');
  const second = rail('second');
  const router = new ConnectorRouter(
    [
      { environment: 'live', connector: first },
      { environment: 'live', connector: second },
    ],
    gate(new Set(['first'])),
  );
  const live = router.rails('live');
  const request = { ...collectRequest('221770000067'), environment: 'live' as const };
  t.same(live.choose('collect', request.paymentMethod), { clearingRail: 'second', passedOver: [{ rail: 'first', why: 'set_aside' }] }, 'a new confirmation is routed past the rail set aside, and says so');
  t.same(live.statusChecks('collect', request.paymentMethod, 'first'), { connector: 'first', schedule: [60_000], sendsAgain: true }, "its checks are the recorded rail's, set aside or not");
  await live.collectStatus({ ...request, connector: 'first' });
  await live.collect({ ...request, connector: 'first' });
  t.same(asked, ['first?'], 'the check asked the recorded rail');
  t.same([first.asked, second.asked], [['op_1'], []], 'and the resend went to it, never re-routed');
  await t.rejects(live.collect({ ...request, connector: 'gone' }), { code: 'IKW-PRV-001', message: 'Live payments through gone, which carries this payment, are not configured any more' });
});

t.test('the sinks stamp news with its connector, whose actor the events carry', async (t) => {
  const { sinks, collected } = recordingSinks();
  await sinksOf('pawapay', sinks).collect({ paymentIntentId: 'pi_1', operationId: 'op_1', merchantId: 'acct_1', environment: 'live', outcome: { status: 'succeeded' } }, new Date(0));
  t.equal(collected[0]!.callback.connector, 'pawapay');
  t.equal(connectorActor(collected[0]!.callback), 'connector:pawapay');
  t.equal(connectorActor({}), 'connector:sandbox', 'a job queued before connectors were named is the sandbox’s');
});

t.test('the sandbox connector: scripted news after the delay, and status checks that agree with it', async (t) => {
  const { connector, clock, collected, paid } = sandbox();
  t.same(await connector.collect(collectRequest('221770000001')), { status: 'processing' });
  t.match(collected[0], { callback: { connector: 'sandbox', outcome: { status: 'failed', failureCode: 'insufficient_funds' } }, at: new Date(clock.now().getTime() + DELAY) });
  t.same(await connector.collectStatus(collectRequest('221770000001')), { found: true, final: collected[0]!.callback.outcome });
  t.same(await connector.collectStatus(collectRequest('221770000003')), { found: true, final: null }, 'a number that never answers: taken, not final');

  t.same(await connector.payout(payoutRequest('221770000002')), { status: 'accepted' });
  t.same(
    paid.map((p) => p.callback.report.type),
    ['delayed', 'paid'],
  );
  t.same(await connector.payoutStatus(payoutRequest('221770000002')), { found: true, final: { type: 'paid' } });
  t.same(await connector.payoutStatus(payoutRequest('221770000004')), { found: true, final: null }, 'operator down: still delayed');
  t.same(await connector.refund(), { status: 'accepted' });

  t.throws(() => connector.assertCanCollect({ type: 'card', token: 'tok_unknown' }), { code: 'IKW-VAL-001' });
  t.doesNotThrow(() => connector.assertCanCollect({ type: 'card', token: 'tok_visa' }));
});

t.test('status checks: routed as the initiation, on the connector’s own schedule, which runs out', async (t) => {
  const asked = Object.assign(
    onlyFor('asked', (s) => s.rail === 'mobile_money'),
    { statusChecks: [120_000, 300_000], oneRecordPerId: { collect: true, payout: false, refund: false } },
  );
  const simulator = onlyFor('simulator', (s) => s.rail === 'card');
  const live = new ConnectorRouter([
    { environment: 'live', connector: asked },
    { environment: 'live', connector: simulator },
  ]).rails('live');
  t.same(live.statusChecks('collect', mobileMoney('221770000067')), { connector: 'asked', schedule: [120_000, 300_000], sendsAgain: true });
  t.equal(live.statusChecks('collect', { type: 'card', token: 'tok_visa' }), null, 'a connector without a schedule: no checks');
  t.equal(live.statusChecks('payout', { type: 'bank', currency: 'ngn', bank_code: '058', account_number: '0123456789', account_name: 'A' }), null, 'nothing routed: no checks, no refusal');

  const now = new Date('2026-01-01T00:00:00Z');
  const first: StatusCheck = { merchantId: 'acct_1', environment: 'live', connector: 'asked', attempt: 0, direction: 'payout', payoutId: 'po_1' };
  const second = nextStatusCheck([120_000, 300_000], first, now);
  t.same(second, { check: { ...first, attempt: 1 }, at: new Date(now.getTime() + 300_000) }, 'each delay after the check before');
  t.equal(nextStatusCheck([120_000, 300_000], second!.check, now), null, 'then the schedule has run out');
  t.equal(nextStatusCheck([120_000, 300_000], { ...first, prompted: true }, now), null, 'a check a callback asked for sets none');
  t.same(nextStatusCheck([120_000, 300_000], second!.check, now, true), { check: { ...first, attempt: 0, resends: 1 }, at: new Date(now.getTime() + 120_000) }, 'after a resend: the schedule again from its first delay');
  t.same(
    nextStatusCheck([120_000, 300_000], { ...first, prompted: true }, now, true),
    { check: { ...first, attempt: 0, resends: 1 }, at: new Date(now.getTime() + 120_000) },
    'a prompted check that sent again: followed on the schedule too',
  );
  const restarted = { ...first, resends: MAX_RESENDS };
  t.same(nextStatusCheck([120_000, 300_000], restarted, now, true), { check: { ...restarted, attempt: 1 }, at: new Date(now.getTime() + 300_000) }, `after ${MAX_RESENDS} restarts a resend follows the schedule: its next, longer delay`);
  t.equal(nextStatusCheck([120_000, 300_000], { ...restarted, attempt: 1 }, now, true), null, 'and when the schedule has run out, none: review');
  t.equal(nextStatusCheck([120_000, 300_000], { ...restarted, prompted: true }, now, true), null, 'a prompted one sets none: the schedule goes on by itself');
});

t.test('a check that finds nothing sends again only where the provider keeps one record per id', async (t) => {
  const attempt = { amount: 1_000, currency: 'xof' };
  t.same(readStatus({ found: false }, attempt, { sendsAgain: true }), { kind: 'resend' });
  t.same(readStatus({ found: false }, attempt, { sendsAgain: true, resends: MAX_RESENDS }), { kind: 'resend' }, 'however many times before: one record per id');
  t.same(readStatus({ found: false }, attempt, { sendsAgain: false }), { kind: 'absent' }, 'no guarantee (a Paystack refund): never sent again');
  t.same(readStatus({ found: true, final: null, reported: { amount: 1_000, currency: 'XOF' } }, attempt, { sendsAgain: false }), { kind: 'found', final: null });
});

t.test('reported money is matched on amount and currency; a receipt rides on a success only', async (t) => {
  t.equal(reportedMismatch({ amount: 1_000, currency: 'xof' }, { amount: 1_000, currency: 'XOF' }), null);
  t.equal(reportedMismatch({ amount: 1_000, currency: 'xof' }, undefined), null, 'nothing reported: nothing to contradict');
  t.match(reportedMismatch({ amount: 1_000, currency: 'xof' }, { amount: 999, currency: 'xof' }), /reported 999/);
  t.match(reportedMismatch({ amount: 1_000, currency: 'xof' }, { amount: 1_000, currency: 'ghs' }), /in ghs/);
  t.same(withReceipt({ status: 'succeeded' }, { amount: 1, currency: 'xof', providerReference: 'PP1' }), { status: 'succeeded', providerReference: 'PP1' });
  t.same(withReceipt({ type: 'paid' }, { amount: 1, currency: 'xof', providerReference: 'PP2' }), { type: 'paid', providerReference: 'PP2' });
  const failed = { status: 'failed' as const, failureCode: 'payer_not_found', failureMessage: 'no' };
  t.same(withReceipt(failed, { amount: 1, currency: 'xof', providerReference: 'PP3' }), failed, 'a failure carries none');
});

t.test('a one-time code goes to the connector that carries the collection; one that takes no codes is IKW-PRV-001', async (t) => {
  const codes: { operationId: string; code: string }[] = [];
  const withCodes = Object.assign(
    onlyFor('coded', (s) => s.rail === 'mobile_money' && s.operator === 'orange_money'),
    {
      submitOtp: async (request: CollectRequest, code: string) => (codes.push({ operationId: request.operationId, code }), { status: 'processing' as const }),
    },
  );
  const without = onlyFor('plain', (s) => s.rail === 'mobile_money');
  const router = new ConnectorRouter([
    { environment: 'live', connector: withCodes },
    { environment: 'live', connector: without },
  ]);
  const live = router.rails('live');
  const request = { ...collectRequest('221770000067'), environment: 'live' as const };
  t.same(await live.submitOtp(request, '482913'), { status: 'processing' });
  t.same(await live.submitOtp({ ...request, connector: 'coded', paymentMethod: { ...mobileMoney('221770000067'), operator: 'wave' } }, '1234'), { status: 'processing' }, 'the recorded connector, whatever the table says');
  t.same(codes, [
    { operationId: 'op_1', code: '482913' },
    { operationId: 'op_1', code: '1234' },
  ]);
  await t.rejects(live.submitOtp({ ...request, connector: 'plain' }, '482913'), { code: 'IKW-PRV-001', param: 'code' }, 'a connector without codes');
  t.notOk(without.asked.length, 'nothing else asked of it');
});
