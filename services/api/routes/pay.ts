import type { Knex } from 'knex';
import { ApiError } from '../../../packages/core/errors.js';
import type { CheckoutSessions } from '../../../packages/domain/checkout-session/commands.js';
import { Reply } from '../../../packages/http/context.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findPaymentLinkBySlug } from '../../../projections/payment-links.js';
import { messagePage } from '../pages/checkout.js';
import { languageOf } from '../pages/layout.js';
import { wantsHtml } from './shared.js';

const slugParams = { type: 'object', properties: { slug: { type: 'string', pattern: '^[0-9A-Za-z]{16}$' } }, required: ['slug'] };

/** GET /pay/{slug}: a payment link's public address. Opens a checkout session for it and sends the customer to its page. */
export function payFamily(knex: Knex, sessions: CheckoutSessions): Family {
  return {
    name: 'pay',
    routes: [
      route<unknown, unknown, { slug: string }>({
        method: 'get',
        path: '/pay/:slug',
        summary: "A payment link's page: opens a checkout session for the link and answers 303 to its hosted page; a deactivated, expired or used-up link gets a page that says so",
        auth: 'public',
        params: slugParams,
        handler: async (ctx) => {
          const lang = languageOf(ctx.header('accept-language'));
          const browser = wantsHtml(ctx.header('accept'));
          const found = await findPaymentLinkBySlug(knex, ctx.params.slug);
          if (!found) {
            if (browser) return messagePage(lang, 'notFound', 404);
            throw new ApiError('IKW-RES-001', `No such payment link: '${ctx.params.slug}'`, 'slug');
          }
          try {
            const session = await sessions.openForLink(found.owner, found.link.id, {}, ctx.actor);
            return Reply.redirect(`/checkout/session/${session.id}`);
          } catch (err) {
            if (browser && err instanceof ApiError && (err.code === 'IKW-CHK-002' || err.code === 'IKW-CHK-003')) return messagePage(lang, 'unavailable', err.status);
            throw err;
          }
        },
      }),
    ],
  };
}
