import fs from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { PROJECT_ROOT } from '#packages/core/config.js';

/**
 * The guides beside the rendered reference (/docs/guides/<name>): the pages of docs/ an
 * integrator needs, rendered from their markdown when first asked for. markdown-it runs with raw
 * HTML off (any `<tag>` in the text is shown, not obeyed) and its own check of link protocols, so
 * a page holds nothing but what markdown makes; links to another guide point at its page, and
 * links into the repository (code, other docs) are shown as text and its images as their alternative
 * text, since the site does not serve them.
 */
export const GUIDES: readonly { name: string; file: string }[] = [
  { name: 'authentication', file: 'authentication.md' },
  { name: 'environments', file: 'environments.md' },
  { name: 'idempotency', file: 'idempotency.md' },
  { name: 'pagination', file: 'pagination.md' },
  { name: 'errors', file: 'errors.md' },
  { name: 'sandbox-testing', file: 'sandbox-testing.md' },
  { name: 'api-keys-and-going-live', file: 'merchants.md' },
  { name: 'webhooks', file: 'webhooks.md' },
  { name: 'events', file: 'events.md' },
  { name: 'payments', file: 'payments.md' },
  { name: 'payouts', file: 'payouts.md' },
  { name: 'checkout', file: 'checkout.md' },
  { name: 'sandbox-numbers', file: 'catalog.md' },
];

export interface Guide {
  name: string;
  title: string;
  /** The page's body: markdown-it's HTML. */
  html: string;
}

const guideOfFile = new Map(GUIDES.map((g) => [g.file, g.name]));

/** GitHub's anchor of a heading, which the docs' own `#…` links use. */
export const slug = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function renderer() {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  md.core.ruler.push('heading_ids', (state) => {
    const seen = new Map<string, number>();
    state.tokens.forEach((token, i) => {
      if (token.type !== 'heading_open') return;
      const base = slug(
        state.tokens[i + 1]?.children
          ?.filter((c) => c.type === 'text' || c.type === 'code_inline')
          .map((c) => c.content)
          .join('') ?? '',
      );
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      token.attrSet('id', n === 0 ? base : `${base}-${n}`);
    });
  });
  md.core.ruler.push('guide_links', (state) => {
    for (const block of state.tokens) {
      const children = block.children ?? [];
      children.forEach((token, i) => {
        // An image of docs/ (a screenshot) is not served here: its alternative text stands in for it.
        if (token.type === 'image' && !/^https?:/.test(String(token.attrGet('src') ?? ''))) {
          Object.assign(token, { type: 'text', tag: '', attrs: null, children: null });
          return;
        }
        if (token.type !== 'link_open') return;
        const href = String(token.attrGet('href') ?? '');
        if (/^(https?:|mailto:|#)/.test(href)) return;
        const [file, anchor] = href.split('#') as [string, string | undefined];
        const guide = guideOfFile.get(path.posix.basename(file));
        if (guide && !file.includes('/')) {
          token.attrSet('href', `/docs/guides/${guide}${anchor ? `#${anchor}` : ''}`);
          return;
        }
        // Not on this site: the link's text stays, without the link.
        const close = children.findIndex((t, j) => j > i && t.type === 'link_close' && t.level === token.level);
        token.type = 'text';
        token.tag = '';
        token.attrs = null;
        token.content = '';
        if (close !== -1) Object.assign(children[close]!, { type: 'text', tag: '', content: '' });
      });
    }
  });
  return md;
}

let rendered: Map<string, Guide> | null = null;

/** Every guide, rendered once. */
export function guides(): Map<string, Guide> {
  if (rendered) return rendered;
  const md = renderer();
  rendered = new Map(
    GUIDES.map(({ name, file }) => {
      const text = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', file), 'utf8');
      const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? name;
      // A code block scrolls sideways: focusable, so a keyboard can scroll it too.
      return [name, { name, title, html: md.render(text).replaceAll('<pre>', '<pre tabindex="0">') }];
    }),
  );
  return rendered;
}
