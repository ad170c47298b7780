import type { Knex } from 'knex';
import type { Customers } from '../../../../packages/families/billing/customer/commands.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { customerObject, findCustomer, listCustomers } from '../../../../projections/billing/customers.js';
import { customerSchema } from '../../schemas/billing.js';
import { savedCardsOf } from '../../../rail-recipients.js';
import { amountFields, billingRead, billingWrite, idParamsOf, pageListRoute, retrieveRoute } from '../shared.js';

const savedCardListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data', 'has_more'],
  properties: {
    object: { const: 'list' },
    has_more: { const: false },
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['object', 'token', 'brand', 'last4', 'exp_month', 'exp_year', 'reusable'],
        properties: {
          object: { const: 'card' },
          token: { type: 'string', description: 'What payment_method.card.token takes to charge this card again' },
          brand: { type: 'string' },
          last4: { type: 'string' },
          exp_month: { type: 'string' },
          exp_year: { type: 'string' },
          reusable: { type: 'boolean', description: 'false: the bank gave a single-use authorization; charging it is refused with IKW-PRV-013' },
        },
      },
    },
  },
} as const;

/** /api/v1/merchant/customers: list (search over name, e-mail, phone), add (by e-mail) and retrieve; and crediting a customer's wallet. */
export function merchantCustomersFamily(knex: Knex, customers: Customers): Family {
  return {
    name: 'merchant-customers',
    description: 'The merchant\'s customers: their contact details, the cards they may be charged on again, and their wallet.',
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
      retrieveRoute({ path: '/api/v1/merchant/customers/:id/cards', noun: 'customer', auth: billingRead, response: savedCardListSchema,
        summary: "The cards the customer paid with that can be charged again (live cards through Paystack): confirm a payment intent of this customer with `payment_method.card.token` set to a card's `token`",
        find: async (owner, id) => ((await findCustomer(knex, owner, id)) ? savedCardsOf(knex, owner, id) : undefined),
        render: (cards) => ({
          object: 'list',
          data: cards.map((c) => ({ object: 'card', token: c.token, brand: c.brand, last4: c.last4, exp_month: c.expMonth, exp_year: c.expYear, reusable: c.reusable })),
          has_more: false,
        }) }),
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
