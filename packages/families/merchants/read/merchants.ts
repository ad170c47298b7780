import type { Knex } from 'knex';
import { LIVE_NEVER_ACTIVATED, type LiveActivation, type MerchantEvent } from '../merchant/events.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.merchants: one row per merchant, with the state of its live activation. */
export const merchantsProjection: Projection = {
  name: 'merchants',
  tables: ['read.merchants'],
  migrations: [
    {
      name: 'merchants/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.merchants (
          id text PRIMARY KEY,
          name text NOT NULL,
          email text,
          created_at timestamptz NOT NULL
        )`),
    },
    {
      name: 'merchants/002-live-activation',
      // No merchant had a live activation before these columns: the defaults are every row's state.
      up: (knex) =>
        knex.raw(`ALTER TABLE read.merchants
          ADD COLUMN live_status text NOT NULL DEFAULT 'inactive',
          ADD COLUMN live_activated_at timestamptz,
          ADD COLUMN live_deactivated_at timestamptz`),
    },
    {
      name: 'merchants/003-live-suspended',
      up: (knex) => knex.raw(`ALTER TABLE read.merchants ADD COLUMN live_suspended boolean NOT NULL DEFAULT false`),
    },
  ],
  handles: ['merchant.created', 'merchant.live_activated', 'merchant.live_deactivated'],
  ...rowChangeProjection({ 'read.merchants': ['id'] }, (event) => {
    const e = event as unknown as MerchantEvent;
    if (e.type === 'merchant.live_activated') return [{ table: 'read.merchants', key: { id: e.data.merchantId }, set: { live_status: 'active', live_activated_at: e.data.activatedAt, live_suspended: false } }];
    if (e.type === 'merchant.live_deactivated') return [{ table: 'read.merchants', key: { id: e.data.merchantId }, set: { live_status: 'deactivated', live_deactivated_at: e.data.deactivatedAt, live_suspended: e.data.suspended === true } }];
    if (e.type !== 'merchant.created') return [];
    // Inserted, or replaced when it is there: an insert then an update of every column.
    const row = { name: e.data.name, email: e.data.email ?? null, created_at: e.data.createdAt };
    const key = { id: e.data.merchantId };
    return [
      { table: 'read.merchants', insert: { ...key, ...row } },
      { table: 'read.merchants', key, set: row },
    ];
  }),
};

export interface MerchantRow {
  id: string;
  name: string;
  email: string | null;
  created_at: Date;
}

/** The merchant's live activation as the read model holds it; a merchant unknown here has none. */
export async function liveActivationOf(knex: Knex, id: string): Promise<LiveActivation> {
  const row = await knex('read.merchants')
    .where({ id })
    .first<{ live_status: LiveActivation['status']; live_activated_at: Date | null; live_deactivated_at: Date | null; live_suspended: boolean } | undefined>('live_status', 'live_activated_at', 'live_deactivated_at', 'live_suspended');
  if (!row) return LIVE_NEVER_ACTIVATED;
  return { status: row.live_status, activatedAt: row.live_activated_at?.toISOString() ?? null, deactivatedAt: row.live_deactivated_at?.toISOString() ?? null, suspended: row.live_suspended };
}

/**
 * Where the merchant's live environment stands, in one query (the gate of every live payment and
 * payout, ActivationGate.liveState): open, closed by a suspension, or neither.
 */
export async function liveStateOf(knex: Knex, id: string): Promise<'inactive' | 'active' | 'suspended'> {
  const row = await knex('read.merchants').where({ id }).first<{ live_status: LiveActivation['status']; live_suspended: boolean } | undefined>('live_status', 'live_suspended');
  if (row?.live_status === 'active') return 'active';
  return row?.live_suspended ? 'suspended' : 'inactive';
}

export function findMerchant(knex: Knex, id: string): Promise<MerchantRow | undefined> {
  return knex('read.merchants').where({ id }).first<MerchantRow | undefined>();
}
