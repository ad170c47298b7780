/**
 * The one CSV writer (packages/http/csv.ts): every cell of text that a spreadsheet would read as a
 * formula (starting with =, +, -, @, tab or carriage return, or their full-width forms) is
 * prefixed with a single quote (OWASP, "CSV Injection"); numbers the service writes as numbers
 * (a refund of -500) stay numbers.
 */
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import t from '#tap';
import { csvReply } from '#packages/http/csv.js';

async function written(records: Record<string, string | number | null>[]): Promise<string> {
  async function* source() {
    yield* records;
  }
  const reply = csvReply(['cell'], source(), 'test.csv');
  let text = '';
  for await (const chunk of reply.body as Readable) text += String(chunk);
  return text;
}

t.test('text that starts like a formula is written with a leading quote mark', async (t) => {
  const cases: [string, string][] = [
    ['=HYPERLINK("http://evil","x")', `'=HYPERLINK("http://evil","x")`],
    ['=1+1', "'=1+1"],
    ['+33 6 12 34 56 78', "'+33 6 12 34 56 78"],
    ['-500', "'-500"],
    ['-1+1', "'-1+1"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ['＝1+1', "'＝1+1"],
    ['＋1', "'＋1"],
    ['－1', "'－1"],
    ['＠A1', "'＠A1"],
  ];
  for (const [cell, expected] of cases) {
    const [row] = parse(await written([{ cell }]), { columns: true, relax_quotes: true }) as { cell: string }[];
    t.equal(row!.cell, expected, JSON.stringify(cell));
  }
});

t.test('other text, numbers and empty cells are written as they are', async (t) => {
  const text = await written([{ cell: 'Awa' }, { cell: 'a=b' }, { cell: ' =1' }, { cell: "'quoted" }, { cell: -500 }, { cell: 1500 }, { cell: 0 }, { cell: null }, { cell: '' }]);
  t.equal(text, "cell\nAwa\na=b\n =1\n'quoted\n-500\n1500\n0\n\n\n", 'a negative amount written as a number is not escaped');
});
