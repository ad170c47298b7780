import type { ReadSide } from '#packages/read-models/read-side.js';
import { activationApplicationsProjection } from './applications.js';

/** Going live: the merchants' activation applications, for the operators' review. */
export const activationReadSide: ReadSide = {
  family: 'activation',
  readModels: [activationApplicationsProjection],
};

// The queries the operators' routes read applications by.
export { findActivationApplication, listActivationApplications, type ApplicationQueueQuery } from './applications.js';
