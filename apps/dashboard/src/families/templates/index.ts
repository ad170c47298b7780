import type { DashboardFamily } from '../../shell/family.js';
import { Template } from './Template.js';
import { Templates } from './Templates.js';

/** Message templates and a template's page. */
export const templates: DashboardFamily = {
  pages: { templates: Templates, template: Template },
  navigation: [{ group: 'build', page: 'templates', label: 'nav.templates', under: ['template'] }],
};
