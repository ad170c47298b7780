import { getCountry } from '#packages/catalog/index.js';
import type { Reply } from '#packages/http/context.js';
import { CATALOGUE } from '#packages/families/checkout/http/index.js';
import { eta, formatAmount, inlineHash, pageReply, renderPage, type Language, type PageMerchant } from '#packages/http/pages/layout.js';

/**
 * The public page of a funding campaign (layout and policy in ./layout.ts): progress, updates,
 * latest contributions, and a plain form to contribute by mobile money that works without
 * JavaScript; while the operator answers, the page polls the contribution's status (without
 * JavaScript, a refresh every 3 s).
 */

const TEXT = { en: CATALOGUE.en.funding, fr: CATALOGUE.fr.funding };

/** Polls the contribution's status while the operator answers, then reloads the page, which shows the outcome. */
const SCRIPT = `(function(){var el=document.getElementById('status');if(!el)return;var url=el.getAttribute('data-poll');
function tick(){fetch(url,{headers:{accept:'application/json'},cache:'no-store'}).then(function(r){return r.json()}).then(function(s){
if(s.status==='pending'){setTimeout(tick,1000);return}location.reload()}).catch(function(){setTimeout(tick,2000)})}
setTimeout(tick,1000)})();`;
const SCRIPT_HASH = inlineHash(SCRIPT);

const CAMPAIGN_PAGE = `<h1 id="title"><%= it.title %></h1>
<% if (!it.livemode) { %><p class="notice"><%= it.t.test %></p><% } %>
<% if (it.description) { %><p id="description"><%= it.description %></p><% } %>
<p class="amount" id="raised"><%= it.raised %></p>
<% if (it.target) { %><p><%= it.t.raisedOf %> <span id="target"><%= it.target %></span> (<span id="percent"><%= it.percent %></span>)</p>
<progress id="progress" max="<%= it.targetMinor %>" value="<%= it.raisedMinor %>"><%= it.percent %></progress><% } else { %><p><%= it.t.raised %></p><% } %>
<p id="contributors"><%= it.contributors %> <%= it.t.contributors %></p>
<% if (it.deadline) { %><p class="hint" id="deadline"><%= it.t.deadline %> <%= it.deadline %></p><% } %>
<% if (it.allOrNothing) { %><p class="hint"><%= it.t.allOrNothing %></p><% } %>
<% if (it.outcome === 'pending') { %><p class="status" id="status" role="status" aria-live="polite" data-poll="<%= it.pollUrl %>"><%= it.t.processing %></p><% } %>
<% if (it.outcome === 'succeeded') { %><p class="status" id="thanks" role="status"><%= it.t.succeeded %></p><% } %>
<% if (it.ended) { %><p class="notice" id="ended"><%= it.ended %></p><% } else if (it.outcome !== 'pending') { %>
<% if (it.error) { %><div class="error" id="error" role="alert"><p><strong><%= it.error %></strong></p></div><% } %>
<h2><%= it.t.contribute %></h2>
<form method="post" action="<%= it.formUrl %>">
<label for="amount"><%= it.t.amount %></label>
<input id="amount" name="Amount" inputmode="decimal" required value="<%= it.form.amount %>" aria-describedby="amount-hint">
<p class="hint" id="amount-hint"><%= it.t.amountHint %> <%= it.currency %></p>
<label for="name"><%= it.t.name %></label>
<input id="name" name="Name" autocomplete="name" maxlength="256" value="<%= it.form.name %>">
<label for="email"><%= it.t.email %></label>
<input id="email" name="Email" type="email" autocomplete="email" maxlength="256" value="<%= it.form.email %>">
<label><input type="checkbox" name="Anonymous" value="true"<% if (it.form.anonymous) { %> checked<% } %>> <%= it.t.anonymous %></label>
<label for="message"><%= it.t.message %></label>
<input id="message" name="Message" maxlength="1000" value="<%= it.form.message %>">
<label for="operator"><%= it.t.operator %></label>
<select id="operator" name="Operator" required>
<option value=""><%= it.t.chooseOperator %></option>
<% it.operators.forEach(function (o) { %><option value="<%= o.code %>"<% if (o.selected) { %> selected<% } %>><%= o.name %></option>
<% }) %></select>
<label for="phone"><%= it.t.phone %></label>
<input id="phone" name="PhoneNumber" type="tel" inputmode="tel" autocomplete="tel" required value="<%= it.form.phone %>" aria-describedby="phone-hint">
<p class="hint" id="phone-hint"><%= it.t.phoneHint %></p>
<button type="submit" class="pay" id="contribute"><%= it.t.contribute %></button>
</form>
<% } %>
<% if (it.updates.length > 0) { %><h2><%= it.t.updates %></h2>
<% it.updates.forEach(function (u) { %><article class="update"><h3><%= u.title %></h3><p class="hint"><%= u.date %></p><p><%= u.body %></p></article>
<% }) %><% } %>
<% if (it.recent.length > 0) { %><h2><%= it.t.recent %></h2><ul id="recent">
<% it.recent.forEach(function (r) { %><li><%= r.name %>: <%= r.amount %><% if (r.message) { %> — <%= r.message %><% } %></li>
<% }) %></ul><% } %>`;

const MESSAGE_PAGE = `<h1 id="message"><%= it.message %></h1>`;

eta.loadTemplate('@funding-campaign', CAMPAIGN_PAGE);
eta.loadTemplate('@funding-message', MESSAGE_PAGE);

export interface CampaignPageInput {
  campaign: {
    id: string;
    slug: string;
    title: string;
    description: string | null;
    currency: string;
    country: string;
    status: string;
    fundingModel: string;
    targetAmountMinor: number | null;
    raisedAmountMinor: number;
    contributorCount: number;
    percentFunded: number | null;
    deadline: string | null;
    livemode: boolean;
  };
  updates: { title: string; body: string; createdAt: string }[];
  recent: { name: string | null; amountMinor: number; message: string | null }[];
  /** The contribution just made from this page, if the page shows its outcome. */
  contribution?: { id: string; status: string } | null;
  error?: string | null;
  form?: { amount?: string; name?: string; email?: string; anonymous?: boolean; message?: string; operator?: string; phone?: string };
}

export function campaignPage(lang: Language, input: CampaignPageInput, status = 200, merchant: PageMerchant | null = null): Reply {
  const t = TEXT[lang];
  const c = input.campaign;
  const money = (minor: number) => formatAmount(minor, c.currency, lang);
  const pending = input.contribution?.status === 'pending';
  const ended = c.status === 'closed' ? t.closed : c.status === 'canceled' ? t.canceled : c.status === 'failed' ? t.failedCampaign : null;
  const date = (iso: string) => new Intl.DateTimeFormat(lang === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso));
  const form = input.form ?? {};
  const failedNow = input.contribution?.status === 'failed' || input.contribution?.status === 'canceled';
  const body = eta.render('@funding-campaign', {
    t,
    title: c.title,
    description: c.description,
    livemode: c.livemode,
    raised: money(c.raisedAmountMinor),
    raisedMinor: c.raisedAmountMinor,
    target: c.targetAmountMinor !== null ? money(c.targetAmountMinor) : null,
    targetMinor: c.targetAmountMinor,
    percent: c.percentFunded !== null ? `${new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-US', { maximumFractionDigits: 2 }).format(c.percentFunded)} %` : '',
    contributors: c.contributorCount,
    deadline: c.deadline ? date(c.deadline) : null,
    allOrNothing: c.fundingModel === 'all_or_nothing',
    currency: c.currency.toUpperCase(),
    outcome: input.contribution?.status ?? null,
    pollUrl: input.contribution ? `/api/v1/funding/public/contributions/${input.contribution.id}` : '',
    ended,
    error: input.error ?? (failedNow ? t.failed : null),
    formUrl: `/funding/${c.slug}/contribute`,
    form: { amount: form.amount ?? '', name: form.name ?? '', email: form.email ?? '', anonymous: form.anonymous ?? false, message: form.message ?? '', phone: form.phone ?? '' },
    operators: (getCountry(c.country)?.operators ?? []).filter((o) => o.directions.includes('payin')).map((o) => ({ code: o.code, name: o.name, selected: form.operator === o.code })),
    updates: input.updates.map((u) => ({ title: u.title, body: u.body, date: date(u.createdAt) })),
    recent: input.recent.map((r) => ({ name: r.name ?? t.anonymousName, amount: money(r.amountMinor), message: r.message })),
  });
  return pageReply(renderPage(lang, c.title, body, { script: pending ? SCRIPT : null, refresh: pending, merchant }), status, { scriptHash: pending ? SCRIPT_HASH : null });
}

export function fundingMessagePage(lang: Language, message: 'notFound', status: number): Reply {
  const t = TEXT[lang];
  return pageReply(renderPage(lang, t[message], eta.render('@funding-message', { message: t[message] })), status);
}
