import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import type { KeyedHasher } from '#packages/core/hashing.js';
import { isRefused } from '#packages/core/refusal.js';
import { SESSION_LIFETIME_MS, type CheckoutFeeQuote, type CheckoutSessionPayments } from '../checkout-session/commands.js';
import { getCountry } from '#packages/catalog/index.js';
import { Reply, type HandlerContext } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findPublicCheckoutSession, type CheckoutSessionView } from '../read/checkout-sessions.js';
import { refusalIsFinal, refusalText } from './page-words.js';
import { messagePage, sessionPage } from './page.js';
import { languageOf, type Language } from '#packages/http/pages/layout.js';
import type { PageMerchantOf } from '#packages/families/assets/http/index.js';
import { confirmationFields } from '#packages/families/payments/http/index.js';
import { cookieOf, wantsHtml } from '#packages/http/route-kit.js';
import { nextUrl, sessionIdParams } from './schemas.js';

interface PayForm {
  PaymentMethod?: string;
  Operator?: string;
  PhoneNumber?: string;
  /** Which button sent the form: pay (the default) or cancel. */
  Action?: 'pay' | 'cancel';
}

const payForm = {
  type: 'object',
  additionalProperties: false,
  properties: {
    PaymentMethod: {
      enum: ['mobile_money', 'card'],
      description: 'How the customer pays; `mobile_money` when left out',
      'x-enumDescriptions': { mobile_money: 'Mobile money: `Operator` and `PhoneNumber` are required', card: "A card, typed on the provider's page the answer sends the browser to" },
    },
    Operator: { type: 'string', maxLength: 64, description: "The mobile money operator, one of the session country's (`orange`, `wave`…)" },
    PhoneNumber: { type: 'string', maxLength: 32, description: 'The mobile money number the operator asks to approve the payment' },
    Action: { enum: ['pay', 'cancel'], description: 'Which button sent the form; `pay` when left out', 'x-enumDescriptions': { pay: 'Pay the session', cancel: 'Cancel the session: the browser goes to its cancel URL' } },
  },
};

/** What each payin operator of the session's country costs the customer (operators whose limits refuse the amount are left out). */
function quotes(sessions: CheckoutSessionPayments, view: CheckoutSessionView): CheckoutFeeQuote[] {
  const s = view.session;
  if (!s.paymentMethodTypes.includes('mobile_money')) return [];
  return (getCountry(s.country)?.operators ?? []).flatMap((o) => {
    try {
      return [sessions.quote({ session: s }, { paymentMethodType: 'mobile_money', operator: o.code })];
    } catch {
      return [];
    }
  });
}

/** The cookie that marks the browser that paid or canceled a session (its Path is the session's page). */
const BROWSER_COOKIE = 'sika_checkout_browser';

/**
 * Whether a browser sent the form from another site's page. Such a post would cancel (or pay) the
 * customer's session and, with the 303 to the cancel URL, turn this origin into a redirect to any
 * URL the maker of the session chose. `Sec-Fetch-Site` decides where the browser sends it; else an
 * `Origin` naming another host. Programs send neither and are not browsers a page could steer.
 */
function sentFromAnotherSite(ctx: Pick<HandlerContext<unknown, unknown, unknown>, 'header'>): boolean {
  const fetchSite = ctx.header('sec-fetch-site');
  if (fetchSite !== undefined) return fetchSite !== 'same-origin' && fetchSite !== 'none';
  const origin = ctx.header('origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== ctx.header('host');
  } catch {
    return true; // `Origin: null` (a sandboxed frame, a data: page) or garbage
  }
}

/**
 * The hosted checkout page (`checkout` family): GET shows the session, POST takes the form. Both
 * answer browsers with pages (refusals re-show the form with the reason) and programs with JSON.
 *
 * A final session's success or cancel URL is followed (303) only by the browser that paid or
 * canceled it here, known by a cookie holding a keyed hash of the session id; any other visitor
 * gets a page with the link. Else anyone could make a session with a URL of their choosing, end it,
 * and hand out this origin's page as a redirect to it (an open redirect).
 */
export function checkoutPagesRoutes(knex: Knex, clock: Clock, sessions: CheckoutSessionPayments, browserMarks: KeyedHasher, secureCookies: boolean, pageMerchant: PageMerchantOf): RouteGroup {
  const find = async (id: string) => findPublicCheckoutSession(knex, id, clock.now());

  /** Whether this request comes from the browser that paid or canceled the session. */
  const actedHere = (ctx: Pick<HandlerContext<unknown, unknown, unknown>, 'header'>, id: string): boolean => {
    const mark = cookieOf(ctx, BROWSER_COOKIE);
    return mark !== undefined && /^[0-9a-f]{64}$/.test(mark) && browserMarks.matches(id, mark);
  };
  const markBrowser = (id: string) => ({
    'Set-Cookie': `${BROWSER_COOKIE}=${browserMarks.hash(id)}; Max-Age=${SESSION_LIFETIME_MS / 1000}; Path=/checkout/session/${id}; HttpOnly; SameSite=Lax${secureCookies ? '; Secure' : ''}`,
  });

  /** The page of a session as it stands: the form, the wait, or where the customer goes next (sent there when `followReturn`). */
  const render = async (lang: Language, view: CheckoutSessionView, followReturn: boolean, extra: { error?: string; errorFinal?: boolean; form?: { operator?: string; phone?: string }; status?: number } = {}): Promise<Reply> => {
    const s = view.session;
    const next = nextUrl(view);
    if (next && followReturn) return Reply.redirect(next);
    const merchant = await pageMerchant(view.owner);
    switch (s.status) {
      case 'complete':
        return messagePage(lang, 'succeeded', 200, { reference: view.intent?.latest_operation ?? null, paid: view.intent?.status === 'succeeded' ? view.intent : null, backUrl: next, merchant });
      case 'canceled':
        return messagePage(lang, 'canceled', 200, { backUrl: next, merchant });
      case 'expired':
        return messagePage(lang, 'expired', 410, { backUrl: s.cancelUrl, merchant });
      case 'open':
        return sessionPage(lang, { session: s, intent: view.intent, quotes: quotes(sessions, view), error: extra.error ?? null, errorFinal: extra.errorFinal ?? false, form: extra.form ?? {}, merchant }, extra.status ?? 200);
    }
  };

  const notFound = (ctx: HandlerContext<unknown, unknown, { sessionId: string }>) => {
    if (wantsHtml(ctx.header('accept'))) return messagePage(languageOf(ctx.header('accept-language')), 'notFound', 404);
    throw new ApiError('IKW-RES-001', `No such checkout session: '${ctx.params.sessionId}'`, 'sessionId');
  };

  return {
    name: 'checkout',
    description: "The hosted checkout pages a payer's browser opens, which work without JavaScript.",
    routes: [
      route<unknown, unknown, { sessionId: string }>({
        method: 'get',
        path: '/checkout/session/:sessionId',
        summary:
          'The hosted checkout page (HTML): the pay form, the wait while the operator answers, or once final a redirect to the merchant for the browser that paid or canceled it here (cookie sika_checkout_browser), a page with the link for any other',
        description:
          "The page a session's `url` names, for the customer's browser, in French or English (`Accept-Language`): the amount, the merchant and the pay form (the session country's operators, with what each costs the customer when they carry the fee); while the operator answers, a wait that polls the status; once final, the browser that paid or canceled here is sent on to the success or cancel URL (`303`), any other gets a page with the link. An expired session's page says so (`410`).",
        refusals: [],
        auth: 'public',
        params: sessionIdParams,
        answers: { html: true, redirect: true },
        handler: async (ctx) => {
          const view = await find(ctx.params.sessionId);
          if (!view) return notFound(ctx);
          return render(languageOf(ctx.header('accept-language')), view, actedHere(ctx, view.session.id));
        },
      }),
      route<PayForm, unknown, { sessionId: string }>({
        method: 'post',
        path: '/checkout/session/:sessionId/pay',
        // The form's own names for what it sends; the rest as the JSON API names them.
        fields: { ...confirmationFields, checkoutSessionId: 'id', 'paymentMethod.type': 'PaymentMethod', 'paymentMethod.mobileMoney.msisdn': 'PhoneNumber' },
        summary:
          "The hosted page's form (application/x-www-form-urlencoded or JSON): pay by mobile money, or by card (PaymentMethod=card: 303 to the provider's card page), or cancel with Action=cancel; answers 303 to the page, or to the cancel URL, and marks this browser as the one that paid or canceled (cookie sika_checkout_browser)",
        auth: 'public',
        description:
          "The hosted page's form: pays the session by mobile money (the customer approves on their phone) or sends the browser to the provider's card page, or cancels it (`Action=cancel`). It answers `303` back to the page, which waits for the outcome, or to the cancel URL, and marks this browser as the one that acted. A refusal shows the page again with the reason to a browser, coded JSON to a program. A form sent from another site's page is `403 IKW-CHK-005`, and phone numbers are rate-limited (`429 IKW-LIM-001`).",
        refusals: ['IKW-CHK-001', 'IKW-CHK-003', 'IKW-CHK-004', 'IKW-CHK-005', 'IKW-RES-002', 'IKW-VAL-005', 'IKW-VAL-007', 'IKW-VAL-008', 'IKW-CAP-001', 'IKW-CAP-002', 'IKW-PRV-001', 'IKW-PRV-002', 'IKW-PRV-005', 'IKW-ACT-006'],
        emits: ['payment_intent.created', 'payment_intent.processing', 'payment_intent.requires_action', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled'],
        params: sessionIdParams,
        body: payForm,
        form: true,
        answers: { html: true, redirect: true },
        handler: async (ctx) => {
          const id = ctx.params.sessionId;
          const lang = languageOf(ctx.header('accept-language'));
          const browser = wantsHtml(ctx.header('accept'));
          const form = { operator: ctx.body.Operator ?? '', phone: ctx.body.PhoneNumber ?? '' };
          try {
            if (sentFromAnotherSite(ctx)) throw new ApiError('IKW-CHK-005', 'This form can only be sent from its own checkout page', 'Action');
            if (ctx.body.Action === 'cancel') {
              await sessions.cancel(id, ctx.actor);
            } else if (ctx.body.PaymentMethod === 'card') {
              // The card is typed on the provider's page: no token here.
              await sessions.pay(id, { type: 'card', card: {} }, null, ctx.actor);
            } else {
              if (!ctx.body.Operator) throw new ApiError('IKW-VAL-001', 'Choose an operator', 'Operator');
              if (!ctx.body.PhoneNumber) throw new ApiError('IKW-VAL-001', 'Enter the mobile money number', 'PhoneNumber');
              await sessions.pay(id, { type: 'mobile_money', mobile_money: { operator: ctx.body.Operator, msisdn: ctx.body.PhoneNumber } }, null, ctx.actor);
            }
          } catch (err) {
            const view = isRefused(err) && browser ? await find(id) : undefined;
            if (!view || !isRefused(err)) throw err;
            // A browser gets the page again, with the reason and what the customer typed (and Retry-After, when limited).
            const refused = ctx.refusal(err);
            return (await render(lang, view, actedHere(ctx, id), { error: refusalText(lang, refused.code, refused.param), errorFinal: refusalIsFinal(refused.code), form, status: refused.status })).withHeaders(refused.headers);
          }
          const view = await find(id);
          if (!view) return notFound(ctx);
          // A card goes on to the provider's card page, which brings the payer back to this page.
          const cardPage = view.session.status === 'open' && view.intent?.next_action?.type === 'redirect_to_url' ? view.intent.next_action.redirect_to_url.url : null;
          if (cardPage && ctx.body.Action !== 'cancel') return Reply.redirect(cardPage).withHeaders(markBrowser(id));
          // This browser paid or canceled: it follows the merchant's URL now (cancel) or from its page once paid.
          return Reply.redirect(nextUrl(view) ?? `/checkout/session/${id}`).withHeaders(markBrowser(id));
        },
      }),
    ],
  };
}
