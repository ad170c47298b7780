import type { DashboardFamily } from '../../shell/family.js';
import { Developers } from './Developers.js';

/** The merchant's API keys (Developers). */
export const merchants: DashboardFamily = {
  pages: { developers: Developers },
  navigation: [{ group: 'build', page: 'developers', label: 'nav.developers' }],
};
