import type { Scheduler } from '#packages/scheduler/scheduler.js';
import type { Process, ProcessServices } from './process.js';

export { outboxPurge } from './outbox-purge.js';
export type { Process, ProcessServices } from './process.js';

/** Registers these job kinds (the families' and the kernel's: packages/families/index.ts) with their handlers. */
export function registerProcesses(scheduler: Scheduler, processes: readonly Process<never>[], services: ProcessServices): void {
  for (const process of processes) {
    if (process.batch) scheduler.registerBatch(process.job, process.batch.handler(services), process.batch.claimLimit, process.batch.companions);
    else scheduler.register(process.job, process.handler(services));
  }
}
