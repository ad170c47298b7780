/**
 * Routing payouts by the rails' float (docs/connectors.md, "Float"), pawaPay first and Hub2
 * second for Orange Money Senegal, both real connectors against their stand-ins on loopback: a
 * payout whose amount and fee pawaPay's Senegal wallet cannot cover goes through Hub2, and says
 * so on `payout.created`; one neither wallet covers is refused before any money is held; a wallet
 * topped up carries again once RAIL_FLOAT_REFRESH has passed and it is read again.
 */
import t, { type Test } from '#tap';
import { assertError, balance, fund, payoutFee, postPayout, snNumber } from '../support/payouts.js';
import { goLive, startHub2Live } from '../support/live.js';
import { operatorSession } from '../support/operators.js';

const live = await startHub2Live(t, { pawapay: true });
const { svc, standin: hub2 } = live;
const pawapay = live.pawapay!;
const REFRESH = 60_000;
const AMOUNT = 10_000;
const destination = { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: snNumber('67') } as const;
const cost = AMOUNT + payoutFee(AMOUNT, destination);

const pawapayPayouts = () => pawapay.requests.filter((r) => r.method === 'POST' && r.path === '/v2/payouts').length;
const hub2Transfers = () => hub2.requests.filter((r) => r.method === 'POST' && r.path === '/transfers').length;

/** Lets RAIL_FLOAT_REFRESH pass on the clock and waits for the service's own tick (every 2 s) to read both wallets again. */
async function reread(t: Test): Promise<void> {
  const at = new Date(svc.clock.advance(REFRESH).getTime()).toISOString();
  const read = () => (['pawapay', 'hub2'] as const).every((rail) => svc.system.railFloat.lines('live', rail).some((l) => l.read_at === at));
  for (let waited = 0; !read() && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  t.ok(read(), 'both wallets were read again once the interval passed');
}

async function payOut(key: string, idempotencyKey: string) {
  const [before, beforeHub2] = [pawapayPayouts(), hub2Transfers()];
  const res = await postPayout(svc, key, { amount: AMOUNT, currency: 'xof', destination }, { idempotencyKey });
  return { res, rail: pawapayPayouts() > before ? 'pawapay' : hub2Transfers() > beforeHub2 ? 'hub2' : 'none' };
}

async function created(payoutId: string): Promise<{ connector?: string; passedOver?: unknown } | undefined> {
  return (await svc.system.store.readStream(`payout-${payoutId}`)).find((e) => e.type === 'payout.created')?.data as { connector?: string; passedOver?: unknown } | undefined;
}

t.test('a payout goes through the rail whose wallet covers its amount and fee, refused when none does, back when topped up', async (t) => {
  const { merchant, key } = await goLive(svc, 'Float');
  await fund(svc, merchant.id, 100_000, 'live');

  const first = await payOut(key, 'float-1');
  t.equal(first.res.status, 200, first.res.text);
  t.equal(first.rail, 'pawapay', 'pawaPay first while its wallet covers it');
  t.notOk((await created(first.res.body.id as string))?.passedOver, 'nothing passed over');

  pawapay.wallets.set('SEN', String(cost - 1));
  await reread(t);
  const short = await payOut(key, 'float-2');
  t.equal(short.res.status, 200, short.res.text);
  t.equal(short.rail, 'hub2', 'pawaPay’s wallet one short of the amount and fee: Hub2 carries it');
  t.match(await created(short.res.body.id as string), { connector: 'hub2', passedOver: [{ rail: 'pawapay', why: 'float_short' }] }, 'the choice and its reason are on payout.created');

  hub2.setBalance('XOF', { transfer: cost - 1 });
  await reread(t);
  const rails = await svc.request('GET', '/api/v1/operator/rails', { key: (await operatorSession(svc, 'reviewer')).token });
  t.equal(rails.status, 200, rails.text);
  const readAt = svc.clock.now().toISOString();
  t.match(
    (rails.body.float as { wallet: string }[]).filter((w) => ['SEN', 'XOF/transfer'].includes(w.wallet)),
    [
      { rail: 'pawapay', wallet: 'SEN', currency: 'xof', country: 'SN', operator: null, available: cost - 1, read_at: readAt },
      { rail: 'hub2', wallet: 'XOF/transfer', currency: 'xof', country: null, operator: null, available: cost - 1, read_at: readAt },
    ],
    "the operator's Rails page shows the wallets as the router weighs them",
  );
  const before = await balance(svc, key);
  const refused = await payOut(key, 'float-3');
  assertError(t, refused.res, 'IKW-PRV-001', 'destination');
  t.equal(
    refused.res.body.message,
    'Live payouts for operator orange_money (SN) are unavailable for now: every rail that carries them is down (pawapay has too little in its wallet, hub2 has too little in its wallet); try again in a few minutes',
  );
  t.equal(refused.rail, 'none', 'neither rail was asked');
  t.same(await balance(svc, key), before, 'nothing held: the balance is as it was');

  pawapay.wallets.set('SEN', '1000000');
  // Topped up, but not read again yet: still refused.
  assertError(t, (await payOut(key, 'float-4')).res, 'IKW-PRV-001', 'destination');
  await reread(t);
  const back = await payOut(key, 'float-5');
  t.equal(back.res.status, 200, back.res.text);
  t.equal(back.rail, 'pawapay', 'read again after the interval: pawaPay carries again');

  t.same(pawapay.takeDeviations(), [], 'every request followed pawaPay’s contract');
  t.same(hub2.deviations.splice(0), [], 'every request followed Hub2’s contract');
});
