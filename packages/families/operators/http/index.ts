/** The operators family's edge as other families' routes use it: its route schemas and helpers. */
export { merchantOwnerOf, merchantParams, operatorOf } from './shared.js';
