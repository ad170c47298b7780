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

/**
 * JSON with object keys sorted, otherwise as JSON.stringify writes it (toJSON honoured, undefined
 * members dropped): the same value gives the same text whatever its key order, including after a
 * round trip through jsonb, which reorders keys.
 */
export function canonicalJson(value: unknown): string {
  const v = value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined || typeof x === 'function' ? 'null' : canonicalJson(x))).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined && typeof x !== 'function')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
