/**
 * The one policy of every page a route answers (docs/decisions.md, "Behind a proxy, and sign-in
 * hardening"): a strict Content-Security-Policy that loads nothing but what the page names by hash,
 * lets its forms post only here and to the origins it names, and lets no site frame it; nosniff,
 * no referrer, no caching. runRoute (app.ts) sets these on every text/html answer, however the
 * handler built it, so no page can be served without them.
 */
export interface PagePolicy {
  /** CSP sources (`'sha256-…'`) of the page's inline script and style sheet. */
  scripts?: readonly string[];
  styles?: readonly string[];
  /** Origins besides this one that the page's forms may be sent to (a merchant's cancel URL). */
  formOrigins?: readonly string[];
}

const sources = (list: readonly string[] | undefined) => (list && list.length > 0 ? list.join(' ') : "'none'");

export function pageHeaders(policy: PagePolicy = {}): Record<string, string> {
  const csp = [
    "default-src 'none'",
    `script-src ${sources(policy.scripts)}`,
    `style-src ${sources(policy.styles)}`,
    "connect-src 'self'",
    // data: for the empty icon, which keeps browsers from asking for /favicon.ico.
    "img-src 'self' data:",
    `form-action 'self'${[...new Set(policy.formOrigins ?? [])].map((o) => ` ${o}`).join('')}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { 'Content-Security-Policy': csp, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };
}

/** Whether a Content-Type is an HTML page's, whatever its parameters and case. */
export const isHtml = (contentType: string | undefined) => contentType?.split(';')[0]!.trim().toLowerCase() === 'text/html';
