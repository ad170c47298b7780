/**
 * Routing by measured health with two rails serving one operator (docs/connectors.md, "Health"):
 * pawaPay first, Hub2 second, both real connectors against their stand-ins on loopback. Orange
 * Money Senegal goes through pawaPay while it is well; declared CLOSED, or failing on its own past
 * the threshold, new payments and payouts go through Hub2, and come back to pawaPay after the leak
 * interval and a good probe. A payer's fault never moves the route; an attempt whose answer was
 * lost stays with the rail that may hold it; a payment a rail provably refused is tried on the next.
 */
import t, { type Test } from '#tap';
import { pawapayId } from '#packages/connectors/pawapay/index.js';
import { confirm, createIntent, mobileMoney, retrieve, snNumber } from '../support/payments.js';
import { balance, fund, getPayout, postPayout } from '../support/payouts.js';
import { goLive, startHub2Live } from '../support/live.js';
import { advance } from '../support/system.js';

const live = await startHub2Live(t, { pawapay: true });
const { svc, standin: hub2 } = live;
const pawapay = live.pawapay!;
const MINUTE = 60_000;
const ORANGE_SN = { rail: 'mobile_money', country: 'SN', operator: 'orange_money', currency: 'xof' } as const;

const deposits = () => pawapay.requests.filter((r) => r.method === 'POST' && r.path === '/v2/deposits').length;
const hub2Payments = () => hub2.requests.filter((r) => r.method === 'POST' && /^\/payment-intents\/[^/]+\/payments$/.test(r.path)).length;
const pawapayPayouts = () => pawapay.requests.filter((r) => r.method === 'POST' && r.path === '/v2/payouts').length;
const hub2Transfers = () => hub2.requests.filter((r) => r.method === 'POST' && r.path === '/transfers').length;

/** Reads the rails' measured health again (the service does every 2 s), once the read models hold every answer so far. */
async function measured(): Promise<void> {
  await svc.system.drain();
  await svc.system.railHealth.refresh();
}

/** Which rail a new Orange Senegal payment goes through, and the payment. */
async function pay(t: Test, key: string, lastTwo = '67') {
  const [before, beforeHub2] = [deposits(), hub2Payments()];
  const intent = await createIntent(svc, key);
  const res = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber(lastTwo)) });
  t.equal(res.status, 200, res.text);
  const rail = deposits() > before ? 'pawapay' : hub2Payments() > beforeHub2 ? 'hub2' : 'none';
  return { rail, intent, operationId: res.body.latest_operation as string, body: res.body };
}

async function payOut(t: Test, key: string, idempotencyKey: string) {
  const [before, beforeHub2] = [pawapayPayouts(), hub2Transfers()];
  const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: snNumber('67') } }, { idempotencyKey });
  t.equal(res.status, 200, res.text);
  return { rail: pawapayPayouts() > before ? 'pawapay' : hub2Transfers() > beforeHub2 ? 'hub2' : 'none', payout: res.body as { id: string } };
}

function conforms(t: Test): void {
  t.same(pawapay.takeDeviations(), [], 'every request followed pawaPay’s contract');
  t.same(hub2.deviations.splice(0), [], 'every request followed Hub2’s contract');
}

t.test('declared CLOSED by pawaPay: new payments and payouts go through Hub2, and back when it opens again', async (t) => {
  const { merchant, key } = await goLive(svc, 'Declared closed');
  await fund(svc, merchant.id, 100_000, 'live');
  t.equal((await pay(t, key)).rail, 'pawapay', 'pawaPay first while it is open');

  pawapay.availability.set('ORANGE_SEN/DEPOSIT', 'CLOSED');
  pawapay.availability.set('ORANGE_SEN/PAYOUT', 'CLOSED');
  svc.clock.advance(2 * MINUTE);
  const connector = svc.system.connectors.named('live', 'pawapay')!;
  t.equal(await connector.availability('collect', ORANGE_SN), 'unavailable', 'pawaPay’s availability read again');
  const closed = await pay(t, key);
  t.equal(closed.rail, 'hub2', 'the payment goes through Hub2');
  t.match(hub2.intentByPurchaseReference(closed.operationId), { amount: 10_000, currency: 'XOF' });
  t.equal((await payOut(t, key, 'closed-payout')).rail, 'hub2', 'and so does the payout');
  await svc.system.drain();
  const decisions = (await svc.request('GET', '/api/v1/intelligence/decisions?limit=10', { key })).body.data as { kind: string; subject: string; outcome: Record<string, unknown>; reason: string }[];
  const routed = decisions.find((d) => d.subject === closed.intent.id);
  t.match(
    routed,
    { kind: 'payment_routing', outcome: { operator: 'orange_money', route: 'backup' }, reason: /usual route was passed over \(its provider declared it closed\), so a backup route carried it/ },
    'Insights says why, without a rail’s name',
  );
  t.notMatch(routed?.reason ?? '', /pawapay|hub2/i);
  const event = (await svc.system.store.readStream(`payment_intent-${closed.intent.id as string}`)).find((e) => e.type === 'payment_intent.confirmation_started');
  t.match(event?.data, { connector: 'hub2', passedOver: [{ rail: 'pawapay', why: 'declared_unavailable' }] }, 'the choice and its reasons are on the event');

  pawapay.availability.clear();
  svc.clock.advance(2 * MINUTE);
  await connector.availability('collect', ORANGE_SN);
  t.equal((await pay(t, key)).rail, 'pawapay', 'open again: back to pawaPay');
  conforms(t);
});

t.test('failing on its own past the threshold: set aside for the leak interval, then one probe brings it back', async (t) => {
  const { merchant, key } = await goLive(svc, 'Measured');
  await fund(svc, merchant.id, 100_000, 'live');
  // Let earlier tests' answers leave the window.
  svc.clock.advance(15 * MINUTE);
  await measured();

  // Payers' faults first: they never count against the rail.
  for (let i = 0; i < 6; i++) {
    const paid = await pay(t, key);
    t.equal(paid.rail, 'pawapay');
    pawapay.settle('deposits', pawapayId(paid.operationId), 'FAILED', 'INSUFFICIENT_BALANCE');
    t.equal(await pawapay.sendCallback('deposits', pawapayId(paid.operationId)), 200);
    await svc.system.scheduler.runUntilIdle();
    await measured();
  }
  t.equal((await pay(t, key)).rail, 'pawapay', 'six payers without money: the route does not move');

  // The operator unreachable, five times: pawaPay's own failures (each payment is tried on Hub2 then).
  for (let i = 0; i < 5; i++) {
    pawapay.next({ type: 'reject', code: 'PROVIDER_TEMPORARILY_UNAVAILABLE' });
    const hub2Before = hub2Payments();
    const refused = await pay(t, key);
    t.equal(refused.rail, 'pawapay', 'pawaPay was asked first');
    t.equal(hub2Payments(), hub2Before + 1, 'and Hub2 carried the payment after its refusal');
    t.match(refused.body, { status: 'processing' });
    await measured();
  }
  const aside = await pay(t, key);
  t.equal(aside.rail, 'hub2', 'set aside: the next payment goes through Hub2');
  const asideEvent = (await svc.system.store.readStream(`payment_intent-${aside.intent.id as string}`)).find((e) => e.type === 'payment_intent.confirmation_started');
  t.match(asideEvent?.data, { connector: 'hub2', passedOver: [{ rail: 'pawapay', why: 'set_aside' }] });
  t.equal((await payOut(t, key, 'aside-payout')).rail, 'pawapay', 'payouts are measured on their own: they stay with pawaPay');
  t.match(svc.system.railHealth.breaker('live', 'pawapay', 'collect', 'mobile_money', 'SN', 'orange_money'), { state: 'open' }, 'its breaker is open');

  svc.clock.advance(5 * MINUTE + 1_000);
  await measured();
  const probe = await pay(t, key);
  t.equal(probe.rail, 'pawapay', 'after the leak interval, one probe goes through pawaPay');
  t.equal((await pay(t, key)).rail, 'hub2', 'and nothing else while the probe has no answer');
  pawapay.settle('deposits', pawapayId(probe.operationId), 'COMPLETED');
  t.equal(await pawapay.sendCallback('deposits', pawapayId(probe.operationId)), 200);
  await svc.system.scheduler.runUntilIdle();
  await measured();
  t.match(await retrieve(svc, key, probe.intent.id), { status: 'succeeded' });
  t.equal((await pay(t, key)).rail, 'pawapay', 'the good probe brings pawaPay back');
  conforms(t);
});

t.test('an attempt whose answer was lost stays with its rail, set aside or not', async (t) => {
  const { merchant, key } = await goLive(svc, 'Lost answers stay');
  await fund(svc, merchant.id, 100_000, 'live');
  svc.clock.advance(15 * MINUTE);
  await measured();
  pawapay.next({ type: 'lose_answer' });
  const lost = await pay(t, key);
  t.equal(lost.rail, 'pawapay');
  t.match(lost.body, { status: 'processing' });
  const lostPayout = await (async () => {
    pawapay.next({ type: 'lose_answer' });
    return payOut(t, key, 'lost-payout');
  })();
  t.equal(lostPayout.rail, 'pawapay');

  pawapay.availability.set('ORANGE_SEN/DEPOSIT', 'CLOSED');
  pawapay.availability.set('ORANGE_SEN/PAYOUT', 'CLOSED');
  svc.clock.advance(MINUTE);
  await svc.system.connectors.named('live', 'pawapay')!.availability('collect', ORANGE_SN);
  t.equal((await pay(t, key)).rail, 'hub2', 'new payments go through Hub2 meanwhile');

  pawapay.settle('deposits', pawapayId(lost.operationId), 'COMPLETED');
  pawapay.settle('payouts', pawapayId(lostPayout.payout.id), 'COMPLETED');
  const [hub2Before, depositsBefore] = [hub2Payments(), deposits()];
  await advance(svc, 2 * MINUTE);
  t.match(await retrieve(svc, key, lost.intent.id), { status: 'succeeded' }, 'its status check asked pawaPay, which holds it');
  t.match((await getPayout(svc, key, lostPayout.payout.id)).body, { status: 'paid' }, 'and the payout’s too');
  t.equal(hub2Payments(), hub2Before, 'nothing of it was sent to Hub2');
  t.equal(deposits(), depositsBefore, 'nor sent to pawaPay again');
  pawapay.availability.clear();
  svc.clock.advance(2 * MINUTE);
  const connector = svc.system.connectors.named('live', 'pawapay')!;
  t.equal(await connector.availability('collect', ORANGE_SN), 'available', 'open again, as pawaPay now says');
  t.equal(await connector.availability('payout', ORANGE_SN), 'available');
  conforms(t);
});

t.test('refused at once by pawaPay for a fault of its own: the payment goes through Hub2 under a new id, once', async (t) => {
  const { key } = await goLive(svc, 'Refused at once');
  svc.clock.advance(15 * MINUTE);
  await measured();
  pawapay.next({ type: 'reject', code: 'PROVIDER_TEMPORARILY_UNAVAILABLE' });
  const [before, hub2Before] = [deposits(), hub2Payments()];
  const intent = await createIntent(svc, key);
  const body = { payment_method: mobileMoney(snNumber('67')) };
  const res = await svc.request('POST', `/api/v1/payment-intents/${intent.id as string}/confirm`, { key, body, headers: { 'idempotency-key': 'refused-at-once' } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'processing' });
  t.equal([deposits() - before, hub2Payments() - hub2Before].join(), '1,1', 'one request to each rail');

  const events = await svc.system.store.readStream(`payment_intent-${intent.id as string}`);
  const started = events.filter((e) => e.type === 'payment_intent.confirmation_started').map((e) => e.data as { operationId: string; connector?: string; passedOver?: unknown });
  t.equal(started.length, 2, 'two attempts');
  t.match(started[0], { connector: 'pawapay' });
  t.match(started[1], { connector: 'hub2', passedOver: [{ rail: 'pawapay', why: 'rejected' }] }, 'the second says why pawaPay was passed over');
  t.not(started[1]!.operationId, started[0]!.operationId, 'under a new provider id');
  t.match(events.find((e) => e.type === 'payment_intent.confirmation_aborted')?.data, { operationId: started[0]!.operationId, failureCode: 'operator_unavailable' });
  t.equal(res.body.latest_operation, started[1]!.operationId);
  t.match(hub2.intentByPurchaseReference(started[1]!.operationId), { amount: 10_000, currency: 'XOF', customerReference: intent.id });

  const again = await svc.request('POST', `/api/v1/payment-intents/${intent.id as string}/confirm`, { key, body, headers: { 'idempotency-key': 'refused-at-once' } });
  t.same([again.status, again.body.latest_operation], [200, started[1]!.operationId], 'the same request again answers the same attempt');
  t.equal([deposits() - before, hub2Payments() - hub2Before].join(), '1,1', 'and sends nothing');

  const payment = hub2.intentByPurchaseReference(started[1]!.operationId)!.payments[0]!;
  hub2.settle('payment', payment.id, 'successful');
  t.equal(await hub2.sendWebhook('payment.succeeded', payment.id), 200);
  // pawaPay's refused attempt is checked too: it finds an attempt that is no longer the payment's, and does nothing.
  await advance(svc, 2 * MINUTE);
  const paid = await retrieve(svc, key, intent.id as string);
  t.match(paid, { status: 'succeeded' });
  t.same(await balance(svc, key), { available: 0, pending: 10_000 - (paid.fee as number), reserved: 0 }, 'the payment once on the balance');
  await measured();
  t.equal(svc.system.railHealth.breaker('live', 'pawapay', 'collect', 'mobile_money', 'SN', 'orange_money').state, 'closed', 'one refusal does not set pawaPay aside');
  conforms(t);
});

t.test('a refusal for the payer’s or the request’s fault fails the payment where it is', async (t) => {
  const { key } = await goLive(svc, 'Payer refused');
  pawapay.next({ type: 'reject', code: 'PAYER_NOT_FOUND' });
  const hub2Before = hub2Payments();
  const refused = await pay(t, key);
  t.equal(refused.rail, 'pawapay');
  t.match(refused.body, { status: 'failed', last_payment_error: { code: 'payer_not_found' } });
  t.equal(hub2Payments(), hub2Before, 'nothing was sent to Hub2');
  conforms(t);
});

t.test('with no other rail left, a rail’s refusal fails the payment', async (t) => {
  const { key } = await goLive(svc, 'Nowhere else');
  hub2.operatorDown('orange', 'SN');
  pawapay.next({ type: 'reject', code: 'PROVIDER_TEMPORARILY_UNAVAILABLE' });
  const [before, hub2Before] = [deposits(), hub2Payments()];
  const res = await pay(t, key);
  hub2.operatorUp('orange', 'SN');
  t.equal(deposits() - before, 1, 'pawaPay refused it');
  t.equal(hub2Payments() - hub2Before, 1, 'and Hub2 too');
  t.match(res.body, { status: 'failed', last_payment_error: { code: 'operator_unavailable' } }, 'the last rail’s failure is the payment’s');
  const started = (await svc.system.store.readStream(`payment_intent-${res.intent.id as string}`)).filter((e) => e.type === 'payment_intent.confirmation_started');
  t.equal(started.length, 2, 'each rail asked once');
  conforms(t);
});

t.test('a rail that provably never took the payment (Hub2 first, its intent not created): pawaPay carries it', async (t) => {
  const second = await startHub2Live(t, { pawapay: true, service: { env: { RAIL_PRECEDENCE: 'hub2,pawapay' } } });
  const { key } = await goLive(second.svc, 'Hub2 first');
  second.standin.nextIntent({ type: 'server_error', taken: false });
  const depositsBefore = second.pawapay!.requests.filter((r) => r.method === 'POST' && r.path === '/v2/deposits').length;
  const intent = await createIntent(second.svc, key);
  const res = await confirm(second.svc, key, intent.id as string, { payment_method: mobileMoney(snNumber('67')) });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'processing' });
  t.equal(second.pawapay!.requests.filter((r) => r.method === 'POST' && r.path === '/v2/deposits').length - depositsBefore, 1, 'pawaPay took it');
  const events = await second.svc.system.store.readStream(`payment_intent-${intent.id as string}`);
  t.match(
    events.filter((e) => e.type === 'payment_intent.confirmation_started').map((e) => e.data),
    [{ connector: 'hub2' }, { connector: 'pawapay', passedOver: [{ rail: 'hub2', why: 'rejected' }] }],
  );
  t.notOk((events.find((e) => e.type === 'payment_intent.confirmation_aborted')?.data as { failureCode?: string } | undefined)?.failureCode, 'Hub2 could not be asked: no failure code of its own');
  t.same(second.standin.deviations.splice(0), []);
  t.same(second.pawapay!.takeDeviations(), []);
});
