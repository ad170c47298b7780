import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { Clock } from '#packages/core/clock.js';
import type { ContractRef } from '../commands.js';
import type { Account, LedgerEvent } from '#packages/families/ledger/index.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { enqueue } from '#packages/scheduler/scheduler.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

type FundingRef = ContractRef & { source: string; amountMinor: number; clearing: Account };

/** A payment posted into a contract's escrow: the contract records the funds once. */
export const escrowFunding = defineProcess<FundingRef>({
  job: { name: 'escrow.funding_received', key: (p) => `escrow-funding:${p.source}`, lane: lanes.escrowContract },
  handler: (services) => (p) => services.escrowFunding.recordFunding(p),
});

export const ESCROW_FUNDING_CONSUMER = 'escrow-funding';

/**
 * The bus consumer that notices funds arriving in escrow: each `escrow_funding` entry of a payment
 * (the funding of a contract by its payment intent) becomes a job, in the consumer's transaction,
 * so none is lost or doubled. Funding from the merchant balance is recorded by the contract itself.
 */
export function escrowFundingConsumer(clock: Clock): ConsumerSpec {
  return {
    name: ESCROW_FUNDING_CONSUMER,
    checkpointTable: 'bus_checkpoints',
    handles: ['ledger.entry_posted'],
    acts: (event) => escrowFundingOf(event) !== null,
    handle: async (trx: Knex.Transaction, events: RecordedEvent[]) => {
      for (const event of events) {
        const e = escrowFundingOf(event);
        if (!e) continue;
        const clearing = e.lines.find((l) => l.amount < 0)!.account;
        await enqueue(trx, escrowFunding.job, { merchantId: e.merchantId, environment: e.environment, contractId: e.contract!, source: e.source, amountMinor: e.net, clearing }, clock.now());
      }
    },
  };
}

/** The entry of an event when it funds a contract from a payment (an `escrow_funding` entry whose source is not the contract itself), else null. */
function escrowFundingOf(event: RecordedEvent): LedgerEvent['data'] | null {
  if (event.type !== 'ledger.entry_posted') return null;
  const e = (event as unknown as LedgerEvent).data;
  return e.kind === 'escrow_funding' && e.contract && e.source !== e.contract ? e : null;
}
