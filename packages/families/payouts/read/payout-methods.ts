import type { Knex } from 'knex';
import type { Destination, PayoutMethodEvent } from '../payout-method/events.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/** read.payout_methods: saved payout destinations (active and deactivated). */
export const payoutMethodsProjection: Projection = {
  name: 'payout_methods',
  tables: ['read.payout_methods'],
  migrations: [
    {
      name: 'payout_methods/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.payout_methods (
          id uuid PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          destination json NOT NULL,
          status text NOT NULL,
          usable_from timestamptz NOT NULL,
          created_at timestamptz NOT NULL,
          deactivated_at timestamptz
        );
        CREATE INDEX payout_methods_list ON read.payout_methods (merchant_id, environment, seq)`),
    },
  ],
  handles: ['payout_method.created', 'payout_method.deactivated'],
  async apply(trx, event) {
    const e = event as unknown as PayoutMethodEvent;
    switch (e.type) {
      case 'payout_method.created':
        await trx('read.payout_methods')
          .insert({
            id: e.data.id,
            seq: event.position,
            merchant_id: e.data.merchantId,
            environment: e.data.environment,
            destination: JSON.stringify(e.data.destination),
            status: 'active',
            usable_from: e.data.usableFrom,
            created_at: e.data.createdAt,
          })
          .onConflict('id')
          .ignore();
        return;
      case 'payout_method.deactivated':
        await trx('read.payout_methods').where({ id: e.data.id }).update({ status: 'inactive', deactivated_at: e.data.deactivatedAt });
        return;
    }
  },
};

export interface PayoutMethodRow {
  id: string;
  environment: Environment;
  destination: Destination;
  status: 'active' | 'inactive';
  usable_from: Date;
  created_at: Date;
  deactivated_at: Date | null;
}

/** This owner's active saved destinations, newest first. */
export function listPayoutMethods(knex: Knex, owner: Owner): Promise<PayoutMethodRow[]> {
  return ownedRows(knex, 'read.payout_methods', owner).where({ status: 'active' }).orderBy('seq', 'desc');
}

/** Whether the merchant has saved a payout destination in either environment (the onboarding checklist). */
export async function hasPayoutMethod(knex: Knex, merchantId: string): Promise<boolean> {
  return (await knex('read.payout_methods').where({ merchant_id: merchantId }).whereNull('deactivated_at').first('id')) !== undefined;
}
