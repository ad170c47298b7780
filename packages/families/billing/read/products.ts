import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { Price, ProductEvent, ProductObject, ProductStatus } from '../product/events.js';
import { cursorPage, type CursorList, type CursorQuery, type PageList, type PageQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { findOwnedObject, ownedRows, pageOfObjects } from '#packages/read-models/queries.js';
import { snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/**
 * read.products: the public Product object as its latest event left it; read.product_prices: which
 * product each price belongs to, so that a request naming a price finds its product.
 */
export const productsProjection: Projection = {
  name: 'products',
  tables: ['read.products', 'read.product_prices'],
  migrations: [
    {
      name: 'products/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.products')};
        CREATE INDEX products_list ON read.products (merchant_id, environment, status, seq);
        CREATE TABLE read.product_prices (
          id text PRIMARY KEY,
          product_id text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          price json NOT NULL
        );
        CREATE INDEX product_prices_product ON read.product_prices (product_id)`),
    },
    {
      // Billing plans are listed by price, newest first: each price's place is the position of the event that added it.
      name: 'products/002-price-seq',
      up: (knex) =>
        knex.raw(`ALTER TABLE read.product_prices ADD COLUMN seq text;
        UPDATE read.product_prices pp SET seq = p.seq FROM read.products p WHERE p.id = pp.product_id;
        CREATE INDEX product_prices_list ON read.product_prices (merchant_id, environment, seq)`),
    },
  ],
  handles: ['product.created', 'product.updated', 'product.deleted'],
  async apply(trx, event) {
    const e = event as unknown as ProductEvent;
    if (!('object' in e.data)) return;
    const object = e.data.object;
    const owner = await (async () => {
      if (e.type === 'product.created') return { merchant_id: e.data.merchantId, environment: e.data.environment };
      return trx('read.products').select('merchant_id', 'environment').where({ id: object.id }).first<{ merchant_id: string; environment: Environment } | undefined>();
    })();
    if (!owner) return;
    if (e.type === 'product.created') {
      await trx('read.products')
        .insert({ id: object.id, seq: event.position, ...owner, status: object.status, object: JSON.stringify(object) })
        .onConflict('id')
        .ignore();
    } else {
      await trx('read.products')
        .where({ id: object.id })
        .update({ status: object.status, object: JSON.stringify(object) });
    }
    const prices = object.prices.map((p) => ({ id: p.id, product_id: object.id, ...owner, price: JSON.stringify(p), seq: event.position }));
    if (prices.length > 0) await trx('read.product_prices').insert(prices).onConflict('id').ignore();
  },
};

const PRODUCT_KEYS: readonly (keyof ProductObject)[] = ['id', 'object', 'name', 'description', 'active', 'status', 'prices', 'metadata', 'created', 'updated', 'livemode'];
const PRICE_KEYS: readonly (keyof Price)[] = ['id', 'object', 'product', 'currency', 'unit_amount', 'recurring', 'created'];

/** A stored product in the documented field order. */
export function renderProduct(stored: ProductObject): ProductObject {
  return orderKeys({ ...stored, prices: stored.prices.map((p) => orderKeys(p, PRICE_KEYS)) }, PRODUCT_KEYS);
}

export function findProduct(knex: Knex, owner: Owner, id: string): Promise<ProductObject | undefined> {
  return findOwnedObject(knex, 'read.products', owner, id, renderProduct);
}

/** A page of this owner's products, newest first; without a status, archived products are left out. */
export function listProducts(knex: Knex, owner: Owner, page: PageQuery, filters: { status?: ProductStatus }): Promise<PageList<ProductObject>> {
  const query = ownedRows(knex, 'read.products', owner, filters);
  if (!filters.status) query.andWhereNot({ status: 'archived' });
  return pageOfObjects(query, page, renderProduct);
}

export interface PriceRow {
  id: string;
  product_id: string;
  price: Price;
  product_status: ProductStatus;
  /** What an invoice line of the price is called. */
  product_name: string;
}

/** The prices with these ids that belong to this merchant and environment, with their product's status. */
export async function findPrices(knex: Knex, owner: Owner, ids: readonly string[]): Promise<Map<string, PriceRow>> {
  if (ids.length === 0) return new Map();
  const rows = await knex('read.product_prices as pp')
    .join('read.products as p', 'p.id', 'pp.product_id')
    .select('pp.id', 'pp.product_id', 'pp.price', 'p.status as product_status', knex.raw(`p.object->>'name' as product_name`))
    .whereIn('pp.id', [...ids])
    .andWhere({ 'pp.merchant_id': owner.merchantId, 'pp.environment': owner.environment });
  return new Map((rows as PriceRow[]).map((r) => [r.id, r]));
}

/** A billing plan as stored: its price and its product. */
export interface PlanRow {
  price: Price;
  product: ProductObject;
}

/** This owner's billing plans (licensed recurring prices), `cursor`-paged, newest first; archived products' plans are left out. */
export function listPlans(knex: Knex, owner: Owner, cursor: CursorQuery, url: string): Promise<CursorList<PlanRow>> {
  const plans = knex('read.product_prices as pp')
    .join('read.products as p', 'p.id', 'pp.product_id')
    .where({ 'pp.merchant_id': owner.merchantId, 'pp.environment': owner.environment })
    .whereNot('p.status', 'archived')
    .whereRaw(`pp.price->'recurring'->>'usage_type' = 'licensed'`)
    .select('pp.id', 'pp.seq', 'pp.price', 'p.object as product');
  return cursorPage<PlanRow & { seq: string }, PlanRow>(knex.select('*').from(plans.as('plans')), cursor, url, 'id', (row) => ({ price: row.price, product: renderProduct(row.product) }));
}

/** This owner's billing plan with this id (a licensed recurring price), if any. */
export async function findPlan(knex: Knex, owner: Owner, id: string): Promise<PlanRow | undefined> {
  const price = (await findPrices(knex, owner, [id])).get(id);
  if (price?.price.recurring?.usage_type !== 'licensed') return undefined;
  const product = await findProduct(knex, owner, price.product_id);
  return product && { price: price.price, product };
}
