/**
 * Each family's public events (packages/families/<family>/[<aggregate>/]public-events.ts), declared by its manifest
 * and assembled from the family list (packages/families/index.ts): every type's example is an object of the family as
 * the API documents it (its schema in docs/openapi.json), with test ids only. Payouts, customers
 * and refunds render theirs through the renderer their deciders use.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { FAMILIES, PUBLIC_EVENTS } from '#packages/families/index.js';

/** Every public-events module the manifests declare. */
const DECLARED = FAMILIES.flatMap((family) => family.publicEvents ?? []);

const root = path.resolve(import.meta.dirname, '../../..');

const ajv = new Ajv({ strict: false, allErrors: true });
formats.default(ajv);

/** Every schema docs/openapi.json gives an object of each kind (`object`: its const or enum), in any answer. */
function documentedSchemas(): Map<string, ValidateFunction[]> {
  const found = new Map<string, ValidateFunction[]>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const schema = node as { properties?: { object?: { const?: string; enum?: string[] } } };
    const kind = schema.properties?.object?.const ?? schema.properties?.object?.enum?.[0];
    if (kind) found.set(kind, [...(found.get(kind) ?? []), ajv.compile(schema)]);
    Object.values(node).forEach(walk);
  };
  walk(JSON.parse(fs.readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')).paths);
  return found;
}

/** Every string in a value, at any depth. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

t.test("every public type's example is its object as docs/openapi.json documents it, with test ids", async (t) => {
  const schemas = documentedSchemas();
  const created = Date.parse('2026-11-25T12:00:00Z') / 1000;
  for (const family of DECLARED) {
    for (const { type } of family.types) {
      for (const livemode of [false, true]) {
        const example = JSON.parse(JSON.stringify(family.example(type, created, livemode))) as { object: string; id: string; livemode: boolean };
        const documented = schemas.get(example.object) ?? [];
        t.ok(documented.length > 0, `${type}: docs/openapi.json documents the ${example.object}`);
        // Some routes answer an object with more (a payment intent's refunds and receipt): one documented shape is the event's.
        const errors = documented.map((validate) => (validate(example) ? null : validate.errors));
        t.ok(errors.includes(null), `${type}${livemode ? ' (live)' : ''} is a documented ${example.object}: ${JSON.stringify(errors[0])}`);
        t.equal(example.livemode, livemode, `${type}: livemode follows the environment`);
        t.match(example.id, /^[a-z]+_test_[0-9A-Za-z]{24}$/, `${type}: the object's id is a test id`);
        for (const s of strings(example).filter((s) => /^[a-z]+_(test_)?[0-9A-Za-z]{24}$/.test(s))) t.match(s, /_test_/, `${type}: ${s} is a test id`);
      }
    }
  }
});

t.test('the catalogue is the types the families declare, each module’s in its order, each type once', async (t) => {
  const types = PUBLIC_EVENTS.names();
  t.same([...types].sort(), DECLARED.flatMap((f) => f.types.map((e) => e.type)).sort());
  t.equal(new Set(types).size, types.length);
  for (const family of DECLARED) {
    const own = family.types.map((e) => e.type);
    t.same(
      types.filter((type) => own.includes(type)),
      own,
      `${own[0]}…: in its module's order`,
    );
  }
  for (const family of DECLARED) {
    const prefixes = new Set(family.types.map((e) => e.type.slice(0, e.type.indexOf('.'))));
    t.equal(prefixes.size, 1, `one family per module: ${[...prefixes].join(', ')}`);
  }
});
