import { defineFamily } from '../family.js';

/** Recommendations and dashboard suggestions (docs/intelligence.md): pure functions over read models, no command service. */
export const intelligence = defineFamily({
  name: 'intelligence',
  needs: [],
  build: () => ({}),
});
