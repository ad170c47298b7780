/**
 * The dashboard's words in both languages (docs/dashboard.md, "Words"): every table of messages in
 * apps/dashboard/src — the shared one (i18n.ts), each page's (`en: {…}, fr: {…}`), and the one-line
 * entries (`{ en: '…', fr: '…' }`, such as the failure reasons and history events) — has a French
 * text for every English key, none empty, with the same `{placeholders}`. The types catch a missing
 * key at build; this also catches an empty French text and a placeholder French lost or misspelt.
 * And the words are kept one way: every such table is in a `*.messages.ts` file (beside its page),
 * the shared one of i18n.ts apart, never inline in a page.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from '#tap';

const root = join(import.meta.dirname, '..', '..', '..');
const src = join(root, 'apps', 'dashboard', 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

type Table = Map<string, string>;

/** The entries `key: 'text'` (one a line) of a block's lines. */
function entries(block: string): Table {
  const table: Table = new Map();
  for (const m of block.matchAll(/^\s+('[^']+'|[\w.]+):\s*(['"`])(.*)\2,?\s*$/gm)) table.set(m[1]!.replace(/'/g, ''), m[3]!);
  return table;
}

/** The English and French tables of a file, paired in order: blocks `en: {…}` (or `const en = {…}`) and `fr: {…}` (or `const fr… = {…}`), one entry a line. */
function tables(code: string): [Table, Table][] {
  const blocks = (lang: string) => [...code.matchAll(new RegExp(`^(\\s*)(?:const )?${lang}(?::|\\s*=|: [^=\\n]+=) \\{\\n([\\s\\S]*?)^\\1\\};?,?$`, 'gm'))].map((m) => entries(m[2]!));
  const [en, fr] = [blocks('en'), blocks('fr')];
  if (en.length !== fr.length) throw new Error(`${en.length} English tables and ${fr.length} French ones`);
  return en.map((table, i) => [table, fr[i]!]);
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Whether a file may hold a table of words: a `*.messages.ts` file, or the shell's shared words. */
const keepsWords = (name: string) => name.endsWith('.messages.ts') || name === join('apps', 'dashboard', 'src', 'shell', 'i18n.ts');

let tablesSeen = 0;
let oneLiners = 0;
for (const file of files(src)) {
  const code = readFileSync(file, 'utf8');
  const name = relative(root, file);
  const holdsWords = tables(code).length > 0 || /(: |satisfies )Messages</.test(code) || /\{ en: ['"]/.test(code);
  if (holdsWords && !keepsWords(name)) t.fail(`${name}: a table of words outside a *.messages.ts file (docs/dashboard.md, "Words")`);
  for (const [en, fr] of tables(code)) {
    tablesSeen++;
    for (const [key, text] of en) {
      const french = fr.get(key);
      if (french === undefined) t.fail(`${name}: "${key}" has no French text`);
      else if (french.trim() === '') t.fail(`${name}: "${key}" has an empty French text`);
      else if (placeholders(text).join() !== placeholders(french).join()) t.fail(`${name}: "${key}" has placeholders {${placeholders(text).join('} {')}} in English, {${placeholders(french).join('} {')}} in French`);
    }
  }
  for (const m of code.matchAll(/\{ en: (['"])(.*?)\1, fr: (['"])(.*?)\3 \}/g)) {
    oneLiners++;
    if (m[4]!.trim() === '') t.fail(`${name}: "${m[2]}" has an empty French text`);
  }
  for (const line of code.split('\n')) if (/\{ en: ['"]/.test(line) && !/fr: ['"]/.test(line)) t.fail(`${name}: an English text without French: ${line.trim()}`);
}
t.ok(tablesSeen >= 36, `every page's table read (${tablesSeen})`);
t.ok(oneLiners > 20, `the one-line entries read (${oneLiners})`);
