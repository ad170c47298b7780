#!/usr/bin/env node
/**
 * Moves files with `git mv` and rewrites every relative import that reaches them, so that a move of
 * files between folders is one command and one commit (issue 54: each family into its own folders).
 *
 *   node scripts/move-files.mjs MOVES.json        (or a file of lines `old new`)
 *
 * MOVES is a list of [from, to] pairs of paths from the repository's root: a file to a file, or a
 * folder ending in `/` to a folder ending in `/` (its tracked files keep their names under it).
 * Then, in every tracked .ts/.tsx/.mts/.cjs/.mjs file, each relative specifier of `import`, `export
 * … from`, `import()` and `declare module` is re-aimed from the importer's new place at its target's
 * new place, keeping the specifier's extension style. Last, mentions of a moved file's path (or of a
 * folder moved whole) in comments and in the Markdown docs are rewritten too, so that no comment
 * points at a file that is gone. It stops before touching anything if a target exists already.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
process.chdir(root);
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' });
const tracked = git('ls-files').split('\n').filter(Boolean);
const trackedSet = new Set(tracked);

function readMoves(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.json')) return JSON.parse(text);
  return text
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((l) => l.split(/\s+/));
}

const pairs = process.argv.slice(2).flatMap(readMoves);
if (pairs.length === 0) {
  console.error('usage: node scripts/move-files.mjs MOVES.json|MOVES.txt …');
  process.exit(2);
}

/** Every tracked file that moves, old path → new path. */
const moved = new Map();
/** Folders moved whole (every tracked file under them), for mentions in prose. */
const movedFolders = [];
for (const [from, to] of pairs) {
  if (from.endsWith('/')) {
    if (!to.endsWith('/')) throw new Error(`${from} is a folder: its target must end in / (${to})`);
    const files = tracked.filter((f) => f.startsWith(from));
    if (files.length === 0) throw new Error(`no tracked file under ${from}`);
    for (const f of files) moved.set(f, to + f.slice(from.length));
    movedFolders.push([from, to]);
  } else {
    if (!trackedSet.has(from)) throw new Error(`${from} is not a tracked file`);
    moved.set(from, to.endsWith('/') ? to + path.posix.basename(from) : to);
  }
}
for (const [from, to] of moved) {
  if (fs.existsSync(to) && !moved.has(to)) throw new Error(`${to} exists already (moving ${from})`);
}

const newPlace = (f) => moved.get(f) ?? f;
const SOURCE = /\.(ts|tsx|mts|cjs|mjs)$/;
const candidates = (base) => {
  const stem = base.replace(/\.(js|mjs|cjs|jsx)$/, '');
  return [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`];
};
/** The tracked file a specifier of `importer` reaches, or undefined for one outside the tree's sources. */
function resolve(importer, spec) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(importer), spec));
  return candidates(base).find((c) => trackedSet.has(c));
}
/** The specifier that reaches `target` (new place) from `importer` (new place), in the style of `spec`. */
function respecify(importer, target, spec, oldTarget) {
  let rel = path.posix.relative(path.posix.dirname(importer), target);
  if (!rel.startsWith('.')) rel = `./${rel}`;
  // Keep the specifier's style: `.js` for a `.ts` file, no extension, or a folder's index.
  const oldBase = path.posix.normalize(path.posix.join('/', spec));
  const style = oldTarget.endsWith(`/index${path.posix.extname(oldTarget)}`) && !/index(\.\w+)?$/.test(oldBase) ? 'folder' : /\.(js|mjs|cjs|jsx)$/.test(spec) ? 'js' : path.posix.extname(spec) ? 'same' : 'bare';
  if (style === 'folder') return rel.replace(/\/index\.\w+$/, '');
  if (style === 'js') return rel.replace(/\.tsx?$/, '.js').replace(/\.mts$/, '.mjs');
  if (style === 'bare') return rel.replace(/\.\w+$/, '');
  return rel;
}

const SPECIFIER = /(\b(?:from|import|module)\s*\(?\s*)(['"])(\.\.?\/[^'"\n]*)\2/g;
let rewritten = 0;
for (const file of tracked.filter((f) => SOURCE.test(f) && !f.startsWith('node_modules/'))) {
  const text = fs.readFileSync(file, 'utf8');
  const at = newPlace(file);
  const next = text.replace(SPECIFIER, (whole, lead, quote, spec) => {
    const target = resolve(file, spec);
    if (!target) return whole;
    if (!moved.has(file) && !moved.has(target)) return whole;
    const spec2 = respecify(at, newPlace(target), spec, target);
    return spec2 === spec ? whole : `${lead}${quote}${spec2}${quote}`;
  });
  if (next !== text) {
    fs.writeFileSync(file, next);
    rewritten++;
  }
}

// Mentions in prose: whole file paths (with .ts or .js), and folders moved whole (ending in /).
const mentions = [
  ...[...moved].flatMap(([from, to]) => [
    [from, to],
    [from.replace(/\.tsx?$/, '.js'), to.replace(/\.tsx?$/, '.js')],
  ]),
  ...movedFolders,
]
  .filter(([from, to]) => from !== to)
  .sort((a, b) => b[0].length - a[0].length);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const mention = mentions.length ? new RegExp(`(?<![\\w./-])(${mentions.map(([f]) => escape(f)).join('|')})(?![\\w-])`, 'g') : undefined;
const mentionTo = new Map(mentions);
const PROSE = /\.(ts|tsx|mts|cjs|mjs|md)$/;
let mentioned = 0;
if (mention) {
  for (const file of tracked.filter((f) => PROSE.test(f) && !f.startsWith('node_modules/'))) {
    const text = fs.readFileSync(file, 'utf8');
    const next = text.replace(mention, (m) => mentionTo.get(m) ?? m);
    if (next !== text) {
      fs.writeFileSync(file, next);
      mentioned++;
    }
  }
}

for (const [from, to] of moved) {
  if (from === to) continue;
  fs.mkdirSync(path.posix.dirname(to), { recursive: true });
  git('mv', from, to);
}
console.log(`moved ${moved.size} files; re-aimed imports in ${rewritten} files; rewrote path mentions in ${mentioned} files`);
