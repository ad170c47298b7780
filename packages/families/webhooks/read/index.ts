import type { ReadSide } from '#packages/read-models/read-side.js';
import { webhookEndpointsProjection } from './webhook-endpoints.js';

/** Webhook endpoints. */
export const webhooksReadSide: ReadSide = {
  family: 'webhooks',
  readModels: [webhookEndpointsProjection],
};

// The queries other code reads this family by.
export { type WebhookEndpointRow, enabledEndpointsOf, findWebhookEndpoint, hasWebhookEndpoint, listWebhookEndpoints, matchingEndpoints, webhookEndpointObject } from './webhook-endpoints.js';
