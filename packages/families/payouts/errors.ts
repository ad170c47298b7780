import { declareErrorCodes } from '#packages/core/errors.js';

/** The payouts family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `PAY`: payouts, their destinations and the payout safeguards (docs/payouts.md). */
export const payoutErrors = declareErrorCodes({
  'IKW-PAY-001': { status: 400, retryable: false, message: 'Give exactly one destination: destination or payout_method_id' },
  'IKW-PAY-002': { status: 400, retryable: false, message: 'No such payout method for this merchant and environment' },
  'IKW-PAY-003': { status: 400, retryable: false, message: 'This payout method has been deleted' },
  'IKW-PAY-004': { status: 409, retryable: true, message: 'This payout method is still in its safety delay' },
  'IKW-PAY-005': { status: 403, retryable: false, message: 'An API key cannot weaken payout safeguards (lower the safety delay, open inline destinations to API keys): a signed-in user does, with a second factor' },
  'IKW-PAY-006': { status: 403, retryable: false, message: 'Weakening payout safeguards needs challenge_id: a verified second-factor challenge of purpose payout-settings/delay' },
  'IKW-PAY-007': { status: 403, retryable: false, message: 'A payout to a destination this merchant never paid needs challenge_id: a verified second-factor challenge of purpose payouts/new-destination' },
  'IKW-PAY-008': { status: 403, retryable: false, message: "This merchant's payout settings refuse inline destinations to API keys: pay out to a saved payout method (payout_method_id)" },
});

type PayoutErrors = typeof payoutErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends PayoutErrors {}
}
