import type { DashboardFamily } from '../../shell/family.js';
import { Automation } from './Automation.js';
import { Automations } from './Automations.js';

/** Automations and an automation's page. */
export const automations: DashboardFamily = {
  pages: { automations: Automations, automation: Automation },
  navigation: [{ group: 'build', page: 'automations', label: 'nav.automations', under: ['automation'] }],
};
