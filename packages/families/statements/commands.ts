import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { Fact } from '#packages/core/decider.js';
import { derivedId, newId } from '#packages/core/ids.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { Refusal } from '#packages/core/refusal.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { balanceBefore, balanceMovements } from '#packages/families/ledger/read/index.js';
import type { StatementCommand, StatementState } from './decider.js';
import { statementStream, type StatementEvent, type StatementObject, type StatementRequested } from './events.js';
import { statementAggregate, toStatementObject } from './render.js';
import { StatementSum, type StatementTotals } from './statement.js';
import { statementDocument, type StatementLanguage } from './document.js';
import { renderPdf } from '#packages/families/templates/index.js';

export interface StatementInput {
  currency: string;
  /** The first day, `YYYY-MM-DD` (UTC); with `to`, or neither: the last full calendar month. */
  from?: string;
  /** The last day, included. */
  to?: string;
}

/** The job that computes a long statement: its id, and its merchant for the job's lane. */
export interface StatementRef {
  merchantId: string;
  statementId: string;
}

const DAY_MS = 86_400_000;
/** Any range up to a year (a leap year's 366 days). */
export const MAX_STATEMENT_DAYS = 366;
/** Longer than about a quarter: computed in the background rather than in the request. */
export const IN_REQUEST_DAYS = 92;

/** A statement's id: `stmt_` and 24 base62 characters; from the request's Idempotency-Key when it has one, so a retry finds the first. */
function statementId(seed: string | null): string {
  // The kernel's id kit names the Stripe-like prefixes; a statement's shares its derivation.
  const id = seed === null ? newId('txn') : derivedId('txn', seed);
  return `stmt_${id.slice('txn_'.length)}`;
}

/**
 * Statements a finance team can file (docs/statements.md): for a merchant, environment, currency
 * and period, the balances at both ends and every entry of the ledger in between in its category
 * line. Short periods are computed in the request; longer ones by the job `statement.compute`,
 * which ends with `statement.ready` (a webhook).
 */
export class Statements extends CommandService<StatementCommand, StatementState, Fact<StatementEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock; knex: Knex }) {
    super(deps.store, statementStream, statementAggregate);
  }

  async request(owner: Owner, input: StatementInput, actor: Actor, requestRef?: string): Promise<StatementObject> {
    const { start, end } = this.periodOf(input);
    const id = statementId(requestRef ? `statement:${owner.merchantId}:${owner.environment}:${requestRef}` : null);
    const statement: StatementRequested = {
      id,
      ...owner,
      currency: input.currency.toLowerCase(),
      periodStart: start.toISOString(),
      periodEnd: end.toISOString(),
      deferred: (end.getTime() - start.getTime()) / DAY_MS > IN_REQUEST_DAYS,
      requestedAt: this.deps.clock.now().toISOString(),
    };
    const { state } = await this.run(id, { type: 'request', statement }, auditMetadata(this.deps.clock, owner, id, actor));
    if (statement.deferred) return toStatementObject(state);
    return this.compute({ merchantId: owner.merchantId, statementId: id });
  }

  /** Computes the statement once and records it ready (the job runs again after a crash; the event says it is done). */
  async compute(ref: StatementRef): Promise<StatementObject> {
    const { state } = await this.load(ref.statementId);
    const s = state.requested;
    // The job is enqueued from the statement's own request: one that names none is a bug.
    if (!s) throw new Error(`No statement ${ref.statementId}`);
    if (state.computed) return toStatementObject(state);
    const owner = { merchantId: s.merchantId, environment: s.environment };
    const totals = await this.totals(owner, s.currency, new Date(s.periodStart), new Date(s.periodEnd));
    const computed = { id: s.id, totals, computedAt: this.deps.clock.now().toISOString() };
    const result = await this.run(s.id, { type: 'record_computed', computed }, auditMetadata(this.deps.clock, owner, s.id, { actor: 'system' }), 'internal');
    return toStatementObject(result.state);
  }

  /** A ready statement as a PDF in the reader's language, with the merchant's name and the platform's. */
  pdf(statement: StatementObject, merchantName: string, lang: StatementLanguage): Promise<Buffer> {
    return renderPdf({ ...statementDocument(statement, merchantName, lang), locale: lang }, new Date((statement.ready_at ?? statement.created) * 1000));
  }

  /** The balances before `start`, every entry posted in [start, end) in its line, and so the balances before `end`. */
  async totals(owner: Owner, currency: string, start: Date, end: Date): Promise<StatementTotals> {
    const sum = new StatementSum(await balanceBefore(this.deps.knex, owner, currency, start));
    for await (const movement of balanceMovements(this.deps.knex, owner, currency, start, end)) sum.add(movement);
    return sum.totals();
  }

  /** [start, end): the days asked for, or the last full calendar month (UTC); refused when inverted, longer than a year or not over yet. */
  private periodOf(input: StatementInput): { start: Date; end: Date } {
    const now = this.deps.clock.now();
    if ((input.from === undefined) !== (input.to === undefined)) {
      throw new Refusal('IKW-VAL-001', 'Give both `from` and `to`, or neither for the last full calendar month', input.from === undefined ? 'from' : 'to');
    }
    if (input.from === undefined || input.to === undefined) {
      return { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)), end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) };
    }
    const start = new Date(`${input.from}T00:00:00Z`);
    const end = new Date(Date.parse(`${input.to}T00:00:00Z`) + DAY_MS);
    if (end <= start) throw new Refusal('IKW-VAL-001', '`to` is before `from`', 'to');
    if ((end.getTime() - start.getTime()) / DAY_MS > MAX_STATEMENT_DAYS) throw new Refusal('IKW-VAL-001', `A statement covers at most ${MAX_STATEMENT_DAYS} days`, 'to');
    // A period not over yet could still change: its statement would not be one to file.
    if (end > now) throw new Refusal('IKW-VAL-001', '`to` must be a day that has ended (UTC)', 'to');
    return { start, end };
  }
}
