import type { Knex } from 'knex';
import type { RateLimitRule } from '#packages/core/config.js';
import type { ContactInput, SupportTickets } from '../commands.js';
import { SUPPORT_CATEGORIES } from '../events.js';
import type { RateLimiter } from '#packages/http/rate-limit.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { findMerchant } from '#packages/families/merchants/read/index.js';
import { resourceSchema } from '#packages/http/route-kit.js';

const supportWrite: RouteAuth = { scope: 'support.write', environmentHeader: 'optional' };

/** Requests per merchant, and per merchant × contact address: enough for a real problem, too few to flood the support inbox. */
export const SUPPORT_LIMITS: { perMerchant: RateLimitRule; perAddress: RateLimitRule } = {
  perMerchant: { limit: 20, windowMs: 3_600_000 },
  perAddress: { limit: 5, windowMs: 3_600_000 },
};

const CATEGORY_WORDS: Record<(typeof SUPPORT_CATEGORIES)[number], string> = {
  payments: 'Taking payments: payment intents, checkout, payment links',
  payouts: 'Sending money: payouts and batches',
  account: 'Sign-in, team, organization, live activation',
  technical: 'The API, webhooks, SDKs',
  billing: 'Invoices, subscriptions, customers',
  other: 'Anything else',
};

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S' });
const contactBody = {
  type: 'object',
  required: ['name', 'email', 'subject', 'message'],
  additionalProperties: false,
  properties: {
    name: { ...text(200), description: 'Who is asking' },
    email: { type: 'string', format: 'email', maxLength: 254, description: 'Where support answers' },
    subject: { ...text(200), description: 'The problem in a line' },
    message: { ...text(10_000), description: 'What happened, what you expected, and what you tried' },
    category: { enum: [...SUPPORT_CATEGORIES], description: 'What it is about, so that the right person answers', 'x-enumDescriptions': CATEGORY_WORDS },
    page: { ...text(2048), description: 'The dashboard page the request was made from, if any' },
    relatedObject: { ...text(255), description: 'The id of the object it is about (a payment, a payout), so that support finds it at once' },
  },
};

const ticketSchema = resourceSchema('support_ticket', ['status', 'category', 'subject', 'email', 'createdAt', 'livemode'], {
  status: { const: 'received', description: 'Always `received`: the request is recorded and on its way to support' },
  category: { enum: [...SUPPORT_CATEGORIES], description: 'What it is about', 'x-enumDescriptions': CATEGORY_WORDS },
  subject: { type: 'string', description: 'The subject as given' },
  email: { type: 'string', description: 'Where support answers' },
  createdAt: { type: 'string', format: 'date-time', description: 'When it was received' },
  livemode: { type: 'boolean' },
});

/** /api/v1/support (docs/support.md): one operation, the contact form. */
export function supportRoutes(knex: Knex, tickets: SupportTickets, limiter: RateLimiter): RouteGroup {
  return {
    name: 'support',
    description: "Contacting Sika's support with the merchant's context attached.",
    routes: [
      route<ContactInput>({
        method: 'post',
        path: '/api/v1/support/intake/contact',
        summary: 'Contact support: the request is recorded and e-mailed to the support address with the merchant context (throttled per merchant and per contact address)',
        description:
          "Sends a request to Sika's support team with what they need to help at once: the merchant, the environment, who asked, and this request's id. Name the object it is about in `relatedObject`. At most 20 requests an hour per merchant and 5 per contact address (`429 IKW-LIM-001` with `Retry-After` beyond).",
        auth: supportWrite,
        body: contactBody,
        response: ticketSchema,
        status: 201,
        handler: async (ctx) => {
          const merchantId = ctx.owner.merchantId;
          await limiter.take([
            { key: `support:merchant:${merchantId}`, rule: SUPPORT_LIMITS.perMerchant },
            { key: `support:address:${merchantId}:${ctx.body.email.trim().toLowerCase()}`, rule: SUPPORT_LIMITS.perAddress },
          ]);
          const merchant = await findMerchant(knex, merchantId);
          const context = {
            merchantName: merchant?.name ?? null,
            livemode: ctx.principal.livemode,
            actor: ctx.principal.actor,
            userId: ctx.principal.user?.userId ?? null,
            requestId: ctx.requestId,
            userAgent: ctx.header('user-agent') ?? null,
          };
          return tickets.submit(ctx.owner, ctx.body, context, ctx.actor, ctx.requestRef);
        },
      }),
    ],
  };
}
