import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { WebhookEndpointEvent } from '../events.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Environment, Owner } from '#packages/core/owner.js';

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
  handles: ['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.failing', 'webhook_endpoint.recovered', 'webhook_endpoint.deleted'],
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
      case 'webhook_endpoint.deleted':
        await table().where({ id: e.data.id }).delete();
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

/** A secret older than this should be rotated (rotation_recommended). */
const ROTATE_AFTER_MS = 365 * 86_400_000;

/** The endpoint as the API shows it at `now`: never its secrets, only the last four characters of the current one. */
export function webhookEndpointObject(row: WebhookEndpointRow, now: Date) {
  const previousActive = row.previous_secret_expires_at !== null && row.previous_secret_expires_at.getTime() > now.getTime();
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    enabled_events: row.enabled_events,
    enabled: row.enabled,
    status: row.failing ? 'failing' : 'active',
    secret_last4: row.secret_last4,
    secret_created_at: row.secret_created_at.toISOString(),
    has_previous_secret: previousActive,
    previous_secret_expires_at: previousActive ? row.previous_secret_expires_at!.toISOString() : null,
    rotation_recommended: now.getTime() - row.secret_created_at.getTime() > ROTATE_AFTER_MS,
    created: unixSeconds(row.created_at),
    livemode: row.environment === 'live',
  };
}

export function findWebhookEndpoint(knex: Knex, owner: Owner, id: string): Promise<WebhookEndpointRow | undefined> {
  return ownedRows(knex, 'read.webhook_endpoints', owner).where({ id }).first<WebhookEndpointRow | undefined>();
}

/** This owner's endpoints, newest first, cursor-paged, as shown at `now`. */
export function listWebhookEndpoints(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, now: Date): Promise<CursorList<ReturnType<typeof webhookEndpointObject>>> {
  return cursorPage<WebhookEndpointRow, ReturnType<typeof webhookEndpointObject>>(ownedRows(knex, 'read.webhook_endpoints', owner).select('*'), cursor, url, 'id', (row) => webhookEndpointObject(row, now));
}

/** Enabled endpoints of a merchant and environment that subscribe to `type` (or to `*`). */
export function matchingEndpoints(db: Knex | Knex.Transaction, merchantId: string, environment: Environment, type: string): Promise<WebhookEndpointRow[]> {
  return db('read.webhook_endpoints')
    .where({ merchant_id: merchantId, environment, enabled: true })
    .andWhere((q) => {
      q.whereRaw('? = ANY(enabled_events)', [type]).orWhereRaw(`'*' = ANY(enabled_events)`);
    });
}

/** Enabled endpoints of these (merchant, environment) pairs, in one query (the dispatcher's batches). */
export function enabledEndpointsOf(db: Knex | Knex.Transaction, owners: readonly (readonly [merchantId: string, environment: Environment])[]): Promise<WebhookEndpointRow[]> {
  if (owners.length === 0) return Promise.resolve([]);
  return db('read.webhook_endpoints')
    .where({ enabled: true })
    .whereIn(
      ['merchant_id', 'environment'],
      owners.map(([m, e]) => [m, e]),
    );
}

/** Whether the merchant has an enabled webhook endpoint in either environment (the onboarding checklist). */
export async function hasWebhookEndpoint(knex: Knex, merchantId: string): Promise<boolean> {
  return (await knex('read.webhook_endpoints').where({ merchant_id: merchantId, enabled: true }).first('id')) !== undefined;
}
