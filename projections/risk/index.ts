import type { ReadSide } from '../read-side.js';
import { merchantLimitsProjection } from './limits.js';

/** Risk: the limits and holds operators set per merchant and environment (docs/limits.md). */
export const riskReadSide: ReadSide = {
  family: 'risk',
  readModels: [merchantLimitsProjection],
};

// The queries other code reads this family by.
export { findLimits, limitsOf, listMerchantLimits, reservesHeld } from './limits.js';
