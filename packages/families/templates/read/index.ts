import type { ReadSide } from '#packages/read-models/read-side.js';
import { templatesProjection } from './templates.js';

/** The template engine. */
export const templatesReadSide: ReadSide = {
  family: 'templates',
  readModels: [templatesProjection],
};

// The queries other code reads this family by.
export { type TemplateRow, findTemplate, findTemplateObject, findTemplateVersion, listTemplateVersions, listTemplates, publishedTemplateFor } from './templates.js';
