import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';

/**
 * The rule of docs/architecture.md ("Application layer"): in packages/families an owner check goes
 * through the aggregate helpers (`assertOwned`, `isOwned` in packages/core/aggregate.ts), never a
 * comparison written by hand, so that every command refuses another merchant's object the same
 * way (404 IKW-RES-001) and a change to that rule is made in one place. A dependency rule cannot
 * see code, hence this scan.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const DOMAIN = 'packages/families';
const HELPERS = 'packages/core/aggregate.ts';

/** A merchantId or environment compared with another one (`a.merchantId !== b.merchantId`, `m.environment === environment`), across line breaks too. */
const HAND_WRITTEN = /\b(merchantId|environment)\s*[!=]==?\s*[\w$.?!]*\b\1\b/g;

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')))
    .sort();
}

/** `file:line: text` of each hand-written owner comparison in the file (comments aside). */
function findings(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const lines = text.split('\n');
  const found: string[] = [];
  for (const m of text.matchAll(HAND_WRITTEN)) {
    const line = text.slice(0, m.index).split('\n').length;
    const code = lines[line - 1]!.trim();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) continue;
    found.push(`${file}:${line}: ${code}`);
  }
  return found;
}

const scanned = sources(DOMAIN).filter((f) => f !== HELPERS);
const byFile = new Map(scanned.map((f) => [f, findings(f)]));

t.test('the pattern sees the shapes it is meant to catch', async (t) => {
  const caught = (s: string) => [...s.matchAll(HAND_WRITTEN)].length > 0;
  t.ok(caught('if (!i || i.merchantId !== who.merchantId || i.environment !== who.environment) throw'));
  t.ok(caught('r && r.merchantId === owner.merchantId && r.environment === owner.environment ? r : null'));
  t.ok(caught('if (!m || m.merchantId !== merchantId || m.environment !== environment) return'));
  t.ok(caught('state.session.merchantId !==\n      who.merchantId'));
  t.notOk(caught("livemode: c.environment === 'live'"));
  t.notOk(caught('options.merchantId === undefined'));
  t.notOk(caught('m.merchantIds.includes(session.merchantId)'));
});

t.test('owner checks in packages/families go through the aggregate helpers', async (t) => {
  const offending = [...byFile].flatMap(([, found]) => found);
  t.same(offending, [], `hand-written owner checks (use assertOwned/isOwned from ${HELPERS}):\n${offending.join('\n')}`);
});
