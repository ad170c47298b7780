import type { ReadSide } from '#packages/read-models/read-side.js';
import { automationsProjection } from './automations.js';

/** Automations. */
export const automationsReadSide: ReadSide = {
  family: 'automations',
  readModels: [automationsProjection],
};

// The queries other code reads this family by.
export { type AutomationRow, type TriggerKey, automationObject, automationsTriggeredByAny, findAutomation, findAutomationById, listAutomationVersions, listAutomations, versionCredential } from './automations.js';
