/**
 * An assembly whose order is part of the stored state or of the interface (read models: their
 * migrations run in it; routers: routes match and the OpenAPI document lists paths in it) keeps the
 * order of the day it began to be assembled from lists, rather than the lists' order: `frozen`
 * names its items then, in that order. Items it does not name come after them, in the order given.
 * Two items of one name, or a frozen name no item has (a read model whose migrations have run
 * cannot vanish), are mistakes of the lists, refused at start-up.
 */
export function inFrozenOrder<T>(items: readonly T[], frozen: readonly string[], nameOf: (item: T) => string, what: string): T[] {
  const byName = new Map<string, T>();
  for (const item of items) {
    const name = nameOf(item);
    if (byName.has(name)) throw new Error(`Two ${what} are named ${name}`);
    byName.set(name, item);
  }
  const missing = frozen.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new Error(`${what} no list declares any more: ${missing.join(', ')}`);
  const kept = new Set(frozen);
  return [...frozen.map((name) => byName.get(name)!), ...items.filter((item) => !kept.has(nameOf(item)))];
}
