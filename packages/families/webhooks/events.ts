import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/** Secrets appear here only sealed (AES-256-GCM): the event log holds no usable secret. */
export interface SealedSecret {
  sealed: string;
  last4: string;
  createdAt: string;
}

export interface WebhookEndpointCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  url: string;
  enabledEvents: string[];
  secret: SealedSecret;
  createdAt: string;
}

export type WebhookEndpointEvent =
  | DomainEvent<'webhook_endpoint.created', WebhookEndpointCreated>
  | DomainEvent<'webhook_endpoint.updated', { id: string; url?: string; enabledEvents?: string[]; enabled?: boolean; updatedAt: string }>
  | DomainEvent<'webhook_endpoint.secret_rotated', { id: string; secret: SealedSecret; previous: SealedSecret; previousExpiresAt: string }>
  | DomainEvent<'webhook_endpoint.failing', { id: string; at: string }>
  | DomainEvent<'webhook_endpoint.recovered', { id: string; at: string }>
  /** Removed by the merchant: nothing is sent to it again, and it is no longer found. */
  | DomainEvent<'webhook_endpoint.deleted', { id: string; at: string }>;

export const webhookEndpointStream = (id: string) => `webhook_endpoint-${id}`;
