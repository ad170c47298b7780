import type { Knex } from 'knex';
import type { UserEvent } from '../user/events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.users: the profile `GET /api/v1/auth/me` shows, and what protects the account (`GET /api/v1/auth/mfa`, `/google`, `/email-change`). */
export const usersProjection: Projection = {
  name: 'users',
  tables: ['read.users'],
  migrations: [
    {
      name: 'users/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.users (
          id text PRIMARY KEY,
          email text NOT NULL,
          name text NOT NULL,
          phone text,
          secondary_email text,
          language text,
          onboarding_dismissed boolean NOT NULL DEFAULT false,
          onboarding_completed boolean NOT NULL DEFAULT false,
          onboarding_step text,
          email_verified_at timestamptz,
          phone_verified_at timestamptz,
          default_organization_id text,
          created_at timestamptz NOT NULL
        )`),
    },
    {
      // What protects the account, for the GET routes: counts and flags, never a secret.
      name: 'users/002-security',
      up: (knex) =>
        knex.raw(`ALTER TABLE read.users
          ADD COLUMN totp_enabled boolean NOT NULL DEFAULT false,
          ADD COLUMN recovery_codes_remaining integer NOT NULL DEFAULT 0,
          ADD COLUMN passkeys integer NOT NULL DEFAULT 0,
          ADD COLUMN google_email text,
          ADD COLUMN google_linked_at timestamptz,
          ADD COLUMN pending_email text,
          ADD COLUMN pending_email_request_id text,
          ADD COLUMN pending_email_expires_at timestamptz`),
    },
  ],
  handles: [
    'user.created',
    'user.default_organization_set',
    'user.profile_updated',
    'user.onboarding_updated',
    'user.contact_verified',
    'user.email_changed',
    'user.phone_changed',
    'user.totp_activated',
    'user.totp_disabled',
    'user.recovery_code_used',
    'user.recovery_codes_replaced',
    'user.passkey_added',
    'user.passkey_removed',
    'user.google_linked',
    'user.google_unlinked',
    'user.token_issued',
    'user.token_used',
    'user.token_canceled',
  ],
  async apply(trx, event) {
    const e = event as unknown as UserEvent;
    const userId = event.streamId.slice('user-'.length);
    switch (e.type) {
      case 'user.created':
        await trx('read.users').insert({ id: e.data.userId, email: e.data.email, name: e.data.name, phone: e.data.phone, default_organization_id: null, created_at: e.data.createdAt }).onConflict('id').merge();
        return;
      case 'user.default_organization_set':
        await trx('read.users').where({ id: userId }).update({ default_organization_id: e.data.organizationId });
        return;
      case 'user.profile_updated': {
        const d = e.data;
        await trx('read.users')
          .where({ id: userId })
          .update({ ...(d.name !== undefined ? { name: d.name } : {}), ...(d.secondaryEmail !== undefined ? { secondary_email: d.secondaryEmail } : {}), ...(d.language !== undefined ? { language: d.language } : {}) });
        return;
      }
      case 'user.contact_verified':
        // Only the address the user holds now counts as verified.
        await trx('read.users')
          .where({ id: userId, [e.data.channel]: e.data.address })
          .update({ [`${e.data.channel}_verified_at`]: e.data.at });
        return;
      // A new address or number is not verified until a code or link sent there comes back.
      case 'user.email_changed':
        await trx('read.users').where({ id: userId }).update({ email: e.data.email, email_verified_at: null, pending_email: null, pending_email_request_id: null, pending_email_expires_at: null });
        return;
      case 'user.totp_activated':
        await trx('read.users').where({ id: userId }).update({ totp_enabled: true, recovery_codes_remaining: e.data.recoveryCodeHashes.length });
        return;
      case 'user.totp_disabled':
        await trx('read.users').where({ id: userId }).update({ totp_enabled: false, recovery_codes_remaining: 0 });
        return;
      case 'user.recovery_code_used':
        await trx('read.users').where({ id: userId }).decrement('recovery_codes_remaining', 1);
        return;
      case 'user.recovery_codes_replaced':
        await trx('read.users').where({ id: userId }).update({ recovery_codes_remaining: e.data.recoveryCodeHashes.length });
        return;
      case 'user.passkey_added':
        await trx('read.users').where({ id: userId }).increment('passkeys', 1);
        return;
      case 'user.passkey_removed':
        await trx('read.users').where({ id: userId }).decrement('passkeys', 1);
        return;
      case 'user.google_linked':
        await trx('read.users').where({ id: userId }).update({ google_email: e.data.email, google_linked_at: e.data.at });
        return;
      case 'user.google_unlinked':
        await trx('read.users').where({ id: userId }).update({ google_email: null, google_linked_at: null });
        return;
      case 'user.token_issued':
        if (e.data.kind === 'email_change') {
          await trx('read.users').where({ id: userId }).update({ pending_email: e.data.newEmail, pending_email_request_id: e.data.tokenId, pending_email_expires_at: e.data.expiresAt });
        }
        return;
      case 'user.token_used':
      case 'user.token_canceled':
        await trx('read.users').where({ id: userId, pending_email_request_id: e.data.tokenId }).update({ pending_email: null, pending_email_request_id: null, pending_email_expires_at: null });
        return;
      case 'user.phone_changed':
        await trx('read.users').where({ id: userId }).update({ phone: e.data.phone, phone_verified_at: null });
        return;
      case 'user.onboarding_updated': {
        const d = e.data;
        await trx('read.users')
          .where({ id: userId })
          .update({
            ...(d.dismissed !== undefined ? { onboarding_dismissed: d.dismissed } : {}),
            ...(d.completed !== undefined ? { onboarding_completed: d.completed } : {}),
            ...(d.step !== undefined ? { onboarding_step: d.step } : {}),
          });
        return;
      }
      default:
        return;
    }
  },
};

export interface UserRow {
  id: string;
  email: string;
  name: string;
  phone: string | null;
  secondary_email: string | null;
  language: string | null;
  onboarding_dismissed: boolean;
  onboarding_completed: boolean;
  onboarding_step: string | null;
  email_verified_at: Date | null;
  phone_verified_at: Date | null;
  default_organization_id: string | null;
  created_at: Date;
  totp_enabled: boolean;
  recovery_codes_remaining: number;
  passkeys: number;
  google_email: string | null;
  google_linked_at: Date | null;
  pending_email: string | null;
  pending_email_request_id: string | null;
  pending_email_expires_at: Date | null;
}

export function findUser(knex: Knex, id: string): Promise<UserRow | undefined> {
  return knex('read.users').where({ id }).first<UserRow | undefined>();
}
