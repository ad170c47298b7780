import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { Billing } from '#packages/families/billing/index.js';
import type { CustomerPortal } from '../commands.js';
import { assertPortalAllows } from '../settings.js';
import type { ConfirmInput } from '#packages/families/payments/index.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import type { RefundObject } from '#packages/families/billing/index.js';
import { toSubscriptionObject } from '#packages/families/billing/index.js';
import type { HandlerContext } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { customerObject, findCustomer, findInvoice, findSubscription, listIssuedInvoicesByCursor, listRefunds, listSubscriptionsByCursor, renderSubscription } from '#packages/families/billing/read/index.js';
import { readCustomerPortalSettings } from '../read/index.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { listPaymentIntents } from '#packages/families/payments/read/index.js';
import { customerSchema, invoiceSchema, refundSchema, subscriptionSchema } from '#packages/families/billing/http/index.js';
import { confirmationFields, paymentIntentSchema, paymentMethodSchema } from '#packages/families/payments/http/index.js';
import { cursorListSchema, cursorQuery, found, idParams, returnUrlSchema } from '#packages/http/route-kit.js';
import { portalCaller } from './portal-caller.js';

const signInBody = {
  type: 'object',
  required: ['merchantId', 'email'],
  additionalProperties: false,
  properties: {
    merchantId: { type: 'string', pattern: '^acct_[0-9A-Za-z]{24}$', description: 'The merchant whose customer signs in (`acct_…`)' },
    environment: {
      enum: ['sandbox', 'live'],
      description: "The merchant's environment the customer belongs to; `live` when left out",
      'x-enumDescriptions': { sandbox: 'A customer of the sandbox (test) environment', live: 'A customer of the live environment' },
    },
    email: { type: 'string', format: 'email', maxLength: 254, description: 'The e-mail address the merchant knows the customer by (any case)' },
  },
};

const verifyBody = {
  type: 'object',
  required: ['challengeId', 'code'],
  additionalProperties: false,
  properties: {
    challengeId: { type: 'string', format: 'uuid', description: 'The `challengeId` the sign-in answered' },
    code: { type: 'string', pattern: '^[0-9]{6}$', description: 'The six-digit code of the e-mail' },
  },
};

const payBody = {
  type: 'object',
  required: ['payment_method'],
  additionalProperties: false,
  properties: {
    payment_method: paymentMethodSchema('snake_case'),
    return_url: { ...returnUrlSchema, description: 'Where the customer comes back after a page the payment opens (3-D Secure, a card page): your portal page' },
  },
};

const challengeSchema = {
  type: 'object',
  required: ['object', 'challengeId', 'expiresAt'],
  properties: {
    object: { const: 'customer_portal.challenge', description: 'Always `customer_portal.challenge`' },
    challengeId: { type: 'string', format: 'uuid', description: 'What `…/sign-in/verify` takes with the code' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the code stops working (10 minutes)' },
  },
};

const sessionSchema = {
  type: 'object',
  required: ['object', 'token', 'expiresAt', 'customer'],
  properties: {
    object: { const: 'customer_portal.session', description: 'Always `customer_portal.session`' },
    token: { type: 'string', description: 'Bearer cps_…, for the other /api/v1/customer-portal routes' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the token stops working (one hour after sign-in)' },
    customer: { anyOf: [customerSchema, { type: 'null' }], description: 'The customer signed in' },
  },
};

const receiptSchema = {
  type: 'object',
  description: 'What the customer keeps of a succeeded payment; null for any other',
  required: ['object', 'paymentIntentId', 'amountPaid', 'amountRefunded', 'currency', 'created'],
  properties: {
    object: { const: 'customer_portal.receipt', description: 'Always `customer_portal.receipt`' },
    paymentIntentId: { type: 'string', description: 'The payment (`pi_…`)' },
    amountPaid: { type: 'integer', description: 'What was paid, in minor units of the currency' },
    amountRefunded: { type: 'integer', description: 'What succeeded refunds gave back, in minor units' },
    currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case' },
    description: { type: ['string', 'null'], description: "The payment's description, or null" },
    paymentMethod: { type: ['object', 'null'], description: "How it was paid, as the payment intent's `payment_method` says" },
    operationId: { type: ['string', 'null'], description: 'The operation that paid it, the reference to quote to the merchant' },
    created: { type: 'integer', description: 'When the payment was created, in Unix seconds' },
  },
};

const paymentSchema = {
  ...paymentIntentSchema,
  required: [...paymentIntentSchema.required, 'refunds', 'receipt'],
  properties: {
    ...paymentIntentSchema.properties,
    refunds: { type: 'array', items: refundSchema, description: 'Its refunds, newest first' },
    receipt: { anyOf: [receiptSchema, { type: 'null' }], description: 'Its receipt once it succeeded; null before' },
  },
};

/** What a customer keeps of a succeeded payment. */
function receipt(pi: PaymentIntentObject, refunds: RefundObject[]) {
  return {
    object: 'customer_portal.receipt',
    paymentIntentId: pi.id,
    amountPaid: pi.amount_received,
    amountRefunded: refunds.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0),
    currency: pi.currency,
    description: pi.description,
    paymentMethod: pi.payment_method,
    operationId: pi.latest_operation,
    created: pi.created,
  };
}

/** Only a portal token authenticates here; the routes are "public" to the API-key layer and check it themselves. */
const portal = 'public' as const;

/**
 * /api/v1/customer-portal: a merchant's customer signs in with a code sent by e-mail and sees
 * their own invoices (pays an open one), subscriptions (cancels at period end, resumes), payments
 * with their refunds and receipts, and contact details (changes them). Everything is scoped to the signed-in
 * customer: another customer's object is "no such …".
 */
export function customerPortalRoutes(knex: Knex, clock: Clock, signIn: CustomerPortal, billing: Billing): RouteGroup {
  const caller = (ctx: HandlerContext<unknown, unknown, unknown>) => portalCaller(knex, clock.now(), ctx.header('authorization'));
  return {
    name: 'customer-portal',
    description: "The customer portal's API: a merchant's customer signs in with a code by e-mail and sees their invoices, subscriptions, receipts and wallet.",
    routes: [
      route<{ merchantId: string; environment?: 'sandbox' | 'live'; email: string }>({
        method: 'post',
        path: '/api/v1/customer-portal/sign-in',
        summary: "Send a six-digit sign-in code to the customer's e-mail address (the same answer whether or not the merchant knows the address)",
        description:
          "The first step of a customer's sign-in to your own portal (your app or site; `/portal/{environment}/{merchantId}` is Sika's hosted one): a six-digit code, good for 10 minutes, goes to the address, in your `customer_portal_code` template or the built-in one. The answer is the same whether or not you have a customer with that address, and only a customer gets an e-mail, so the portal never tells who is a customer. Each request counts against the sign-in limits.",
        auth: 'public',
        body: signInBody,
        throttle: (body) => `${body.merchantId}:${body.email.toLowerCase()}`,
        // Each request sends an e-mail: every one counts, success or not.
        throttleEveryRequest: true,
        response: challengeSchema,
        handler: (ctx) => signIn.requestCode({ merchantId: ctx.body.merchantId, environment: ctx.body.environment ?? 'live' }, ctx.body.email, ctx.actor),
      }),
      route<{ challengeId: string; code: string }>({
        method: 'post',
        path: '/api/v1/customer-portal/sign-in/verify',
        summary: 'Exchange the code for a portal token (Bearer cps_…, one hour)',
        description:
          'Checks the code and answers the session: `token` (`Authorization: Bearer cps_…`) acts for this customer only, on the other customer portal operations, for one hour. A wrong, expired or used code is refused, and after five wrong codes the challenge is spent: ask for a new code.',
        refusals: ['IKW-CPT-001'],
        auth: 'public',
        body: verifyBody,
        throttle: (body) => body.challengeId,
        response: sessionSchema,
        handler: async (ctx) => {
          const session = await signIn.verify(ctx.body.challengeId, ctx.body.code, ctx.actor);
          const customer = await findCustomer(knex, session.owner, session.customerId);
          return { object: 'customer_portal.session', token: session.token, expiresAt: session.expiresAt, customer: customer ? customerObject(customer) : null };
        },
      }),
      route({
        method: 'post',
        path: '/api/v1/customer-portal/sign-out',
        summary: 'End the portal session of the token',
        description: 'Signs the customer out: the token is refused from now on, by this operation too (`401 IKW-CPT-002`).',
        refusals: ['IKW-CPT-002'],
        auth: portal,
        response: {
          type: 'object',
          required: ['object', 'signedOut'],
          properties: {
            object: { const: 'customer_portal.session', description: 'Always `customer_portal.session`' },
            signedOut: { const: true, description: 'Always `true`: the token no longer works' },
          },
        },
        handler: async (ctx) => {
          const me = await caller(ctx);
          await signIn.signOut(me.owner, me.sessionId, ctx.actor);
          return { object: 'customer_portal.session', signedOut: true };
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/customer-portal/me',
        summary: "The signed-in customer's contact details and wallet balance",
        description: 'The customer the token signs in, as the merchant sees them: name, e-mail address, phone and wallet `balance`.',
        refusals: ['IKW-CPT-002'],
        auth: portal,
        response: customerSchema,
        handler: async (ctx) => {
          const me = await caller(ctx);
          return customerObject(await found('customer', me.customerId, findCustomer(knex, me.owner, me.customerId)));
        },
      }),
      route<{ name?: string; phone?: string | null }>({
        method: 'patch',
        path: '/api/v1/customer-portal/me',
        summary: "Change the name or phone number (international format; null removes it); the e-mail address signs the customer in and stays. Refused (403 IKW-CPT-003) when the merchant's portal settings do not allow it",
        description:
          'Lets the customer correct their own contact details: their name, or their phone number in international format (null removes it). The e-mail address signs them in and cannot change here. Only where your portal settings let customers update their details.',
        refusals: ['IKW-CPT-002', 'IKW-CPT-003', 'IKW-VAL-007'],
        emits: ['customer.updated'],
        auth: portal,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 250, description: 'Their full name' },
            phone: { type: ['string', 'null'], minLength: 4, maxLength: 32, description: 'Their phone number in international format (`+221 77 123 45 67`), kept normalized; null removes it' },
          },
        },
        response: customerSchema,
        handler: async (ctx) => {
          const me = await caller(ctx);
          assertPortalAllows((await readCustomerPortalSettings(knex, me.owner)).settings, 'customerUpdate');
          return billing.customers.updateContact(me.owner, me.customerId, ctx.body, ctx.actor);
        },
      }),
      route<unknown, CursorQuery>({
        method: 'get',
        path: '/api/v1/customer-portal/invoices',
        summary: "The customer's invoices, newest first",
        description:
          'Every invoice of the signed-in customer, newest first (cursor-paged), drafts left out (they are your work in progress until finalized): an `open` one can be paid with `…/invoices/{id}/pay` or on its `hosted_invoice_url`.',
        refusals: ['IKW-CPT-002'],
        auth: portal,
        query: cursorQuery(),
        response: cursorListSchema(invoiceSchema),
        handler: async (ctx) => {
          const me = await caller(ctx);
          return listIssuedInvoicesByCursor(knex, me.owner, ctx.query, '/api/v1/customer-portal/invoices', { customer: me.customerId });
        },
      }),
      route<{ payment_method: ConfirmInput['payment_method']; return_url?: string }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/customer-portal/invoices/:id/pay',
        summary: 'Pay an open invoice with a payment method: the payment intent, confirmed',
        description:
          "Pays what remains on one of the customer's open invoices: a payment intent, confirmed with `payment_method`, answered as it stands (follow `next_action` when the payer must act). An invoice has one payment at a time: submitting again with the same payment method while it is in progress answers that payment, never a second charge; another method is refused until it ends, and a failed payment lets the next submit try again. Another customer's invoice is `404 IKW-RES-001`.",
        refusals: [
          'IKW-CPT-002',
          'IKW-BIL-009',
          'IKW-BIL-012',
          'IKW-VAL-004',
          'IKW-VAL-005',
          'IKW-VAL-006',
          'IKW-VAL-007',
          'IKW-VAL-008',
          'IKW-VAL-010',
          'IKW-CAP-001',
          'IKW-CAP-002',
          'IKW-PRV-001',
          'IKW-PRV-002',
          'IKW-PRV-005',
          'IKW-ACT-006',
        ],
        emits: ['payment_intent.created', 'payment_intent.processing', 'payment_intent.requires_action', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'invoice.paid'],
        auth: portal,
        fields: { invoiceId: 'id', ...confirmationFields },
        params: idParams,
        body: payBody,
        response: paymentIntentSchema,
        handler: async (ctx) => {
          const me = await caller(ctx);
          const invoice = await findInvoice(knex, me.owner, ctx.params.id);
          await found('invoice', ctx.params.id, Promise.resolve(invoice?.customer === me.customerId && invoice.status !== 'draft' ? invoice : undefined));
          return billing.invoicePayments.payFromPortal(me.owner, ctx.params.id, { payment_method: ctx.body.payment_method, ...(ctx.body.return_url ? { return_url: ctx.body.return_url } : {}) }, ctx.actor);
        },
      }),
      route<unknown, CursorQuery>({
        method: 'get',
        path: '/api/v1/customer-portal/subscriptions',
        summary: "The customer's subscriptions, newest first",
        description: 'Every subscription of the signed-in customer, newest first (cursor-paged), canceled ones included.',
        refusals: ['IKW-CPT-002'],
        auth: portal,
        query: cursorQuery(),
        response: cursorListSchema(subscriptionSchema),
        handler: async (ctx) => {
          const me = await caller(ctx);
          return listSubscriptionsByCursor(knex, me.owner, ctx.query, '/api/v1/customer-portal/subscriptions', { customer: me.customerId });
        },
      }),
      route<{ cancelAtPeriodEnd: boolean }, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/customer-portal/subscriptions/:id',
        fields: { subscriptionId: 'id' },
        summary: "Cancel a subscription at the end of its period (cancelAtPeriodEnd: true; refused, 403 IKW-CPT-003, when the merchant's portal settings do not allow it), or resume it before then (false)",
        description:
          "Lets the customer stop one of their subscriptions at the end of the period they paid for (`cancelAtPeriodEnd: true`, where your portal settings let customers cancel), or change their mind before then (`false`: it renews again). A canceled subscription can be neither. Another customer's subscription is `404 IKW-RES-001`.",
        refusals: ['IKW-CPT-002', 'IKW-CPT-003', 'IKW-BIL-001'],
        emits: ['subscription.updated'],
        auth: portal,
        params: idParams,
        body: {
          type: 'object',
          required: ['cancelAtPeriodEnd'],
          additionalProperties: false,
          properties: { cancelAtPeriodEnd: { type: 'boolean', description: '`true`: end it when the current period ends; `false`: keep renewing it' } },
        },
        response: subscriptionSchema,
        handler: async (ctx) => {
          const me = await caller(ctx);
          const subscription = await findSubscription(knex, me.owner, ctx.params.id);
          await found('subscription', ctx.params.id, Promise.resolve(subscription?.customer === me.customerId ? subscription : undefined));
          if (ctx.body.cancelAtPeriodEnd) assertPortalAllows((await readCustomerPortalSettings(knex, me.owner)).settings, 'subscriptionCancel', 'cancelAtPeriodEnd');
          const state = ctx.body.cancelAtPeriodEnd ? await billing.subscriptions.cancel(me.owner, ctx.params.id, true, ctx.actor) : await billing.subscriptions.resume(me.owner, ctx.params.id, ctx.actor);
          return renderSubscription(toSubscriptionObject(state));
        },
      }),
      route<unknown, CursorQuery>({
        method: 'get',
        path: '/api/v1/customer-portal/payments',
        summary: "The customer's payments, newest first, each with its refunds and, once succeeded, its receipt",
        description: 'Every payment intent of the signed-in customer, newest first (cursor-paged), whatever paid it (an invoice, a checkout, your own integration), each with its `refunds` and, once succeeded, a `receipt`.',
        refusals: ['IKW-CPT-002'],
        auth: portal,
        query: cursorQuery(),
        response: cursorListSchema(paymentSchema),
        handler: async (ctx) => {
          const me = await caller(ctx);
          const page = await listPaymentIntents(knex, me.owner, ctx.query, '/api/v1/customer-portal/payments', { customer: me.customerId });
          const data = await Promise.all(
            page.data.map(async (pi) => {
              const refunds = (await listRefunds(knex, me.owner, pi.id, { page: 1, limit: 100 })).data;
              return { ...pi, refunds, receipt: pi.status === 'succeeded' ? receipt(pi, refunds) : null };
            }),
          );
          return { ...page, data };
        },
      }),
    ],
  };
}
