import type { Knex } from 'knex';
import type { CustomerPortalEvent } from '../events.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/** read.customer_portal_sessions: the portal sessions customers signed in to, by the SHA-256 of their token. */
export const customerPortalSessionsProjection: Projection = {
  name: 'customer_portal_sessions',
  tables: ['read.customer_portal_sessions'],
  migrations: [
    {
      name: 'customer_portal_sessions/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.customer_portal_sessions (
          token_hash text PRIMARY KEY,
          session_id text NOT NULL UNIQUE,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          customer_id text NOT NULL,
          expires_at timestamptz NOT NULL,
          signed_out boolean NOT NULL DEFAULT false
        )`),
    },
  ],
  handles: ['customer_portal.signed_in', 'customer_portal.signed_out'],
  async apply(trx, event) {
    const e = event as unknown as CustomerPortalEvent;
    if (e.type === 'customer_portal.signed_in') {
      await trx('read.customer_portal_sessions')
        .insert({
          token_hash: e.data.tokenHash,
          session_id: e.data.sessionId,
          merchant_id: event.metadata.merchant_id,
          environment: event.metadata.environment,
          customer_id: e.data.customerId,
          expires_at: e.data.expiresAt,
        })
        .onConflict('token_hash')
        .ignore();
    } else if (e.type === 'customer_portal.signed_out') {
      await trx('read.customer_portal_sessions').where({ session_id: e.data.sessionId }).update({ signed_out: true });
    }
  },
};

export interface PortalSession {
  sessionId: string;
  owner: Owner;
  customerId: string;
}

/** The live portal session of a token's hash at `now`: not expired, not signed out. */
export async function findPortalSession(knex: Knex, tokenHash: string, now: Date): Promise<PortalSession | undefined> {
  const row = await knex('read.customer_portal_sessions')
    .where({ token_hash: tokenHash, signed_out: false })
    .andWhere('expires_at', '>', now)
    .first<{ session_id: string; merchant_id: string; environment: Environment; customer_id: string } | undefined>();
  return row && { sessionId: row.session_id, owner: { merchantId: row.merchant_id, environment: row.environment }, customerId: row.customer_id };
}
