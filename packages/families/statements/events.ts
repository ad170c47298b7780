import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';
import type { StatementCategory, StatementTotals } from './statement.js';

/** A statement asked for: one merchant × environment × currency over [periodStart, periodEnd). */
export interface StatementRequested {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  /** ISO 8601, UTC midnight: the period's first instant. */
  periodStart: string;
  /** ISO 8601, UTC midnight: the first instant after the period. */
  periodEnd: string;
  /** Computed later by the job `statement.compute` (a long period) rather than in the request. */
  deferred: boolean;
  requestedAt: string;
}

export interface StatementComputed {
  id: string;
  totals: StatementTotals;
  computedAt: string;
}

export type StatementStatus = 'pending' | 'ready';

export interface StatementBalances {
  available: number;
  pending: number;
  reserved: number;
  total: number;
}

export interface StatementLineObject extends StatementBalances {
  category: StatementCategory;
  count: number;
  /** This line's entries, each with its balance transaction, as CSV. */
  url: string;
}

/** The statement as the API answers it and `statement.ready` carries it. */
export interface StatementObject {
  id: string;
  object: 'statement';
  status: StatementStatus;
  currency: string;
  period_start: number;
  period_end: number;
  opening: StatementBalances | null;
  lines: StatementLineObject[];
  closing: StatementBalances | null;
  csv_url: string;
  created: number;
  ready_at: number | null;
  livemode: boolean;
}

export type StatementEvent = DomainEvent<'statement.requested', StatementRequested & { object: StatementObject }> | DomainEvent<'statement.ready', StatementComputed & { object: StatementObject }>;

export const statementStream = (id: string) => `statement-${id}`;
