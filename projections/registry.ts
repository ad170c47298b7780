import { apiKeysProjection } from './api-keys.js';
import { merchantsProjection } from './merchants.js';
import type { Projection } from './projection.js';

/** Every read model the service keeps, in the order they are migrated. */
export const ALL_PROJECTIONS: readonly Projection[] = [merchantsProjection, apiKeysProjection];
