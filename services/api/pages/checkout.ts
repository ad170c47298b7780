import { getCountry, getOperator } from '../../../packages/catalog/index.js';
import type { CheckoutFeeQuote } from '../../../packages/families/checkout/checkout-session/commands.js';
import type { CheckoutSessionObject } from '../../../packages/families/checkout/checkout-session/events.js';
import type { PaymentIntentObject } from '../../../packages/families/payments/payment-intent/events.js';
import type { Reply } from '../../../packages/http/context.js';
import { eta, formatAmount, inlineHash, pageReply, renderPage, type Language, type PageMerchant } from './layout.js';

/**
 * The hosted checkout pages (layout and policy in ./layout.ts): usable without JavaScript (a form
 * POST; a refresh while the operator answers) and, with it, polling the status until final.
 */

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
    receipt: 'Receipt',
    paidAmount: 'Amount paid',
    date: 'Date',
    method: 'Paid with',
    paidTo: 'Paid to',
    operatorReference: 'Operator’s reference',
    card: 'Card',
    payByCard: 'Pay by card',
    cardHint: 'You type your card on the card page of our payment provider, then come back here.',
    cardContinue: 'Continue on the card page',
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
    receipt: 'Reçu',
    paidAmount: 'Montant payé',
    date: 'Date',
    method: 'Payé par',
    paidTo: 'Payé à',
    operatorReference: 'Référence de l’opérateur',
    card: 'Carte',
    payByCard: 'Payer par carte',
    cardHint: 'Vous saisissez votre carte sur la page carte de notre prestataire de paiement, puis revenez ici.',
    cardContinue: 'Continuer sur la page carte',
  },
} as const;

export type Messages = (typeof TEXT)[Language];

/**
 * Why a payment failed, or why the form was refused, in the payer's words: the providers' and the
 * API's messages are English, so a page says them only in English and otherwise names the reason
 * from this catalogue by its code (a code it does not know gets the general sentence), never mixing
 * languages on one page.
 */
const REASONS: Record<Language, Record<string, string>> = {
  en: {},
  fr: {
    insufficient_funds: 'le solde du compte mobile money est insuffisant',
    card_declined: 'la carte a été refusée',
    operator_unavailable: 'l’opérateur ne répond pas ; réessayez plus tard',
    expired: 'le délai pour valider le paiement est dépassé',
    rejected: 'le paiement a été refusé par l’opérateur',
    'IKW-VAL-007': 'Ce numéro de mobile money n’est pas valide',
    'IKW-VAL-005': 'Cet opérateur n’est pas disponible dans ce pays',
    'IKW-VAL-001': 'Choisissez un opérateur et saisissez le numéro',
    'IKW-BIL-009': 'Cette facture n’accepte plus de paiement',
    'IKW-BIL-012': 'Un autre paiement de cette facture est en cours',
    'IKW-CHK-001': 'Cette session de paiement est terminée',
    'IKW-CHK-005': 'Ce formulaire ne peut être envoyé que depuis sa propre page',
  },
};
const GENERAL_REASON: Record<Language, { failure: string; refusal: string }> = {
  en: { failure: '', refusal: '' },
  fr: { failure: 'raison communiquée par l’opérateur', refusal: 'Le paiement n’a pas pu être lancé' },
};

/** A refusal's message for the page: the API's own in English, the catalogue's by its code in another language. */
export function refusalText(lang: Language, code: string, message: string): string {
  return lang === 'en' ? message : (REASONS[lang][code] ?? GENERAL_REASON[lang].refusal);
}

function failureReason(lang: Language, error: { code: string; message: string }): string {
  return lang === 'en' ? error.message : (REASONS[lang][error.code] ?? GENERAL_REASON[lang].failure);
}

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
<% if (it.error) { %><div class="error" id="error" role="alert"><p><strong><%= it.error %></strong></p><p><%= it.t.tryAgain %></p></div><% } %>
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
  form?: { operator?: string; phone?: string };
  merchant?: PageMerchant | null;
}

/** The hosted page of an open session: the pay form, or the wait while the operator answers. */
export function sessionPage(lang: Language, input: SessionPageInput, status = 200): Reply {
  const t = TEXT[lang];
  const s = input.session;
  const processing = s.paymentStatus === 'processing';
  const lastError = input.intent?.last_payment_error ?? null;
  const lastFailure = s.paymentStatus === 'failed' ? `${t.failed}${lastError ? ` (${failureReason(lang, lastError)})` : ''}.` : null;
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
  });
  return pageReply(renderPage(lang, `${t.title} ${formatAmount(shown, s.currency, lang)}`, body, { script: processing ? SCRIPT : null, refresh: processing, merchant: input.merchant ?? null }), status, {
    // A card payment's form is answered with a redirect to the provider's card page (Paystack's checkout in live).
    formTargets: [s.successUrl, s.cancelUrl, ...(s.paymentMethodTypes.includes('card') ? [PAYSTACK_CHECKOUT] : [])],
    scriptHash: processing ? SCRIPT_HASH : null,
  });
}
