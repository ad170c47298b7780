import type { Knex } from 'knex';
import { orderKeys } from '../packages/core/json.js';
import type { Owner } from '../packages/domain/audit.js';
import type { ActivationRule, CountryActivationEvent, CountryActivationObject } from '../packages/domain/country-activation/events.js';
import type { CursorList, CursorQuery } from './paging.js';
import type { Projection } from './projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from './queries.js';

/** read.country_activations: each merchant's activations per country and currency; a deleted one has no row. */
export const countryActivationsProjection: Projection = {
  name: 'country_activations',
  tables: ['read.country_activations'],
  migrations: [
    {
      name: 'country_activations/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.country_activations (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          country_code text NOT NULL,
          currency_iso text NOT NULL,
          object json NOT NULL
        );
        CREATE INDEX country_activations_list ON read.country_activations (merchant_id, environment, seq);
        CREATE UNIQUE INDEX country_activations_rule ON read.country_activations (merchant_id, environment, country_code, currency_iso)`),
    },
  ],
  handles: ['country_activation.created', 'country_activation.updated', 'country_activation.deleted'],
  async apply(trx, event) {
    const e = event as unknown as CountryActivationEvent;
    const object = e.data.object;
    const rows = trx('read.country_activations');
    switch (e.type) {
      case 'country_activation.created':
        await rows
          .insert({ id: object.id, seq: event.position, merchant_id: e.data.merchantId, environment: e.data.environment, country_code: e.data.countryCode, currency_iso: e.data.currencyIso, object: JSON.stringify(object) })
          .onConflict('id')
          .ignore();
        return;
      case 'country_activation.updated':
        await rows.where({ id: object.id }).update({ object: JSON.stringify(object) });
        return;
      case 'country_activation.deleted':
        await rows.where({ id: object.id }).delete();
        return;
    }
  },
};

const KEYS: readonly (keyof CountryActivationObject)[] = ['id', 'object', 'merchantId', 'countryCode', 'currencyIso', 'enabledForPayIn', 'enabledForPayout', 'minAmount', 'maxAmount', 'livemode', 'created', 'updated'];
const render = (stored: CountryActivationObject) => orderKeys(stored, KEYS);

export function findActivation(knex: Knex, owner: Owner, id: string): Promise<CountryActivationObject | undefined> {
  return findOwnedObject(knex, 'read.country_activations', owner, id, render);
}

export function listActivations(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { country_code?: string }): Promise<CursorList<CountryActivationObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.country_activations', owner, filters), cursor, url, render);
}

/** The owner's activations by country code (the countries page shows each country's). */
export async function activationsByCountry(knex: Knex, owner: Owner): Promise<Map<string, CountryActivationObject>> {
  const rows = await ownedRows(knex, 'read.country_activations', owner).select('country_code', 'object');
  return new Map(rows.map((r: { country_code: string; object: CountryActivationObject }) => [r.country_code, render(r.object)]));
}

export async function activationRule(knex: Knex, owner: Owner, countryCode: string, currencyIso: string): Promise<ActivationRule | null> {
  const row = await ownedRows(knex, 'read.country_activations', owner, { country_code: countryCode.toUpperCase(), currency_iso: currencyIso.toUpperCase() }).select('object').first<{ object: CountryActivationObject } | undefined>();
  if (!row) return null;
  const { enabledForPayIn, enabledForPayout, minAmount, maxAmount } = row.object;
  return { enabledForPayIn, enabledForPayout, minAmount, maxAmount };
}
