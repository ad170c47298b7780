import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../../packages/catalog/index.js';
import type { CreateProductInput, Products, UpdateProductInput } from '../../../../packages/families/billing/product/commands.js';
import { INTERVALS, type ProductStatus } from '../../../../packages/families/billing/product/events.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findProduct, listProducts } from '../../../../projections/billing/products.js';
import { billingRead, billingWrite, currencySchema, idParams, metadataSchema, pageListRoute, resourceSchema, retrieveRoute } from '../shared.js';

const priceSchema = {
  type: 'object',
  required: ['currency', 'unit_amount'],
  additionalProperties: false,
  properties: {
    currency: currencySchema,
    unit_amount: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
    recurring: {
      type: ['object', 'null'],
      required: ['interval'],
      additionalProperties: false,
      properties: {
        interval: { enum: [...INTERVALS] },
        interval_count: { type: 'integer', minimum: 1, maximum: 1095 },
        usage_type: { enum: ['licensed', 'metered'] },
      },
    },
  },
};

const name = { type: 'string', minLength: 1, maxLength: 250 };
const description = { type: ['string', 'null'], maxLength: 1000 };

const createBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name, description, active: { type: 'boolean' }, metadata: metadataSchema, prices: { type: 'array', maxItems: 20, items: priceSchema } },
};

const updateBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name, description, metadata: metadataSchema, add_prices: { type: 'array', minItems: 1, maxItems: 20, items: priceSchema } },
};

const productSchema = resourceSchema('product', ['name', 'description', 'active', 'status', 'prices', 'metadata', 'created'], {
  name: { type: 'string' },
  description: { type: ['string', 'null'] },
  active: { type: 'boolean' },
  status: { enum: ['active', 'inactive', 'archived'] },
  prices: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        object: { const: 'price' },
        product: { type: 'string' },
        currency: { type: 'string' },
        unit_amount: { type: 'integer' },
        recurring: {
          type: ['object', 'null'],
          properties: { interval: { enum: [...INTERVALS] }, interval_count: { type: 'integer' }, usage_type: { enum: ['licensed', 'metered'] } },
        },
        created: { type: 'integer' },
      },
    },
  },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  updated: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/** The request names of a price's refusals: the list's own name, and the snake_case field within each price. */
const priceFields = {
  'prices.*.recurring.intervalCount': 'prices.*.recurring.interval_count',
  addPrices: 'add_prices',
  'addPrices.*.recurring.intervalCount': 'add_prices.*.recurring.interval_count',
};

const STATUSES: readonly ProductStatus[] = ['active', 'inactive', 'archived'];

/**
 * /api/v1/merchant/products: the catalogue of products and prices. Delete archives (the product
 * stays readable, with status archived) and is refused while a subscription uses the product.
 */
export function merchantProductsFamily(knex: Knex, products: Products, isStaleAttachment: (subscriptionId: string, attachedAt: string) => Promise<boolean>): Family {
  return {
    name: 'merchant-products',
    description: 'Products and their prices (one-time or recurring), which invoices and subscriptions are made from.',
    routes: [
      pageListRoute<{ status?: ProductStatus }>({ path: '/api/v1/merchant/products', item: productSchema, auth: billingRead, filters: { status: { enum: [...STATUSES] } },
        summary: 'List products, newest first; without `status`, archived products are left out',
        list: (owner, query) => listProducts(knex, owner, query, { status: query.status }) }),
      retrieveRoute({ path: '/api/v1/merchant/products/:id', noun: 'product', auth: billingRead, response: productSchema,
        summary: 'Retrieve a product (archived ones too)',
        find: (owner, id) => findProduct(knex, owner, id) }),
      route<CreateProductInput>({
        method: 'post',
        path: '/api/v1/merchant/products',
        fields: priceFields,
        summary: 'Create a product with its prices (one-time, or recurring every interval_count intervals)',
        auth: billingWrite,
        body: createBody,
        response: productSchema,
        handler: (ctx) => products.create(ctx.owner, ctx.body, ctx.actor),
      }),
      route<UpdateProductInput, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/merchant/products/:id',
        fields: { productId: 'id', ...priceFields },
        summary: 'Update name, description or metadata (merged; "" removes a key), or add prices (existing prices never change)',
        auth: billingWrite,
        params: idParams,
        body: updateBody,
        response: productSchema,
        handler: (ctx) => products.update(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<{ active: boolean }, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/merchant/products/:id/active',
        fields: { productId: 'id' },
        summary: 'Activate or deactivate a product; new subscriptions and invoices need an active product',
        auth: billingWrite,
        params: idParams,
        body: { type: 'object', required: ['active'], additionalProperties: false, properties: { active: { type: 'boolean' } } },
        response: productSchema,
        handler: (ctx) => products.setActive(ctx.owner, ctx.params.id, ctx.body.active, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/merchant/products/:id',
        fields: { productId: 'id' },
        summary: 'Delete (archive) a product; refused with IKW-BIL-002 while a subscription uses it',
        auth: billingWrite,
        params: idParams,
        response: productSchema,
        handler: (ctx) => products.delete(ctx.owner, ctx.params.id, ctx.actor, isStaleAttachment),
      }),
    ],
  };
}
