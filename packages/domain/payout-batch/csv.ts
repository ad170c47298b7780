import { ApiError } from '../../core/errors.js';

/** The columns a CSV batch may have (a header line names those it uses, in any order). */
export const CSV_COLUMNS = [
  'amount',
  'currency',
  'recipient_id',
  'destination_type',
  'country',
  'operator',
  'msisdn',
  'bank_code',
  'account_number',
  'account_name',
  'reference',
] as const;

/**
 * The records of an RFC 4180 text: comma-separated fields, optionally in double quotes (a quote
 * inside doubled), lines ending in LF or CRLF. Returns each record with the line it starts on.
 */
export function parseCsv(text: string): { line: number; fields: string[] }[] {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark, as spreadsheets write
  let quoted = false;
  let wasQuoted = false;
  const endRecord = () => {
    fields.push(field);
    records.push({ line: start, fields });
    fields = [];
    field = '';
    wasQuoted = false;
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"') {
      if (field !== '' || wasQuoted) throw new ApiError('IKW-PEN-004', `Line ${line}: a quote inside an unquoted field`, 'body');
      quoted = true;
      wasQuoted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      wasQuoted = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else {
      if (wasQuoted) throw new ApiError('IKW-PEN-004', `Line ${line}: text after a closing quote`, 'body');
      field += c;
    }
  }
  if (quoted) throw new ApiError('IKW-PEN-004', `Line ${start}: a quoted field is not closed`, 'body');
  if (field !== '' || fields.length > 0 || wasQuoted) endRecord();
  return records;
}

/**
 * A CSV batch as the JSON body it stands for: a header line, then one instruction per line (empty
 * cells are absent fields, blank lines are skipped). The batch's currency is the first line's; each
 * instruction keeps its own, so a line in another currency is reported by its index.
 */
export function batchBodyFromCsv(text: string): { currency?: string; instructions: Record<string, unknown>[] } {
  const records = parseCsv(text).filter((r) => !(r.fields.length === 1 && r.fields[0]!.trim() === ''));
  const header = records.shift();
  if (!header) throw new ApiError('IKW-PEN-004', 'The CSV has no header line', 'body');
  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const unknown = columns.find((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (unknown !== undefined) throw new ApiError('IKW-PEN-004', `Unknown column '${unknown}'; columns: ${CSV_COLUMNS.join(', ')}`, 'body');
  const repeated = columns.find((c, i) => columns.indexOf(c) !== i);
  if (repeated !== undefined) throw new ApiError('IKW-PEN-004', `Column '${repeated}' appears twice`, 'body');
  const instructions = records.map(({ line, fields }) => {
    if (fields.length !== columns.length) throw new ApiError('IKW-PEN-004', `Line ${line} has ${fields.length} fields; the header has ${columns.length}`, 'body');
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
