/**
 * The parsing of settings from environment variables shared by the kernel's configuration
 * (config.ts), the rails' list (packages/connectors/rails.ts) and each rail's own
 * (packages/connectors/<rail>/config.ts): the error that stops the start, durations, whole
 * numbers, URLs and closed choices.
 */

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
    this.name = 'ConfigError';
  }
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
export const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `5m`, `30s`, `2h`, `250ms`, `1d` into milliseconds. */
export function parseDuration(text: string): number | null {
  const m = DURATION.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

export function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  }
  return raw;
}

/** A duration above zero, `fallback` when unset. */
export function positiveDuration(env: Env, name: string, fallback: string): number {
  const ms = parseDuration(env[name] || fallback);
  if (ms === null || ms <= 0) throw new ConfigError(name, `must be a duration like ${fallback}`);
  return ms;
}

/** A whole number from `min` to `max`, `fallback` when unset. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}
