import type { StepJob } from '../runner.js';
import { defineProcess } from '#packages/processes/process.js';

/** One attempt of one step of an automation run; a wait's wake-up is its own job. The steps of a run run in order. */
export const automationStep = defineProcess<StepJob>({
  job: { name: 'automation.step', key: (p) => `automation-step:${p.runId}:${p.stepIndex}:${p.attempt}${p.wake ? ':wake' : ''}`, lane: (p) => `automation_run:${p.runId}` },
  handler:
    ({ automationRuns }) =>
    (p) =>
      automationRuns.runStep(p),
});
