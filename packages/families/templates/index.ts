import { Templates } from './commands.js';
import { defineFamily } from '#packages/families/family.js';
import { templatesReadSide } from './read/index.js';
import { templateErrors } from './errors.js';

/** The template engine's templates (docs/templates.md); the kernel's composer writes messages from them. */
export const templates = defineFamily({
  name: 'templates',
  readSide: templatesReadSide,
  needs: [],
  errors: templateErrors,
  build: ({ store, clock }) => ({ templates: new Templates({ store, clock }) }),
});

// What other families use of this one (its public face): they import it from here, never from its files.
export type { TemplateKind } from './events.js';
export { renderText, renderVersion } from './render.js';
export { renderPdf } from './pdf.js';

// What other families' routes and read models use of this family.
export type { TemplateComposer } from './composer.js';
