import type { BatchRunRef } from '../payout-batch/commands.js';
import { defineProcess } from '#packages/processes/process.js';

/** The runner of a batch's execution: sends its items a run at a time, or stops them once canceled; resumes after a crash. */
export const payoutBatchRun = defineProcess<BatchRunRef>({
  job: { name: 'payout_batch.run', key: (p) => `payout-batch-run:${p.batchId}:${p.attempt}:${p.step}`, lane: (p) => `payout_batch:${p.batchId}` },
  handler:
    ({ payoutBatchExecution }) =>
    (p) =>
      payoutBatchExecution.runExecution(p),
});
