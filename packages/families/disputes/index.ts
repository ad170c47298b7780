import { isOwned } from '../../core/aggregate.js';
import { assets } from '../assets/index.js';
import { defineFamily } from '../family.js';
import { ledger } from '../ledger/index.js';
import { payments } from '../payments/index.js';
import { AcceptDispute, ReadDisputeFromRail, SubmitDisputeEvidence } from './commands.js';
import { disputeErrors } from './errors.js';
import { disputeHoldKind } from './postings.js';
import { disputeRead } from './processes/dispute-read.js';
import { disputePublicEvents } from './public-events.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    disputeNews: ReadDisputeFromRail;
  }
}

/** Disputes of live card payments carried by Paystack (docs/disputes.md). */
export const disputes = defineFamily({
  name: 'disputes',
  needs: [ledger, payments, assets],
  ledger: { holds: [disputeHoldKind] },
  errors: disputeErrors,
  publicEvents: [disputePublicEvents],
  processes: [disputeRead],
  build: ({ store, clock, log, disputeRailOf }, { assets }) => {
    const deps = { store, clock, log: log.child({ family: 'disputes' }), railOf: disputeRailOf };
    return {
      disputeNews: new ReadDisputeFromRail(deps),
      disputeEvidence: new SubmitDisputeEvidence(deps, async (owner, id) => {
        const { state } = await assets.load(id);
        return !state.deleted && state.status === 'ready' && isOwned(state.asset, owner);
      }),
      disputeAcceptance: new AcceptDispute(deps),
    };
  },
});

export { disputeRead } from './processes/dispute-read.js';
export type { DisputeObject, DisputeStatus } from './events.js';
export { DISPUTE_STATUSES } from './events.js';
