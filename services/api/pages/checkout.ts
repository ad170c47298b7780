import { createHash } from 'node:crypto';
import { Eta } from 'eta';
import { getCountry, getCurrency } from '../../../packages/catalog/index.js';
import type { CheckoutFeeQuote } from '../../../packages/domain/checkout-session/commands.js';
import type { CheckoutSessionObject } from '../../../packages/domain/checkout-session/events.js';
import type { PaymentIntentObject } from '../../../packages/domain/payment-intent/events.js';
import { Reply } from '../../../packages/http/context.js';

/**
 * The hosted checkout pages: server-rendered with eta (every value escaped), usable without
 * JavaScript (a form POST; a refresh while the operator answers) and, with it, polling the status
 * until final. Nothing is loaded from another host; the one script and the one style sheet are
 * inline and allowed by their hashes in a strict Content-Security-Policy.
 */

export type Language = 'en' | 'fr';

const TEXT = {
  en: {
    title: 'Payment',
    amount: 'Amount to pay',
    fee: 'including the operator fee',
    operator: 'Mobile money operator',
    chooseOperator: 'Choose your operator',
    phone: 'Mobile money number',
    phoneHint: 'The number of the account that pays, e.g. +221 77 123 45 67',
    pay: 'Pay',
    cancel: 'Cancel and return to the merchant',
    processing: 'Approve the payment on your phone. This page updates by itself.',
    failed: 'The payment did not go through',
    tryAgain: 'You can try again, with another number or operator if needed.',
    succeeded: 'Payment received. Thank you!',
    canceled: 'The payment was canceled.',
    expired: 'This payment page has expired.',
    unavailable: 'This payment link is no longer available.',
    notFound: 'This payment page does not exist.',
    back: 'Return to the merchant',
    test: 'Test payment (sandbox): no money moves.',
    reference: 'Reference',
  },
  fr: {
    title: 'Paiement',
    amount: 'Montant à payer',
    fee: 'frais de l’opérateur compris',
    operator: 'Opérateur de mobile money',
    chooseOperator: 'Choisissez votre opérateur',
    phone: 'Numéro mobile money',
    phoneHint: 'Le numéro du compte qui paie, par exemple +221 77 123 45 67',
    pay: 'Payer',
    cancel: 'Annuler et revenir chez le marchand',
    processing: 'Validez le paiement sur votre téléphone. Cette page se met à jour toute seule.',
    failed: 'Le paiement n’a pas abouti',
    tryAgain: 'Vous pouvez réessayer, avec un autre numéro ou opérateur si besoin.',
    succeeded: 'Paiement reçu. Merci !',
    canceled: 'Le paiement a été annulé.',
    expired: 'Cette page de paiement a expiré.',
    unavailable: 'Ce lien de paiement n’est plus disponible.',
    notFound: 'Cette page de paiement n’existe pas.',
    back: 'Revenir chez le marchand',
    test: 'Paiement de test (sandbox) : aucun argent ne circule.',
    reference: 'Référence',
  },
} as const;

export type Messages = (typeof TEXT)[Language];

/** French or English, whichever `Accept-Language` prefers (by q-value, then order); English otherwise. */
export function languageOf(acceptLanguage: string | undefined): Language {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { lang: tag.split('-')[0], q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((l) => l.lang === 'en' || l.lang === 'fr')
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked[0]?.lang === 'fr' ? 'fr' : 'en';
}

/** An amount in minor units, formatted for its currency and the page's language. */
export function formatAmount(amount: number, currency: string, lang: Language): string {
  const minor = getCurrency(currency)?.minorUnits ?? 2;
  return new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-US', { style: 'currency', currency: currency.toUpperCase(), minimumFractionDigits: minor, maximumFractionDigits: minor }).format(
    amount / 10 ** minor,
  );
}

const STYLE = `*{box-sizing:border-box}body{font-family:system-ui,sans-serif;margin:0;padding:1rem;color:#1a1a1a;background:#f6f7f9;line-height:1.4}
main{max-width:28rem;margin:0 auto;background:#fff;border-radius:.5rem;padding:1rem;overflow-wrap:anywhere}
h1{font-size:1.25rem;margin:0 0 .5rem}.amount{font-size:1.75rem;font-weight:700;margin:.25rem 0}
label{display:block;font-weight:600;margin:1rem 0 .25rem}select,input,button{width:100%;font:inherit;padding:.75rem;border:1px solid #767676;border-radius:.375rem;min-height:2.75rem}
button{margin-top:1rem;cursor:pointer}.pay{background:#0b5cad;color:#fff;border-color:#0b5cad;font-weight:700}.secondary{background:#fff;color:#0b5cad}
:focus-visible{outline:3px solid #f0a000;outline-offset:2px}.hint{font-size:.875rem;color:#4a4a4a;margin:.25rem 0 0}
.error{background:#fde8e8;border:1px solid #b3261e;color:#8c1d18;padding:.75rem;border-radius:.375rem}.notice{font-size:.875rem;color:#4a4a4a}
.status{padding:.75rem;border-radius:.375rem;background:#e8f0fb}`;

/** Polls the page's status while the operator answers, then lets the server decide what the page becomes. */
const SCRIPT = `(function(){var el=document.getElementById('status');if(!el)return;var url=el.getAttribute('data-poll');
function tick(){fetch(url,{headers:{accept:'application/json'},cache:'no-store'}).then(function(r){return r.json()}).then(function(s){
if(s.status==='open'&&s.paymentStatus==='processing'){setTimeout(tick,1000);return}
if(s.redirectUrl){location.assign(s.redirectUrl)}else{location.reload()}}).catch(function(){setTimeout(tick,2000)})}
setTimeout(tick,1000)})();`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const STYLE_HASH = hash(STYLE);
const SCRIPT_HASH = hash(SCRIPT);

const LAYOUT = `<!doctype html>
<html lang="<%= it.lang %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<% if (it.refresh) { %><noscript><meta http-equiv="refresh" content="3"></noscript><% } %>
<title><%= it.title %></title>
<style><%~ it.style %></style>
</head>
<body>
<main>
<%~ it.body %>
</main>
<% if (it.script) { %><script><%~ it.script %></script><% } %>
</body>
</html>
`;

const SESSION_PAGE = `<h1><%= it.t.title %><% if (it.description) { %>: <%= it.description %><% } %></h1>
<% if (!it.livemode) { %><p class="notice"><%= it.t.test %></p><% } %>
<p><%= it.t.amount %></p>
<p class="amount" id="amount"><%= it.amount %></p>
<% if (it.feeByCustomer) { %><p class="hint"><%= it.t.fee %></p><% } %>
<% if (it.state === 'processing') { %>
<p class="status" id="status" role="status" aria-live="polite" data-poll="<%= it.pollUrl %>"><%= it.t.processing %></p>
<% } else { %>
<% if (it.error) { %><div class="error" id="error" role="alert"><p><strong><%= it.error %></strong></p><p><%= it.t.tryAgain %></p></div><% } %>
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
<% } %>`;

const MESSAGE_PAGE = `<h1 id="message"><%= it.message %></h1>
<% if (it.reference) { %><p class="notice"><%= it.t.reference %> <%= it.reference %></p><% } %>
<% if (it.backUrl) { %><p><a href="<%= it.backUrl %>"><%= it.t.back %></a></p><% } %>`;

const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });
eta.loadTemplate('@layout', LAYOUT);
eta.loadTemplate('@session', SESSION_PAGE);
eta.loadTemplate('@message', MESSAGE_PAGE);

/** Headers of every hosted page: the strict policy, with the merchant's return addresses allowed as form targets (the cancel button's redirect). */
function pageReply(html: string, status: number, formTargets: (string | null)[] = []): Reply {
  const origins = [...new Set(formTargets.flatMap((u) => (u ? [new URL(u).origin] : [])))];
  const csp = [
    "default-src 'none'",
    `script-src ${SCRIPT_HASH}`,
    `style-src ${STYLE_HASH}`,
    "connect-src 'self'",
    // data: for the empty icon, which keeps browsers from asking for /favicon.ico.
    "img-src 'self' data:",
    `form-action 'self'${origins.map((o) => ` ${o}`).join('')}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return new Reply(html, {
    status,
    contentType: 'text/html; charset=utf-8',
    headers: { 'Content-Security-Policy': csp, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' },
  });
}

function layout(lang: Language, title: string, body: string, options: { script?: boolean; refresh?: boolean } = {}): string {
  return eta.render('@layout', { lang, title, body, style: STYLE, script: options.script ? SCRIPT : null, refresh: options.refresh ?? false });
}

/** A page with one message (paid, canceled, expired, unavailable) and a way back to the merchant when there is one. */
export function messagePage(lang: Language, message: keyof Messages, status: number, options: { backUrl?: string | null; reference?: string | null } = {}): Reply {
  const t = TEXT[lang];
  const body = eta.render('@message', { t, message: t[message], backUrl: options.backUrl ?? null, reference: options.reference ?? null });
  return pageReply(layout(lang, t[message], body), status);
}

export interface SessionPageInput {
  session: CheckoutSessionObject;
  intent: PaymentIntentObject | null;
  /** What the customer pays with each operator (the fee differs by operator when the customer carries it). */
  quotes: CheckoutFeeQuote[];
  /** A refusal of the form just sent, or the failure of the last attempt. */
  error?: string | null;
  form?: { operator?: string; phone?: string };
}

/** The hosted page of an open session: the pay form, or the wait while the operator answers. */
export function sessionPage(lang: Language, input: SessionPageInput, status = 200): Reply {
  const t = TEXT[lang];
  const s = input.session;
  const processing = s.paymentStatus === 'processing';
  const lastFailure = s.paymentStatus === 'failed' ? `${t.failed}${input.intent?.last_payment_error ? ` (${input.intent.last_payment_error.message})` : ''}.` : null;
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
    phone: input.form?.phone ?? '',
    error: input.error ?? lastFailure,
  });
  return pageReply(layout(lang, `${t.title} ${formatAmount(shown, s.currency, lang)}`, body, { script: processing, refresh: processing }), status, [s.successUrl, s.cancelUrl]);
}
