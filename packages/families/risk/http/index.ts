/** The risk family's edge as other families' routes use it: its route schemas and helpers. */
export { limitsSchema, reservesHeldOf, reservesHeldSchema, ruleSetBody, ruleSetSchema } from './risk.js';
