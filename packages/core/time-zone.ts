/**
 * Time zones, IANA names such as Africa/Dakar: whether this runtime knows one (an export's, an
 * automation schedule's), and times written in one for the exports a merchant reads in a
 * spreadsheet: ISO 8601 with the zone's offset of that moment, so the file says both the merchant's
 * wall-clock time and the instant.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formats.set(zone, format);
  }
  return format;
}

/** Whether this runtime knows `zone` as a time zone. */
export function isTimeZone(zone: string): boolean {
  try {
    formatIn(zone);
    return true;
  } catch {
    return false;
  }
}

/** `at` as the wall-clock time of `zone` with its offset: `2026-11-27T03:17:38+01:00` (`Z` at UTC itself). */
export function localTimestamp(at: Date, zone: string): string {
  const parts = Object.fromEntries(
    formatIn(zone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  ) as Record<string, string>;
  const wall = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  const offsetMinutes = Math.round((Date.parse(`${wall}Z`) - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  if (offsetMinutes === 0) return `${wall}Z`;
  const size = Math.abs(offsetMinutes);
  return `${wall}${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(size / 60)).padStart(2, '0')}:${String(size % 60).padStart(2, '0')}`;
}
