import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '#packages/core/errors.js';
import { withCodeSamples } from './code-samples.js';
import { guides, type Guide } from './guides.js';

/**
 * The rendered API reference at /docs (docs/architecture.md, "The reference at /docs"): Redoc's
 * standalone bundle (npm package `redoc`, served from node_modules) renders /docs/openapi.json, a
 * copy of /openapi.json with code samples and links to the guides; the guides of docs/ are pages
 * beside it. Nothing is fetched from elsewhere, and every page runs under REFERENCE_CSP.
 */
export const REFERENCE_MOUNT = '/docs';

const REDOC_BUNDLE = path.join(path.dirname(createRequire(import.meta.url).resolve('redoc/package.json')), 'bundles/redoc.standalone.js');

/**
 * Redoc styles itself with styled-components, which in a production build makes empty `<style>`
 * elements and fills them through the CSSOM (insertRule), which a policy does not govern: the hash
 * of the empty text lets those elements be, without 'unsafe-inline'. The bundle's one style sheet
 * with text, perfect-scrollbar's, is allowed by its hash; a new Redoc with another sheet shows as a
 * CSP violation in test/browser/reference.test.ts.
 */
const EMPTY_STYLE = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='";
const SCROLLBAR_STYLE = "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='";

export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  `style-src 'self' ${EMPTY_STYLE} ${SCROLLBAR_STYLE}`,
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = { 'Content-Security-Policy': REFERENCE_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

/**
 * Redoc's search index runs in a worker that the bundle makes from a `blob:` URL, which
 * `worker-src 'self'` refuses. The worker's code is the string the bundle makes that blob of: taken
 * out here and served as a file of this site, which the page's script starts in its place.
 */
export function searchWorkerOf(bundle: string): string {
  const start = bundle.indexOf("new Worker(URL.createObjectURL(new Blob(['");
  if (start === -1) throw new Error(`${REDOC_BUNDLE}: no search worker where Redoc 2 makes it; see services/api/reference/site.ts`);
  const open = bundle.indexOf("'", start);
  let end = open + 1;
  while (bundle[end] !== "'") end += bundle[end] === '\\' ? 2 : 1;
  // A JavaScript string literal, read as JavaScript reads it.
  return vm.runInNewContext(bundle.slice(open, end + 1)) as string;
}

/**
 * Redoc's sidebar shows its maker's logo from Redocly's CDN, which this site may not load (nothing
 * from elsewhere, no network): that one address, in the bundle as served, becomes an empty image.
 */
const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E';

/** Replaces the blob worker with the served one, then renders the reference. */
const REFERENCE_SCRIPT = `'use strict';
(function () {
  var NativeWorker = window.Worker;
  window.Worker = function (url, options) {
    return new NativeWorker(String(url).indexOf('blob:') === 0 ? '${REFERENCE_MOUNT}/assets/search-worker.js' : url, options);
  };
}());
Redoc.init('${REFERENCE_MOUNT}/openapi.json', {
  nativeScrollbars: true,
  pathInMiddlePanel: true,
  sortRequiredPropsFirst: true,
  theme: { colors: { primary: { main: '#1f4b99' }, text: { primary: '#1b1b1b' } }, sidebar: { textColor: '#1b1b1b' } },
}, document.getElementById('redoc'));
`;

/**
 * Redoc's code samples scroll sideways in a box no keyboard can reach (axe-core's
 * scrollable-region-focusable): here they wrap instead.
 */
const REFERENCE_STYLE = `#redoc pre{white-space:pre-wrap!important;overflow-wrap:anywhere}
`;

const GUIDE_STYLE = `body{margin:0;font:16px/1.6 system-ui,sans-serif;color:#1b1b1b;background:#fff}
header,main{max-width:60rem;margin:0 auto;padding:0 1rem}
header{border-bottom:1px solid #ccc;padding-top:.75rem;padding-bottom:.75rem}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
a{color:#1f4b99}
pre,code{font-family:ui-monospace,monospace;font-size:.9em;background:#f3f3f3}
pre{padding:.75rem;overflow-x:auto}
table{border-collapse:collapse;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

function guidesNav(all: Iterable<Guide>, current?: string): string {
  const items = [...all].map((g) => `<li><a href="${REFERENCE_MOUNT}/guides/${g.name}"${g.name === current ? ' aria-current="page"' : ''}>${escapeHtml(g.title)}</a></li>`);
  return `<nav aria-label="Documentation"><ul><li><a href="${REFERENCE_MOUNT}/">API reference</a></li>${items.join('')}</ul></nav>`;
}

function guidePage(guide: Guide, all: Iterable<Guide>): string {
  return page(`${guide.title} · Sika API`, `<link rel="stylesheet" href="${REFERENCE_MOUNT}/assets/guide.css">`, `<header>${guidesNav(all, guide.name)}</header>\n<main>\n${guide.html}</main>`);
}

function guidesIndex(all: Iterable<Guide>): string {
  const items = [...all].map((g) => `<li><a href="${REFERENCE_MOUNT}/guides/${g.name}">${escapeHtml(g.title)}</a></li>`);
  return page('Guides · Sika API', `<link rel="stylesheet" href="${REFERENCE_MOUNT}/assets/guide.css">`, `<header>${guidesNav(all)}</header>\n<main><h1>Guides</h1><ul>${items.join('')}</ul></main>`);
}

const REFERENCE_PAGE = page(
  'Sika API reference',
  `<link rel="stylesheet" href="${REFERENCE_MOUNT}/assets/reference.css">`,
  `<div id="redoc"><main><h1>Sika API reference</h1><p>The reference is drawn by a script; without it, read <a href="/openapi.json">/openapi.json</a>.</p></main></div>
<script src="${REFERENCE_MOUNT}/assets/redoc.standalone.js"></script>
<script src="${REFERENCE_MOUNT}/assets/reference.js"></script>`,
);

/**
 * Redoc (the community edition) does not draw `x-enumDescriptions`: the served copy says each
 * value's words in its schema's description too, as a list under the schema's own words.
 */
export function withEnumWords(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach(withEnumWords);
    return;
  }
  const schema = node as Record<string, unknown>;
  const words = schema['x-enumDescriptions'] as Record<string, string> | undefined;
  if (words !== undefined) {
    const list = Object.entries(words)
      .map(([value, meaning]) => `- \`${value}\`: ${meaning}`)
      .join('\n');
    schema.description = typeof schema.description === 'string' ? `${schema.description}\n\n${list}` : list;
  }
  for (const value of Object.values(schema)) withEnumWords(value);
}

/** The served document: /openapi.json with code samples and enum values' words, and the guides listed in its introduction. */
function referenceDocument(document: Record<string, unknown>, all: Iterable<Guide>): Record<string, unknown> {
  const copy = withCodeSamples(document);
  withEnumWords(copy.paths);
  withEnumWords(copy.components);
  const info = copy.info as { description?: string };
  const list = [...all].map((g) => `- [${g.title}](${REFERENCE_MOUNT}/guides/${g.name})`).join('\n');
  info.description = `${info.description ?? ''}\n\n## Guides\n\n${list}\n\nThe document itself: [/openapi.json](/openapi.json).`;
  return copy;
}

interface Asset {
  type: string;
  body: string | Buffer;
  hash: string;
}

const asset = (type: string, body: string | Buffer): Asset => ({ type, body, hash: createHash('sha256').update(body).digest('base64url').slice(0, 16) });

/** The /docs site: the reference page, its document and scripts, and the guides. */
export function referenceSite(openApi: () => Record<string, unknown>) {
  let assets: Map<string, Asset> | null = null;
  const assetsOnce = () => {
    if (assets) return assets;
    const bundle = fs.readFileSync(REDOC_BUNDLE, 'utf8');
    assets = new Map([
      ['redoc.standalone.js', asset('text/javascript; charset=utf-8', bundle.replace(REDOCLY_LOGO, EMPTY_IMAGE))],
      ['search-worker.js', asset('text/javascript; charset=utf-8', searchWorkerOf(bundle))],
      ['reference.js', asset('text/javascript; charset=utf-8', REFERENCE_SCRIPT)],
      ['reference.css', asset('text/css; charset=utf-8', REFERENCE_STYLE)],
      ['guide.css', asset('text/css; charset=utf-8', GUIDE_STYLE)],
    ]);
    return assets;
  };
  let served: string | null = null;

  const router = express.Router({ strict: true });
  const html = (res: Response, body: string) => res.set(PAGE_HEADERS).set('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(body);
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.locals.route = REFERENCE_MOUNT;
    next();
  });
  router.get('/', (req: Request, res: Response) => (req.originalUrl.split('?')[0] === REFERENCE_MOUNT ? res.redirect(301, `${REFERENCE_MOUNT}/`) : html(res, REFERENCE_PAGE)));
  router.get('/openapi.json', (_req: Request, res: Response) => {
    served ??= JSON.stringify(referenceDocument(openApi(), guides().values()));
    res.set(PAGE_HEADERS).set('Cache-Control', 'no-store').type('application/json').send(served);
  });
  router.get('/assets/:file', (req: Request, res: Response, next: NextFunction) => {
    const found = assetsOnce().get(String(req.params.file));
    if (!found) return next();
    // Revalidated by hash: a new bundle (npm update) is fetched, an unchanged one is not sent again.
    res.set(PAGE_HEADERS).set({ 'Cache-Control': 'no-cache', ETag: `"${found.hash}"` });
    if (req.headers['if-none-match'] === `"${found.hash}"`) return res.status(304).end();
    res.type(found.type).send(found.body);
  });
  router.get('/guides/', (_req: Request, res: Response) => html(res, guidesIndex(guides().values())));
  router.get('/guides/:name', (req: Request, res: Response, next: NextFunction) => {
    const all = guides();
    const guide = all.get(String(req.params.name));
    return guide ? html(res, guidePage(guide, all.values())) : next();
  });
  router.use((req: Request, _res: Response, next: NextFunction) => next(new ApiError('IKW-RTE-001', `Nothing at ${req.originalUrl.split('?')[0]}`)));
  return router;
}
