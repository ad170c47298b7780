import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { ApiError } from '../core/errors.js';

/** A JSON Schema (draft 2020-12 subset that ajv and OpenAPI 3.1 both read). */
export type JsonSchema = Record<string, unknown>;

// ajv-formats is CommonJS; under NodeNext its function is the `default` property of the module.
const addFormats = formats.default;

/** Bodies are validated as sent: no coercion, so "10" is not an integer. */
const bodyAjv = new Ajv({ allErrors: false, strict: true, coerceTypes: false, useDefaults: false });
/** Query and path parameters arrive as strings: coerce them to the schema's types. */
const paramAjv = new Ajv({ allErrors: false, strict: true, coerceTypes: true, useDefaults: true });
addFormats(bodyAjv);
addFormats(paramAjv);

// Per validator: one schema object may serve as a body and as an answer, compiled differently.
const compiled = new Map<Ajv, WeakMap<JsonSchema, ValidateFunction>>();

function compile(ajv: Ajv, schema: JsonSchema): ValidateFunction {
  let mine = compiled.get(ajv);
  if (!mine) compiled.set(ajv, (mine = new WeakMap()));
  let fn = mine.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    mine.set(schema, fn);
  }
  return fn;
}

function pathOf(error: ErrorObject, prefix: string | null): string {
  const parts = error.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty));
  if (prefix) parts.unshift(prefix);
  return parts.join('.');
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
  const code = error.keyword === 'additionalProperties' || error.keyword === 'false schema' ? 'IKW-VAL-002' : 'IKW-VAL-001';
  throw new ApiError(code, describe(error, param), param || undefined);
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
      const message =
        n > 0
          ? `${name} must be <= ${typeof bounds.maximum === 'number' ? bounds.maximum : Number.MAX_SAFE_INTEGER}`
          : `${name} must be >= ${typeof bounds.minimum === 'number' ? bounds.minimum : -Number.MAX_SAFE_INTEGER}`;
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
  if (fn(value)) return null;
  const error = fn.errors![0]!;
  return `${pathOf(error, null) || 'the answer'} ${error.message ?? 'does not fit'} (${error.schemaPath})`;
}

/** Compiles a schema ahead of time, so a schema mistake fails at start, not at the first request. */
export function precompile(schema: JsonSchema, where: 'body' | 'query' | 'params'): void {
  compile(where === 'body' ? bodyAjv : paramAjv, schema);
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
