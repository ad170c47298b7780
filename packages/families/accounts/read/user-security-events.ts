import type { Knex } from 'knex';
import type { UserEvent } from '../user/events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** What the account activity shows: sign-ins, sign-outs and every change of what protects the account. */
const SECURITY_EVENTS = [
  'user.session_started',
  'user.session_revoked',
  'user.password_changed',
  'user.email_changed',
  'user.phone_changed',
  'user.totp_activated',
  'user.totp_disabled',
  'user.recovery_code_used',
  'user.recovery_codes_replaced',
  'user.passkey_added',
  'user.passkey_removed',
  // A Google account signs in as the user: connecting or freeing one changes what opens the account.
  'user.google_linked',
  'user.google_unlinked',
] as const;

/** The detail shown with each: never a hash, secret or key. */
function detailOf(e: UserEvent): Record<string, unknown> {
  switch (e.type) {
    case 'user.session_started':
      return { sessionId: e.data.sessionId, organizationId: e.data.organizationId, merchantId: e.data.merchantId };
    case 'user.session_revoked':
      return { sessionId: e.data.sessionId, reason: e.data.reason };
    case 'user.email_changed':
      return { email: e.data.email, previous: e.data.previous };
    case 'user.phone_changed':
      return { phone: e.data.phone };
    case 'user.passkey_added':
      return { passkeyId: e.data.passkey.credentialId, nickname: e.data.passkey.nickname };
    case 'user.passkey_removed':
      return { passkeyId: e.data.credentialId };
    case 'user.google_linked':
      return { email: e.data.email, via: e.data.via };
    case 'user.google_unlinked':
      return { email: e.data.email };
    default:
      return {};
  }
}

/** read.user_security_events: a user's account activity, from their stream, with where each came from. */
export const userSecurityEventsProjection: Projection = {
  name: 'user_security_events',
  tables: ['read.user_security_events'],
  migrations: [
    {
      name: 'user_security_events/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.user_security_events (
          id text PRIMARY KEY,
          seq text NOT NULL,
          user_id text NOT NULL,
          type text NOT NULL,
          ip text,
          user_agent text,
          detail jsonb NOT NULL,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX user_security_events_user ON read.user_security_events (user_id, seq)`),
    },
  ],
  handles: [...SECURITY_EVENTS],
  async apply(trx, event) {
    const e = event as unknown as UserEvent;
    const { ip, user_agent, occurred_at } = event.metadata as { ip?: string; user_agent?: string; occurred_at?: string };
    await trx('read.user_security_events')
      .insert({
        id: event.eventId,
        seq: event.position,
        user_id: event.streamId.slice('user-'.length),
        type: e.type.slice('user.'.length),
        ip: ip ?? null,
        user_agent: user_agent ?? null,
        detail: JSON.stringify(detailOf(e)),
        created_at: occurred_at ?? event.recordedAt,
      })
      .onConflict('id')
      .ignore();
  },
};

export interface SecurityEventRow {
  id: string;
  type: string;
  ip: string | null;
  user_agent: string | null;
  detail: Record<string, unknown>;
  created_at: Date;
}

/** A user's account activity, newest first. */
export function listSecurityEvents(knex: Knex, userId: string, limit: number): Promise<SecurityEventRow[]> {
  return knex('read.user_security_events').where({ user_id: userId }).orderBy('seq', 'desc').limit(limit).select<SecurityEventRow[]>('id', 'type', 'ip', 'user_agent', 'detail', 'created_at');
}
