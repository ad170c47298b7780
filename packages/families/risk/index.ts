import { defineFamily } from '../family.js';
import { MerchantLimits } from './limits/commands.js';
import { payoutsByDay } from './limits/postings.js';

/**
 * Risk: the limits and holds the platform's risk operators set per merchant and environment
 * (docs/limits.md): per-transaction maximums, daily payout caps, payout freezes, rolling reserves.
 * Payments and payouts read them through the kernel's read ports and decide them where money moves.
 */
export const risk = defineFamily({
  name: 'risk',
  needs: [],
  // The day's payouts of a balance, folded from its entries: the daily cap is decided on the balance stream.
  ledger: { reducers: [payoutsByDay] },
  build: ({ store, clock }) => ({
    merchantLimits: new MerchantLimits({ store, clock }),
  }),
});

// What other families use of this one (its public face): they import it from here, never from its files.
export type { LimitsGate, MerchantLimits } from './limits/commands.js';
export { noLimits } from './limits/decider.js';
export type { Limits, LimitsEvent, LimitsObject, PerCurrency, RollingReserve } from './limits/events.js';
export { toLimitsObject } from './limits/render.js';
export { assertPayoutsOpen, assertWithinTransactionMaximum, secondsToNextDay, withinPayoutLimits } from './limits/postings.js';
