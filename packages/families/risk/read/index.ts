import type { ReadSide } from '#packages/read-models/read-side.js';
import { riskAssessmentsProjection } from './assessments.js';
import { merchantLimitsProjection } from './limits.js';

/** Risk: the limits and holds operators set per merchant and environment (docs/limits.md); the attempts its rules were asked about (docs/risk.md). */
export const riskReadSide: ReadSide = {
  family: 'risk',
  readModels: [merchantLimitsProjection, riskAssessmentsProjection],
};

// The queries other code reads this family by.
export { findLimits, limitsOf, listMerchantLimits, reservesHeld } from './limits.js';
export { attemptCounter } from './assessments.js';
