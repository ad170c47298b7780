/**
 * The rails' float (services/rail-float.ts, docs/connectors.md "Float"): each rail's wallets read
 * on their own interval of a manual clock, less the payouts sent since, and the router passing
 * over a payout's rail whose wallet is known not to cover it; never one it knows nothing of.
 */
import { Writable } from 'node:stream';
import t from '#tap';
import { ManualClock } from '#packages/core/clock.js';
import { createLogger } from '#packages/core/logger.js';
import { sinksOf } from '#packages/connectors/callbacks.js';
import type { Connector, PayoutFloat, PayoutRequest, RailSubject } from '#packages/connectors/port.js';
import { ConnectorRouter } from '#packages/connectors/router.js';
import { SandboxConnector } from '#packages/connectors/sandbox/index.js';
import { RailFloatBoard } from '../../services/rail-float.js';

const MIN = 60_000;
const orange: RailSubject = { rail: 'mobile_money', country: 'SN', operator: 'orange_money', currency: 'xof' };
const wave: RailSubject = { ...orange, operator: 'wave' };
const mtnCi: RailSubject = { rail: 'mobile_money', country: 'CI', operator: 'mtn', currency: 'xof' };
const xof = (amount: number) => ({ amount, currency: 'xof' });

/** A rail whose wallets a test sets (`wallets`), or whose reading fails (`failing`); `reads` counts the readings asked. */
function rail(name: string, clock: ManualClock, wallets: PayoutFloat[]) {
  const base = new SandboxConnector(clock, 1_000, 'https://sika.test', sinksOf(name, { collect: async () => {}, payout: async () => {} }));
  const state = { wallets, failing: false, reads: 0, sent: [] as string[] };
  const connector: Connector = Object.assign(Object.create(base) as Connector, {
    name,
    holdsFunds: true,
    serves: (_direction: string, subject: RailSubject) => subject.rail === 'mobile_money',
    payoutFloat: async () => {
      state.reads++;
      if (state.failing) throw new Error(`${name} is down`);
      return state.wallets.map((w) => ({ ...w }));
    },
    payout: async (request: PayoutRequest) => (state.sent.push(request.payoutId), { status: 'accepted' as const }),
  });
  return { connector, state };
}

function board(rails: Connector[], clock: ManualClock) {
  const warnings: string[] = [];
  const log = createLogger(
    'warn',
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        warnings.push(JSON.parse(chunk.toString()).msg as string);
        done();
      },
    }),
  );
  return {
    warnings,
    board: new RailFloatBoard(
      rails.map((connector) => ({ environment: 'live' as const, connector })),
      { clock, log },
      MIN,
    ),
  };
}

t.test('covers: the wallet that pays the subject (the operator’s own, else the country’s, else the currency’s) against the money', async (t) => {
  const clock = new ManualClock(new Date('2026-03-01T08:00:00Z'));
  const pawapay = rail('pawapay', clock, [
    { wallet: 'SEN', currency: 'xof', amount: 10_000, country: 'SN' },
    { wallet: 'SEN/WAVE_SEN', currency: 'xof', amount: 500, country: 'SN', operator: 'wave' },
  ]);
  const hub2 = rail('hub2', clock, [{ wallet: 'XOF/transfer', currency: 'xof', amount: 2_000 }]);
  const { board: float } = board([pawapay.connector, hub2.connector], clock);

  t.equal(float.covers('live', 'pawapay', orange, xof(1_000)), undefined, 'nothing read yet: it cannot say');
  await float.refresh();
  t.equal(float.covers('live', 'pawapay', orange, xof(10_000)), true, 'the country’s wallet covers exactly its balance');
  t.equal(float.covers('live', 'pawapay', orange, xof(10_001)), false);
  t.equal(float.covers('live', 'pawapay', wave, xof(600)), false, 'a provider’s own wallet pays its payouts');
  t.equal(float.covers('live', 'pawapay', mtnCi, xof(1)), undefined, 'no wallet of that country: it cannot say');
  t.equal(float.covers('live', 'pawapay', orange, { amount: 1, currency: 'ghs' }), undefined, 'nor of that currency');
  t.equal(float.covers('live', 'hub2', mtnCi, xof(2_000)), true, 'a currency’s wallet pays every country of it');
  t.equal(float.covers('live', 'hub2', mtnCi, xof(2_001)), false);
  t.equal(float.covers('sandbox', 'hub2', mtnCi, xof(1)), undefined, 'another environment has its own rails');
});

t.test('payouts sent through a rail come off its wallet until a reading asked after them shows them', async (t) => {
  const clock = new ManualClock(new Date('2026-03-01T08:00:00Z'));
  const hub2 = rail('hub2', clock, [{ wallet: 'XOF/transfer', currency: 'xof', amount: 2_000 }]);
  const { board: float } = board([hub2.connector], clock);
  await float.refresh();
  float.sent('live', 'hub2', orange, xof(1_500));
  t.equal(float.covers('live', 'hub2', mtnCi, xof(500)), true);
  t.equal(float.covers('live', 'hub2', mtnCi, xof(501)), false, 'the payout sent since the reading is off it');
  float.sent('live', 'hub2', orange, { amount: 1_000, currency: 'xaf' });
  t.equal(float.covers('live', 'hub2', mtnCi, xof(500)), true, 'a payout in another currency is another wallet’s');
  t.match(float.lines('live', 'hub2'), [{ wallet: 'XOF/transfer', available: 500, read_at: '2026-03-01T08:00:00.000Z' }]);

  clock.advance(MIN);
  hub2.state.wallets = [{ wallet: 'XOF/transfer', currency: 'xof', amount: 500 }];
  await float.refreshIfDue();
  t.equal(float.covers('live', 'hub2', mtnCi, xof(500)), true, 'the new reading shows the payout: it is not taken off twice');
  t.equal(float.covers('live', 'hub2', mtnCi, xof(501)), false);
});

t.test('a rail is read once per interval of the clock; a failed reading keeps the last and is tried again an interval later', async (t) => {
  const clock = new ManualClock(new Date('2026-03-01T08:00:00Z'));
  const hub2 = rail('hub2', clock, [{ wallet: 'XOF/transfer', currency: 'xof', amount: 2_000 }]);
  const { board: float, warnings } = board([hub2.connector], clock);
  await float.refreshIfDue();
  t.equal(hub2.state.reads, 1, 'due at once: never read');
  clock.advance(MIN - 1);
  await float.refreshIfDue();
  t.equal(hub2.state.reads, 1, 'not asked again before the interval');
  clock.advance(1);
  hub2.state.failing = true;
  await float.refreshIfDue();
  t.equal(hub2.state.reads, 2, 'asked at the interval');
  t.equal(float.covers('live', 'hub2', mtnCi, xof(2_000)), true, 'the failed reading kept the last one');
  t.same(warnings, ['a rail’s wallets could not be read; the last reading is used until the next one'], 'and said so at warn');
  clock.advance(MIN - 1);
  await float.refreshIfDue();
  t.equal(hub2.state.reads, 2, 'a failed reading waits the interval too: the provider is not hammered');
  clock.advance(1);
  hub2.state.failing = false;
  hub2.state.wallets = [{ wallet: 'XOF/transfer', currency: 'xof', amount: 100 }];
  await float.refreshIfDue();
  t.equal(float.covers('live', 'hub2', mtnCi, xof(2_000)), false, 'read again an interval after the failure');

  const never = rail('never', clock, []);
  never.state.failing = true;
  const fresh = board([never.connector], clock).board;
  await fresh.refresh();
  t.equal(fresh.covers('live', 'never', mtnCi, xof(1)), undefined, 'a rail never read is not known to be short');
});

t.test('the router passes over a payout’s rail whose wallet is short, never one it knows nothing of, never a collection’s', async (t) => {
  const clock = new ManualClock(new Date('2026-03-01T08:00:00Z'));
  const pawapay = rail('pawapay', clock, [{ wallet: 'SEN', currency: 'xof', amount: 1_000, country: 'SN' }]);
  const hub2 = rail('hub2', clock, [{ wallet: 'XOF/transfer', currency: 'xof', amount: 5_000 }]);
  const { board: float } = board([pawapay.connector, hub2.connector], clock);
  const router = new ConnectorRouter(
    [
      { environment: 'live', connector: pawapay.connector },
      { environment: 'live', connector: hub2.connector },
    ],
    undefined,
    float,
  );
  const live = router.rails('live');
  const destination = { type: 'mobile_money' as const, currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '221770000001' };
  t.same(live.choose('payout', destination, { money: xof(2_000) }), { clearingRail: 'pawapay', passedOver: [] }, 'nothing read yet: precedence decides');

  await float.refresh();
  t.same(live.choose('payout', destination, { money: xof(1_000) }), { clearingRail: 'pawapay', passedOver: [] }, 'covered');
  t.same(live.choose('payout', destination, { money: xof(1_001) }), { clearingRail: 'hub2', passedOver: [{ rail: 'pawapay', why: 'float_short' }] }, 'short: the next rail carries it, and the choice says why');
  t.same(live.choose('payout', destination), { clearingRail: 'pawapay', passedOver: [] }, 'no money given: not weighed');
  t.same(router.decide('live', 'collect', orange, { money: xof(1_001) }), { connector: pawapay.connector, skipped: [] }, 'a collection brings money in: its rail’s float is not weighed');

  await live.payout({ payoutId: 'po_1', merchantId: 'acct_1', environment: 'live', amount: 4_500, currency: 'xof', destination, connector: 'hub2' });
  t.same(hub2.state.sent, ['po_1']);
  const refused = router.decide('live', 'payout', orange, { money: xof(1_001) });
  t.match(
    refused,
    {
      connector: null,
      code: 'IKW-PRV-001',
      skipped: [
        { rail: 'pawapay', why: 'float_short' },
        { rail: 'hub2', why: 'float_short' },
      ],
    },
    'the payout sent through Hub2 left it short too',
  );
  t.match(live.choose('payout', destination, { money: xof(1_001) }), { clearingRail: null, refusal: /every rail that carries them is down/ }, 'the choice carries the refusal its payout answers');
  t.notOk('refusal' in live.choose('payout', { type: 'bank', currency: 'xof', bank_code: '058', account_number: '0123456789', account_name: 'A' }, { money: xof(1) }), 'none serves it: assertCanPayOut refuses that, not the choice');
  t.equal(
    refused.connector === null ? refused.reason : null,
    'Live payouts for operator orange_money (SN) are unavailable for now: every rail that carries them is down (pawapay has too little in its wallet, hub2 has too little in its wallet); try again in a few minutes',
  );
});
