import type { ReadSide } from '#packages/read-models/read-side.js';
import { payoutRecipientsProjection } from './payout-recipients.js';
import { payoutBatchesProjection } from './payout-batches.js';
import { payoutBatchItemsProjection } from './payout-batch-items.js';
import { payoutBatchLogsProjection } from './payout-batch-logs.js';

/** The payout engine: recipients, batches, their items and logs. */
export const payoutEngineReadSide: ReadSide = {
  family: 'payout-engine',
  readModels: [payoutRecipientsProjection, payoutBatchesProjection, payoutBatchItemsProjection, payoutBatchLogsProjection],
};

// The queries other code reads this family by.
export { findRecipient, listRecipients } from './payout-recipients.js';
export { findPayoutBatch, listPayoutBatches } from './payout-batches.js';
export { type ItemsQuery, listPayoutBatchItems } from './payout-batch-items.js';
export { listPayoutBatchLogs } from './payout-batch-logs.js';
