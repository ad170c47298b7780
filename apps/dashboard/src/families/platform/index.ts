import type { DashboardFamily } from '../../shell/family.js';
import { Configuration } from './Configuration.js';

/** The platform's switches as the merchant sees them (Configuration). */
export const platform: DashboardFamily = {
  pages: { configuration: Configuration },
  navigation: [{ group: 'account', page: 'configuration', label: 'nav.configuration' }],
};
