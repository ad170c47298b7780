import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { CustomerEvent, CustomerObject } from '../customer/events.js';
import { pageOf, type PageList, type PageQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/** read.customers: the Customer objects of each merchant and environment. */
export const customersProjection: Projection = {
  name: 'customers',
  tables: ['read.customers'],
  migrations: [
    {
      name: 'customers/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.customers (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          name text,
          email text,
          phone text,
          currency text,
          balance bigint NOT NULL DEFAULT 0,
          metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX customers_list ON read.customers (merchant_id, environment, seq)`),
    },
  ],
  handles: ['customer.created', 'customer.updated', 'customer.balance_credited', 'customer.balance_applied', 'customer.balance_returned'],
  async apply(trx, event) {
    const e = event as unknown as CustomerEvent;
    if (e.type !== 'customer.created') {
      // Contact and wallet changes: the object after the change says it all.
      const o = e.data.object;
      await trx('read.customers')
        .where({ id: o.id })
        .update({ name: o.name, phone: o.phone, currency: o.currency, balance: o.balance, metadata: JSON.stringify(o.metadata) });
      return;
    }
    const c = e.data;
    await trx('read.customers')
      .insert({
        id: c.id,
        seq: event.position,
        merchant_id: c.merchantId,
        environment: c.environment,
        name: c.name,
        email: c.email,
        phone: c.phone,
        currency: c.currency,
        metadata: JSON.stringify(c.metadata),
        created_at: c.createdAt,
      })
      .onConflict('id')
      .ignore();
  },
};

export interface CustomerRow {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  currency: string | null;
  balance: string;
  metadata: Record<string, string>;
  created_at: Date;
  environment: Environment;
}

export function findCustomer(knex: Knex, owner: Owner, id: string): Promise<CustomerRow | undefined> {
  return ownedRows(knex, 'read.customers', owner).where({ id }).first<CustomerRow | undefined>();
}

/** `%`, `_` and `\` are literal in a search, not LIKE wildcards. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A page of this owner's customers, newest first; `search` matches part of the name, e-mail or phone (any case). */
export function listCustomers(knex: Knex, owner: Owner, page: PageQuery, search: string | undefined): Promise<PageList<CustomerObject>> {
  const query = ownedRows(knex, 'read.customers', owner).select('*');
  const term = search?.trim();
  if (term) {
    const pattern = `%${likeLiteral(term)}%`;
    query.andWhere((q) => {
      q.whereILike('name', pattern).orWhereILike('email', pattern).orWhereILike('phone', pattern);
    });
  }
  return pageOf<CustomerRow, CustomerObject>(query, page, customerObject);
}

export function customerObject(row: CustomerRow): CustomerObject {
  return {
    id: row.id,
    object: 'customer' as const,
    name: row.name,
    email: row.email,
    phone: row.phone,
    currency: row.currency,
    balance: Number(row.balance),
    metadata: row.metadata,
    created: unixSeconds(row.created_at),
    livemode: row.environment === 'live',
  };
}

/** The id of this owner's customer with this e-mail address (any case), if there is one (the oldest, should there be several). */
export async function findCustomerIdByEmail(knex: Knex, owner: Owner, email: string): Promise<string | undefined> {
  const row = await ownedRows(knex, 'read.customers', owner).whereRaw('lower(email) = ?', [email.toLowerCase()]).orderBy('created_at').select('id').first<{ id: string } | undefined>();
  return row?.id;
}
