import type { CustomerObject } from '#packages/families/billing/index.js';
import type { InvoiceObject } from '#packages/families/billing/index.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import type { SubscriptionObject } from '#packages/families/billing/index.js';
import type { Reply } from '#packages/http/context.js';
import { CATALOGUE } from '#packages/families/checkout/http/index.js';
import { eta, formatAmount, pageReply, renderPage, type Language, type PageMerchant } from '#packages/http/pages/layout.js';

/**
 * The customer portal's hosted pages: sign in with the e-mailed code, then the account: contact
 * details, invoices (open ones link to their payment page), subscriptions (cancel at period end
 * when the merchant's portal settings allow it, resume), payments; a link back to the merchant's
 * site when the settings give one. Plain forms and links; no script.
 */

const TEXT = { en: CATALOGUE.en.portal, fr: CATALOGUE.fr.portal };

/** The merchant's name, and the link back to its site when its portal settings give one. */
const MERCHANT = `<% if (it.returnUrl) { %><p><a id="return" href="<%= it.returnUrl %>"><%= it.back %></a></p><% } %>`;

const SIGN_IN = `<h1><%= it.t.title %></h1>
<%~ include('@portal-merchant', it) %>
<% if (it.error) { %><div class="error" id="error" role="alert"><%= it.error %></div><% } %>
<% if (it.challengeId) { %>
<p class="status" role="status"><%= it.t.codeSent %></p>
<form method="post" action="<%= it.base %>/verify">
<input type="hidden" name="ChallengeId" value="<%= it.challengeId %>">
<label for="code"><%= it.t.code %></label>
<input id="code" name="Code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required aria-describedby="code-hint">
<p class="hint" id="code-hint"><%= it.t.codeHint %></p>
<button type="submit" class="pay" id="sign-in"><%= it.t.signIn %></button>
</form>
<% } else { %>
<form method="post" action="<%= it.base %>/sign-in">
<label for="email"><%= it.t.email %></label>
<input id="email" name="Email" type="email" autocomplete="email" required aria-describedby="email-hint">
<p class="hint" id="email-hint"><%= it.t.emailHint %></p>
<button type="submit" class="pay" id="send-code"><%= it.t.sendCode %></button>
</form>
<% } %>`;

const ACCOUNT = `<h1><%= it.t.title %></h1>
<%~ include('@portal-merchant', it) %>
<h2><%= it.t.contact %></h2>
<p id="contact"><%= it.customer.name || '' %><br><%= it.customer.email || '' %><br><%= it.customer.phone || '' %></p>
<h2><%= it.t.invoices %></h2>
<% if (it.invoices.length === 0) { %><p><%= it.t.none %></p><% } %>
<ul id="invoices"><% it.invoices.forEach(function (i) { %>
<li><%= i.amount %> · <%= i.status %><% if (i.payUrl) { %> · <a href="<%= i.payUrl %>"><%= it.t.pay %></a><% } %></li><% }) %>
</ul>
<h2><%= it.t.subscriptions %></h2>
<% if (it.subscriptions.length === 0) { %><p><%= it.t.none %></p><% } %>
<ul id="subscriptions"><% it.subscriptions.forEach(function (s) { %>
<li><%= s.status %> · <%= s.cancelAtPeriodEnd ? it.t.endsOn : it.t.renewsOn %> <%= s.periodEnd %>
<% if (s.state !== 'canceled' && (s.cancelAtPeriodEnd || it.canCancel)) { %><form method="post" action="<%= it.base %>/subscriptions/<%= s.id %>">
<input type="hidden" name="CancelAtPeriodEnd" value="<%= s.cancelAtPeriodEnd ? 'false' : 'true' %>">
<button type="submit" class="secondary"><%= s.cancelAtPeriodEnd ? it.t.resume : it.t.cancelAtEnd %></button></form><% } %></li><% }) %>
</ul>
<h2><%= it.t.payments %></h2>
<% if (it.payments.length === 0) { %><p><%= it.t.none %></p><% } %>
<ul id="payments"><% it.payments.forEach(function (p) { %>
<li><%= p.amount %> · <%= p.status %><% if (p.refunded) { %> · <%= p.refunded %> <%= it.t.refunded %><% } %></li><% }) %>
</ul>
<form method="post" action="<%= it.base %>/sign-out"><button type="submit" class="secondary" id="sign-out"><%= it.t.signOut %></button></form>`;

eta.loadTemplate('@portal-merchant', MERCHANT);
eta.loadTemplate('@portal-sign-in', SIGN_IN);
eta.loadTemplate('@portal-account', ACCOUNT);

/** The merchant whose portal it is: its name and logo (the layout's header), and its site (the portal settings' return URL). */
export interface PortalMerchant {
  page: PageMerchant | null;
  returnUrl: string | null;
}

/** What every portal page shows of the merchant. */
function merchantFields(lang: Language, merchant: PortalMerchant) {
  const t = TEXT[lang];
  return { returnUrl: merchant.returnUrl, back: merchant.page ? t.backTo.replace('{merchant}', merchant.page.name) : t.backToSite };
}

/** The sign-in page: the e-mail form, or (with a challenge) the code form. */
export function signInPage(lang: Language, input: { base: string; merchant: PortalMerchant; challengeId?: string; error?: boolean }, status = 200, headers: Record<string, string> = {}): Reply {
  const t = TEXT[lang];
  const body = eta.render('@portal-sign-in', { t, base: input.base, ...merchantFields(lang, input.merchant), challengeId: input.challengeId ?? null, error: input.error ? t.wrongCode : null });
  return pageReply(renderPage(lang, t.title, body, { merchant: input.merchant.page }), status, { headers });
}

export interface AccountView {
  customer: CustomerObject;
  invoices: InvoiceObject[];
  subscriptions: SubscriptionObject[];
  payments: (PaymentIntentObject & { refunded: number })[];
  /** Whether the merchant's portal settings let customers cancel a subscription (resuming one is always offered). */
  canCancel: boolean;
}

const day = (unix: number, lang: Language) => new Date(unix * 1000).toLocaleDateString(lang === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });

/** The signed-in customer's account. */
export function accountPage(lang: Language, base: string, merchant: PortalMerchant, view: AccountView): Reply {
  const t = TEXT[lang];
  const body = eta.render('@portal-account', {
    t,
    base,
    ...merchantFields(lang, merchant),
    canCancel: view.canCancel,
    customer: view.customer,
    invoices: view.invoices.map((i) => ({ amount: formatAmount(i.amount_due, i.currency, lang), status: CATALOGUE[lang].invoice.status[i.status], payUrl: i.status === 'open' ? i.hosted_invoice_url : null })),
    subscriptions: view.subscriptions.map((s) => ({ id: s.id, state: s.status, status: t.subscriptionStatus[s.status] ?? t.unknownStatus, cancelAtPeriodEnd: s.cancel_at_period_end, periodEnd: day(s.current_period_end, lang) })),
    payments: view.payments.map((p) => ({ amount: formatAmount(p.amount, p.currency, lang), status: t.paymentStatus[p.status] ?? t.unknownStatus, refunded: p.refunded > 0 ? formatAmount(p.refunded, p.currency, lang) : null })),
  });
  return pageReply(renderPage(lang, t.title, body, { merchant: merchant.page }), 200);
}
