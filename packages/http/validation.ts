import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { ApiError, refuseEvery, type ErrorCode, type ItemError } from '#packages/core/errors.js';

/** A JSON Schema (draft 2020-12 subset that ajv and OpenAPI 3.1 both read). */
export type JsonSchema = Record<string, unknown>;

// ajv-formats is CommonJS; under NodeNext its function is the `default` property of the module.
const addFormats = formats.default;

/** Bodies are validated as sent: no coercion, so "10" is not an integer. */
const bodyAjv = new Ajv({ allErrors: false, strict: true, coerceTypes: false, useDefaults: false });
/** The bodies of routes that report every problem (Route.everyProblem), not only the first. */
const everyProblemAjv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });
/** Query and path parameters arrive as strings: coerce them to the schema's types. */
const paramAjv = new Ajv({ allErrors: false, strict: true, coerceTypes: true, useDefaults: true });
addFormats(bodyAjv);
addFormats(everyProblemAjv);
addFormats(paramAjv);
// The reference's words for each value of an enum (docs/architecture.md, "Words and examples of the
// reference"): an annotation that validates nothing, which strict mode would otherwise refuse.
for (const ajv of [bodyAjv, everyProblemAjv, paramAjv]) ajv.addKeyword({ keyword: 'x-enumDescriptions', schemaType: 'object' });

/**
 * Per validator, compiled once per schema: by the object (one schema object may serve as a body and
 * as an answer, compiled differently), and by its JSON, since each service built in a process makes
 * its routes' schemas anew (a test file builds many), and compiling them is most of building one.
 */
const compiled = new Map<Ajv, { byObject: WeakMap<JsonSchema, ValidateFunction>; byJson: Map<string, ValidateFunction> }>();

function compile(ajv: Ajv, schema: JsonSchema): ValidateFunction {
  let cache = compiled.get(ajv);
  if (!cache) compiled.set(ajv, (cache = { byObject: new WeakMap(), byJson: new Map() }));
  let fn = cache.byObject.get(schema);
  if (!fn) {
    const json = JSON.stringify(schema);
    fn = cache.byJson.get(json);
    if (!fn) cache.byJson.set(json, (fn = ajv.compile(schema)));
    cache.byObject.set(schema, fn);
  }
  return fn;
}

/** The field an error is about, as the keys and indexes that lead to it from the top. */
function partsOf(error: ErrorObject): string[] {
  const parts = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty));
  return parts;
}

function pathOf(error: ErrorObject, prefix: string | null): string {
  const parts = partsOf(error);
  if (prefix) parts.unshift(prefix);
  return parts.join('.');
}

/**
 * Where a field is in `value`, as the rank of each key (in the order it was sent) or index on the
 * way to it; a field that is missing comes after those that are there.
 */
function placeIn(value: unknown, parts: readonly string[]): number[] {
  const place: number[] = [];
  let at = value;
  for (const part of parts) {
    if (Array.isArray(at)) {
      place.push(Number(part));
      at = at[Number(part)];
    } else if (typeof at === 'object' && at !== null) {
      const rank = Object.keys(at).indexOf(part);
      place.push(rank === -1 ? Number.MAX_SAFE_INTEGER : rank);
      at = (at as Record<string, unknown>)[part];
    } else break;
  }
  return place;
}

/** Orders places as the fields are in the body: a field before the fields inside it, then by rank at each level. */
function comparePlaces(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function describe(error: ErrorObject, param: string): string {
  switch (error.keyword) {
    case 'required':
      return `Missing required parameter: ${param}`;
    case 'additionalProperties':
      return `Unknown parameter: ${param}`;
    case 'false schema':
      return `${param} does not go with the other parameters given`;
    case 'type':
      return `${param || 'The body'} must be of type ${String(error.params.type)}`;
    case 'enum':
      return `${param} must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return `${param || 'The body'} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Validates `value` in place; throws IKW-VAL-001 / IKW-VAL-002 naming the offending field. Query
 * and path parameters come out with numbers where their schemas say so, each within its bounds.
 */
export function validate(schema: JsonSchema, value: unknown, where: 'body' | 'query' | 'params'): void {
  const fn = compile(where === 'body' ? bodyAjv : paramAjv, schema);
  if (fn(value)) {
    if (where !== 'body') assertNumbersInRange(schema, value as Record<string, unknown>);
    return;
  }
  const error = fn.errors![0]!;
  const param = pathOf(error, null);
  throw new ApiError(codeOf(error), describe(error, param), param || undefined);
}

const codeOf = (error: ErrorObject): ErrorCode => (error.keyword === 'additionalProperties' || error.keyword === 'false schema' ? 'IKW-VAL-002' : 'IKW-VAL-001');

/** The most problems one answer lists: a body is at most 1 MiB, but nobody reads thousands. */
export const MAX_PROBLEMS = 100;

/**
 * Validates a body like `validate`, but a body with problems is refused with every one of them
 * (ItemsRefused: `errors`, each with its code, words and param, in the body's order, at most
 * MAX_PROBLEMS), the first also as the answer's own code, message and param. `beyondSchema` adds
 * the problems of the route's own checks of the parts the schema accepted, given the schema's
 * (all of them: a part is accepted when none names it).
 */
export async function validateEveryProblem(schema: JsonSchema, value: unknown, beyondSchema?: (refused: readonly ItemError[]) => Promise<ItemError[]>): Promise<void> {
  if (compile(bodyAjv, schema)(value)) return;
  const fn = compile(everyProblemAjv, schema);
  fn(value);
  const refused = problemsOf(fn.errors ?? []);
  const beyond = beyondSchema ? await beyondSchema(refused.map((r) => r.problem)) : [];
  // ajv says them in the order of its keywords (an allOf before properties): say them in the body's.
  const all = [...refused, ...beyond.map((problem) => ({ problem, parts: problem.param?.split('.') ?? [] }))].map((p, i) => ({ ...p, i, place: placeIn(value, p.parts) }));
  all.sort((a, b) => comparePlaces(a.place, b.place) || a.i - b.i);
  refuseEvery(all.slice(0, MAX_PROBLEMS).map((p) => p.problem));
  // Never let a body the schema refused through: should no problem be listed, the first-problem answer.
  validate(schema, value, 'body');
}

/**
 * ajv's errors as a person would list them: an `if` that failed only says its `then` did, which
 * is already listed; of the alternatives of a `oneOf` or `anyOf` that none matched only the first
 * one's problem is said (as when ajv stops at the first problem), the `oneOf` itself when it has
 * none (two alternatives matched). Each problem once.
 */
function problemsOf(errors: ErrorObject[]): { problem: ItemError; parts: string[] }[] {
  // One schema applies to every item of an array: an alternative is its place in the schema and in the body.
  const alternativeOf = (e: ErrorObject) => `${e.instancePath}#${e.schemaPath}`;
  const alternatives = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  const saidFor = new Set<string>();
  const problems = new Map<string, { problem: ItemError; parts: string[] }>();
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    const within = alternatives.find((a) => error.schemaPath.startsWith(`${a.schemaPath}/`) && (error.instancePath === a.instancePath || error.instancePath.startsWith(`${a.instancePath}/`)));
    if (within !== undefined) {
      if (saidFor.has(alternativeOf(within))) continue;
      saidFor.add(alternativeOf(within));
    } else if (saidFor.has(alternativeOf(error))) continue;
    const parts = partsOf(error);
    const param = parts.join('.');
    const message = describe(error, param);
    const key = JSON.stringify([parts, message]);
    if (!problems.has(key)) problems.set(key, { problem: { code: codeOf(error), message, ...(param ? { param } : {}) }, parts });
  }
  return [...problems.values()];
}

/**
 * ajv coerces "1e309" to Infinity (and "9007199254740993" to a neighbour) and then skips
 * `minimum`/`maximum` for a value that is not finite, so every number a query or path parameter was
 * coerced to is checked here: finite, within the schema's bounds, and within ±(2^53 - 1), where
 * integers are exact. Parameters are flat (the query parser is `simple`): a value or a list of them.
 */
function assertNumbersInRange(schema: JsonSchema, value: Record<string, unknown>): void {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, v] of Object.entries(value)) {
    for (const n of Array.isArray(v) ? v : [v]) {
      if (typeof n !== 'number' || (Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER)) continue;
      const own = properties[name] ?? {};
      const bounds = (Array.isArray(v) ? (own.items as JsonSchema | undefined) : own) ?? {};
      const message = n > 0 ? `${name} must be <= ${typeof bounds.maximum === 'number' ? bounds.maximum : Number.MAX_SAFE_INTEGER}` : `${name} must be >= ${typeof bounds.minimum === 'number' ? bounds.minimum : -Number.MAX_SAFE_INTEGER}`;
      throw new ApiError('IKW-VAL-001', message, name);
    }
  }
}

/** Answers as the OpenAPI document declares them; declarations may carry words ajv does not know. */
const answerAjv = new Ajv({ allErrors: false, strict: false });
addFormats(answerAjv);

/** Where `value` (an answer as its client parses it) departs from `schema`, or null when it fits. */
export function answerMismatch(schema: JsonSchema, value: unknown): string | null {
  const fn = compile(answerAjv, schema);
  if (fn(value)) {
    const unnamed = unnamedFields(schema, value, []);
    return unnamed.length === 0 ? null : `${unnamed.join(', ')}: not named by the schema`;
  }
  const error = fn.errors![0]!;
  return `${pathOf(error, null) || 'the answer'} ${error.message ?? 'does not fit'} (${error.schemaPath})`;
}

/**
 * The fields of `value` its schema does not name, as dotted paths: where a schema names an
 * object's fields (`properties`, in it or its alternatives), a field it leaves out is one the
 * document keeps from its readers. An object schema without `properties` is free-form (metadata,
 * an event's data); `additionalProperties` with a schema names every other field.
 */
function unnamedFields(schema: JsonSchema, value: unknown, at: string[]): string[] {
  const alternatives = (['anyOf', 'oneOf', 'allOf'] as const).flatMap((k) => (schema[k] as JsonSchema[] | undefined) ?? []);
  if (Array.isArray(value)) {
    const items = (schema.items as JsonSchema | undefined) ?? (alternatives.find((a) => a.items !== undefined)?.items as JsonSchema | undefined);
    return items ? value.flatMap((v, i) => unnamedFields(items, v, [...at, String(i)])) : [];
  }
  if (typeof value !== 'object' || value === null) return [];
  const named = [schema, ...alternatives].filter((s) => s.properties !== undefined);
  if (named.length === 0) return [];
  const others = named.map((s) => s.additionalProperties).find((a) => a !== undefined && a !== false);
  return Object.entries(value).flatMap(([key, v]) => {
    const own = named.map((s) => (s.properties as Record<string, JsonSchema>)[key]).find((p) => p !== undefined);
    if (own) return unnamedFields(own, v, [...at, key]);
    if (others === true) return [];
    if (others) return unnamedFields(others as JsonSchema, v, [...at, key]);
    return [[...at, key].join('.')];
  });
}

/** Compiles a schema ahead of time, so a schema mistake fails at start, not at the first request. */
export function precompile(schema: JsonSchema, where: 'body' | 'every-problem' | 'query' | 'params'): void {
  if (where === 'every-problem') compile(everyProblemAjv, schema);
  compile(where === 'body' || where === 'every-problem' ? bodyAjv : paramAjv, schema);
}

/**
 * NUL, or a UTF-16 surrogate without its other half. PostgreSQL's text and jsonb cannot hold NUL
 * and jsonb refuses unpaired surrogates; neither is text anyone means to send.
 */
const UNSTORABLE_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Throws IKW-VAL-011 at the first string or object key (in document order) holding NUL or an
 * unpaired surrogate. `param` is the dotted path for the body and the parameter's name for query
 * and path parameters. Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function assertStorableText(value: unknown, where: 'body' | 'query' | 'params'): void {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE_TEXT.test(v)) throw unstorable(path, where);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, String(i)] });
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (const [k] of entries) if (UNSTORABLE_TEXT.test(k)) throw unstorable([...path, k], where);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: [...path, entries[i]![0]] });
    }
  }
}

function unstorable(path: string[], where: 'body' | 'query' | 'params'): ApiError {
  const param = where === 'body' ? path.join('.') : path[0]!;
  return new ApiError('IKW-VAL-011', `${param || 'The body'} contains a NUL character or an unpaired surrogate`, param || undefined);
}

/** How deep objects and arrays may nest in a request body; no schema comes near it. */
export const MAX_BODY_DEPTH = 64;

/** Whether objects and arrays in `value` nest deeper than `max` (the top level counts as 1). Iterative. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
