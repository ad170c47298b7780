/** The operators family's edge as other families' routes use it: its route schemas and helpers. */
export { merchantOwnerOf } from './shared.js';
export { merchantParams } from './shared.js';
export { operatorOf } from './shared.js';
