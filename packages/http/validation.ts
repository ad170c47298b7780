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

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function compile(ajv: Ajv, schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
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

/** Validates `value` in place; throws IKW-VAL-001 / IKW-VAL-002 naming the offending field. */
export function validate(schema: JsonSchema, value: unknown, where: 'body' | 'query' | 'params'): void {
  const fn = compile(where === 'body' ? bodyAjv : paramAjv, schema);
  if (fn(value)) return;
  const error = fn.errors![0]!;
  const param = pathOf(error, null);
  const code = error.keyword === 'additionalProperties' || error.keyword === 'false schema' ? 'IKW-VAL-002' : 'IKW-VAL-001';
  throw new ApiError(code, describe(error, param), param || undefined);
}

/** Compiles a schema ahead of time, so a schema mistake fails at start, not at the first request. */
export function precompile(schema: JsonSchema, where: 'body' | 'query' | 'params'): void {
  compile(where === 'body' ? bodyAjv : paramAjv, schema);
}
