/** The risk family's edge as other families' routes use it: its route schemas and helpers. */
export { limitsSchema } from './risk.js';
export { reservesHeldOf } from './risk.js';
export { reservesHeldSchema } from './risk.js';
export { ruleSetBody } from './risk.js';
export { ruleSetSchema } from './risk.js';
