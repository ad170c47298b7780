import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';

/**
 * Issue 50's rule (docs/architecture.md, "The read side and the edge"): only the three lists name
 * ten or more families; any other file that imports that many is a shared registry growing back.
 * Counted by family as scripts/measure-families.py counts: a projection file belongs to the family
 * whose read side (projections/<family>/index.ts) lists it, a route file to the family whose entry
 * of the route list mounts it, a domain folder to its family (scripts/domain-families.json), a
 * module of response schemas (services/api/schemas/<family>.ts) to its family.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const LISTS = ['packages/families/index.ts', 'projections/index.ts', 'services/api/routes/index.ts'];
const ROUTE_LIST = 'services/api/routes/index.ts';
const WIDE = 10;

const IMPORT = /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g;
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** The repository files a source file imports (relative imports, as .ts paths from the root). */
function importsOf(file: string, text = read(file)): string[] {
  return [...text.matchAll(IMPORT)]
    .map((m) => m[1]!)
    .filter((p) => p.startsWith('.'))
    .map((p) => path.posix.normalize(path.posix.join(path.posix.dirname(file), p)).replace(/\.js$/, '.ts'));
}

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')));
}

/** Each projection file, by the read side that lists it; each read side is its family's too. */
function projectionFamilies(): Map<string, string> {
  const owner = new Map<string, string>();
  for (const family of fs.readdirSync(path.join(root, 'projections'))) {
    const index = `projections/${family}/index.ts`;
    if (!fs.existsSync(path.join(root, index))) continue;
    owner.set(index, family);
    for (const target of importsOf(index)) {
      if (target.split('/').length === 2 && target !== 'projections/read-side.ts') owner.set(target, family);
    }
  }
  return owner;
}

/** Each route file, by the entry of the route list whose routers it builds. */
function routeFamilies(): Map<string, string> {
  const text = read(ROUTE_LIST);
  const builderFile = new Map<string, string>();
  for (const m of text.matchAll(/import \{([^}]*)\} from '\.\/([^']+)\.js';/g)) {
    for (const name of m[1]!.split(',')) builderFile.set(name.trim(), `services/api/routes/${m[2]}.ts`);
  }
  const owner = new Map<string, string>();
  const entries = text.split('export const ROUTES')[1]!.split(/\n\s*\{\s*\n?\s*family: '/).slice(1);
  for (const entry of entries) {
    const family = entry.split("'", 1)[0]!;
    for (const m of entry.matchAll(/=> (\w+)\(/g)) {
      const file = builderFile.get(m[1]!);
      if (file) owner.set(file, family);
    }
  }
  return owner;
}

const domainFamily = JSON.parse(read('scripts/domain-families.json')) as Record<string, string>;
const projectionFamily = projectionFamilies();
const routeFamily = routeFamilies();

function familyOf(file: string): string | undefined {
  const domain = /^packages\/(?:domain|families)\/([^/]+)\//.exec(file);
  if (domain) return domainFamily[domain[1]!] ?? domain[1]!;
  const schemas = /^services\/api\/schemas\/([^/]+)\.ts$/.exec(file);
  if (schemas) return schemas[1]!;
  return projectionFamily.get(file) ?? routeFamily.get(file);
}

/** The families other than its own whose files a source file (its text, or as stored) imports. */
function familiesImportedBy(file: string, text?: string): Set<string> {
  const own = familyOf(file);
  return new Set(importsOf(file, text).flatMap((target) => {
    const family = familyOf(target);
    return family === undefined || family === own ? [] : [family];
  }));
}

const files = ['packages', 'services', 'projections', 'infra', 'bin'].flatMap(sources).sort();

t.test('the count sees families through their read sides, route files and domain folders', async (t) => {
  t.equal(familyOf('projections/billing/customers.ts'), 'billing', 'a read-model file belongs to the read side that lists it');
  t.equal(familyOf('projections/billing/index.ts'), 'billing', 'a read side is its family');
  t.equal(familyOf('services/api/routes/billing/merchant-invoices.ts'), 'billing', 'a route file belongs to the entry that mounts it');
  t.equal(familyOf('services/api/schemas/billing.ts'), 'billing');
  t.equal(familyOf('packages/families/payments/payment-intent/commands.ts'), 'payments');
  t.equal(familyOf('packages/families/payouts/index.ts'), 'payouts');
  t.equal(familyOf('services/api/routes/shared.ts'), undefined, 'the route kit is no family');
  t.equal(familyOf('projections/paging.ts'), undefined, 'nor is the paging of the read side');
  t.ok(routeFamily.size > 40, `the route list was read (${routeFamily.size} route files)`);
  const readSides = ['accounts', 'billing', 'checkout', 'escrow', 'funding', 'marketplace', 'merchants', 'payments', 'payouts', 'platform'];
  const wideFile = readSides.map((family, i) => `import { q${i} } from '../projections/${family}/index.js';`).join('\n');
  t.same([...familiesImportedBy('services/wide.ts', wideFile)].sort(), readSides, 'ten read sides are ten families');
  const narrowFile = "import { a } from '../projections/customers.js';\nimport type { B } from '../projections/invoices.js';\nexport { c } from '../packages/domain/invoice/events.js';";
  t.same([...familiesImportedBy('services/narrow.ts', narrowFile)], ['billing'], "one family's read-model files, types and domain are one family");
  t.same([...familiesImportedBy('services/api/routes/billing/merchant-invoices.ts', narrowFile)], [], 'its own family is not counted');
  for (const list of LISTS) t.ok(familiesImportedBy(list).size >= WIDE, `${list} is wide: ${familiesImportedBy(list).size} families`);
});

t.test(`no file but the three lists imports ${WIDE} or more families`, async (t) => {
  const wide = files
    .filter((file) => !LISTS.includes(file))
    .map((file) => ({ file, families: [...familiesImportedBy(file)].sort() }))
    .filter(({ families }) => families.length >= WIDE)
    .map(({ file, families }) => `${file}: ${families.length} (${families.join(', ')})`);
  t.same(wide, [], `files importing ${WIDE} or more families (import the families' read sides, or move shared shapes to the family's own module):\n${wide.join('\n')}`);
});
