import { defineProcess } from './process.js';

/** The outbox's hourly retention pass (docs/operations.md, "The message outbox"): one job per hour boundary (its key), each setting the next. */
export const outboxPurge = defineProcess<{ at: string }>({
  job: { name: 'outbox.purge', key: (p) => `outbox-purge:${p.at}`, lane: () => 'outbox-purge' },
  handler:
    ({ outbox }) =>
    () =>
      outbox.purge(),
});
