import type { Knex } from 'knex';
import type { MerchantSettingsEvent, PayoutSettings } from '#packages/families/merchants/index.js';
import { defaultPayoutSettings, withPayoutDefaults } from '#packages/families/merchants/index.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { Environment } from '#packages/core/owner.js';

/** read.payout_settings: each merchant's payout settings per environment (defaults when absent). */
export const payoutSettingsProjection: Projection = {
  name: 'payout_settings',
  tables: ['read.payout_settings'],
  migrations: [
    {
      name: 'payout_settings/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.payout_settings (
          merchant_id text NOT NULL,
          environment text NOT NULL,
          settings json NOT NULL,
          updated_at timestamptz NOT NULL,
          PRIMARY KEY (merchant_id, environment)
        )`),
    },
  ],
  handles: ['merchant.payout_settings_updated'],
  async apply(trx, event) {
    const e = (event as unknown as MerchantSettingsEvent).data;
    await trx('read.payout_settings')
      .insert({ merchant_id: e.merchantId, environment: e.environment, settings: JSON.stringify(e.settings), updated_at: e.updatedAt })
      .onConflict(['merchant_id', 'environment'])
      .merge();
  },
};

export async function readPayoutSettings(knex: Knex, merchantId: string, environment: Environment): Promise<{ settings: PayoutSettings; updatedAt: Date | null }> {
  const row = await knex('read.payout_settings').where({ merchant_id: merchantId, environment }).first<{ settings: Partial<PayoutSettings>; updated_at: Date } | undefined>();
  return row ? { settings: withPayoutDefaults(row.settings, environment), updatedAt: row.updated_at } : { settings: defaultPayoutSettings(environment), updatedAt: null };
}
