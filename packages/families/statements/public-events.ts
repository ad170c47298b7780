import { testId, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { StatementObject } from './events.js';

/** Statements' public events (docs/statements.md, docs/events.md), with an example `data` for test events. */
export const statementPublicEvents: PublicEvents = {
  types: [{ type: 'statement.ready', emittedBy: 'a statement computed: at once for a period up to 92 days, by the job `statement.compute` for a longer one', data: 'the Statement' }],
  example: (_type, created, livemode) => statement(created, livemode),
};

function statement(created: number, livemode: boolean): StatementObject {
  const id = testId('stmt');
  const csvUrl = `/api/v1/statements/${id}/csv`;
  const line = (category: StatementObject['lines'][number]['category'], available: number, pending: number, reserved: number, count: number) => ({
    category,
    available,
    pending,
    reserved,
    total: available + pending + reserved,
    count,
    url: `${csvUrl}?category=${category}`,
  });
  return {
    id,
    object: 'statement',
    status: 'ready',
    currency: CURRENCY,
    period_start: 1_761_955_200,
    period_end: 1_764_547_200,
    opening: { available: 50_000, pending: 10_000, reserved: 0, total: 60_000 },
    lines: [
      line('payments', 0, 200_000, 0, 20),
      line('settlements', 190_000, -190_000, 0, 19),
      line('fees', 0, -3_000, -500, 21),
      line('refunds', -10_000, 0, 0, 1),
      line('disputes', 0, 0, 0, 0),
      line('payouts', -100_500, 0, 500, 2),
      line('reserves', 0, 0, 0, 0),
      line('reserve_releases', 0, 0, 0, 0),
      line('adjustments', 0, 0, 0, 0),
    ],
    closing: { available: 129_500, pending: 17_000, reserved: 0, total: 146_500 },
    csv_url: csvUrl,
    created,
    ready_at: created,
    livemode,
  };
}
