/**
 * The goals of docs/performance.md as one table: each workload's figure of this run, its ratio to
 * this run's INSERT baseline where the goal is a ratio, the goal, and whether it is met.
 */
import type { Baseline } from './baseline.js';
import { fixed, round, table } from './common.js';
import type { WriteLevel } from './eventstore.js';
import type { IntentsResult } from './intents.js';
import type { PayoutsResult } from './payouts.js';
import type { RebuildResult } from './rebuild.js';
import type { WebhooksResult } from './webhooks.js';

export interface GoalInputs {
  baseline?: Baseline;
  eventstore?: WriteLevel[];
  payouts?: PayoutsResult;
  intents?: IntentsResult;
  webhooks?: WebhooksResult;
  rebuild?: RebuildResult;
}

export interface GoalRow {
  workload: string;
  /** The figure, as printed (rate, with its latency where the goal has one). */
  measured: string | null;
  ratio: number | null;
  goal: string;
  met: boolean | null;
}

const MB = 2 ** 20;

export function goalRows(r: GoalInputs): GoalRow[] {
  const base = r.baseline?.node.perSecond;
  const ratioOf = (rate: number | undefined) => (rate !== undefined && base ? rate / base : null);
  const payout = (i: number) => r.payouts?.scenarios[i];
  const rows: GoalRow[] = [];
  const separate = payout(0);
  const hot = payout(1);
  const separateRatio = ratioOf(separate?.perSecond);
  rows.push({
    workload: 'payouts, 64 merchants ÷ baseline',
    measured: separate ? `${fixed(separate.perSecond, 0)}/s, p99 ${fixed(separate.p99Ms, 0)} ms` : null,
    ratio: separateRatio,
    goal: '≥ 0.30, p99 ≤ 100 ms',
    met: separate && separateRatio !== null ? separateRatio >= 0.3 && separate.p99Ms <= 100 : null,
  });
  const standalone = payout(2);
  if (standalone) {
    const ratio = ratioOf(standalone.perSecond);
    rows.push({
      workload: `payouts, 64 merchants, ${standalone.name.split(', ').pop()} ÷ baseline`,
      measured: `${fixed(standalone.perSecond, 0)}/s, p99 ${fixed(standalone.p99Ms, 0)} ms`,
      ratio,
      goal: '≥ 0.30, p99 ≤ 100 ms',
      met: ratio !== null ? ratio >= 0.3 && standalone.p99Ms <= 100 : null,
    });
  }
  const hotRatio = ratioOf(hot?.perSecond);
  rows.push({
    workload: 'payouts, one hot merchant ÷ baseline',
    measured: hot ? `${fixed(hot.perSecond, 0)}/s, p99 ${fixed(hot.p99Ms, 0)} ms` : null,
    ratio: hotRatio,
    goal: '≥ 0.15, p99 ≤ 150 ms',
    met: hot && hotRatio !== null ? hotRatio >= 0.15 && hot.p99Ms <= 150 : null,
  });
  const intentsRatio = ratioOf(r.intents?.perSecond);
  rows.push({
    workload: 'payment intent create + confirm pairs ÷ baseline',
    measured: r.intents ? `${fixed(r.intents.perSecond, 0)} pairs/s` : null,
    ratio: intentsRatio,
    goal: '≥ 0.20',
    met: intentsRatio === null ? null : intentsRatio >= 0.2,
  });
  // The event store's own interleaved comparison at 64 writers: both measured in the same slices.
  const at64 = r.eventstore?.find((l) => l.writers === 64);
  rows.push({
    workload: 'event-store appends at 64 writers ÷ baseline',
    measured: at64 ? `${fixed(at64.appends.perSecond, 0)}/s` : null,
    ratio: at64 ? at64.ratio : null,
    goal: '≥ 2.0',
    met: at64 ? at64.ratio >= 2 : null,
  });
  rows.push({
    workload: 'signed webhook deliveries/s (keep-alive loopback receiver)',
    measured: r.webhooks ? `${fixed(r.webhooks.deliveriesPerSecond, 0)}/s` : null,
    ratio: null,
    goal: '≥ 2,000/s',
    met: r.webhooks ? r.webhooks.deliveriesPerSecond >= 2000 : null,
  });
  rows.push({
    workload: `projection rebuild, events/s${r.rebuild ? ` (${r.rebuild.events} events)` : ''}`,
    measured: r.rebuild ? `${fixed(r.rebuild.eventsPerSecond, 0)}/s` : null,
    ratio: null,
    goal: '≥ 50,000/s',
    met: r.rebuild ? r.rebuild.eventsPerSecond >= 50_000 : null,
  });
  rows.push({
    workload: 'server memory (RSS) at the end of the payout run',
    measured: r.payouts ? `${fixed(r.payouts.rssBytes / MB, 0)} MB` : null,
    ratio: null,
    goal: '≤ 400 MB',
    met: r.payouts ? r.payouts.rssBytes <= 400 * MB : null,
  });
  return rows;
}

export function goalsText(r: GoalInputs): string[] {
  const b = r.baseline;
  const pgbench = b ? ('tps' in b.pgbench ? `pgbench, same INSERT and clients: ${fixed(b.pgbench.tps, 0)}/s` : b.pgbench.missing) : '';
  return [
    b
      ? `Goals (docs/performance.md). Baseline: ${fixed(b.node.perSecond, 0)} single-row INSERTs/s from Node (node-postgres, prepared, autocommit, ${b.clients} connections, p99 ${fixed(b.node.p99Ms, 1)} ms); ${pgbench}`
      : 'Goals (docs/performance.md). Baseline: not measured',
    table(
      ['workload (64 clients)', 'this run', 'ratio', 'goal', 'met'],
      goalRows(r).map((g) => [g.workload, g.measured ?? 'not measured', g.ratio === null ? '' : fixed(g.ratio, 2), g.goal, g.met === null ? '' : g.met ? 'yes' : 'NO']),
    ),
  ];
}

export function goalsJson(r: GoalInputs) {
  const b = r.baseline;
  return {
    baseline: b ? { clients: b.clients, inserts_per_s: round(b.node.perSecond, 1), p99_ms: round(b.node.p99Ms, 3), pgbench_tps: 'tps' in b.pgbench ? round(b.pgbench.tps, 1) : null } : null,
    rows: goalRows(r).map((g) => ({ workload: g.workload, measured: g.measured, ratio: g.ratio === null ? null : round(g.ratio, 3), goal: g.goal, met: g.met })),
  };
}
