/** A positive whole number from the environment (a property suite's runs or seed), else `fallback`. */
export function positiveEnv(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && Number.isInteger(n) && n > 0 ? n : fallback;
}
