import type { DashboardFamily } from '../../shell/family.js';
import { Help } from './Help.js';

/** Help, where a member writes to support. */
export const support: DashboardFamily = {
  pages: { help: Help },
  navigation: [{ group: 'account', page: 'help', label: 'nav.help' }],
};
