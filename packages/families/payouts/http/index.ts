/** The payouts family's edge as other families' routes use it: its route schemas and helpers. */
export { CREATE_PAYOUT_EVENTS, CREATE_PAYOUT_REFUSALS } from './payouts.js';
export { payoutSchema } from './schemas.js';
export { declineBody } from './payouts.js';
