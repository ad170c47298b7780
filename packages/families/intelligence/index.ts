import { defineFamily } from '#packages/families/family.js';
import { intelligenceReadSide } from './read/index.js';
import { intelligenceErrors } from './errors.js';

/** Recommendations and dashboard suggestions (docs/intelligence.md): pure functions over read models, no command service. */
export const intelligence = defineFamily({
  name: 'intelligence',
  readSide: intelligenceReadSide,
  needs: [],
  errors: intelligenceErrors,
  build: () => ({}),
});
