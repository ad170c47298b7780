import type { Knex } from 'knex';
import type { Environment } from '../packages/domain/merchant/events.js';
import type { WebhookEndpointEvent } from '../packages/domain/webhook-endpoint/events.js';
import type { Projection } from './projection.js';

/** read.webhook_endpoints: endpoints with their sealed secrets (what the dispatcher signs with). */
export const webhookEndpointsProjection: Projection = {
  name: 'webhook_endpoints',
  tables: ['read.webhook_endpoints'],
  migrations: [
    {
      name: 'webhook_endpoints/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.webhook_endpoints (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          url text NOT NULL,
          enabled_events text[] NOT NULL,
          enabled boolean NOT NULL,
          failing boolean NOT NULL DEFAULT false,
          secret_sealed text NOT NULL,
          secret_last4 text NOT NULL,
          secret_created_at timestamptz NOT NULL,
          previous_secret_sealed text,
          previous_secret_expires_at timestamptz,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX webhook_endpoints_list ON read.webhook_endpoints (merchant_id, environment, seq)`),
    },
  ],
  handles: ['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.failing', 'webhook_endpoint.recovered'],
  async apply(trx, event) {
    const e = event as unknown as WebhookEndpointEvent;
    const table = () => trx('read.webhook_endpoints');
    switch (e.type) {
      case 'webhook_endpoint.created':
        await table()
          .insert({
            id: e.data.id,
            seq: event.position,
            merchant_id: e.data.merchantId,
            environment: e.data.environment,
            url: e.data.url,
            enabled_events: e.data.enabledEvents,
            enabled: true,
            secret_sealed: e.data.secret.sealed,
            secret_last4: e.data.secret.last4,
            secret_created_at: e.data.secret.createdAt,
            created_at: e.data.createdAt,
          })
          .onConflict('id')
          .ignore();
        return;
      case 'webhook_endpoint.updated': {
        const changes: Record<string, unknown> = {};
        if (e.data.url !== undefined) changes.url = e.data.url;
        if (e.data.enabledEvents !== undefined) changes.enabled_events = e.data.enabledEvents;
        if (e.data.enabled !== undefined) changes.enabled = e.data.enabled;
        if (Object.keys(changes).length > 0) await table().where({ id: e.data.id }).update(changes);
        return;
      }
      case 'webhook_endpoint.secret_rotated':
        await table().where({ id: e.data.id }).update({
          secret_sealed: e.data.secret.sealed,
          secret_last4: e.data.secret.last4,
          secret_created_at: e.data.secret.createdAt,
          previous_secret_sealed: e.data.previous.sealed,
          previous_secret_expires_at: e.data.previousExpiresAt,
        });
        return;
      case 'webhook_endpoint.failing':
        await table().where({ id: e.data.id }).update({ failing: true });
        return;
      case 'webhook_endpoint.recovered':
        await table().where({ id: e.data.id }).update({ failing: false });
        return;
    }
  },
};

export interface WebhookEndpointRow {
  id: string;
  seq: string;
  merchant_id: string;
  environment: Environment;
  url: string;
  enabled_events: string[];
  enabled: boolean;
  failing: boolean;
  secret_sealed: string;
  secret_last4: string;
  secret_created_at: Date;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
}

export function findWebhookEndpoint(knex: Knex, merchantId: string, environment: Environment, id: string): Promise<WebhookEndpointRow | undefined> {
  return knex('read.webhook_endpoints').where({ id, merchant_id: merchantId, environment }).first<WebhookEndpointRow | undefined>();
}

/** Enabled endpoints of a merchant and environment that subscribe to `type` (or to `*`). */
export function matchingEndpoints(db: Knex | Knex.Transaction, merchantId: string, environment: Environment, type: string): Promise<WebhookEndpointRow[]> {
  return db('read.webhook_endpoints')
    .where({ merchant_id: merchantId, environment, enabled: true })
    .andWhere((q) => q.whereRaw('? = ANY(enabled_events)', [type]).orWhereRaw(`'*' = ANY(enabled_events)`));
}
