import { getCountry, getOperator } from '#packages/catalog/index.js';
import type { CheckoutFeeQuote } from '../checkout-session/commands.js';
import type { CheckoutSessionObject } from '../checkout-session/events.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import type { Reply } from '#packages/http/context.js';
import { CATALOGUE, failureReason, type Catalogue } from './page-words.js';
import { eta, formatAmount, inlineHash, pageReply, renderPage, type Language, type PageMerchant } from '#packages/http/pages/layout.js';

/**
 * The hosted checkout pages (layout and policy in ./layout.ts): usable without JavaScript (a form
 * POST; a refresh while the operator answers) and, with it, polling the status until final.
 */

const TEXT = { en: CATALOGUE.en.checkout, fr: CATALOGUE.fr.checkout };

export type Messages = Catalogue['checkout'];

/**
 * Polls the page's status while the operator answers, then reloads and lets the server decide what
 * the page becomes: it sends on to the merchant only the browser that paid (not the status's redirectUrl).
 */
const SCRIPT = `(function(){var el=document.getElementById('status');if(!el)return;var url=el.getAttribute('data-poll');
function tick(){fetch(url,{headers:{accept:'application/json'},cache:'no-store'}).then(function(r){return r.json()}).then(function(s){
if(s.status==='open'&&s.paymentStatus==='processing'){setTimeout(tick,1000);return}
location.reload()}).catch(function(){setTimeout(tick,2000)})}
setTimeout(tick,1000)})();`;

const SCRIPT_HASH = inlineHash(SCRIPT);

/** Where Paystack's checkout page is: a card form's answer sends the browser there. */
const PAYSTACK_CHECKOUT = 'https://checkout.paystack.com';

const SESSION_PAGE = `<h1><%= it.t.title %><% if (it.description) { %>: <%= it.description %><% } %></h1>
<% if (!it.livemode) { %><p class="notice"><%= it.t.test %></p><% } %>
<p><%= it.t.amount %></p>
<p class="amount" id="amount"><%= it.amount %></p>
<% if (it.feeByCustomer) { %><p class="hint"><%= it.t.fee %></p><% } %>
<% if (it.state === 'processing') { %>
<p class="status" id="status" role="status" aria-live="polite" data-poll="<%= it.pollUrl %>"><%= it.t.processing %></p>
<% if (it.cardPage) { %><p><a href="<%= it.cardPage %>" id="card-page"><%= it.t.cardContinue %></a></p><% } %>
<% } else { %>
<% if (it.error) { %><div class="error" id="error" role="alert"><p><strong><%= it.error %></strong></p><% if (!it.errorFinal) { %><p><%= it.t.tryAgain %></p><% } %></div><% } %>
<% if (it.mobileMoney) { %>
<form method="post" action="<%= it.payUrl %>">
<input type="hidden" name="PaymentMethod" value="mobile_money">
<label for="operator"><%= it.t.operator %></label>
<select id="operator" name="Operator" required>
<option value=""><%= it.t.chooseOperator %></option>
<% it.operators.forEach(function (o) { %><option value="<%= o.code %>"<% if (o.selected) { %> selected<% } %>><%= o.label %></option>
<% }) %></select>
<label for="phone"><%= it.t.phone %></label>
<input id="phone" name="PhoneNumber" type="tel" inputmode="tel" autocomplete="tel" required value="<%= it.phone %>" aria-describedby="phone-hint">
<p class="hint" id="phone-hint"><%= it.t.phoneHint %></p>
<button type="submit" class="pay" name="Action" value="pay" id="pay"><%= it.t.pay %> <%= it.amount %></button>
<button type="submit" class="secondary" name="Action" value="cancel" id="cancel" formnovalidate><%= it.t.cancel %></button>
</form>
<% } %>
<% if (it.card) { %>
<form method="post" action="<%= it.payUrl %>">
<input type="hidden" name="PaymentMethod" value="card">
<p class="hint" id="card-hint"><%= it.t.cardHint %></p>
<button type="submit" class="pay" name="Action" value="pay" id="pay-card" aria-describedby="card-hint"><%= it.t.payByCard %> <%= it.amount %></button>
<% if (!it.mobileMoney) { %><button type="submit" class="secondary" name="Action" value="cancel" id="cancel"><%= it.t.cancel %></button><% } %>
</form>
<% } %>
<% } %>`;

const MESSAGE_PAGE = `<h1 id="message"><%= it.message %></h1>
<% if (it.receipt) { %><section aria-labelledby="receipt-title"><h2 id="receipt-title"><%= it.t.receipt %></h2><dl id="receipt">
<dt><%= it.t.paidAmount %></dt><dd id="receipt-amount"><%= it.receipt.amount %></dd>
<dt><%= it.t.date %></dt><dd><%= it.receipt.date %></dd>
<% if (it.receipt.method) { %><dt><%= it.t.method %></dt><dd id="receipt-method"><%= it.receipt.method %></dd><% } %>
<% if (it.receipt.merchant) { %><dt><%= it.t.paidTo %></dt><dd><%= it.receipt.merchant %></dd><% } %>
<dt><%= it.t.reference %></dt><dd id="receipt-reference"><%= it.receipt.reference %></dd>
<% if (it.receipt.operatorReference) { %><dt><%= it.t.operatorReference %></dt><dd id="receipt-operator-reference"><%= it.receipt.operatorReference %></dd><% } %>
</dl></section>
<% } else if (it.reference) { %><p class="notice"><%= it.t.reference %> <%= it.reference %></p><% } %>
<% if (it.backUrl) { %><p><a href="<%= it.backUrl %>" id="back"><%= it.t.back %> (<%= it.backHost %>)</a></p><% } %>`;

eta.loadTemplate('@session', SESSION_PAGE);
eta.loadTemplate('@message', MESSAGE_PAGE);

/** A page with one message (paid, canceled, expired, unavailable) and a link back to the merchant when there is one, naming its host. */
export function messagePage(lang: Language, message: keyof Messages, status: number, options: { backUrl?: string | null; reference?: string | null; merchant?: PageMerchant | null; paid?: PaymentIntentObject | null } = {}): Reply {
  const t = TEXT[lang];
  const backUrl = options.backUrl ?? null;
  const paid = options.paid ?? null;
  const receipt = paid && {
    amount: formatAmount(paid.amount, paid.currency, lang),
    date: new Intl.DateTimeFormat(lang === 'fr' ? 'fr-FR' : 'en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(paid.created * 1000)),
    method: methodText(lang, paid.payment_method),
    merchant: options.merchant?.name ?? null,
    // The payment's id: what the merchant's dashboard search finds the payment by.
    reference: paid.id,
    operatorReference: paid.provider_reference ?? null,
  };
  const body = eta.render('@message', { t, message: t[message], backUrl, backHost: backUrl === null ? null : new URL(backUrl).host, reference: options.reference ?? null, receipt });
  return pageReply(renderPage(lang, t[message], body, { merchant: options.merchant ?? null }), status);
}

/** How a payment was made, as its payer recognises it: "Orange Money ••4567", "Visa ••4242". */
function methodText(lang: Language, method: PaymentIntentObject['payment_method']): string | null {
  if (!method) return null;
  if (method.type === 'card') return `${method.card.brand || TEXT[lang].card} ••${method.card.last4}`;
  const m = method.mobile_money;
  return `${getOperator(m.country, m.operator)?.name ?? m.operator} ••${m.msisdn.slice(-4)}`;
}

export interface SessionPageInput {
  session: CheckoutSessionObject;
  intent: PaymentIntentObject | null;
  /** What the customer pays with each operator (the fee differs by operator when the customer carries it). */
  quotes: CheckoutFeeQuote[];
  /** A refusal of the form just sent, or the failure of the last attempt. */
  error?: string | null;
  /** The refusal is not overcome by another number or operator (the merchant's live is not open): no invitation to try again. */
  errorFinal?: boolean;
  form?: { operator?: string; phone?: string };
  merchant?: PageMerchant | null;
}

/** The hosted page of an open session: the pay form, or the wait while the operator answers. */
export function sessionPage(lang: Language, input: SessionPageInput, status = 200): Reply {
  const t = TEXT[lang];
  const s = input.session;
  const processing = s.paymentStatus === 'processing';
  const lastError = input.intent?.last_payment_error ?? null;
  const lastFailure = s.paymentStatus === 'failed' ? `${t.failed}${lastError ? ` (${failureReason(lang, lastError.code)})` : ''}.` : null;
  const country = getCountry(s.country);
  const byOperator = new Map(input.quotes.map((q) => [q.operator, q.amountTotal]));
  const operators = (country?.operators ?? [])
    .filter((o) => byOperator.has(o.code))
    .map((o) => ({
      code: o.code,
      label: s.feeMode === 'customer' ? `${o.name} (${formatAmount(byOperator.get(o.code)!, s.currency, lang)})` : o.name,
      selected: input.form?.operator === o.code,
    }));
  const lowest = Math.min(...input.quotes.map((q) => q.amountTotal));
  const shown = processing && s.amountTotal !== null ? s.amountTotal : Number.isFinite(lowest) ? lowest : s.amount;
  const body = eta.render('@session', {
    t,
    state: processing ? 'processing' : 'form',
    description: s.description,
    livemode: s.livemode,
    amount: formatAmount(shown, s.currency, lang),
    feeByCustomer: s.feeMode === 'customer',
    pollUrl: `/api/checkout/${s.id}/status`,
    payUrl: `/checkout/session/${s.id}/pay`,
    operators,
    mobileMoney: s.paymentMethodTypes.includes('mobile_money'),
    card: s.paymentMethodTypes.includes('card'),
    cardPage: input.intent?.next_action?.type === 'redirect_to_url' ? input.intent.next_action.redirect_to_url.url : null,
    phone: input.form?.phone ?? '',
    error: input.error ?? lastFailure,
    errorFinal: input.error != null && input.errorFinal === true,
  });
  return pageReply(renderPage(lang, `${t.title} ${formatAmount(shown, s.currency, lang)}`, body, { script: processing ? SCRIPT : null, refresh: processing, merchant: input.merchant ?? null }), status, {
    // A card payment's form is answered with a redirect to the provider's card page (Paystack's checkout in live).
    formTargets: [s.successUrl, s.cancelUrl, ...(s.paymentMethodTypes.includes('card') ? [PAYSTACK_CHECKOUT] : [])],
    scriptHash: processing ? SCRIPT_HASH : null,
  });
}
