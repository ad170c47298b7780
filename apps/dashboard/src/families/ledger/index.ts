import type { DashboardFamily } from '../../shell/family.js';
import { Reports } from './Reports.js';

/** The ledger's reports. */
export const ledger: DashboardFamily = {
  pages: { reports: Reports },
  navigation: [{ group: 'finance', page: 'reports', label: 'nav.reports' }],
};
