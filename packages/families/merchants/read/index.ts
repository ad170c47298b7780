import type { ReadSide } from '#packages/read-models/read-side.js';
import { merchantsProjection } from './merchants.js';
import { apiKeysProjection } from './api-keys.js';

/** Merchants: the merchant records and their API keys. */
export const merchantsReadSide: ReadSide = {
  family: 'merchants',
  readModels: [merchantsProjection, apiKeysProjection],
};

// The queries other code reads this family by.
export { findMerchant, liveActivationOf, liveStateOf } from './merchants.js';
export { findApiKey, listApiKeys } from './api-keys.js';
export { ApiKeyCache, apiKeyCredentials } from './api-key-cache.js';
