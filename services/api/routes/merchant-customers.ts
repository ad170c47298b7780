import type { Knex } from 'knex';
import type { Customers } from '../../../packages/domain/customer/commands.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { customerObject, findCustomer, listCustomers } from '../../../projections/customers.js';
import { customerSchema } from '../schemas/billing.js';
import { amountFields, billingRead, billingWrite, idParamsOf, pageListRoute, retrieveRoute } from './shared.js';

/** /api/v1/merchant/customers: list (search over name, e-mail, phone), add (by e-mail) and retrieve; and crediting a customer's wallet. */
export function merchantCustomersFamily(knex: Knex, customers: Customers): Family {
  return {
    name: 'merchant-customers',
    routes: [
      pageListRoute<{ search?: string }>({ path: '/api/v1/merchant/customers', item: customerSchema, auth: billingRead, filters: { search: { type: 'string', maxLength: 200 } },
        summary: 'List customers, newest first; `search` matches part of the name, e-mail or phone (any case)',
        list: (owner, query) => listCustomers(knex, owner, query, query.search) }),
      route<{ email: string; name?: string }>({
        method: 'post',
        path: '/api/v1/merchant/customers',
        summary: 'Add a customer by e-mail: the same address is the same customer (answered again, its name filled in if it had none), whichever route met it first',
        auth: billingWrite,
        body: {
          type: 'object',
          required: ['email'],
          additionalProperties: false,
          properties: { email: { type: 'string', format: 'email', maxLength: 254 }, name: { type: 'string', minLength: 1, maxLength: 250 } },
        },
        response: customerSchema,
        handler: (ctx) => customers.add(ctx.owner, ctx.body, ctx.actor),
      }),
      retrieveRoute({ path: '/api/v1/merchant/customers/:id', noun: 'customer', auth: billingRead, response: customerSchema, render: customerObject,
        summary: 'Retrieve a customer; `balance` is the wallet, in minor units of `currency`',
        find: (owner, id) => findCustomer(knex, owner, id) }),
      route<{ amount: number; currency: string; description?: string }, unknown, { customerId: string }>({
        method: 'post',
        path: '/api/v1/merchant/billing/wallet/customers/:customerId/credit',
        summary: "Add money to a customer's wallet (its currency is set by the first credit); the wallet pays invoices through …/wallet/invoices/{invoiceId}/apply",
        auth: billingWrite,
        params: idParamsOf('customerId'),
        body: {
          type: 'object',
          required: ['amount', 'currency'],
          additionalProperties: false,
          properties: {
            ...amountFields,
            description: { type: 'string', maxLength: 500 },
          },
        },
        response: customerSchema,
        handler: (ctx) => customers.credit(ctx.owner, ctx.params.customerId, ctx.body, ctx.actor),
      }),
    ],
  };
}
