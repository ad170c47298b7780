import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';

/**
 * Issue 50's rule (docs/architecture.md, "The read side and the edge"): only the family list names
 * ten or more families; any other file that imports that many is a shared registry growing back.
 * Counted by family: a file belongs to the family whose folder it lives in (packages/families/<family>/,
 * its read side in read/ and its edge in http/ included).
 */
const root = path.resolve(import.meta.dirname, '../../..');
const LISTS = ['packages/families/index.ts'];
const WIDE = 10;

const IMPORT = /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g;
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** The repository files a source file imports (relative and `#packages/…` imports, as .ts paths from the root). */
function importsOf(file: string, text = read(file)): string[] {
  return [...text.matchAll(IMPORT)]
    .map((m) => m[1]!)
    .filter((p) => p.startsWith('.') || p.startsWith('#packages/'))
    .map((p) => (p.startsWith('#') ? p.slice(1) : path.posix.normalize(path.posix.join(path.posix.dirname(file), p))).replace(/\.js$/, '.ts'));
}

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')));
}

/** The families: each has one folder of its name under packages/families. */
const FAMILIES = new Set(
  fs
    .readdirSync(path.join(root, 'packages/families'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name),
);

/** A file's family: the folder of its name it lives in. */
function familyOf(file: string): string | undefined {
  const m = /^packages\/families\/([^/.]+)\//.exec(file);
  return m && FAMILIES.has(m[1]!) ? m[1]! : undefined;
}

/** The families other than its own whose files a source file (its text, or as stored) imports. */
function familiesImportedBy(file: string, text?: string): Set<string> {
  const own = familyOf(file);
  return new Set(
    importsOf(file, text).flatMap((target) => {
      const family = familyOf(target);
      return family === undefined || family === own ? [] : [family];
    }),
  );
}

const files = ['packages', 'services', 'infra', 'bin'].flatMap(sources).sort();

t.test('the count sees families by their folders', async (t) => {
  t.equal(familyOf('packages/families/billing/read/customers.ts'), 'billing', "a read-model file belongs to its family's folder");
  t.equal(familyOf('packages/families/billing/read/index.ts'), 'billing', 'a read side is its family');
  t.equal(familyOf('packages/families/billing/http/merchant-invoices.ts'), 'billing', "a route file belongs to its family's folder");
  t.equal(familyOf('packages/families/escrow/http/escrow.ts'), 'escrow', "or bears its family's name");
  t.equal(familyOf('packages/families/billing/http/schemas.ts'), 'billing');
  t.equal(familyOf('packages/families/payments/payment-intent/commands.ts'), 'payments');
  t.equal(familyOf('packages/families/payouts/index.ts'), 'payouts');
  t.equal(familyOf('packages/http/route-kit.ts'), undefined, 'the route kit is no family');
  t.equal(familyOf('packages/read-models/paging.ts'), undefined, 'nor is the paging of the read side');
  t.ok(FAMILIES.size >= 19, `the families were read (${FAMILIES.size})`);
  const readSides = ['accounts', 'billing', 'checkout', 'escrow', 'funding', 'marketplace', 'merchants', 'payments', 'payouts', 'platform'];
  const wideFile = readSides.map((family, i) => `import { q${i} } from '../packages/families/${family}/read/index.js';`).join('\n');
  t.same([...familiesImportedBy('services/wide.ts', wideFile)].sort(), readSides, 'ten read sides are ten families');
  const narrowFile = "import { a } from '../packages/families/billing/read/customers.js';\nimport type { B } from '../packages/families/billing/read/invoices.js';\nexport { c } from '../packages/families/billing/invoice/events.js';";
  t.same([...familiesImportedBy('services/narrow.ts', narrowFile)], ['billing'], "one family's read-model files, types and domain are one family");
  t.same([...familiesImportedBy('packages/families/billing/http/merchant-invoices.ts', narrowFile)], [], 'its own family is not counted');
  for (const list of LISTS) t.ok(familiesImportedBy(list).size >= WIDE, `${list} is wide: ${familiesImportedBy(list).size} families`);
});

t.test(`no file but the family list imports ${WIDE} or more families`, async (t) => {
  const wide = files
    .filter((file) => !LISTS.includes(file))
    .map((file) => ({ file, families: [...familiesImportedBy(file)].sort() }))
    .filter(({ families }) => families.length >= WIDE)
    .map(({ file, families }) => `${file}: ${families.length} (${families.join(', ')})`);
  t.same(wide, [], `files importing ${WIDE} or more families (import the families' read sides, or move shared shapes to the family's own module):\n${wide.join('\n')}`);
});
