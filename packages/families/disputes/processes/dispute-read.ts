import type { DisputeNews } from '#packages/connectors/disputes.js';
import { defineProcess } from '#packages/processes/process.js';

/**
 * A rail's verified news of a dispute (packages/connectors/paystack/inbound.ts): the dispute is read from the rail and
 * applied (docs/disputes.md). Each piece of news is its own job (the key names when it came); a
 * read applies what the rail says now, so a repeat changes nothing.
 */
export const disputeRead = defineProcess<DisputeNews>({
  job: { name: 'dispute.read', key: (p, runAt) => `dispute-read:${p.connector}:${p.environment}:${p.disputeId}:${runAt.getTime()}`, lane: (p) => `dispute:${p.connector}:${p.disputeId}` },
  handler:
    ({ disputeNews }) =>
    (p) =>
      disputeNews.read(p),
});
