import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { Reply } from './context.js';

/** Whether the client asked for CSV (`Accept: text/csv`): lists that can export answer with it instead of JSON. */
export function acceptsCsv(accept: string | undefined): boolean {
  return accept !== undefined && /(^|[\s,])text\/csv(\s*(;|,|$))/i.test(accept);
}

/**
 * Records streamed as CSV (RFC 4180, a header row of `columns`) as they come from `records`:
 * memory stays bounded whatever the size of the export. The one CSV writer of the service: every
 * export goes through it.
 *
 * Text a spreadsheet would take for a formula is written with a leading single quote (OWASP, "CSV
 * Injection"; csv-stringify's `escape_formulas`): a string cell starting with `=`, `+`, `-`, `@`, a
 * tab or a carriage return (or the full-width `＝ ＋ － ＠`), so a contributor named
 * `=HYPERLINK(…)` reaches the merchant's spreadsheet as text. Numbers the service writes as numbers
 * (an amount of -500) are not text and stay numbers: records carry amounts as numbers, never as text.
 */
export function csvReply(columns: readonly string[], records: AsyncIterable<Record<string, string | number | null>>, filename: string): Reply {
  const csv = stringify({ header: true, columns: [...columns], escape_formulas: true });
  // A failing source destroys the stringifier with its error, which ends the response's connection.
  void pipeline(Readable.from(records), csv).catch(() => undefined);
  return Reply.stream(csv, 'text/csv; charset=utf-8', { 'Content-Disposition': `attachment; filename="${filename}"` });
}
