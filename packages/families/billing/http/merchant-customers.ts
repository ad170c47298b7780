import type { Knex } from 'knex';
import type { Customers } from '../customer/commands.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { customerObject, findCustomer, listCustomers } from '../read/customers.js';
import { customerSchema } from './schemas.js';
import type { SavedCard } from '#packages/connectors/paystack/index.js';
import type { Owner } from '#packages/core/owner.js';
import { amountFields, idParamsOf, pageListRoute, retrieveRoute } from '#packages/http/route-kit.js';
import { billingRead, billingWrite } from './customer-fields.js';

const savedCardListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data', 'has_more'],
  properties: {
    object: { const: 'list', description: 'Always `list`' },
    has_more: { const: false, description: 'Always `false`: every card is in `data`' },
    data: {
      type: 'array',
      description: "The customer's saved cards",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['object', 'token', 'brand', 'last4', 'exp_month', 'exp_year', 'reusable'],
        properties: {
          object: { const: 'card', description: 'Always `card`' },
          token: { type: 'string', description: 'What payment_method.card.token takes to charge this card again' },
          brand: { type: 'string', description: 'The card network, as the acquirer names it (`visa`, `mastercard`)' },
          last4: { type: 'string', description: 'The last four digits of the card number' },
          exp_month: { type: 'string', description: 'The expiry month (`01`–`12`)' },
          exp_year: { type: 'string', description: 'The expiry year (`2030`)' },
          reusable: { type: 'boolean', description: 'false: the bank gave a single-use authorization; charging it is refused with IKW-PRV-013' },
        },
      },
    },
  },
} as const;

/** /api/v1/merchant/customers: list (search over name, e-mail, phone), add (by e-mail) and retrieve; and crediting a customer's wallet. */
/** `savedCards`: a customer's saved cards, newest first, as the rails keep them (services/rail-recipients.ts). */
export function merchantCustomersRoutes(knex: Knex, customers: Customers, savedCards: (owner: Owner, customerId: string) => Promise<SavedCard[]>): RouteGroup {
  return {
    name: 'merchant-customers',
    description: "The merchant's customers: their contact details, the cards they may be charged on again, and their wallet.",
    routes: [
      {
        ...pageListRoute<{ search?: string }>({
          path: '/api/v1/merchant/customers',
          item: customerSchema,
          auth: billingRead,
          filters: { search: { type: 'string', maxLength: 200, description: 'Only the customers whose name, e-mail address or phone number contains this text (any case)' } },
          summary: 'List customers, newest first; `search` matches part of the name, e-mail or phone (any case)',
          list: (owner, query) => listCustomers(knex, owner, query, query.search),
        }),
        description:
          "The customers of the environment, newest first: those you added, and those a payment, invoice or subscription named by e-mail or phone. `search` finds one by part of a name, address or number, as the dashboard's search box does.",
      },
      route<{ email: string; name?: string }>({
        method: 'post',
        path: '/api/v1/merchant/customers',
        summary: 'Add a customer by e-mail: the same address is the same customer (answered again, its name filled in if it had none), whichever route met it first',
        description:
          'Finds or makes the customer with this e-mail address (any case): adding an address you already have answers that customer again, with `name` filled in if it had none, never a second one. A customer made by a payment or an invoice naming the same address is the same customer. Use it before invoicing someone new, or let the invoice or subscription make the customer from `customer_email`.',
        emits: ['customer.created', 'customer.updated'],
        auth: billingWrite,
        body: {
          type: 'object',
          required: ['email'],
          additionalProperties: false,
          properties: {
            email: { type: 'string', format: 'email', maxLength: 254, description: "The customer's e-mail address: it names the customer (any case)" },
            name: { type: 'string', minLength: 1, maxLength: 250, description: "The customer's full name; kept only if the customer has none yet" },
          },
        },
        response: customerSchema,
        handler: (ctx) => customers.add(ctx.owner, ctx.body, ctx.actor),
      }),
      {
        ...retrieveRoute({
          path: '/api/v1/merchant/customers/:id',
          noun: 'customer',
          auth: billingRead,
          response: customerSchema,
          render: customerObject,
          summary: 'Retrieve a customer; `balance` is the wallet, in minor units of `currency`',
          find: (owner, id) => findCustomer(knex, owner, id),
        }),
        description: "One customer: contact details and wallet (`balance`, in minor units of `currency`). Another merchant's customer, or one of the other environment, is `404 IKW-RES-001`.",
      },
      {
        ...retrieveRoute({
          path: '/api/v1/merchant/customers/:id/cards',
          noun: 'customer',
          auth: billingRead,
          response: savedCardListSchema,
          summary: "The cards the customer paid with that can be charged again (live cards through Paystack): confirm a payment intent of this customer with `payment_method.card.token` set to a card's `token`",
          find: async (owner, id) => ((await findCustomer(knex, owner, id)) ? savedCards(owner, id) : undefined),
          render: (cards) => ({
            object: 'list',
            data: cards.map((c) => ({ object: 'card', token: c.token, brand: c.brand, last4: c.last4, exp_month: c.expMonth, exp_year: c.expYear, reusable: c.reusable })),
            has_more: false,
          }),
        }),
        description:
          "The cards this customer paid with that the acquirer lets you charge again, for a renewal or a one-click payment: confirm a payment intent of this customer with `payment_method.card.token` set to a card's `token`. Newest first; a card with `reusable: false` was authorized for one payment only. Only cards an acquirer saved (Paystack) are listed: a customer with none gives an empty list.",
      },
      route<{ amount: number; currency: string; description?: string }, unknown, { customerId: string }>({
        method: 'post',
        path: '/api/v1/merchant/billing/wallet/customers/:customerId/credit',
        summary: "Add money to a customer's wallet (its currency is set by the first credit); the wallet pays invoices through …/wallet/invoices/{invoiceId}/apply",
        description:
          "Credits the customer's wallet, for a prepayment, a goodwill credit or a refund kept as credit. No money moves: the wallet is a credit the customer spends on your invoices. The first credit sets the wallet's currency; a credit in another currency is refused. The wallet then pays invoices in that currency (`POST /api/v1/merchant/billing/wallet/invoices/{invoiceId}/apply`). Answers the customer with its new `balance`.",
        refusals: ['IKW-VAL-003', 'IKW-BIL-010'],
        emits: ['customer.balance_credited'],
        auth: billingWrite,
        params: idParamsOf('customerId'),
        body: {
          type: 'object',
          required: ['amount', 'currency'],
          additionalProperties: false,
          properties: {
            ...amountFields,
            description: { type: 'string', maxLength: 500, description: 'Why the credit was given, kept with it in the wallet history' },
          },
        },
        response: customerSchema,
        handler: (ctx) => customers.credit(ctx.owner, ctx.params.customerId, ctx.body, ctx.actor),
      }),
    ],
  };
}
