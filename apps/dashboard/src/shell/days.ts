/** UTC days as the API names them (YYYY-MM-DD): the daily summaries, KPIs and timelines are by UTC day. */
export const DAY_MS = 86_400_000;

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Milliseconds at the start of a UTC day. */
export const dayStartMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** The last `count` UTC days up to today, as a `from`/`to` pair (both included). */
export function lastDays(count: number, now = Date.now()): { from: string; to: string } {
  return { from: utcDay(now - (count - 1) * DAY_MS), to: utcDay(now) };
}

/** Every UTC day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = dayStartMs(from); at <= dayStartMs(to); at += DAY_MS) days.push(utcDay(at));
  return days;
}
