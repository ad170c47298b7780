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
