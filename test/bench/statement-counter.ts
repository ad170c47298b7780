/**
 * Loaded into the standalone service's processes by the payout section (`node --import`): counts
 * the statements each process sends (every node-postgres `query` call: one round trip, BEGIN and
 * COMMIT included), in all and by kind (the statement's first words and its WHERE's). On SIGUSR2 it appends the
 * counts so far to `<BENCH_STATEMENTS_DIR>/statements.<pid>` (one JSON line: `{ count, kinds }`),
 * so the bench reads them at the start and the end of the window it measures. A bench instrument:
 * the service itself never loads it.
 */
import fs from 'node:fs';
import pg from 'pg';

/** A statement's kind: its first words and those of its first WHERE, whitespace folded, identifiers and values left as written. */
export function statementKind(text: string): string {
  // Only the head is looked at: the kind is counted for every statement of the measured process.
  const folded = text.slice(0, 600).replace(/\s+/g, ' ').trim();
  const where = folded.indexOf(' WHERE ');
  return folded.length <= 72 ? folded : `${folded.slice(0, 56)} …${where > 56 ? folded.slice(where, where + 40) : ''}`;
}

const dir = process.env.BENCH_STATEMENTS_DIR;
if (dir) {
  let count = 0;
  const kinds = new Map<string, number>();
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    count += 1;
    const first = args[0];
    const text = typeof first === 'string' ? first : typeof (first as { text?: unknown } | null)?.text === 'string' ? (first as { text: string }).text : '?';
    const kind = statementKind(text);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    return query.apply(this, args);
  };
  process.on('SIGUSR2', () => fs.appendFileSync(`${dir}/statements.${process.pid}`, `${JSON.stringify({ count, kinds: Object.fromEntries(kinds) })}\n`));
}
