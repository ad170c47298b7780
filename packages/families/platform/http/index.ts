/** The platform family's edge as other families' routes use it: its route schemas and helpers. */
export { merchantQuery } from './configuration.js';
export { ownerOf } from './configuration.js';
export { read } from './configuration.js';
