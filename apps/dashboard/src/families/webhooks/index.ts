import type { DashboardFamily } from '../../shell/family.js';
import { WebhookEndpoint } from './WebhookEndpoint.js';
import { Webhooks } from './Webhooks.js';

/** Webhook endpoints and an endpoint's page. */
export const webhooks: DashboardFamily = {
  pages: { webhooks: Webhooks, webhookEndpoint: WebhookEndpoint },
  navigation: [{ group: 'build', page: 'webhooks', label: 'nav.webhooks', under: ['webhookEndpoint'] }],
};
