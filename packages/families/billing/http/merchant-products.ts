import type { Knex } from 'knex';
import { MAX_AMOUNT } from '#packages/catalog/index.js';
import type { CreateProductInput, Products, UpdateProductInput } from '../product/commands.js';
import { INTERVALS, type Interval, type ProductStatus } from '../product/events.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findProduct, listProducts } from '../read/products.js';
import { billingRead, billingWrite } from './customer-fields.js';
import { currencySchema, idParams, metadataSchema, pageListRoute, resourceSchema, retrieveRoute } from '#packages/http/route-kit.js';

const INTERVAL_WORDS: Record<Interval, string> = {
  day: 'A period of `interval_count` days (at most 1095)',
  week: 'A period of `interval_count` weeks (at most 156)',
  month: 'A period of `interval_count` months (at most 36)',
  year: 'A period of `interval_count` years (at most 3)',
};
const USAGE_TYPE_WORDS = {
  licensed: 'Billed in advance for each period: `quantity` × `unit_amount`',
  metered: 'Billed in arrears for the usage recorded in the period (`POST /api/v1/billing/usage/records`) × `unit_amount`',
};
const STATUS_WORDS: Record<ProductStatus, string> = {
  active: 'On sale: new subscriptions and invoices may use its prices',
  inactive: 'Deactivated: its prices are refused for new subscriptions and invoices; existing subscriptions go on',
  archived: 'Deleted: read-only, listed only when asked for by `status`',
};

const priceSchema = {
  type: 'object',
  required: ['currency', 'unit_amount'],
  additionalProperties: false,
  properties: {
    currency: { ...currencySchema, description: 'The currency of the price: a three-letter ISO 4217 code, in any case (`XOF`)' },
    unit_amount: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: 'The price of one unit, in minor units of the currency' },
    recurring: {
      type: ['object', 'null'],
      description: 'How often a subscription bills it; left out or null for a one-time price (invoices only)',
      required: ['interval'],
      additionalProperties: false,
      properties: {
        interval: { enum: [...INTERVALS], description: 'The unit of its billing period', 'x-enumDescriptions': INTERVAL_WORDS },
        interval_count: { type: 'integer', minimum: 1, maximum: 1095, description: 'How many intervals a period lasts (3 months: `month` × 3); 1 when left out, at most 3 years in all' },
        usage_type: { enum: ['licensed', 'metered'], description: 'How a subscription bills it; `licensed` when left out', 'x-enumDescriptions': USAGE_TYPE_WORDS },
      },
    },
  },
};

const name = { type: 'string', minLength: 1, maxLength: 250, description: 'What it is called on invoices and in the dashboard' };
const description = { type: ['string', 'null'], maxLength: 1000, description: 'A longer description for your team, or null' };

const createBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name,
    description,
    active: { type: 'boolean', description: 'Whether it is on sale; `true` when left out' },
    metadata: { ...metadataSchema, description: `${metadataSchema.description}. Keys with an empty value are left out` },
    prices: { type: 'array', maxItems: 20, items: priceSchema, description: 'Its prices (up to 20): one-time, or recurring' },
  },
};

const updateBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name,
    description,
    metadata: { ...metadataSchema, description: 'Keys to add or replace in its metadata (the others stay); an empty value removes its key' },
    add_prices: { type: 'array', minItems: 1, maxItems: 20, items: priceSchema, description: 'New prices to add (up to 20); existing prices never change' },
  },
};

const productSchema = resourceSchema('product', ['name', 'description', 'active', 'status', 'prices', 'metadata', 'created'], {
  name: { type: 'string', description: 'What it is called on invoices and in the dashboard' },
  description: { type: ['string', 'null'], description: 'A longer description, or null' },
  active: { type: 'boolean', description: 'Whether it is on sale (`false` once deactivated or archived)' },
  status: { enum: ['active', 'inactive', 'archived'], description: 'Where it stands', 'x-enumDescriptions': STATUS_WORDS },
  prices: {
    type: 'array',
    description: 'Its prices, oldest first: a price never changes once made',
    items: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The price (`price_…`): what subscription items and invoice lines name' },
        object: { const: 'price', description: 'Always `price`' },
        product: { type: 'string', description: 'The product it belongs to' },
        currency: { type: 'string', description: 'Its currency, a three-letter ISO 4217 code in lower case' },
        unit_amount: { type: 'integer', description: 'The price of one unit, in minor units of the currency' },
        recurring: {
          type: ['object', 'null'],
          description: 'How often a subscription bills it; null for a one-time price',
          properties: {
            interval: { enum: [...INTERVALS], description: 'The unit of its billing period', 'x-enumDescriptions': INTERVAL_WORDS },
            interval_count: { type: 'integer', description: 'How many intervals a period lasts' },
            usage_type: { enum: ['licensed', 'metered'], description: 'How a subscription bills it', 'x-enumDescriptions': USAGE_TYPE_WORDS },
          },
        },
        created: { type: 'integer', description: 'When the price was made, in Unix seconds' },
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
export function merchantProductsRoutes(knex: Knex, products: Products, isStaleAttachment: (subscriptionId: string, attachedAt: string) => Promise<boolean>): RouteGroup {
  return {
    name: 'merchant-products',
    description: 'Products and their prices (one-time or recurring), which invoices and subscriptions are made from.',
    routes: [
      {
        ...pageListRoute<{ status?: ProductStatus }>({
          path: '/api/v1/merchant/products',
          item: productSchema,
          auth: billingRead,
          filters: { status: { enum: [...STATUSES], description: 'Only the products in this status; without it, active and inactive ones', 'x-enumDescriptions': STATUS_WORDS } },
          summary: 'List products, newest first; without `status`, archived products are left out',
          list: (owner, query) => listProducts(knex, owner, query, { status: query.status }),
        }),
        description: 'Your catalogue in the environment, newest first, each product with its prices: the price ids are what subscriptions and invoices name. Archived (deleted) products are listed only with `status: archived`.',
      },
      {
        ...retrieveRoute({ path: '/api/v1/merchant/products/:id', noun: 'product', auth: billingRead, response: productSchema, summary: 'Retrieve a product (archived ones too)', find: (owner, id) => findProduct(knex, owner, id) }),
        description: "One product with all its prices, archived ones too. Another merchant's product, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<CreateProductInput>({
        method: 'post',
        path: '/api/v1/merchant/products',
        fields: priceFields,
        summary: 'Create a product with its prices (one-time, or recurring every interval_count intervals)',
        description:
          'Adds what you sell to the catalogue with its prices: a one-time price bills once on an invoice line, a recurring one every period of a subscription (`licensed`: a fixed amount per unit; `metered`: per unit of usage recorded). One product may have prices in several currencies and intervals. Prices never change once made: to charge differently, add a price (`PATCH`).',
        refusals: ['IKW-VAL-003'],
        emits: ['product.created'],
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
        description:
          'Renames or redescribes a product, changes its metadata keys, or adds prices to it, as when a price changes: subscriptions keep the price they were made with, new ones take the new price. A change that changes nothing emits nothing. An archived product cannot be changed.',
        refusals: ['IKW-VAL-003', 'IKW-RES-002'],
        emits: ['product.updated'],
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
        description:
          'Takes a product off sale (`false`) or puts it back (`true`): the prices of an inactive product are refused for new subscriptions and invoice lines (`IKW-BIL-008`), while the subscriptions already using them go on renewing. An archived product cannot be changed.',
        refusals: ['IKW-RES-002'],
        emits: ['product.updated'],
        auth: billingWrite,
        params: idParams,
        body: {
          type: 'object',
          required: ['active'],
          additionalProperties: false,
          properties: { active: { type: 'boolean', description: '`true` to put it on sale, `false` to take it off' } },
        },
        response: productSchema,
        handler: (ctx) => products.setActive(ctx.owner, ctx.params.id, ctx.body.active, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/merchant/products/:id',
        fields: { productId: 'id' },
        summary: 'Delete (archive) a product; refused with IKW-BIL-002 while a subscription uses it',
        description:
          'Removes a product from the catalogue: it is archived, not erased, so that invoices and past subscriptions that name its prices still read. It is refused while a subscription that is not canceled uses it: cancel those first. Deleting an archived product answers it again. Answers the product, `status: archived`.',
        refusals: ['IKW-BIL-002'],
        emits: ['product.deleted'],
        auth: billingWrite,
        params: idParams,
        response: productSchema,
        handler: (ctx) => products.delete(ctx.owner, ctx.params.id, ctx.actor, isStaleAttachment),
      }),
    ],
  };
}
