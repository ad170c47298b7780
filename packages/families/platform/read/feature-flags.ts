import type { Knex } from 'knex';
import type { FeatureFlagEvent, FeatureFlagObject } from '../feature-flag/events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.feature_flags: the platform's flags, one row per key for everyone and per merchant override. */
export const featureFlagsProjection: Projection = {
  name: 'feature_flags',
  tables: ['read.feature_flags'],
  migrations: [
    {
      name: 'feature_flags/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.feature_flags (
          id text PRIMARY KEY,
          key text NOT NULL,
          merchant_id text,
          object json NOT NULL
        );
        CREATE INDEX feature_flags_key ON read.feature_flags (key, merchant_id)`),
    },
  ],
  handles: ['feature_flag.set', 'feature_flag.deleted'],
  async apply(trx, event) {
    const e = event as unknown as FeatureFlagEvent;
    if (e.type === 'feature_flag.deleted') return void (await trx('read.feature_flags').where({ id: e.data.id }).delete());
    await trx('read.feature_flags')
      .insert({ id: e.data.id, key: e.data.key, merchant_id: e.data.merchantId, object: JSON.stringify(e.data.object) })
      .onConflict('id')
      .merge();
  },
};

/**
 * Flags in key order. For a merchant: the flags that apply to it, its own where it has one, else
 * the platform-wide one. For the platform operator: every row, or one merchant's overrides.
 */
export async function listFeatureFlags(knex: Knex, query: { merchantId?: string; effectiveFor?: string }): Promise<{ object: 'list'; data: FeatureFlagObject[] }> {
  const q = knex('read.feature_flags').select('key', 'merchant_id', 'object').orderBy(['key', 'merchant_id']);
  if (query.effectiveFor !== undefined)
    q.where((w) => {
      w.whereNull('merchant_id').orWhere('merchant_id', query.effectiveFor!);
    });
  else if (query.merchantId !== undefined) q.where('merchant_id', query.merchantId);
  const rows = (await q) as { key: string; merchant_id: string | null; object: FeatureFlagObject }[];
  if (query.effectiveFor === undefined) return { object: 'list', data: rows.map((r) => r.object) };
  const byKey = new Map<string, FeatureFlagObject>();
  for (const r of rows) if (r.merchant_id !== null || !byKey.has(r.key)) byKey.set(r.key, r.object);
  return { object: 'list', data: [...byKey.values()] };
}
