import { Templates } from './commands.js';
import { defineFamily } from '../family.js';
import { templateErrors } from './errors.js';

/** The template engine's templates (docs/template-engine.md); the kernel's composer writes messages from them. */
export const templates = defineFamily({
  name: 'templates',
  needs: [],
  errors: templateErrors,
  build: ({ store, clock }) => ({ templates: new Templates({ store, clock }) }),
});
