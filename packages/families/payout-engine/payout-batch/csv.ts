import { parse } from 'csv-parse/sync';
import { Refusal } from '#packages/core/refusal.js';

/** The columns a CSV batch may have (a header line names those it uses, in any order). */
export const CSV_COLUMNS = ['amount', 'currency', 'recipient_id', 'destination_type', 'country', 'operator', 'msisdn', 'bank_code', 'account_number', 'account_name', 'reference'] as const;

/**
 * The records of an RFC 4180 text (csv-parse: quoted fields, doubled quotes, LF, CRLF or CR, mixed, a
 * byte-order mark as spreadsheets write it; blank lines skipped), each with the line it ends on.
 * Malformed text is IKW-PEN-004 with csv-parse's account of where.
 */
export function parseCsv(text: string): { line: number; fields: string[] }[] {
  try {
    const rows = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n', '\r'], info: true }) as unknown as { record: string[]; info: { lines: number } }[];
    return rows.map((r) => ({ line: r.info.lines, fields: r.record }));
  } catch (err) {
    throw new Refusal('IKW-PEN-004', err instanceof Error ? err.message : 'The CSV could not be read', 'csv');
  }
}

/**
 * A CSV batch as the JSON body it stands for: a header line, then one instruction per line (empty
 * cells are absent fields, blank lines are skipped). The batch's currency is the first line's; each
 * instruction keeps its own, so a line in another currency is reported by its index.
 */
export function batchBodyFromCsv(text: string): { currency?: string; instructions: Record<string, unknown>[] } {
  const records = parseCsv(text).filter((r) => !(r.fields.length === 1 && r.fields[0]!.trim() === ''));
  const header = records.shift();
  if (!header) throw new Refusal('IKW-PEN-004', 'The CSV has no header line', 'csv');
  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const unknown = columns.find((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (unknown !== undefined) throw new Refusal('IKW-PEN-004', `Unknown column '${unknown}'; columns: ${CSV_COLUMNS.join(', ')}`, 'csv');
  const repeated = columns.find((c, i) => columns.indexOf(c) !== i);
  if (repeated !== undefined) throw new Refusal('IKW-PEN-004', `Column '${repeated}' appears twice`, 'csv');
  const instructions = records.map(({ line, fields }) => {
    if (fields.length !== columns.length) throw new Refusal('IKW-PEN-004', `Line ${line} has ${fields.length} fields; the header has ${columns.length}`, 'csv');
    const instruction: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const value = fields[i]!.trim();
      if (value === '') return;
      // An amount that is not a plain integer stays text, so validation names it (instructions.N.amount).
      instruction[column] = column === 'amount' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value;
    });
    return instruction;
  });
  const currency = instructions.find((i) => typeof i.currency === 'string')?.currency as string | undefined;
  return { ...(currency !== undefined ? { currency } : {}), instructions };
}
