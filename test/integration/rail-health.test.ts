/**
 * The rails' measured health (docs/operator.md, "Rails"): sandbox payments and payouts with the
 * sandbox operator's test numbers, counted per rail, direction, country and operator over the last
 * hour and the last day of the manual clock, beside the connector's own availability.
 */
import t from '#tap';
import { breakerAt, classify, type RailAttempt } from '#packages/connectors/health.js';
import { createKnex } from '#packages/core/database.js';
import { RailHealthBoard, railHealth } from '../../services/rail-health.js';
import { confirm, createIntent, mobileMoney as payWith, operatorAnswers, snNumber } from '../support/payments.js';
import { fund, mobileMoney, payout } from '../support/payouts.js';
import { startPaymentsService } from '../support/system.js';

const svc = await startPaymentsService(t);
const { merchant, key } = await svc.sandboxMerchant();
await fund(svc, merchant.id, 1_000_000);

/** A sandbox payment paid with the number ending `lastTwo`. */
async function pay(lastTwo: string): Promise<void> {
  const intent = await createIntent(svc, key, { amount: 1_000 });
  const res = await confirm(svc, key, intent.id, { payment_method: payWith(snNumber(lastTwo)) });
  t.equal(res.status, 200, res.text);
}

t.test("each rail, direction and subject counted over the last hour and day; rail faults apart from the payers' failures", async (t) => {
  for (const lastTwo of ['67', '67', '67', '01', '04', '03']) await pay(lastTwo);
  for (const lastTwo of ['67', '01']) await payout(svc, key, { amount: 1_000, currency: 'XOF', destination: mobileMoney(lastTwo) });
  await operatorAnswers(svc);

  const now = await railHealth(svc.system, 'sandbox');
  const collect = now.find((l) => l.direction === 'collect' && l.operator === 'orange_money');
  t.match(collect, { rail: 'sandbox', kind: 'mobile_money', country: 'SN', currency: 'xof', availability: 'available' });
  t.same(collect?.lastHour, { attempts: 6, succeeded: 3, failed: 2, railFaults: 1, pending: 1, successRate: 3 / 5 }, "two failed: the payer's (01) and the operator's outage (04), which counts against the rail; 03 never answers");
  t.same(collect?.lastDay, collect?.lastHour);
  const paid = now.find((l) => l.direction === 'payout');
  t.match(paid, { rail: 'sandbox', kind: 'mobile_money', country: 'SN', operator: 'orange_money', lastHour: { attempts: 2, succeeded: 1, failed: 1, railFaults: 0, pending: 0, successRate: 0.5 } });
  t.equal(now.length, 2, 'one line per direction and subject');

  svc.clock.advance(2 * 3_600_000);
  const later = await railHealth(svc.system, 'sandbox');
  t.match(
    later.find((l) => l.direction === 'collect'),
    { lastHour: { attempts: 0, successRate: null }, lastDay: { attempts: 6 } },
    'out of the last hour, still in the day',
  );

  t.same(await railHealth(svc.system, 'live'), [], 'live carried nothing');
  svc.clock.advance(23 * 3_600_000);
  t.same(await railHealth(svc.system, 'sandbox'), [], 'a day later nothing is listed');
});

t.test("the board reads the read models: five outages set the rail aside, the operator's view shows its breaker", async (t) => {
  const board = new RailHealthBoard(svc.system);
  const orange = { rail: 'mobile_money', country: 'SN', operator: 'orange_money' } as const;
  for (const lastTwo of ['01', '01', '04', '04', '04', '04']) await pay(lastTwo);
  await operatorAnswers(svc);
  await board.refresh();
  t.notOk(board.setAside('sandbox', 'sandbox', 'collect', orange), "four outages and two payers' failures: below the threshold");
  await pay('04');
  await operatorAnswers(svc);
  t.notOk(board.setAside('sandbox', 'sandbox', 'collect', orange), 'the router reads the last snapshot until the next refresh');
  await board.refresh();
  t.ok(board.setAside('sandbox', 'sandbox', 'collect', orange), 'the fifth outage sets the rail aside');
  t.notOk(board.setAside('sandbox', 'sandbox', 'payout', orange), 'payouts have their own breaker');
  t.notOk(board.setAside('live', 'sandbox', 'collect', orange), 'and live its own');

  const line = (await railHealth({ ...svc.system, board }, 'sandbox')).find((l) => l.direction === 'collect');
  t.match(line, { rail: 'sandbox', operator: 'orange_money', breaker: { state: 'open', until: /^\d{4}-/ } });
  t.equal((await railHealth(svc.system, 'sandbox'))[0]?.breaker, null, 'no board, no breaker');

  svc.clock.advance(board.options.leakIntervalMs);
  t.match(board.breaker('sandbox', 'sandbox', 'collect', 'mobile_money', 'SN', 'orange_money'), { state: 'half_open', probeInFlight: false }, 'after the leak interval, without a read');
  board.sent('sandbox', 'sandbox', 'collect', orange);
  t.ok(board.setAside('sandbox', 'sandbox', 'collect', orange), 'the probe sent is out: nothing else goes');
  await board.refresh();
  t.ok(board.setAside('sandbox', 'sandbox', 'collect', orange), 'still out after a read that does not show it yet');
});

t.test('a reading fetches one by one only the attempts of subjects with enough rail faults to open a breaker', async (t) => {
  // A connection pool of the board's own: the rows counted are its reading's, not those of the
  // service's own reading every 2 seconds.
  const knex = createKnex(svc.databaseUrl, 1);
  t.teardown(() => knex.destroy());
  const board = new RailHealthBoard({ knex, clock: svc.clock });
  const horizon = 3 * (board.options.windowMs + board.options.leakIntervalMs);
  svc.clock.advance(horizon); // the attempts of the tests above out of it
  const now = svc.clock.now().getTime();
  const attempts: Record<string, RailAttempt[]> = { healthy: [], failing: [], lateFault: [] };
  const rows: Record<string, unknown>[] = [];
  const add = (operator: string, startedAgo: number, finishedAgo: number | null, outcome: 'succeeded' | 'failed' | 'pending', failureCode: string | null = null) => {
    const startedAt = now - startedAgo;
    const finishedAt = finishedAgo === null ? null : now - finishedAgo;
    rows.push({
      id: `att_${operator}_${rows.length}`,
      rail: 'pawapay',
      environment: 'live',
      kind: 'mobile_money',
      country: 'CI',
      operator,
      currency: 'xof',
      started_at: new Date(startedAt),
      finished_at: finishedAt === null ? null : new Date(finishedAt),
      outcome,
      failure_code: failureCode,
    });
    attempts[operator]!.push({ startedAt, finishedAt, outcome: classify(outcome, failureCode) });
  };
  // Busy and healthy: four rail faults (one short of the threshold) among 300 attempts.
  for (let i = 0; i < 300; i++) add('healthy', 60_000 + i * 1_000, 59_000 + i * 1_000, i % 75 === 0 ? 'failed' : 'succeeded', i % 75 === 0 ? 'operator_unavailable' : null);
  add('healthy', 30_000, null, 'pending');
  // Failing: five rail faults and two successes within a window.
  for (let i = 0; i < 7; i++) add('failing', 120_000 - i * 10_000, 115_000 - i * 10_000, i < 5 ? 'failed' : 'succeeded', i < 5 ? 'provider_error' : null);
  // Four rail faults in the horizon, and a fifth from an attempt started before it that failed within it.
  add('lateFault', horizon + 60_000, 50_000, 'failed', 'transfer_failed');
  for (let i = 0; i < 4; i++) add('lateFault', 40_000 - i * 5_000, 39_000 - i * 5_000, 'failed', 'transfer_failed');
  add('lateFault', horizon + 120_000, horizon + 60_000, 'failed', 'transfer_failed'); // ended before the horizon: forgotten
  await svc.system.knex('read.payment_rail_attempts').insert(rows);

  let fetched = 0;
  const count = (response: unknown) => (fetched += Array.isArray(response) ? response.length : 0);
  knex.on('query-response', count);
  await board.refresh();

  const inHorizon = (a: RailAttempt) => a.startedAt >= now - horizon || (a.finishedAt !== null && a.finishedAt >= now - horizon);
  for (const operator of Object.keys(attempts)) {
    const expected = breakerAt(attempts[operator]!.filter(inHorizon), now, board.options);
    t.same(board.breaker('live', 'pawapay', 'collect', 'mobile_money', 'CI', operator), expected, `${operator}: as every attempt of the horizon replayed gives`);
  }
  t.match(board.breaker('live', 'pawapay', 'collect', 'mobile_money', 'CI', 'failing'), { state: 'open' });
  t.match(board.breaker('live', 'pawapay', 'collect', 'mobile_money', 'CI', 'lateFault'), { state: 'open' }, 'an attempt that failed within the horizon counts, whenever it started');
  t.same(board.breaker('live', 'pawapay', 'collect', 'mobile_money', 'CI', 'healthy'), { state: 'closed' });
  // Three subjects counted, then the attempts of the two that can open: 7 and 5 rows, none of the 301.
  t.equal(fetched, 3 + 7 + 5, 'the healthy subject costs one row, not one per attempt');
});
