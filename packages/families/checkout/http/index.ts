/** The checkout family's edge as other families' routes use it: its route schemas and helpers. */
export { CATALOGUE, refusalText, failureReason } from './page-words.js';
