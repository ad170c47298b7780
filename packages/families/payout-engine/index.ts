import { ledger } from '#packages/families/ledger/index.js';
import { PayoutBatchCreation, type PayoutBatchDeps } from './payout-batch/commands.js';
import { PayoutBatchExecution } from './payout-batch/execution.js';
import { batchPayoutFunding } from './payout-batch/payout-funding.js';
import { payoutBatchPublicEvents } from './payout-batch/public-events.js';
import { PayoutRecipients } from './payout-recipient/commands.js';
import { payoutBatchItem, payoutBatchItemsConsumer } from './processes/payout-batch-item.js';
import { payoutBatchRun } from './processes/payout-batch-run.js';
import { batchHoldKind, batchItemHoldKind } from './payout-batch/postings.js';
import { defineFamily } from '#packages/families/family.js';
import { payoutEngineReadSide } from './read/index.js';
import { payouts } from '#packages/families/payouts/index.js';
import { payoutEngineErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    payoutBatchExecution: PayoutBatchExecution;
  }
}

/** The payout engine: saved recipients and payout batches (docs/payout-engine.md). */
export const payoutEngine = defineFamily({
  name: 'payout-engine',
  readSide: payoutEngineReadSide,
  needs: [payouts, ledger],
  ledger: { holds: [batchHoldKind, batchItemHoldKind] },
  errors: payoutEngineErrors,
  publicEvents: [payoutBatchPublicEvents],
  processes: [payoutBatchRun, payoutBatchItem],
  build: ({ store, ledger, clock, enqueuer }, { payouts, batchPayouts }) => {
    const payoutRecipients = new PayoutRecipients({ store, clock });
    const batchDeps: PayoutBatchDeps = { store, ledger, clock, payouts, batchPayouts, recipients: payoutRecipients, scheduleRun: enqueuer(payoutBatchRun) };
    return {
      payoutRecipients,
      payoutBatchCreation: new PayoutBatchCreation(batchDeps),
      payoutBatchExecution: new PayoutBatchExecution(batchDeps),
    };
  },
  // Batches' payouts hold out of the batch's hold.
  registrations: () => ({ payoutFundingSources: [batchPayoutFunding] }),
  consumers: (_, { clock }) => [payoutBatchItemsConsumer(clock)],
});
