import { Templates } from '../../domain/template/commands.js';
import { defineFamily } from '../family.js';

/** The template engine's templates (docs/template-engine.md); the kernel's composer writes messages from them. */
export const templates = defineFamily({
  name: 'templates',
  needs: [],
  build: ({ store, clock }) => ({ templates: new Templates({ store, clock }) }),
});
