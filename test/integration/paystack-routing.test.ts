/**
 * The router's precedence with both live rails configured (docs/connectors.md, "The router"):
 * pawaPay first by default for the mobile money its active configuration carries, Paystack for the
 * Ghana and Kenya operators pawaPay does not carry, cards and banks; RAIL_PRECEDENCE=paystack,pawapay
 * puts Paystack first where both serve. Each payout goes to one rail's stand-in only.
 */
import t, { type Test } from '#tap';
import { paystackReference } from '#packages/connectors/paystack/index.js';
import { fund, postPayout } from '../support/payouts.js';
import { goLive, PAYSTACK_LIVE_KEY, startBothLive } from '../support/live.js';
import { freePort, startService, type TestService } from '../support/system.js';

interface RailChoice {
  method: string;
  direction: string;
  operator: string | null;
  rail: string | null;
  refusal: { code: string; reason: string } | null;
}

/** The configuration page's answer: the router's live choice for each method of a country. */
async function liveRails(svc: TestService, country: string): Promise<RailChoice[]> {
  const { merchant } = await goLive(svc, `Reader ${country}`);
  const res = await svc.request('GET', '/api/v1/configuration/countries', { key: merchant.api_keys.live });
  return (res.body.data as { countryCode: string; liveRails: RailChoice[] }[]).find((c) => c.countryCode === country)!.liveRails;
}
const payoutRail = (choices: RailChoice[], operator: string) => choices.find((c) => c.method === 'mobile_money' && c.direction === 'payout' && c.operator === operator)?.rail;

const gh = (operator: string, last: string) => ({ type: 'mobile_money', country: 'GH', operator, msisdn: `+2332441${last.padStart(5, '2')}` });
const ke = (last: string) => ({ type: 'mobile_money', country: 'KE', operator: 'mpesa', msisdn: `+2547123${last.padStart(5, '4')}` });

/** Pays each destination out and says which rail's stand-in was asked for it. */
async function carriers(t: Test, rails: Awaited<ReturnType<typeof startBothLive>>, destinations: ReturnType<typeof gh>[]): Promise<string[]> {
  const svc: TestService = rails.svc;
  const { merchant, key } = await goLive(svc, 'Routed');
  for (const currency of ['ghs', 'kes']) await fund(svc, merchant.id, 1_000_000, 'live', currency);
  const out: string[] = [];
  for (const [i, destination] of destinations.entries()) {
    const pawapayBefore = rails.standin.requests.filter((r) => r.method === 'POST' && r.path === '/v2/payouts').length;
    const res = await postPayout(svc, key, { amount: 50_000, currency: destination.country === 'GH' ? 'ghs' : 'kes', destination }, { idempotencyKey: `routed-${i}` });
    t.equal(res.status, 200, res.text);
    const byPaystack = rails.paystack.transfer(paystackReference(res.body.id as string)) !== undefined;
    const byPawapay = rails.standin.requests.filter((r) => r.method === 'POST' && r.path === '/v2/payouts').length > pawapayBefore;
    out.push(byPaystack && !byPawapay ? 'paystack' : byPawapay && !byPaystack ? 'pawapay' : 'both or neither');
  }
  t.same(rails.paystack.takeDeviations(), [], 'every request to Paystack followed its contract');
  t.same(rails.standin.takeDeviations(), [], 'every request to pawaPay followed its contract');
  return out;
}

t.test('by default pawaPay carries the mobile money it serves; Paystack the Ghana and Kenya operators it does not', async (t) => {
  const rails = await startBothLive(t);
  t.same(await carriers(t, rails, [gh('mtn', '1'), gh('telecel', '2'), ke('3')]), ['pawapay', 'paystack', 'pawapay'], 'MTN (GH) and M-Pesa by pawaPay; Telecel, which the pawaPay account does not carry, by Paystack');
  const ghana = await liveRails(rails.svc, 'GH');
  t.same([payoutRail(ghana, 'mtn'), payoutRail(ghana, 'telecel'), payoutRail(await liveRails(rails.svc, 'KE'), 'mpesa')], ['pawapay', 'paystack', 'pawapay'], 'the configuration answers the same choices the payouts took');
  t.match(
    ghana.find((c) => c.method === 'mobile_money' && c.direction === 'collect' && c.operator === 'telecel'),
    { rail: null, refusal: { code: 'IKW-PRV-001', reason: 'no configured rail (pawapay, paystack) carries it' } },
    'Telecel collections: refused, no rail carries them (Paystack takes no mobile money payment)',
  );
  t.match(
    ghana.filter((c) => c.method !== 'mobile_money'),
    [
      { method: 'card', rail: 'paystack', availability: 'available' },
      { method: 'bank', rail: 'paystack', availability: 'available' },
    ],
  );
});

t.test('RAIL_PRECEDENCE=paystack,pawapay: Paystack carries the mobile money both serve', async (t) => {
  const rails = await startBothLive(t, { precedence: 'paystack,pawapay' });
  t.same(await carriers(t, rails, [gh('mtn', '4'), ke('5')]), ['paystack', 'paystack']);
  t.equal(payoutRail(await liveRails(rails.svc, 'GH'), 'mtn'), 'paystack', 'and the configuration says so');
});

t.test('a rail that has not loaded what it serves refuses everything, and the configuration says why', async (t) => {
  const svc = await startService(t, { env: { PAYSTACK_SECRET_KEY: PAYSTACK_LIVE_KEY, PAYSTACK_API_URL: `http://127.0.0.1:${await freePort()}` } });
  const nigeria = await liveRails(svc, 'NG');
  t.match(
    nigeria.find((c) => c.method === 'bank'),
    { rail: null, refusal: { code: 'IKW-PRV-001', reason: 'paystack has not loaded what it serves yet' } },
    'Paystack unreachable at start: its bank lists not loaded',
  );
  t.match(
    nigeria.find((c) => c.method === 'card'),
    { rail: 'paystack' },
    'cards need no list',
  );
  const unconfigured = await startService(t);
  t.match((await liveRails(unconfigured, 'GH'))[0], { rail: null, refusal: { reason: 'no live rail is configured' } }, 'no live rail at all');
});
