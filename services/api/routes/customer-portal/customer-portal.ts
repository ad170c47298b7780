import type { Knex } from 'knex';
import type { Clock } from '../../../../packages/core/clock.js';
import type { Billing } from '../../../../packages/families/billing/service.js';
import type { CustomerPortal } from '../../../../packages/families/customer-portal/commands.js';
import { assertPortalAllows } from '../../../../packages/families/customer-portal/settings.js';
import type { ConfirmInput } from '../../../../packages/families/payments/payment-intent/commands.js';
import type { PaymentIntentObject } from '../../../../packages/families/payments/payment-intent/events.js';
import type { RefundObject } from '../../../../packages/families/billing/refund/events.js';
import { toSubscriptionObject } from '../../../../packages/families/billing/subscription/render.js';
import type { HandlerContext } from '../../../../packages/http/context.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { customerObject, findCustomer, findInvoice, findSubscription, listInvoicesByCursor, listRefunds, listSubscriptionsByCursor, renderSubscription } from '../../../../projections/billing/index.js';
import { readCustomerPortalSettings } from '../../../../projections/customer-portal/index.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { listPaymentIntents } from '../../../../projections/payments/index.js';
import { customerSchema, invoiceSchema, refundSchema, subscriptionSchema } from '../../schemas/billing.js';
import { confirmationFields, cursorListSchema, cursorQuery, found, idParams, paymentIntentSchema, paymentMethodSchema, portalCaller, returnUrlSchema } from '../shared.js';

const signInBody = {
  type: 'object',
  required: ['merchantId', 'email'],
  additionalProperties: false,
  properties: {
    merchantId: { type: 'string', pattern: '^acct_[0-9A-Za-z]{24}$' },
    environment: { enum: ['sandbox', 'live'] },
    email: { type: 'string', format: 'email', maxLength: 254 },
  },
};

const verifyBody = {
  type: 'object',
  required: ['challengeId', 'code'],
  additionalProperties: false,
  properties: { challengeId: { type: 'string', format: 'uuid' }, code: { type: 'string', pattern: '^[0-9]{6}$' } },
};

const payBody = { type: 'object', required: ['payment_method'], additionalProperties: false, properties: { payment_method: paymentMethodSchema('snake_case'), return_url: returnUrlSchema } };

const challengeSchema = {
  type: 'object',
  required: ['object', 'challengeId', 'expiresAt'],
  properties: { object: { const: 'customer_portal.challenge' }, challengeId: { type: 'string', format: 'uuid' }, expiresAt: { type: 'string', format: 'date-time' } },
};

const sessionSchema = {
  type: 'object',
  required: ['object', 'token', 'expiresAt', 'customer'],
  properties: {
    object: { const: 'customer_portal.session' },
    token: { type: 'string', description: 'Bearer cps_…, for the other /api/v1/customer-portal routes' },
    expiresAt: { type: 'string', format: 'date-time' },
    customer: { anyOf: [customerSchema, { type: 'null' }] },
  },
};

const receiptSchema = {
  type: 'object',
  required: ['object', 'paymentIntentId', 'amountPaid', 'amountRefunded', 'currency', 'created'],
  properties: {
    object: { const: 'customer_portal.receipt' },
    paymentIntentId: { type: 'string' },
    amountPaid: { type: 'integer' },
    amountRefunded: { type: 'integer' },
    currency: { type: 'string' },
    description: { type: ['string', 'null'] },
    paymentMethod: { type: ['object', 'null'] },
    operationId: { type: ['string', 'null'] },
    created: { type: 'integer' },
  },
};

const paymentSchema = {
  ...paymentIntentSchema,
  required: [...paymentIntentSchema.required, 'refunds', 'receipt'],
  properties: { ...paymentIntentSchema.properties, refunds: { type: 'array', items: refundSchema }, receipt: { anyOf: [receiptSchema, { type: 'null' }] } },
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
export function customerPortalFamily(knex: Knex, clock: Clock, signIn: CustomerPortal, billing: Billing): Family {
  const caller = (ctx: HandlerContext<unknown, unknown, unknown>) => portalCaller(knex, clock.now(), ctx.header('authorization'));
  return {
    name: 'customer-portal',
    description: 'The customer portal\'s API: a merchant\'s customer signs in with a code by e-mail and sees their invoices, subscriptions, receipts and wallet.',
    routes: [
      route<{ merchantId: string; environment?: 'sandbox' | 'live'; email: string }>({
        method: 'post',
        path: '/api/v1/customer-portal/sign-in',
        summary: "Send a six-digit sign-in code to the customer's e-mail address (the same answer whether or not the merchant knows the address)",
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
        auth: portal,
        response: { type: 'object', required: ['object', 'signedOut'], properties: { object: { const: 'customer_portal.session' }, signedOut: { const: true } } },
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
        auth: portal,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { name: { type: 'string', minLength: 1, maxLength: 250 }, phone: { type: ['string', 'null'], minLength: 4, maxLength: 32 } },
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
        auth: portal,
        query: cursorQuery(),
        response: cursorListSchema(invoiceSchema),
        handler: async (ctx) => {
          const me = await caller(ctx);
          return listInvoicesByCursor(knex, me.owner, ctx.query, '/api/v1/customer-portal/invoices', { customer: me.customerId });
        },
      }),
      route<{ payment_method: ConfirmInput['payment_method']; return_url?: string }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/customer-portal/invoices/:id/pay',
        summary: 'Pay an open invoice with a payment method: the payment intent, confirmed',
        auth: portal,
        fields: { invoiceId: 'id', ...confirmationFields },
        params: idParams,
        body: payBody,
        response: paymentIntentSchema,
        handler: async (ctx) => {
          const me = await caller(ctx);
          const invoice = await findInvoice(knex, me.owner, ctx.params.id);
          await found('invoice', ctx.params.id, Promise.resolve(invoice?.customer === me.customerId ? invoice : undefined));
          return billing.invoices.payFromPortal(me.owner, ctx.params.id, { payment_method: ctx.body.payment_method, ...(ctx.body.return_url ? { return_url: ctx.body.return_url } : {}) }, ctx.actor);
        },
      }),
      route<unknown, CursorQuery>({
        method: 'get',
        path: '/api/v1/customer-portal/subscriptions',
        summary: "The customer's subscriptions, newest first",
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
        auth: portal,
        params: idParams,
        body: { type: 'object', required: ['cancelAtPeriodEnd'], additionalProperties: false, properties: { cancelAtPeriodEnd: { type: 'boolean' } } },
        response: subscriptionSchema,
        handler: async (ctx) => {
          const me = await caller(ctx);
          const subscription = await findSubscription(knex, me.owner, ctx.params.id);
          await found('subscription', ctx.params.id, Promise.resolve(subscription?.customer === me.customerId ? subscription : undefined));
          if (ctx.body.cancelAtPeriodEnd) assertPortalAllows((await readCustomerPortalSettings(knex, me.owner)).settings, 'subscriptionCancel', 'cancelAtPeriodEnd');
          const state = ctx.body.cancelAtPeriodEnd
            ? await billing.subscriptions.cancel(me.owner, ctx.params.id, true, ctx.actor)
            : await billing.subscriptions.resume(me.owner, ctx.params.id, ctx.actor);
          return renderSubscription(toSubscriptionObject(state));
        },
      }),
      route<unknown, CursorQuery>({
        method: 'get',
        path: '/api/v1/customer-portal/payments',
        summary: "The customer's payments, newest first, each with its refunds and, once succeeded, its receipt",
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
