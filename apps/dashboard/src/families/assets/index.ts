import type { DashboardFamily } from '../../shell/family.js';
import { Files } from './Files.js';

/** The merchant's files. */
export const assets: DashboardFamily = {
  pages: { files: Files },
  navigation: [{ group: 'build', page: 'files', label: 'nav.files' }],
};
