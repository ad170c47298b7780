import type { DashboardFamily } from '../../shell/family.js';
import { Limits } from './Limits.js';

/** Risk: the limits and holds Sika's risk team set on the merchant (docs/limits.md), read-only. */
export const risk: DashboardFamily = {
  pages: { limits: Limits },
  navigation: [{ group: 'finance', page: 'limits', label: 'nav.limits' }],
};
