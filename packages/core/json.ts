/**
 * Returns a copy of `value` with `keys` first, in that order, then any others. Read models keep
 * resources as they came out of the event store, whose jsonb sorts keys by length; responses
 * should show fields in the documented order, the same as on the write path.
 */
export function orderKeys<T extends object>(value: T, keys: readonly (keyof T)[]): T {
  const out: Partial<T> = {};
  for (const k of keys) if (k in value) out[k] = value[k];
  for (const k of Object.keys(value) as (keyof T)[]) if (!(k in out)) out[k] = value[k];
  return out as T;
}

/** Characters JSON.stringify escapes in a string (quote, backslash, controls) or checks (surrogates). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

const jsonString = (s: string): string => (ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`);

const omitted = (x: unknown): boolean => x === undefined || typeof x === 'function' || typeof x === 'symbol';

/**
 * JSON with object keys sorted, otherwise as JSON.stringify writes it (toJSON honoured, undefined
 * members dropped): the same value gives the same text whatever its key order, including after a
 * round trip through jsonb, which reorders keys. It runs once per appended event (the hash chain),
 * so it avoids what costs there: keys already in order are not sorted again, and plain strings
 * and numbers are written without a call to JSON.stringify.
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return JSON.stringify(value) ?? 'null'; // bigint throws, as JSON.stringify does; the rest are omitted
  }
  if (value === null) return 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const x: unknown = value[i];
      out += omitted(x) ? 'null' : canonicalJson(x);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      keys.sort();
      break;
    }
  }
  let out = '{';
  for (const key of keys) {
    const x = record[key];
    if (omitted(x)) continue;
    if (out.length > 1) out += ',';
    out += `${jsonString(key)}:${canonicalJson(x)}`;
  }
  return `${out}}`;
}
