import { defineFamily } from '../family.js';
import { intelligenceErrors } from './errors.js';

/** Recommendations and dashboard suggestions (docs/intelligence.md): pure functions over read models, no command service. */
export const intelligence = defineFamily({
  name: 'intelligence',
  needs: [],
  errors: intelligenceErrors,
  build: () => ({}),
});
