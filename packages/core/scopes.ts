/**
 * What a set of scopes allows (docs/accounts.md, "Roles and scopes"), for API keys and access tokens
 * alike: a scope is held directly, through `*`, or (for `x.read`) through `*.read` or `x.write`.
 */
export function hasScope(scopes: readonly string[], needed: string): boolean {
  if (scopes.includes('*') || scopes.includes(needed)) return true;
  if (needed.endsWith('.read')) return scopes.includes('*.read') || scopes.includes(`${needed.slice(0, -'.read'.length)}.write`);
  return false;
}

/** Whether a key may be given `wanted` by someone holding `held`: the wildcards only under a wildcard as wide. */
export function scopeWithin(held: readonly string[], wanted: string): boolean {
  if (wanted === '*') return held.includes('*');
  if (wanted === '*.read') return held.includes('*') || held.includes('*.read');
  return hasScope(held, wanted);
}
