import { isOwned } from '#packages/core/aggregate.js';
import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import { isRefused } from '#packages/core/refusal.js';
import type { Billing } from '#packages/families/billing/index.js';
import type { CustomerPortal } from '../commands.js';
import { assertPortalAllows } from '../settings.js';
import { Reply, type HandlerContext } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { customerObject, findCustomer, findSubscription, listIssuedInvoicesByCursor, listRefunds, listSubscriptionsByCursor } from '#packages/families/billing/read/index.js';
import { readCustomerPortalSettings } from '../read/index.js';
import { listPaymentIntents } from '#packages/families/payments/read/index.js';
import { languageOf } from '#packages/http/pages/layout.js';
import type { PageMerchantOf } from '#packages/families/assets/http/index.js';
import { accountPage, signInPage } from './page.js';
import { cookieOf, found } from '#packages/http/route-kit.js';
import { portalSessionOf } from './portal-caller.js';
import type { Owner } from '#packages/core/owner.js';
import { customerPortalErrors } from '../errors.js';

const COOKIE = 'sika_portal';
const pageParams = {
  type: 'object',
  required: ['environment', 'merchantId'],
  properties: {
    environment: {
      enum: ['sandbox', 'live'],
      description: "The merchant's environment whose customers the portal serves",
      'x-enumDescriptions': { sandbox: 'The sandbox (test) portal', live: 'The live portal' },
    },
    merchantId: { type: 'string', pattern: '^acct_[0-9A-Za-z]{24}$', description: 'The merchant whose portal it is (`acct_…`)' },
  },
};
const subscriptionParams = {
  ...pageParams,
  required: [...pageParams.required, 'id'],
  properties: { ...pageParams.properties, id: { type: 'string', minLength: 1, maxLength: 255, description: "One of the signed-in customer's subscriptions (`sub_…`)" } },
};

type PageParams = { environment: Owner['environment']; merchantId: string };

/**
 * The customer portal as hosted pages, at `/portal/{environment}/{merchantId}`: the same sign-in
 * and account as /api/v1/customer-portal, for customers without an app. The portal token lives in
 * an HttpOnly, SameSite=Strict cookie scoped to the merchant's portal path.
 */
export function customerPortalPagesRoutes(knex: Knex, clock: Clock, signIn: CustomerPortal, billing: Billing, secureCookies: boolean, pageMerchant: PageMerchantOf): RouteGroup {
  const base = (p: PageParams) => `/portal/${p.environment}/${p.merchantId}`;
  const cookie = (p: PageParams, token: string, maxAge: number) => `${COOKIE}=${token}; Path=${base(p)}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secureCookies ? '; Secure' : ''}`;
  /** The signed-in customer of this merchant's portal, if the cookie holds a live session of it. */
  const signedIn = async (ctx: HandlerContext<unknown, unknown, PageParams>) => {
    const session = await portalSessionOf(knex, clock.now(), cookieOf(ctx, COOKIE));
    const owner = { merchantId: ctx.params.merchantId, environment: ctx.params.environment };
    return isOwned(session?.owner, owner) ? session : undefined;
  };
  /** What the page names and links back to: the merchant, and its site when its portal settings give one. */
  const merchantOf = async (p: PageParams) => ({ page: await pageMerchant({ merchantId: p.merchantId, environment: p.environment }), returnUrl: (await settingsOf(p)).returnUrl });
  const settingsOf = async (p: PageParams) => (await readCustomerPortalSettings(knex, { merchantId: p.merchantId, environment: p.environment })).settings;
  const back = (p: PageParams, headers: Record<string, string> = {}) => Reply.redirect(base(p)).withHeaders(headers);

  return {
    name: 'customer-portal-pages',
    description: "The customer portal's pages for a browser, which work without JavaScript.",
    routes: [
      route<unknown, unknown, PageParams>({
        method: 'get',
        path: '/portal/:environment/:merchantId',
        summary: "The customer portal's page (HTML): the sign-in form, or the signed-in customer's account",
        description:
          "The hosted customer portal to link your customers to, in their browser's language: an e-mail sign-in form, then their account (contact details, invoices, subscriptions with a cancel or resume button, payments with their refunds). It works without JavaScript; the session lives in an HttpOnly cookie for this portal's path.",
        auth: 'public',
        params: pageParams,
        answers: { html: true },
        handler: async (ctx) => {
          const lang = languageOf(ctx.header('accept-language'));
          const session = await signedIn(ctx);
          if (!session) return signInPage(lang, { base: base(ctx.params), merchant: await merchantOf(ctx.params) });
          const { owner, customerId } = session;
          const all = { limit: 100 };
          const customer = customerObject(await found('customer', customerId, findCustomer(knex, owner, customerId)));
          const invoices = (await listIssuedInvoicesByCursor(knex, owner, all, base(ctx.params), { customer: customerId })).data;
          const subscriptions = (await listSubscriptionsByCursor(knex, owner, all, base(ctx.params), { customer: customerId })).data;
          const intents = (await listPaymentIntents(knex, owner, all, base(ctx.params), { customer: customerId })).data;
          const payments = await Promise.all(
            intents.map(async (pi) => ({
              ...pi,
              refunded: (await listRefunds(knex, owner, pi.id, { page: 1, limit: 100 })).data.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0),
            })),
          );
          return accountPage(lang, base(ctx.params), await merchantOf(ctx.params), { customer, invoices, subscriptions, payments, canCancel: (await settingsOf(ctx.params)).subscriptionCancel });
        },
      }),
      route<{ Email: string }, unknown, PageParams>({
        method: 'post',
        path: '/portal/:environment/:merchantId/sign-in',
        summary: 'The sign-in form: sends the code and shows the code form',
        description:
          'The sign-in form posts here: a six-digit code goes to the address (only if it is a customer of the merchant), and the page answers with the code form either way, so it never tells who is a customer. Each request counts against the sign-in limits.',
        auth: 'public',
        params: pageParams,
        body: {
          type: 'object',
          required: ['Email'],
          additionalProperties: false,
          properties: { Email: { type: 'string', format: 'email', maxLength: 254, description: 'The e-mail address the merchant knows the customer by' } },
        },
        form: true,
        throttle: (body) => body.Email.toLowerCase(),
        throttleEveryRequest: true,
        answers: { html: true },
        handler: async (ctx) => {
          const challenge = await signIn.requestCode({ merchantId: ctx.params.merchantId, environment: ctx.params.environment }, ctx.body.Email, ctx.actor);
          return signInPage(languageOf(ctx.header('accept-language')), { base: base(ctx.params), merchant: await merchantOf(ctx.params), challengeId: challenge.challengeId });
        },
      }),
      route<{ ChallengeId: string; Code: string }, unknown, PageParams>({
        method: 'post',
        path: '/portal/:environment/:merchantId/verify',
        summary: 'The code form: signs the customer in (a cookie) and shows the account',
        description:
          "The code form posts here: a right code sets the session cookie (one hour) and answers `303` to the account page; a wrong, expired or used code shows the code form again with the error (`401`). A code of another merchant's or environment's portal is wrong here.",
        refusals: ['IKW-CPT-001'],
        auth: 'public',
        params: pageParams,
        body: {
          type: 'object',
          required: ['ChallengeId', 'Code'],
          additionalProperties: false,
          properties: {
            ChallengeId: { type: 'string', format: 'uuid', description: 'The challenge the sign-in form started (a hidden field of the code form)' },
            Code: { type: 'string', maxLength: 16, description: 'The six-digit code of the e-mail (spaces around it are ignored)' },
          },
        },
        form: true,
        throttle: (body) => body.ChallengeId,
        answers: { html: true, redirect: true },
        handler: async (ctx) => {
          try {
            const session = await signIn.verify(ctx.body.ChallengeId, ctx.body.Code.trim(), ctx.actor);
            if (!isOwned(session.owner, ctx.params)) throw new ApiError('IKW-CPT-001', customerPortalErrors['IKW-CPT-001'].message, 'code');
            return back(ctx.params, { 'Set-Cookie': cookie(ctx.params, session.token, 3_600) });
          } catch (err) {
            if (!isRefused(err, 'IKW-CPT-001')) throw err;
            const lang = languageOf(ctx.header('accept-language'));
            return signInPage(lang, { base: base(ctx.params), merchant: await merchantOf(ctx.params), challengeId: ctx.body.ChallengeId, error: true }, ctx.refusal(err).status);
          }
        },
      }),
      route<{ CancelAtPeriodEnd: 'true' | 'false' }, unknown, PageParams & { id: string }>({
        method: 'post',
        path: '/portal/:environment/:merchantId/subscriptions/:id',
        fields: { subscriptionId: 'id' },
        summary: "The account page's subscription button: cancel at period end (when the merchant's portal settings allow it), or resume",
        description:
          "The account page's button posts here for the signed-in customer (the cookie): cancel the subscription at the end of its period, where the merchant's portal settings allow it, or resume it; then `303` back to the account page. Without a session it is `401 IKW-CPT-002`; another customer's subscription is `404 IKW-RES-001`.",
        refusals: ['IKW-CPT-002', 'IKW-CPT-003', 'IKW-BIL-001'],
        emits: ['subscription.updated'],
        auth: 'public',
        params: subscriptionParams,
        body: {
          type: 'object',
          required: ['CancelAtPeriodEnd'],
          additionalProperties: false,
          properties: {
            CancelAtPeriodEnd: {
              enum: ['true', 'false'],
              description: 'What the button asks',
              'x-enumDescriptions': { true: 'Cancel it when the current period ends', false: 'Resume it: keep renewing' },
            },
          },
        },
        form: true,
        answers: { redirect: true },
        handler: async (ctx) => {
          const session = await signedIn(ctx);
          if (!session) throw new ApiError('IKW-CPT-002', customerPortalErrors['IKW-CPT-002'].message);
          const subscription = await findSubscription(knex, session.owner, ctx.params.id);
          await found('subscription', ctx.params.id, Promise.resolve(subscription?.customer === session.customerId ? subscription : undefined));
          if (ctx.body.CancelAtPeriodEnd === 'true') {
            assertPortalAllows(await settingsOf(ctx.params), 'subscriptionCancel', 'CancelAtPeriodEnd');
            await billing.subscriptions.cancel(session.owner, ctx.params.id, true, ctx.actor);
          } else await billing.subscriptions.resume(session.owner, ctx.params.id, ctx.actor);
          return back(ctx.params);
        },
      }),
      route<unknown, unknown, PageParams>({
        method: 'post',
        path: '/portal/:environment/:merchantId/sign-out',
        summary: 'Signs the customer out and forgets the cookie',
        description: "The account page's sign-out button: ends the session, clears the cookie and answers `303` to the sign-in page. Without a session it just clears the cookie.",
        auth: 'public',
        params: pageParams,
        answers: { redirect: true },
        handler: async (ctx) => {
          const session = await signedIn(ctx);
          if (session) await signIn.signOut(session.owner, session.sessionId, ctx.actor);
          return back(ctx.params, { 'Set-Cookie': cookie(ctx.params, '', 0) });
        },
      }),
    ],
  };
}
