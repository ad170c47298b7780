import type { DashboardFamily } from '../../shell/family.js';
import { Insights } from './Insights.js';

/** Insights and their suggestions. */
export const intelligence: DashboardFamily = {
  pages: { insights: Insights },
  navigation: [{ group: 'finance', page: 'insights', label: 'nav.insights' }],
};
