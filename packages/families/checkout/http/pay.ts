import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { isRefused } from '#packages/core/refusal.js';
import { SESSION_LIFETIME_MS } from '../checkout-session/commands.js';
import type { CheckoutSessionOpening } from '../checkout-session/opening.js';
import { Reply } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findPaymentLinkBySlug } from '../read/payment-links.js';
import { messagePage } from './page.js';
import { languageOf } from '#packages/http/pages/layout.js';
import type { PageMerchantOf } from '#packages/families/assets/http/index.js';
import { cookieOf, wantsHtml } from '#packages/http/route-kit.js';

const slugParams = { type: 'object', properties: { slug: { type: 'string', pattern: '^[0-9A-Za-z]{16}$', description: "The payment link's `slug`, the end of its `url`" } }, required: ['slug'] };

/** The cookie that brings a browser back to the session it opened for a link (its Path is the link's). */
const SESSION_COOKIE = 'sika_checkout';

/**
 * GET /pay/{slug}: a payment link's public address. Sends the customer to the checkout session
 * their browser opened for the link while it is open (a cookie scoped to the link's path), else
 * opens one; a visit does not make a session each.
 */
export function payRoutes(knex: Knex, sessions: CheckoutSessionOpening, publicUrl: string, pageMerchant: PageMerchantOf): RouteGroup {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : '';
  return {
    name: 'pay',
    description: "The public address of a payment link, which opens a checkout session for the payer's browser.",
    routes: [
      route<unknown, unknown, { slug: string }>({
        method: 'get',
        path: '/pay/:slug',
        summary: "A payment link's page: answers 303 to the hosted page of the checkout session this browser opened for the link (cookie sika_checkout), or of a new one; a deactivated, expired or used-up link gets a page that says so",
        description:
          "The address a payment link's `url` names, for the customer's browser: it opens a checkout session of the link's values (or finds the one this browser opened, while it is still open) and answers `303` to its hosted page. A deactivated or expired link (`410 IKW-CHK-002`) or a single-use link already paid (`409 IKW-CHK-003`) gets a page that says so; programs get the coded JSON errors.",
        refusals: ['IKW-CHK-002', 'IKW-CHK-003'],
        auth: 'public',
        params: slugParams,
        answers: { redirect: true, html: true },
        handler: async (ctx) => {
          const lang = languageOf(ctx.header('accept-language'));
          const browser = wantsHtml(ctx.header('accept'));
          const found = await findPaymentLinkBySlug(knex, ctx.params.slug);
          if (!found) {
            if (browser) return messagePage(lang, 'notFound', 404);
            throw new ApiError('IKW-RES-001', `No such payment link: '${ctx.params.slug}'`, 'slug');
          }
          try {
            const given = cookieOf(ctx, SESSION_COOKIE);
            // Only a value of a checkout session's shape is looked up.
            const remembered = given !== undefined && /^cs_\w{1,64}$/.test(given) ? given : null;
            const session = await sessions.visitLink(found.owner, found.link.id, remembered, ctx.actor);
            const redirect = Reply.redirect(`/checkout/session/${session.id}`);
            if (session.id === remembered) return redirect;
            const cookie = `${SESSION_COOKIE}=${session.id}; Max-Age=${SESSION_LIFETIME_MS / 1000}; Path=/pay/${ctx.params.slug}; HttpOnly; SameSite=Lax${secure}`;
            return redirect.withHeaders({ 'Set-Cookie': cookie });
          } catch (err) {
            if (browser && isRefused(err, 'IKW-CHK-002', 'IKW-CHK-003')) return messagePage(lang, 'unavailable', ctx.refusal(err).status, { merchant: await pageMerchant(found.owner) });
            throw err;
          }
        },
      }),
    ],
  };
}
