import type { Knex } from 'knex';
import { DEFAULT_CUSTOMER_PORTAL_SETTINGS, type CustomerPortalSettings, type MerchantSettingsEvent } from '#packages/families/merchants/index.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { Owner } from '#packages/core/owner.js';

/** read.customer_portal_settings: what each merchant's customers may do in its portal, per environment (defaults when absent). */
export const customerPortalSettingsProjection: Projection = {
  name: 'customer_portal_settings',
  tables: ['read.customer_portal_settings'],
  migrations: [
    {
      name: 'customer_portal_settings/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.customer_portal_settings (
          merchant_id text NOT NULL,
          environment text NOT NULL,
          settings json NOT NULL,
          updated_at timestamptz NOT NULL,
          PRIMARY KEY (merchant_id, environment)
        )`),
    },
  ],
  handles: ['merchant.customer_portal_settings_updated'],
  async apply(trx, event) {
    const e = event as unknown as MerchantSettingsEvent;
    if (e.type !== 'merchant.customer_portal_settings_updated') return;
    await trx('read.customer_portal_settings')
      .insert({ merchant_id: e.data.merchantId, environment: e.data.environment, settings: JSON.stringify(e.data.settings), updated_at: e.data.updatedAt })
      .onConflict(['merchant_id', 'environment'])
      .merge();
  },
};

export async function readCustomerPortalSettings(knex: Knex, owner: Owner): Promise<{ settings: CustomerPortalSettings; updatedAt: Date | null }> {
  const row = await knex('read.customer_portal_settings').where({ merchant_id: owner.merchantId, environment: owner.environment }).first<{ settings: CustomerPortalSettings; updated_at: Date } | undefined>();
  return row ? { settings: row.settings, updatedAt: row.updated_at } : { settings: DEFAULT_CUSTOMER_PORTAL_SETTINGS, updatedAt: null };
}
