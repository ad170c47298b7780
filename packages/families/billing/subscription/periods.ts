import type { Interval } from '../product/events.js';

const DAY_MS = 86_400_000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * `count` intervals after `from` (UTC). Months and years keep the day of the month, clamped to the
 * month's length (31 January + 1 month = 28 or 29 February), so that counting from a fixed anchor
 * never drifts: the n-th renewal is always anchor + n intervals.
 */
export function addInterval(from: Date, interval: Interval, count: number): Date {
  switch (interval) {
    case 'day':
      return new Date(from.getTime() + count * DAY_MS);
    case 'week':
      return new Date(from.getTime() + count * 7 * DAY_MS);
    case 'month':
    case 'year': {
      const months = interval === 'year' ? count * 12 : count;
      const y = from.getUTCFullYear();
      const m = from.getUTCMonth() + months;
      const targetYear = y + Math.floor(m / 12);
      const targetMonth = ((m % 12) + 12) % 12;
      const day = Math.min(from.getUTCDate(), daysInMonth(targetYear, targetMonth));
      return new Date(Date.UTC(targetYear, targetMonth, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
    }
  }
}

export function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + days * DAY_MS);
}

/** Periods are whole seconds, so that the Unix-seconds and ISO renderings of a period agree. */
export function wholeSeconds(d: Date): Date {
  return new Date(Math.floor(d.getTime() / 1000) * 1000);
}
