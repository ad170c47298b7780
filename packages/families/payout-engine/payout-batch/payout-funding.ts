import type { FundingSource } from '#packages/families/payouts/index.js';
import { batchHoldSource } from './events.js';
import { holdBatchItem } from './postings.js';

/** A batch item's payout: its hold is carved out of the hold the batch's execution reserved for the attempt. */
export const batchPayoutFunding: FundingSource = {
  kind: 'batch',
  funds: (p) => p.batch !== undefined,
  hold: (p) => holdBatchItem({ source: p.id, amount: p.amount, fee: p.fee, batch: batchHoldSource(p.batch!.id, p.batch!.attempt) }),
};
