/**
 * The router's precedence with both live rails configured (docs/connectors.md, "The router"):
 * pawaPay first by default for the mobile money its active configuration carries, Paystack for the
 * Ghana and Kenya operators pawaPay does not carry, cards and banks; RAIL_PRECEDENCE=paystack,pawapay
 * puts Paystack first where both serve. Each payout goes to one rail's stand-in only.
 */
import t, { type Test } from 'tap';
import { paystackReference } from '../../packages/connectors/paystack/index.js';
import { fund, postPayout } from '../support/payouts.js';
import { goLive, startBothLive } from '../support/live.js';
import type { TestService } from '../support/system.js';

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
});

t.test('RAIL_PRECEDENCE=paystack,pawapay: Paystack carries the mobile money both serve', async (t) => {
  const rails = await startBothLive(t, { precedence: 'paystack,pawapay' });
  t.same(await carriers(t, rails, [gh('mtn', '4'), ke('5')]), ['paystack', 'paystack']);
});
