/** The platform family's edge as other families' routes use it: its route schemas and helpers. */
export { merchantQuery, ownerOf, read } from './configuration.js';
