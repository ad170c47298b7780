import { isOwned } from '../../core/aggregate.js';
import { assets } from '../assets/index.js';
import { defineFamily } from '../family.js';
import { ledger } from '../ledger/index.js';
import { payments } from '../payments/index.js';
import { AcceptDispute, ReadDisputeFromRail, SubmitDisputeEvidence, type ReadAsset, type ReadyAsset } from './commands.js';
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
    const readyAsset: ReadyAsset = async (owner, id) => {
      const { state } = await assets.load(id);
      return !state.deleted && state.status === 'ready' && isOwned(state.asset, owner);
    };
    // Called once readyAsset said yes: the bytes as the assets' storage keeps them (docs/assets.md).
    const readAsset: ReadAsset = async (owner, id) => {
      const { body, asset } = await assets.openOf(owner.merchantId, id);
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return { name: asset.name, contentType: asset.contentType, bytes: Buffer.concat(chunks) };
    };
    return {
      disputeNews: new ReadDisputeFromRail(deps),
      disputeEvidence: new SubmitDisputeEvidence(deps, readyAsset, readAsset),
      disputeAcceptance: new AcceptDispute(deps, readyAsset, readAsset),
    };
  },
});

export { disputeRead } from './processes/dispute-read.js';
export type { DisputeObject, DisputeStatus } from './events.js';
export { DISPUTE_STATUSES } from './events.js';
