import type { DashboardFamily } from '../../shell/family.js';
import { PayoutBatchPage } from './PayoutBatch.js';
import { PayoutBatches } from './PayoutBatches.js';

/** Payout batches (the payout engine): reached from Payouts, with no entry of their own. */
export const payoutEngine: DashboardFamily = {
  pages: { payoutBatches: PayoutBatches, payoutBatch: PayoutBatchPage },
};
