/**
 * Walks /openapi.json (docs/openapi.json, which test/integration/openapi.test.ts keeps equal to
 * what the service serves) as an integrator reads it: every operation described in words of its
 * own, with a recorded example of its request and answer, every property and enum value
 * described, every error code it names in the error table and every event it names in the event
 * catalogue (docs/architecture.md, "Words and examples of the reference"). Every family must have
 * no gap, so a new operation, field or value comes with its words.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { PROJECT_ROOT } from '#packages/core/config.js';
import { ERROR_CODES, PUBLIC_EVENTS } from '#packages/families/index.js';

type Schema = Record<string, unknown>;
interface Operation {
  tags: string[];
  summary: string;
  description: string;
  parameters?: { name: string; description?: string }[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: Schema; example?: unknown }> }>;
}
const document = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'docs/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  tags?: { name: string; description?: string }[];
};

/** Every property without words and every enum without words for each value, under `schema`, as dotted paths. */
function schemaGaps(schema: unknown, at: string, gaps: string[]): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => schemaGaps(s, `${at}[${i}]`, gaps));
    return;
  }
  const s = schema as Schema;
  if (Array.isArray(s.enum)) {
    const words = (s['x-enumDescriptions'] ?? {}) as Record<string, string>;
    for (const value of s.enum) if (value !== null && !words[String(value)]) gaps.push(`${at}: the value ${JSON.stringify(value)} has no description`);
  }
  for (const [name, property] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    if (property !== null && typeof property === 'object' && typeof (property as Schema).description !== 'string') gaps.push(`${at}.${name} has no description`);
  }
  for (const [key, value] of Object.entries(s)) if (key !== 'enum' && key !== 'x-enumDescriptions' && key !== 'example') schemaGaps(value, key === 'properties' ? at : `${at}/${key}`, gaps);
}

/** What an integrator would miss in one operation. */
function operationGaps(method: string, route: string, op: Operation): string[] {
  const gaps: string[] = [];
  const name = `${method.toUpperCase()} ${route}`;
  if (op.description.split('\n\n')[0] === op.summary) gaps.push(`${name}: no description of its own`);
  for (const parameter of op.parameters ?? []) if (!parameter.description) gaps.push(`${name}: the parameter ${parameter.name} has no description`);
  const requestJson = op.requestBody?.content['application/json'];
  if (requestJson) {
    if (requestJson.example === undefined) gaps.push(`${name}: no example request`);
    schemaGaps(requestJson.schema, `${name} request`, gaps);
  }
  for (const [status, response] of Object.entries(op.responses)) {
    const json = response.content?.['application/json'];
    if (!json || !/^2/.test(status)) continue;
    // The document's own example would be the document.
    if (json.example === undefined && route !== '/openapi.json') gaps.push(`${name}: no example answer`);
    schemaGaps(json.schema, `${name} ${status}`, gaps);
  }
  return gaps;
}

const operations = Object.entries(document.paths).flatMap(([route, item]) => Object.entries(item).map(([method, op]) => ({ route, method, op })));

t.test('every family is described completely', async (t) => {
  const gapsByFamily = new Map<string, string[]>();
  for (const { route, method, op } of operations) {
    const family = op.tags[0]!;
    gapsByFamily.set(family, [...(gapsByFamily.get(family) ?? []), ...operationGaps(method, route, op)]);
  }
  for (const [family, gaps] of gapsByFamily) t.same(gaps, [], `${family} is described completely`);
});

t.test('every family is a tag with a description', async (t) => {
  const tags = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
  for (const family of new Set(operations.map(({ op }) => op.tags[0]!))) t.ok(tags.get(family), `${family} says what it is for`);
});

t.test('every error code an operation names is in the error table, every event in the event catalogue', async (t) => {
  const events = new Set(PUBLIC_EVENTS.types.map((type) => type.type));
  const unknown: string[] = [];
  for (const { route, method, op } of operations) {
    for (const [, code] of op.description.matchAll(/`(IKW-[A-Z]+-\d+)`/g)) if (!(code! in ERROR_CODES)) unknown.push(`${method} ${route}: ${code}`);
    const named = /\*\*Events:\*\* (.*) \(docs\/events\.md\)/.exec(op.description)?.[1] ?? '';
    for (const [, type] of named.matchAll(/`([^`]+)`/g)) if (!events.has(type!)) unknown.push(`${method} ${route}: ${type}`);
  }
  t.same(unknown, [], 'no operation names a code or an event that does not exist');
});
