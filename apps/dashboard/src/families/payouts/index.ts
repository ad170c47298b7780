import type { DashboardFamily } from '../../shell/family.js';
import { PayoutPage } from './Payout.js';
import { Payouts } from './Payouts.js';

/** Payouts: a new payout, the list and a payout's page; the entry also covers the payout batches' pages (payout-engine). */
export const payouts: DashboardFamily = {
  pages: { payouts: Payouts, payout: PayoutPage },
  navigation: [{ group: 'money', page: 'payouts', label: 'nav.payouts', under: ['payout', 'payoutBatches', 'payoutBatch'] }],
};
