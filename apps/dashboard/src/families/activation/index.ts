import type { DashboardFamily } from '../../shell/family.js';
import { GoLive } from './GoLive.js';

/** Going live: the merchant's application to take live money, and where it stands. */
export const activation: DashboardFamily = {
  pages: { goLive: GoLive },
  navigation: [{ group: 'account', page: 'goLive', label: 'nav.goLive' }],
};
