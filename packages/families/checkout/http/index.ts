/** The checkout family's edge as other families' routes use it: its route schemas and helpers. */
export { CATALOGUE } from './page-words.js';
export { refusalText } from './page-words.js';
export { failureReason } from './page-words.js';
