import type { Decider, Fact } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import { statementDecider, type StatementCommand, type StatementState } from './decider.js';
import type { StatementEvent, StatementObject } from './events.js';

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The statement as the API answers it: its totals once computed, each line linking to its entries as CSV. */
export function toStatementObject(state: StatementState): StatementObject {
  const s = present(state.requested, 'statement');
  const csvUrl = `/api/v1/statements/${s.id}/csv`;
  const totals = state.computed?.totals ?? null;
  return {
    id: s.id,
    object: 'statement',
    status: totals ? 'ready' : 'pending',
    currency: s.currency,
    period_start: seconds(s.periodStart),
    period_end: seconds(s.periodEnd),
    opening: totals?.opening ?? null,
    lines: (totals?.lines ?? []).map((l) => ({ ...l, url: `${csvUrl}?category=${l.category}` })),
    closing: totals?.closing ?? null,
    csv_url: csvUrl,
    created: seconds(s.requestedAt),
    ready_at: state.computed ? seconds(state.computed.computedAt) : null,
    livemode: s.environment === 'live',
  };
}

/** Statements as the command handler runs them: both events carry the statement. */
export const statementAggregate: Decider<StatementCommand, StatementState, Fact<StatementEvent>> = {
  ...statementDecider,
  render: { object: (state) => toStatementObject(state) },
};
