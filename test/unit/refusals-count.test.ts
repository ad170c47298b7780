/**
 * The ratchet of issue 54, item 5 (docs/architecture.md, "Refusals"): domain and family code refuses
 * with a Refusal in domain words, never with the HTTP ApiError. The count of `ApiError` (imports and
 * uses) in that code may only go down, and each step down lowers CEILING to the new count.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../../..');
const DIRS = ['packages/domain', 'packages/families'];
/** The most `ApiError`s domain and family code may hold; it only goes down, to 0. */
const CEILING = 0;

/** Each source file under DIRS with its number of `ApiError`s, those with none left out. */
function apiErrors(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const dir of DIRS) {
    for (const file of fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (!/\.tsx?$/.test(file)) continue;
      const where = path.posix.join(dir, file.split(path.sep).join('/'));
      const n = fs.readFileSync(path.join(root, where), 'utf8').match(/\bApiError\b/g)?.length ?? 0;
      if (n > 0) counts.set(where, n);
    }
  }
  return counts;
}

t.test('domain and family code holds no more ApiErrors than the ceiling', async (t) => {
  const counts = apiErrors();
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const worst = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([f, n]) => `${n} ${f}`).join('\n');
  t.ok(total <= CEILING, `${total} ApiErrors under ${DIRS.join(' and ')}, above the ceiling of ${CEILING}: refuse with a Refusal (packages/core/refusal.ts) in domain words, and let the route name the request parameter (Route.fields). The most:\n${worst}`);
  // A ratchet holds only if each step down is written down: a count below the ceiling fails too.
  t.ok(total >= CEILING, `${total} ApiErrors, below the ceiling of ${CEILING}: well done; lower CEILING in test/unit/refusals-count.test.ts to ${total}`);
});
