import type { Knex } from 'knex';
import type { RateLimitRule } from '../../../packages/core/config.js';
import type { ContactInput, SupportTickets } from '../../../packages/families/support/commands.js';
import { SUPPORT_CATEGORIES } from '../../../packages/families/support/events.js';
import type { RateLimiter } from '../../../packages/http/rate-limit.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import { findMerchant } from '../../../projections/merchants/merchants.js';
import { resourceSchema } from './shared.js';

const supportWrite: RouteAuth = { scope: 'support.write', environmentHeader: 'optional' };

/** Requests per merchant, and per merchant × contact address: enough for a real problem, too few to flood the support inbox. */
export const SUPPORT_LIMITS: { perMerchant: RateLimitRule; perAddress: RateLimitRule } = {
  perMerchant: { limit: 20, windowMs: 3_600_000 },
  perAddress: { limit: 5, windowMs: 3_600_000 },
};

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S' });
const contactBody = {
  type: 'object',
  required: ['name', 'email', 'subject', 'message'],
  additionalProperties: false,
  properties: {
    name: text(200),
    email: { type: 'string', format: 'email', maxLength: 254 },
    subject: text(200),
    message: text(10_000),
    category: { enum: [...SUPPORT_CATEGORIES] },
    page: text(2048),
    relatedObject: text(255),
  },
};

const ticketSchema = resourceSchema('support_ticket', ['status', 'category', 'subject', 'email', 'createdAt', 'livemode'], {
  status: { const: 'received' },
  category: { enum: [...SUPPORT_CATEGORIES] },
  subject: { type: 'string' },
  email: { type: 'string' },
  createdAt: { type: 'string', format: 'date-time' },
  livemode: { type: 'boolean' },
});

/** /api/v1/support (docs/support.md): one operation, the contact form. */
export function supportFamily(knex: Knex, tickets: SupportTickets, limiter: RateLimiter): Family {
  return {
    name: 'support',
    description: 'Contacting Sika\'s support with the merchant\'s context attached.',
    routes: [
      route<ContactInput>({
        method: 'post',
        path: '/api/v1/support/intake/contact',
        summary: 'Contact support: the request is recorded and e-mailed to the support address with the merchant context (throttled per merchant and per contact address)',
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
