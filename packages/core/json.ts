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
 * round trip through jsonb, which reorders keys. Loops and concatenation: it runs once per appended event.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((value as { toJSON(): unknown }).toJSON());
  const omitted = (x: unknown) => x === undefined || typeof x === 'function' || typeof x === 'symbol';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (omitted(value[i]) ? 'null' : canonicalJson(value[i]));
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const x = record[key];
    if (omitted(x)) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(x)}`;
  }
  return `${out}}`;
}
