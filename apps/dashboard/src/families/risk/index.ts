import type { DashboardFamily } from '../../shell/family.js';
import { Limits } from './Limits.js';
import { Rules } from './Rules.js';

/** Risk: the limits and holds Sika's risk team set on the merchant (docs/limits.md), read-only; and its risk rules and blocklist (docs/risk.md). */
export const risk: DashboardFamily = {
  pages: { limits: Limits, riskRules: Rules },
  navigation: [
    { group: 'finance', page: 'limits', label: 'nav.limits' },
    { group: 'finance', page: 'riskRules', label: 'nav.riskRules' },
  ],
};
