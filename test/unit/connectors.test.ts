/**
 * The connector kernel (docs/connectors.md): the router picks the connector that serves an
 * operation or refuses with IKW-PRV-001, the sinks stamp news with its connector, and the sandbox
 * connector's status checks answer what its timers will tell.
 */
import t from 'tap';
import { ManualClock } from '../../packages/core/clock.js';
import { ApiError } from '../../packages/core/errors.js';
import { connectorActor, sinksOf, type CallbackSinks, type CollectCallback, type PayoutCallback } from '../../packages/connectors/callbacks.js';
import type { CollectRequest, Connector, PayoutDestination, PayoutRequest, RailSubject } from '../../packages/connectors/port.js';
import { ConnectorRouter } from '../../packages/connectors/router.js';
import { SandboxConnector } from '../../packages/connectors/sandbox/index.js';

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
  t.same(paid.map((p) => p.callback.report.type), ['delayed', 'paid']);
  t.same(await connector.payoutStatus(payoutRequest('221770000002')), { found: true, final: { type: 'paid' } });
  t.same(await connector.payoutStatus(payoutRequest('221770000004')), { found: true, final: null }, 'operator down: still delayed');
  t.same(await connector.refund(), { status: 'accepted' });

  t.throws(() => connector.assertCanCollect({ type: 'card', token: 'tok_unknown' }), { code: 'IKW-VAL-001' });
  t.doesNotThrow(() => connector.assertCanCollect({ type: 'card', token: 'tok_visa' }));
});
