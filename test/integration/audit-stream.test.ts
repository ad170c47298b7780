import t from '#tap';
import { startProcess } from '../support/child-process.js';
import { startPaymentsService, type TestService } from '../support/system.js';
import { advance, fundedMerchant, mobileMoney, payout } from '../support/payouts.js';

/** Issue 20 §5: `sika audit stream` replays a merchant's or a stream's events as JSON lines. */

interface Line {
  position: string;
  stream_id: string;
  version: number;
  event_id: string;
  type: string;
  occurred_at: string;
  merchant_id: string | null;
  actor: string | null;
  request_id: string | null;
  causation_id: string | null;
  correlation_id: string | null;
  hash: string;
}

async function stream(svc: TestService, args: string[]): Promise<{ code: number | null; lines: Line[]; output: string }> {
  const run = startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['audit', 'stream', ...args]);
  const code = await run.exit;
  const output = run.output();
  return {
    code,
    output,
    lines:
      code === 0
        ? output
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Line)
        : [],
  };
}

t.test("a merchant's events as JSON lines with actor, request id, causation and hash; from a position or a time", async (t) => {
  const svc = await startPaymentsService(t);
  const a = await fundedMerchant(svc, 50_000);
  const b = await fundedMerchant(svc, 50_000);
  svc.clock.advance(3_600_000);
  const since = svc.clock.now();
  const po = await payout(svc, a.key, { amount: 10_000, destination: mobileMoney('61') });
  await payout(svc, b.key, { amount: 10_000, destination: mobileMoney('62') });
  await advance(svc);

  const all = await stream(svc, ['--merchant', a.merchant.id]);
  t.equal(all.code, 0, all.output);
  t.ok(all.lines.length >= 5, `${all.lines.length} events`);
  t.ok(
    all.lines.every((l) => l.merchant_id === a.merchant.id),
    "only this merchant's events",
  );
  t.same(
    all.lines.map((l) => l.position),
    [...all.lines.map((l) => l.position)].sort(),
    'in log order',
  );
  const created = all.lines.find((l) => l.type === 'payout.created')!;
  t.match(created, { stream_id: `payout-${po.id}`, version: 0, request_id: /^req_/, actor: /\w/, correlation_id: po.id });
  const stored = await svc.system.knex('events').where({ event_id: created.event_id }).first<{ hash: string }>('hash');
  t.equal(created.hash, stored.hash, 'the chain hash the log holds');

  const after = await stream(svc, ['--merchant', a.merchant.id, '--from', all.lines[2]!.position]);
  t.same(
    after.lines.map((l) => l.event_id),
    all.lines.slice(3).map((l) => l.event_id),
    '--from: the events after that position',
  );
  const later = await stream(svc, ['--merchant', a.merchant.id, '--since', since.toISOString()]);
  t.same(
    later.lines.map((l) => l.event_id),
    all.lines.filter((l) => l.occurred_at >= since.toISOString()).map((l) => l.event_id),
  );
  t.ok(later.lines.length > 0 && later.lines.length < all.lines.length, '--since: only what occurred from then');

  const one = await stream(svc, [`payout-${po.id}`]);
  t.same(
    one.lines.map((l) => l.version),
    one.lines.map((_, i) => i),
    "a stream's events, in version order",
  );
  t.ok(one.lines.length >= 2);
  t.same((await stream(svc, ['--merchant', 'acct_nobody'])).lines, [], 'no events, no lines');
  t.equal((await stream(svc, [])).code, 2, 'a stream or a merchant is required');
});
