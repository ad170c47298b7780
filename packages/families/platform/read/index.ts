import type { ReadSide } from '#packages/read-models/read-side.js';
import { adminKeysProjection } from './admin-keys.js';
import { featureFlagsProjection } from './feature-flags.js';
import { countryActivationsProjection } from './country-activations.js';
import { paymentCapabilitiesProjection } from './payment-capabilities.js';

/** The platform's settings: operator (admin) keys, feature flags, country activations, payment capabilities. */
export const platformReadSide: ReadSide = {
  family: 'platform',
  readModels: [adminKeysProjection, featureFlagsProjection, countryActivationsProjection, paymentCapabilitiesProjection],
};

// The queries other code reads this family by.
export { adminKeyCredentials } from './admin-keys.js';
export { listFeatureFlags } from './feature-flags.js';
export { activationRule, activationsByCountry, findActivation, listActivations } from './country-activations.js';
export { findPaymentCapability, governingCapability, listPaymentCapabilities } from './payment-capabilities.js';
