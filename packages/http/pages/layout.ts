import { createHash } from 'node:crypto';
import { Eta } from 'eta';
import { Reply } from '../context.js';

/**
 * What the hosted pages share: the eta engine (every value escaped), the layout and style sheet,
 * languages and amounts, and what the strict policy every page is sent with (packages/http/page-policy.ts)
 * allows of them. Nothing is loaded from another host; an inline script or style sheet is allowed by its hash only.
 */

/** The languages the payer's pages speak. */
export type Language = 'en' | 'fr';

/** The layout's own word: what the pages' footer says of who serves them. */
const VIA: Readonly<Record<Language, string>> = { en: 'via Sika', fr: 'via Sika' };

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
export { formatAmount } from '#packages/catalog/index.js';

const STYLE = `*{box-sizing:border-box}body{font-family:system-ui,sans-serif;margin:0;padding:1rem;color:#1a1a1a;background:#f6f7f9;line-height:1.4}
main{max-width:28rem;margin:0 auto;background:#fff;border-radius:.5rem;padding:1rem;overflow-wrap:anywhere}
h1{font-size:1.25rem;margin:0 0 .5rem}.amount{font-size:1.75rem;font-weight:700;margin:.25rem 0}
label{display:block;font-weight:600;margin:1rem 0 .25rem}select,input,button{width:100%;font:inherit;padding:.75rem;border:1px solid #767676;border-radius:.375rem;min-height:2.75rem}
button{margin-top:1rem;cursor:pointer}.pay{background:#0b5cad;color:#fff;border-color:#0b5cad;font-weight:700}.secondary{background:#fff;color:#0b5cad}
:focus-visible{outline:3px solid #f0a000;outline-offset:2px}.hint{font-size:.875rem;color:#4a4a4a;margin:.25rem 0 0}
.error{background:#fde8e8;border:1px solid #b3261e;color:#8c1d18;padding:.75rem;border-radius:.375rem}.notice{font-size:.875rem;color:#4a4a4a}
.status{padding:.75rem;border-radius:.375rem;background:#e8f0fb}
table{width:100%;border-collapse:collapse;margin:1rem 0}th,td{text-align:left;padding:.5rem .25rem;border-bottom:1px solid #d0d0d0;vertical-align:top}
.num{text-align:right;white-space:nowrap}.badge{display:inline-block;padding:.125rem .5rem;border-radius:1rem;background:#e8f0fb;font-weight:600}
.merchant{display:flex;align-items:center;gap:.5rem;margin:0 0 1rem}.merchant img{max-height:2.5rem;max-width:8rem;object-fit:contain}.merchant strong{font-size:1.05rem}`;

/** The CSP source of an inline script or style sheet: its SHA-256. */
export const inlineHash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const STYLE_HASH = inlineHash(STYLE);

const LAYOUT = `<!doctype html>
<html lang="<%= it.lang %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<% if (it.refresh) { %><% if (it.script) { %><noscript><% } %><meta http-equiv="refresh" content="3"><% if (it.script) { %></noscript><% } %><% } %>
<title><%= it.title %></title>
<style><%~ it.style %></style>
</head>
<body>
<main>
<% if (it.merchant) { %><header class="merchant"><% if (it.merchant.logoUrl) { %><img id="merchant-logo" src="<%= it.merchant.logoUrl %>" alt=""><% } %><p><strong id="merchant-name"><%= it.merchant.name %></strong> <span class="hint"><%= it.via %></span></p></header><% } %>
<%~ it.body %>
</main>
<% if (it.script) { %><script><%~ it.script %></script><% } %>
</body>
</html>
`;

export const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });
eta.loadTemplate('@layout', LAYOUT);

/** The merchant a payer's page is for: its name and, when it uploaded one, its logo's URL on this origin. */
export interface PageMerchant {
  name: string;
  logoUrl: string | null;
}

/**
 * A whole page: the layout around `body`, with the page's one script when it has one. `refresh`:
 * the page reloads every 3 s, by the browser when it has no script or scripts are off (a script
 * that polls does it better). `merchant`: a header naming the merchant paid (logo beside its name;
 * the logo is decorative, alt="", since the name is next to it), and the title names it too.
 */
export function renderPage(lang: Language, title: string, body: string, options: { script?: string | null; refresh?: boolean; merchant?: PageMerchant | null } = {}): string {
  const merchant = options.merchant ?? null;
  return eta.render('@layout', {
    lang,
    title: merchant ? `${title} · ${merchant.name}` : title,
    body,
    style: STYLE,
    script: options.script ?? null,
    refresh: options.refresh ?? false,
    merchant,
    via: VIA[lang],
  });
}

/** A hosted page: the layout's style sheet and the page's one script allowed by their hashes, the merchant's return addresses as form targets (the cancel button's redirect). */
export function pageReply(html: string, status: number, options: { formTargets?: (string | null)[]; scriptHash?: string | null; headers?: Record<string, string> } = {}): Reply {
  const formOrigins = (options.formTargets ?? []).flatMap((u) => (u ? [new URL(u).origin] : []));
  const reply = Reply.html(html, status, { scripts: options.scriptHash ? [options.scriptHash] : [], styles: [STYLE_HASH], formOrigins });
  return options.headers ? reply.withHeaders(options.headers) : reply;
}
