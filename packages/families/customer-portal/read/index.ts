import type { ReadSide } from '#packages/read-models/read-side.js';
import { customerPortalSessionsProjection } from './customer-portal-sessions.js';
import { customerPortalSettingsProjection } from './customer-portal-settings.js';

/** The customer portal: its sessions and settings. */
export const customerPortalReadSide: ReadSide = {
  family: 'customer-portal',
  readModels: [customerPortalSessionsProjection, customerPortalSettingsProjection],
};

// The queries other code reads this family by.
export { type PortalSession, findPortalSession } from './customer-portal-sessions.js';
export { readCustomerPortalSettings } from './customer-portal-settings.js';
