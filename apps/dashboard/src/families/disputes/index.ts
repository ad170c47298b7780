import type { DashboardFamily } from '../../shell/family.js';
import { Dispute } from './Dispute.js';
import { Disputes } from './Disputes.js';

/** Disputes of card payments: the list and a dispute's page, where the merchant answers it. */
export const disputes: DashboardFamily = {
  pages: { disputes: Disputes, dispute: Dispute },
  navigation: [{ group: 'money', page: 'disputes', label: 'nav.disputes', under: ['dispute'] }],
};
