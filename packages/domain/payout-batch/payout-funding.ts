import type { FundingSource } from '../payout/funding.js';
import { batchHoldSource } from './events.js';

/** A batch item's payout: its hold is carved out of the hold the batch's execution reserved for the attempt. */
export const batchPayoutFunding: FundingSource<'batch'> = {
  kind: 'batch',
  funds: (p) => p.batch !== undefined,
  holdFrom: (p) => ({ kind: 'batch', batch: batchHoldSource(p.batch!.id, p.batch!.attempt) }),
};
