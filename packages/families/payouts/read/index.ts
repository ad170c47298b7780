import type { ReadSide } from '#packages/read-models/read-side.js';
import { payoutsProjection, payoutHistory } from './payouts.js';
import { payoutMethodsProjection } from './payout-methods.js';
import { payoutSettingsProjection } from './payout-settings.js';
import { payoutRailAttemptsProjection } from './rail-attempts.js';

/** Payouts: payouts, payout methods and payout settings. */
export const payoutsReadSide: ReadSide = {
  family: 'payouts',
  readModels: [payoutsProjection, payoutMethodsProjection, payoutSettingsProjection, payoutRailAttemptsProjection],
  histories: [payoutHistory],
};

// The queries other code reads this family by.
export { findPayout, hasPaidTo, listPayouts, payoutActivity } from './payouts.js';
export { type PayoutMethodRow, hasPayoutMethod, listPayoutMethods } from './payout-methods.js';
export { readPayoutSettings } from './payout-settings.js';
export { payoutRailOutcomes } from './rail-attempts.js';

// What other families' routes and read models use of this family.
export { listHeldPayouts } from './payouts.js';
