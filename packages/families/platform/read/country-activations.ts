import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import { setterOf, type ActivationRule, type CountryActivationEvent, type CountryActivationObject } from '../country-activation/events.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import type { Owner } from '#packages/core/owner.js';

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
    {
      // Who set each activation (`setBy` in its object). Those set before: from their last creation
      // or change (setterOf), where the log is this database's (an EventStoreDB log gives it at the
      // next rebuild of this read model).
      name: 'country_activations/002-set-by',
      up: async (knex) => {
        const { rows: log } = await knex.raw<{ rows: { events: string | null }[] }>(`SELECT to_regclass('events')::text AS events`);
        if (!log[0]?.events) return;
        const { rows } = await knex.raw<{ rows: { id: string; object: CountryActivationObject; data: unknown; metadata: EventMetadata }[] }>(
          `SELECT DISTINCT ON (a.id) a.id, a.object, e.data, e.metadata FROM read.country_activations a
           JOIN events e ON e.stream_id = 'country_activation-' || a.id AND e.type <> 'country_activation.deleted'
           ORDER BY a.id, e.version DESC`,
        );
        if (rows.length === 0) return;
        await knex.raw('UPDATE read.country_activations AS a SET object = v.object FROM json_to_recordset(?::json) AS v(id text, object json) WHERE a.id = v.id', [
          JSON.stringify(rows.map((r) => ({ id: r.id, object: { ...r.object, setBy: setterOf(r) } }))),
        ]);
      },
    },
  ],
  handles: ['country_activation.created', 'country_activation.updated', 'country_activation.deleted'],
  async apply(trx, event) {
    const e = event as unknown as CountryActivationEvent;
    // Events from before `setBy` carry objects without it: their actor says (setterOf).
    const object = e.type === 'country_activation.deleted' ? e.data.object : { ...e.data.object, setBy: setterOf(event) };
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

const KEYS: readonly (keyof CountryActivationObject)[] = ['id', 'object', 'merchantId', 'countryCode', 'currencyIso', 'enabledForPayIn', 'enabledForPayout', 'minAmount', 'maxAmount', 'setBy', 'livemode', 'created', 'updated'];
/** Rows from before `setBy` that no log could key (an EventStoreDB log, until the rebuild): the merchant's, as they were. */
const render = (stored: CountryActivationObject) => orderKeys({ ...stored, setBy: stored.setBy ?? 'merchant' }, KEYS);

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
