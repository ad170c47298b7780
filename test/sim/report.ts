import type { SimResult } from './world.js';

/** A seed's outcome in a few lines; a failing one with its failures, timeline, the tail of the service's log and the line that replays it. */
export function report(result: SimResult, seconds: number, kills: number, clients?: number): string {
  const head = `seed ${result.seed}: ${result.ok ? 'ok' : 'FAILED'} in ${(result.wallMs / 1000).toFixed(0)} s (${result.stats.requests ?? 0} requests, ${result.stats.kills ?? 0} of ${kills} kills, settled in ${((result.stats.settle_ms ?? 0) / 1000).toFixed(1)} s)`;
  if (result.ok) return head;
  return [
    head,
    'failures:',
    ...result.failures.map((f) => `  - ${f}`),
    'timeline:',
    ...result.timeline.map((l) => `  ${l}`),
    "the service's log (warnings and errors, last 60 lines):",
    ...result.serviceLog
      .split('\n')
      .slice(-60)
      .map((l) => `  ${l}`),
    `replay: make sim SIM_SEED=${result.seed} SIM_SECONDS=${seconds} SIM_KILLS=${kills}${clients ? ` SIM_CLIENTS=${clients}` : ''}`,
  ].join('\n');
}
