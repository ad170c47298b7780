import { isOwned } from '#packages/core/aggregate.js';
import { assets } from '#packages/families/assets/index.js';
import { defineFamily } from '#packages/families/family.js';
import { disputesReadSide } from './read/index.js';
import { ledger } from '#packages/families/ledger/index.js';
import { payments } from '#packages/families/payments/index.js';
import { formatAmount } from '#packages/catalog/index.js';
import type { Notifier } from '#packages/webhooks/notifier.js';
import { AcceptDispute, OpenSandboxDispute, ReadDisputeFromRail, SubmitDisputeEvidence, type DisputeNotices, type ReadAsset, type ReadyAsset } from './commands.js';
import type { DisputeObject } from './events.js';
import { disputeErrors } from './errors.js';
import { disputeHoldKind } from './postings.js';
import { disputeRead } from './processes/dispute-read.js';
import { sandboxDispute, sandboxDisputeConsumer } from './processes/sandbox-dispute.js';
import { disputePublicEvents } from './public-events.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    disputeNews: ReadDisputeFromRail;
    sandboxDisputes: OpenSandboxDispute;
  }
}

/** The merchant's e-mails of a dispute, through the house's notices (the merchant's template or the built-in one). */
function disputeNotices(notifier: Notifier): DisputeNotices {
  const money = (amount: number, currency: string) => formatAmount(amount, currency, 'en');
  const common = (d: DisputeObject) => ({ dispute_id: d.id, payment_intent: d.payment_intent, amount: money(d.amount, d.currency) });
  return {
    opened: (d, owner) =>
      notifier.dispute(owner.merchantId, owner.environment, 'dispute_opened', {
        ...common(d),
        reason: d.reason,
        evidence_due_by: d.evidence_due_by ? `${d.evidence_due_by.slice(0, 16).replace('T', ' ')} UTC` : '—',
        fee: d.fee > 0 ? money(d.fee, d.currency) : '',
      }),
    closed: (d, owner) => notifier.dispute(owner.merchantId, owner.environment, 'dispute_closed', { ...common(d), outcome: d.status }),
  };
}

/** Disputes of live card payments carried by Paystack (docs/disputes.md). */
export const disputes = defineFamily({
  name: 'disputes',
  readSide: disputesReadSide,
  needs: [ledger, payments, assets],
  ledger: { holds: [disputeHoldKind] },
  errors: disputeErrors,
  publicEvents: [disputePublicEvents],
  processes: [disputeRead, sandboxDispute],
  build: ({ store, ledger, clock, log, disputeRailOf, notifier }, { assets }) => {
    const deps = { store, ledger, clock, log: log.child({ family: 'disputes' }), railOf: disputeRailOf, notices: disputeNotices(notifier) };
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
      sandboxDisputes: new OpenSandboxDispute(deps),
      disputeEvidence: new SubmitDisputeEvidence(deps, readyAsset, readAsset),
      disputeAcceptance: new AcceptDispute(deps, readyAsset, readAsset),
    };
  },
  consumers: (_, { clock }) => [sandboxDisputeConsumer(clock)],
});

export { disputeRead } from './processes/dispute-read.js';
export type { DisputeObject, DisputeStatus } from './events.js';
export { DISPUTE_STATUSES } from './events.js';
