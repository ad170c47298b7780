import { invoiceNumber } from '../invoice/commands.js';
import type { InvoiceObject } from '../invoice/events.js';
import type { Reply } from '#packages/http/context.js';
import { listCountries } from '#packages/catalog/index.js';
import { CATALOGUE } from '#packages/families/checkout/http/index.js';
import { eta, formatAmount, pageReply, renderPage, type Language, type PageMerchant } from '#packages/http/pages/layout.js';

/**
 * The hosted invoice page (hosted_invoice_url): what the customer owes the merchant, in their
 * language, with the PDF and, while it takes payments, a Pay button that opens the invoice's
 * checkout session (the hosted checkout payment links use).
 */

const TEXT = { en: CATALOGUE.en.invoice, fr: CATALOGUE.fr.invoice };

const INVOICE_PAGE = `<h1 id="invoice-title"><%= it.t.invoice %> <%= it.number %></h1>
<% if (!it.livemode) { %><p class="notice"><%= it.t.test %></p><% } %>
<p><span class="badge" id="invoice-status"><%= it.status %></span><% if (it.dueDate) { %> · <%= it.t.due %> <%= it.dueDate %><% } %></p>
<% if (it.memo) { %><p id="memo"><%= it.memo %></p><% } %>
<table id="lines"><thead><tr><th scope="col"><%= it.t.item %></th><th scope="col" class="num"><%= it.t.qty %></th><th scope="col" class="num"><%= it.t.amount %></th></tr></thead>
<tbody><% it.lines.forEach(function (l) { %><tr><td><%= l.description %><% if (l.quantity > 1) { %><br><span class="hint"><%= l.unit %></span><% } %></td><td class="num"><%= l.quantity %></td><td class="num"><%= l.amount %></td></tr>
<% }) %></tbody>
<tfoot><tr><th scope="row" colspan="2"><%= it.t.total %></th><td class="num"><%= it.total %></td></tr>
<% if (it.paid) { %><tr><th scope="row" colspan="2"><%= it.t.paid %></th><td class="num"><%= it.paid %></td></tr><% } %></tfoot></table>
<% if (it.state === 'payable') { %>
<p><%= it.t.remaining %></p><p class="amount" id="amount"><%= it.remaining %></p>
<% if (it.error) { %><div class="error" id="error" role="alert"><p><strong><%= it.error %></strong></p></div><% } %>
<form method="post" action="<%= it.payUrl %>">
<% if (it.countries.length > 1) { %><label for="country"><%= it.t.country %></label><select id="country" name="Country"><% it.countries.forEach(function (c) { %><option value="<%= c.code %>"><%= c.name %></option><% }) %></select><% } else { %><input type="hidden" name="Country" value="<%= it.countries[0] && it.countries[0].code %>"><% } %>
<button type="submit" class="pay" id="pay"><%= it.t.pay %> <%= it.remaining %></button></form>
<% } else if (it.state === 'paid') { %><p class="status" id="paid" role="status"><%= it.t.paidOn %> <%= it.paidOn %></p>
<% } else if (it.state === 'void') { %><p class="status" id="void"><%= it.t.void %></p><% } %>
<p><a href="<%= it.pdfUrl %>" id="pdf"><%= it.t.pdf %></a></p>`;

eta.loadTemplate('@invoice', INVOICE_PAGE);

const dateOf = (at: number | string, lang: Language) =>
  new Intl.DateTimeFormat(lang === 'fr' ? 'fr-FR' : 'en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(typeof at === 'number' ? new Date(at * 1000) : new Date(`${at}T00:00:00Z`));

/** The page of an issued invoice (drafts have none): `error`, a refusal of the Pay button just sent. */
export function invoicePage(lang: Language, i: InvoiceObject, merchant: PageMerchant | null, options: { error?: string | null; status?: number } = {}): Reply {
  const t = TEXT[lang];
  const money = (minor: number) => formatAmount(minor, i.currency, lang);
  const number = invoiceNumber(i.id);
  const payable = (i.status === 'open' || i.status === 'uncollectible') && i.amount_remaining > 0;
  const body = eta.render('@invoice', {
    t,
    number,
    livemode: i.livemode,
    status: t.status[i.status],
    dueDate: i.due_date ? dateOf(i.due_date, lang) : null,
    memo: i.description,
    lines: i.lines.map((l) => ({ description: l.description, quantity: l.quantity, unit: `${l.quantity} × ${money(l.unit_amount)}`, amount: money(l.amount) })),
    total: money(i.amount_due),
    paid: i.amount_paid > 0 ? money(i.amount_paid) : null,
    remaining: money(i.amount_remaining),
    state: payable ? 'payable' : i.status === 'paid' ? 'paid' : i.status === 'void' ? 'void' : 'none',
    paidOn: i.status_transitions.paid_at ? dateOf(i.status_transitions.paid_at, lang) : '',
    error: options.error ?? null,
    payUrl: `/hosted/invoices/${i.id}/pay?lang=${lang}`,
    pdfUrl: `/hosted/invoices/${i.id}/pdf`,
    countries: listCountries()
      .filter((c) => c.currency.toLowerCase() === i.currency)
      .map((c) => ({ code: c.code, name: new Intl.DisplayNames([lang], { type: 'region' }).of(c.code) ?? c.name }))
      .sort((a, b) => a.name.localeCompare(b.name, lang)),
  });
  return pageReply(renderPage(lang, `${t.invoice} ${number}`, body, { merchant }), options.status ?? 200);
}

/** What the Pay button's refusals say to the payer. */
export const invoicePayRefusal = (lang: Language, code: string): string => (code === 'IKW-BIL-012' ? TEXT[lang].inProgress : TEXT[lang].notPayable);
