import type { Knex } from 'knex';
import type { MerchantEvent } from '../packages/domain/merchant/events.js';
import { rowChangeProjection } from './batch.js';
import type { Projection } from './projection.js';

/** read.merchants: one row per merchant. */
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
  ],
  handles: ['merchant.created'],
  ...rowChangeProjection({ 'read.merchants': ['id'] }, (event) => {
    const e = event as unknown as MerchantEvent;
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

export function findMerchant(knex: Knex, id: string): Promise<MerchantRow | undefined> {
  return knex('read.merchants').where({ id }).first<MerchantRow | undefined>();
}
