/**
 * An e-mail's HTML shown inside the dashboard, whose strict Content-Security-Policy a frame of it
 * inherits (docs/dashboard.md): that policy refuses inline styles, so a plain `srcdoc` would show
 * the e-mail unstyled and report every refusal. Here the HTML's `<style>` elements and `style`
 * attributes are taken out of the text before it is parsed, and applied through the CSSOM, which
 * the policy does not govern: the preview looks as a mail client shows it, and nothing is
 * reported. Nothing in the frame runs: it allows no script (`sandbox` without `allow-scripts`), and
 * inline event handlers are dropped from the text as well.
 */

/** Where a `style` attribute waits, as inert text, until the CSSOM applies it. */
const HELD_STYLE = 'data-preview-style';

const TAG_NAME = /<([a-zA-Z][^\t\n\f\r />]*)/y;
const ATTRIBUTE = /[\t\n\f\r /]*([^\t\n\f\r />][^\t\n\f\r />=]*)(?:[\t\n\f\r ]*=[\t\n\f\r ]*("[^"]*"|'[^']*'|[^\t\n\f\r >]*))?/y;
const TAG_END = /[\t\n\f\r /]*(\/?)>/y;
/** Elements whose content is text up to their end tag (HTML's raw text elements, and the escapable ones). */
const RAW_TEXT = new Set(['style', 'script', 'textarea', 'title']);

/** The end of the raw text element `name` that starts at `from`: where its content ends, and where its end tag does. */
function rawTextEnd(html: string, name: string, from: number): { content: number; after: number } {
  const close = new RegExp(`</${name}[\\t\\n\\f\\r />]`, 'gi');
  close.lastIndex = from;
  const found = close.exec(html);
  if (!found) return { content: html.length, after: html.length };
  const gt = html.indexOf('>', found.index);
  return { content: found.index, after: gt < 0 ? html.length : gt + 1 };
}

/**
 * The HTML with its `<style>` and `<script>` elements and its inline event handlers taken out and
 * its `style` attributes held under another name, and the CSS of the style elements. A tag this
 * reads differently from the browser's parser only costs a style (or a reported refusal): the
 * frame's sandbox, not this, is what keeps scripts from running.
 */
export function takeOutStyles(html: string): { markup: string; css: string } {
  let markup = '';
  const css: string[] = [];
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf('<', at);
    if (lt < 0) {
      markup += html.slice(at);
      break;
    }
    markup += html.slice(at, lt);
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      const after = end < 0 ? html.length : end + 3;
      markup += html.slice(lt, after);
      at = after;
      continue;
    }
    TAG_NAME.lastIndex = lt;
    const tag = TAG_NAME.exec(html);
    if (!tag) {
      markup += '<';
      at = lt + 1;
      continue;
    }
    const name = tag[1]!.toLowerCase();
    let rebuilt = `<${tag[1]}`;
    let i = TAG_NAME.lastIndex;
    for (;;) {
      TAG_END.lastIndex = i;
      const end = TAG_END.exec(html);
      if (end) {
        rebuilt += end[1] ? ' />' : '>';
        i = TAG_END.lastIndex;
        break;
      }
      ATTRIBUTE.lastIndex = i;
      const attribute = ATTRIBUTE.exec(html);
      if (!attribute || ATTRIBUTE.lastIndex === i) {
        // An unfinished tag at the end of the text.
        i = html.length;
        break;
      }
      i = ATTRIBUTE.lastIndex;
      const attributeName = attribute[1]!.toLowerCase();
      if (attributeName.startsWith('on')) continue;
      rebuilt += ` ${attributeName === 'style' ? HELD_STYLE : attribute[1]}${attribute[2] === undefined ? '' : `=${attribute[2]}`}`;
    }
    if (!RAW_TEXT.has(name)) {
      markup += rebuilt;
      at = i;
      continue;
    }
    const { content, after } = rawTextEnd(html, name, i);
    if (name === 'style') css.push(html.slice(i, content));
    else if (name !== 'script') markup += rebuilt + html.slice(i, after);
    at = after;
  }
  return { markup, css: css.join('\n') };
}

/** Elements a preview leaves out: they would load or run something the frame's policy refuses (and reports). */
const LEFT_OUT = 'script, style, link, meta, base, iframe, frame, frameset, object, embed';

/** Applies the held `style` attribute of `element` through the CSSOM. */
function applyHeldStyle(element: Element): void {
  const style = element.getAttribute(HELD_STYLE);
  element.removeAttribute(HELD_STYLE);
  if (style !== null && 'style' in element) (element as HTMLElement).style.cssText = style;
}

/**
 * Writes `html` into the document of `frame` (an iframe with `sandbox="allow-same-origin"`, which
 * lets the page write into it; with no script allowed, nothing in the frame can use that origin).
 * Images from other sites would be refused by the policy: their alt text stands in for them.
 */
export function showHtml(frame: HTMLIFrameElement, html: string): void {
  const doc = frame.contentDocument;
  const view = frame.contentWindow as (Window & typeof globalThis) | null;
  if (!doc || !view) return;
  const { markup, css } = takeOutStyles(html);
  const parsed = new DOMParser().parseFromString(markup, 'text/html');
  parsed.querySelectorAll(LEFT_OUT).forEach((e) => e.remove());
  parsed.querySelectorAll('img').forEach((img) => {
    if (!/^data:/i.test(img.getAttribute('src') ?? '')) img.removeAttribute('src');
    img.removeAttribute('srcset');
  });
  const sheet = new view.CSSStyleSheet();
  // replaceSync skips @import rules; a sheet it cannot read at all is left out, as a mail client would.
  try {
    sheet.replaceSync(css);
  } catch {
    sheet.replaceSync('');
  }
  doc.adoptedStyleSheets = [sheet];
  for (const attribute of Array.from(doc.body.attributes)) doc.body.removeAttribute(attribute.name);
  for (const attribute of Array.from(parsed.body.attributes)) doc.body.setAttribute(attribute.name, attribute.value);
  doc.body.replaceChildren(...Array.from(parsed.body.childNodes, (node) => doc.importNode(node, true)));
  applyHeldStyle(doc.body);
  doc.body.querySelectorAll(`[${HELD_STYLE}]`).forEach(applyHeldStyle);
  // As tall as the e-mail (the stylesheet caps it; past that the frame scrolls), measured from the stylesheet's smallest height.
  frame.style.height = '';
  frame.style.height = `${doc.documentElement.scrollHeight + 2}px`;
}
