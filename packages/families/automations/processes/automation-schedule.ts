import type { TickJob } from '../runner.js';
import { defineProcess } from '#packages/processes/process.js';

/** One tick of an automation's cron schedule: a run, then the next tick. */
export const automationSchedule = defineProcess<TickJob>({
  job: { name: 'automation.tick', key: (p) => `automation-tick:${p.automationId}:${p.at}`, lane: (p) => `automation:${p.automationId}` },
  handler:
    ({ automationTriggers }) =>
    (p) =>
      automationTriggers.tick(p),
});
