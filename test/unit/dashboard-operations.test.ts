/**
 * Which operations of the API the dashboard calls (docs/dashboard.md, "Operations no page uses"):
 * every operation of docs/openapi.json is either called by the dashboard's code or named in that
 * table with why; nothing named there is called after all; and every call the dashboard makes is an
 * operation the API documents. So a new operation, or a page that starts using one, keeps the
 * table true.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from '#tap';

const root = join(import.meta.dirname, '..', '..', '..');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The operator API (/api/v1/operator/…) is the operator console's, never the dashboard's (docs/operator.md). */
const OPERATOR_PATH = /^\/api\/v1\/operator\//;

function documented(): Set<string> {
  const spec = JSON.parse(readFileSync(join(root, 'docs', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return new Set(Object.entries(spec.paths).flatMap(([path, ops]) => (OPERATOR_PATH.test(path) ? [] : METHODS.filter((m) => ops[m]).map((m) => `${m.toUpperCase()} ${path}`))));
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [readFileSync(join(dir, e.name), 'utf8')] : []));
}

/** The dashboard's calls: `sika.get('/api/v1/…')` and the like; a `${…}` part of a path matches any one segment. */
function called(): { method: string; path: RegExp; text: string }[] {
  const calls = sources(join(root, 'apps', 'dashboard', 'src')).flatMap((code) => [...code.matchAll(/sika\.(get|post|put|patch|delete)\(\s*['`]([^'`]+)['`]/g)]);
  // uploadWithProgress sends a PUT to the path it is given.
  const uploads = sources(join(root, 'apps', 'dashboard', 'src')).flatMap((code) => [...code.matchAll(/uploadWithProgress\(\s*`([^`]+)`/g)].map((m) => ['', 'put', m[1]!] as const));
  return [...calls.map((m) => [m[0], m[1]!, m[2]!] as const), ...uploads].map(([, method, path]) => {
    const pattern = path
      .split(/\$\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '\\{[^}]+\\}'))
      .join('(?:[^/]+|\\{[^}]+\\})');
    return { method: method.toUpperCase(), path: new RegExp(`^${pattern}$`), text: `${method.toUpperCase()} ${path}` };
  });
}

/** The table's operations: rows of "Operations no page uses" whose first cell is `METHOD /path`. */
function unusedByDesign(): string[] {
  const doc = readFileSync(join(root, 'docs', 'dashboard.md'), 'utf8');
  const section = doc.split(/^## Operations no page uses$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `((?:GET|POST|PUT|PATCH|DELETE) \/[^`]+)` \|/gm)].map((m) => m[1]!);
}

const operations = documented();
const calls = called();
const isCalled = (op: string) => {
  const [method, path] = op.split(' ') as [string, string];
  return calls.some((c) => c.method === method && c.path.test(path));
};

t.test('every call of the dashboard is a documented operation', async (t) => {
  const unknown = calls.filter((c) => ![...operations].some((op) => op.startsWith(`${c.method} `) && c.path.test(op.slice(c.method.length + 1)))).map((c) => c.text);
  t.same(unknown, [], 'no call to an operation the API does not document');
  t.ok(calls.length > 100, `the dashboard's calls are found (${calls.length})`);
});

t.test('every operation is used by a page or named in docs/dashboard.md with why', async (t) => {
  const named = unusedByDesign();
  t.same(
    [...operations].filter((op) => !isCalled(op) && !named.includes(op)),
    [],
    'an operation no page calls is in the table "Operations no page uses"',
  );
  t.same(
    named.filter((op) => isCalled(op)),
    [],
    'nothing in that table is called by a page',
  );
  t.same(
    named.filter((op) => !operations.has(op)),
    [],
    'everything in that table is an operation of the API',
  );
});
