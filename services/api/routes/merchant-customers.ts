import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../packages/catalog/index.js';
import { ApiError } from '../../../packages/core/errors.js';
import type { Customers } from '../../../packages/domain/customer/commands.js';
import type { CustomerObject } from '../../../packages/domain/customer/events.js';
import { pageListQuery, pageOf, type PageQuery } from '../../../packages/http/pagination.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import { customerObject, findCustomer, type CustomerRow } from '../../../projections/customers.js';

export const billingRead: RouteAuth = { scope: 'billing.read', environmentHeader: 'optional' };
export const billingWrite: RouteAuth = { scope: 'billing.write', environmentHeader: 'optional' };

export const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['id'] };

/** Merchant metadata of billing objects: string values, Stripe's limits. */
export const metadataSchema = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: { type: 'string', maxLength: 500 },
};

export const customerSchema = {
  type: 'object',
  required: ['id', 'object', 'name', 'email', 'phone', 'currency', 'balance', 'metadata', 'created'],
  properties: {
    id: { type: 'string' },
    object: { const: 'customer' },
    name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'] },
    phone: { type: ['string', 'null'] },
    currency: { type: ['string', 'null'] },
    balance: { type: 'integer' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    created: { type: 'integer' },
    livemode: { type: 'boolean' },
  },
};

/** `%`, `_` and `\` are literal in a search, not LIKE wildcards. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** /api/v1/merchant/customers: list (search over name, e-mail, phone) and retrieve; and crediting a customer's wallet. */
export function merchantCustomersFamily(knex: Knex, customers: Customers): Family {
  return {
    name: 'merchant-customers',
    routes: [
      route<unknown, PageQuery & { search?: string }>({
        method: 'get',
        path: '/api/v1/merchant/customers',
        summary: 'List customers, newest first; `search` matches part of the name, e-mail or phone (any case)',
        auth: billingRead,
        query: { ...pageListQuery, properties: { ...pageListQuery.properties, search: { type: 'string', maxLength: 200 } } },
        handler: (ctx) => {
          const base = knex('read.customers').select('*').where({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment });
          const search = ctx.query.search?.trim();
          if (search) {
            const pattern = `%${likeLiteral(search)}%`;
            base.andWhere((q) => q.whereILike('name', pattern).orWhereILike('email', pattern).orWhereILike('phone', pattern));
          }
          return pageOf<CustomerRow, CustomerObject>(base, ctx.query, customerObject);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/customers/:id',
        summary: 'Retrieve a customer; `balance` is the wallet, in minor units of `currency`',
        auth: billingRead,
        params: idParams,
        response: customerSchema,
        handler: async (ctx) => {
          const row = await findCustomer(knex, ctx.principal.merchantId, ctx.principal.environment, ctx.params.id);
          if (!row) throw new ApiError('IKW-RES-001', `No such customer: '${ctx.params.id}'`, 'id');
          return customerObject(row);
        },
      }),
      route<{ amount: number; currency: string; description?: string }, unknown, { customerId: string }>({
        method: 'post',
        path: '/api/v1/merchant/billing/wallet/customers/:customerId/credit',
        summary: "Add money to a customer's wallet (its currency is set by the first credit); the wallet pays invoices through …/wallet/invoices/{invoiceId}/apply",
        auth: billingWrite,
        params: { type: 'object', properties: { customerId: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['customerId'] },
        body: {
          type: 'object',
          required: ['amount', 'currency'],
          additionalProperties: false,
          properties: {
            amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT },
            currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
            description: { type: 'string', maxLength: 500 },
          },
        },
        response: customerSchema,
        handler: (ctx) => customers.credit(ctx.owner, ctx.params.customerId, ctx.body, ctx.actor),
      }),
    ],
  };
}
