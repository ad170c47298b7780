import type { Knex } from 'knex';
import type { Connector, StatusAnswer } from '#packages/connectors/port.js';
import type { Environment } from '#packages/core/owner.js';
import { paymentIntentAggregate } from '#packages/families/payments/payment-intent/render.js';
import { paymentIntentStream } from '#packages/families/payments/payment-intent/events.js';
import { payoutAggregate } from '#packages/families/payouts/payout/render.js';
import { payoutStream } from '#packages/families/payouts/payout/events.js';
import { railRefundRequest } from '#packages/families/payments/rail-refund/commands.js';
import { railRefundDecider } from '#packages/families/payments/rail-refund/decider.js';
import { railRefundStream, type RailRefundRecord } from '#packages/families/payments/rail-refund/events.js';
import { loadState } from '#packages/eventstore/command-handler.js';
import type { EventStore, RecordedEvent } from '#packages/eventstore/port.js';
import { railHoldings } from '#packages/families/ledger/read/balances.js';
import { railStatement } from '#packages/families/ledger/read/index.js';
import { listReconciliationRuns } from '#packages/families/ledger/read/reconciliation-runs.js';
import { ReconciliationRuns, type AttemptDifference, type RailHolding, type RailPeriod, type RailReconciliation, type ReconciliationRunRecorded, type WalletDifference } from '#packages/families/ledger/index.js';
import type { Clock } from '#packages/core/clock.js';

export type { AttemptDifference, RailPeriod, RailReconciliation, WalletDifference };

/** The attempts' outcomes in one vocabulary: final at Sika and at the rail, or open. */
const SIKA_FINAL: Record<string, 'succeeded' | 'failed' | undefined> = { succeeded: 'succeeded', paid: 'succeeded', failed: 'failed', canceled: 'failed' };

/**
 * Reconciles a rail that keeps Sika's money (docs/reconciliation.md, "Rails") in one environment:
 * its wallets' balances against what the ledger expects it to hold (its clearing account over
 * every merchant, per currency), and every attempt it carried (the payments, payouts and refunds whose
 * attempt recorded it) against its record, asked by status check. Lists each difference; changes
 * nothing (a difference is for an operator to look at: the status checks apply what is due). Per
 * currency, the rail's statement since the previous run beside what the wallet moved meanwhile
 * says when a difference appeared.
 */
export async function reconcileRail(deps: { knex: Knex; store: EventStore; clock: Clock }, connector: Connector, environment: Environment): Promise<RailReconciliation> {
  if (!connector.walletBalances) throw new Error(`${connector.name} keeps no money of Sika's: nothing to reconcile`);
  const expected = new Map((await railHoldings(deps.knex, connector.name, environment)).map((h) => [h.currency, h.amount]));
  const reported = new Map<string, number>();
  for (const w of await connector.walletBalances()) reported.set(w.currency, (reported.get(w.currency) ?? 0) + w.amount);
  const wallets: WalletDifference[] = [];
  const holdings: RailHolding[] = [];
  for (const currency of [...new Set([...expected.keys(), ...reported.keys()])].sort()) {
    const e = expected.get(currency) ?? 0;
    const r = reported.get(currency) ?? 0;
    holdings.push({ currency, expected: e, reported: r });
    if (e !== r) wallets.push({ currency, expected: e, reported: r, difference: r - e });
  }
  const periods = await periodsSincePreviousRun(deps, connector.name, environment, holdings);

  const attempts: AttemptDifference[] = [];
  const { payments, payouts, refunds } = await attemptsCarriedBy(deps.store, connector.name, environment);
  for (const id of payments) {
    const { state } = await loadState(deps.store, paymentIntentStream(id), paymentIntentAggregate);
    const intent = state.intent!;
    const op = state.confirmation;
    if (!op || op.connector !== connector.name || !state.paymentMethod) continue;
    const answer = await connector.collectStatus({
      operationId: op.operationId,
      paymentIntentId: id,
      merchantId: intent.merchantId,
      environment,
      amount: intent.amount,
      currency: intent.currency,
      paymentMethod: state.paymentMethod,
      returnUrl: op.returnUrl,
    });
    const difference = compare(state.status, answer, intent, (final) => final.status);
    if (difference) attempts.push({ kind: 'payment', id, merchantId: intent.merchantId, ...difference });
  }
  for (const id of payouts) {
    const { state } = await loadState(deps.store, payoutStream(id), payoutAggregate);
    const p = state.payout!;
    const answer = await connector.payoutStatus({ payoutId: p.id, merchantId: p.merchantId, environment, amount: p.amount, currency: p.currency, destination: p.destination });
    const difference = compare(state.status, answer, p, (final) => (final.type === 'paid' ? 'succeeded' : final.type === 'failed' ? 'failed' : null));
    if (difference) attempts.push({ kind: 'payout', id, merchantId: p.merchantId, ...difference });
  }
  for (const id of refunds) {
    const { state } = await loadState(deps.store, railRefundStream(id), railRefundDecider);
    const r = state.refund!;
    const difference = compare(state.status, await connector.refundStatus(railRefundRequest(r)), r, (final) => final.status);
    if (difference) attempts.push({ kind: 'refund', id, merchantId: r.merchantId, ...difference });
  }
  return { rail: connector.name, environment, wallets, holdings, periods, attempts, checked: payments.length + payouts.length + refunds.length };
}

/**
 * Reconciles the rail and records the run with who ran it (docs/reconciliation.md, "Rails"): the
 * command line's and the operator console's runs alike are in the history.
 */
export async function runReconciliation(deps: { knex: Knex; store: EventStore; clock: Clock }, connector: Connector, environment: Environment, actor: string): Promise<ReconciliationRunRecorded> {
  const report = await reconcileRail(deps, connector, environment);
  return new ReconciliationRuns(deps.store, deps.clock).record(report, actor);
}

/**
 * Each currency's statement of the rail from the previous run of the rail and environment (or the
 * ledger's start) to now, beside what its wallet moved meanwhile, read from that run's holdings;
 * the currencies where something moved.
 */
async function periodsSincePreviousRun(deps: { knex: Knex; clock: Clock }, rail: string, environment: Environment, holdings: RailHolding[]): Promise<RailPeriod[]> {
  const previous = (await listReconciliationRuns(deps.knex, { rail, environment }, { limit: 1 }, '')).data[0];
  const since = previous ? new Date(previous.ranAt) : new Date(0);
  const until = new Date(deps.clock.now().getTime() + 1);
  const periods: RailPeriod[] = [];
  for (const holding of holdings) {
    const statement = await railStatement(deps.knex, rail, environment, holding.currency, since, until);
    const before = previous?.holdings?.find((h) => h.currency === holding.currency) ?? (previous?.holdings ? { reported: 0 } : undefined);
    const expectedMoved = statement.closing - statement.opening;
    const reportedMoved = previous ? (before ? holding.reported - before.reported : null) : holding.reported;
    // A currency nothing moved in, on either side, says nothing.
    if (statement.lines.length === 0 && reportedMoved === 0) continue;
    periods.push({ currency: holding.currency, since: previous?.ranAt ?? null, lines: statement.lines, expectedMoved, reportedMoved, unexplained: reportedMoved === null ? null : reportedMoved - expectedMoved });
  }
  return periods;
}

/**
 * Where Sika's state of an attempt and the rail's record disagree, or null. A payment or payout
 * refused at once was never taken (the rail has no record, Sika holds it failed): they agree.
 */
function compare<F>(sikaStatus: string, answer: StatusAnswer<F>, attempt: { amount: number; currency: string }, outcomeOf: (final: F) => 'succeeded' | 'failed' | null): Omit<AttemptDifference, 'kind' | 'id' | 'merchantId'> | null {
  const sika = SIKA_FINAL[sikaStatus] ?? null;
  if (!answer.found) return sika === 'failed' ? null : { sika: sikaStatus, rail: 'not_found' };
  const rail = answer.final === null ? null : outcomeOf(answer.final);
  const reported = answer.reported;
  const amountDiffers = reported !== undefined && (reported.amount !== attempt.amount || reported.currency.toLowerCase() !== attempt.currency.toLowerCase());
  if (rail === sika && !amountDiffers) return null;
  return { sika: sikaStatus, rail: rail ?? 'pending', ...(amountDiffers ? { reportedAmount: { amount: reported.amount, currency: reported.currency } } : {}) };
}

/** The payments, payouts and refunds of `environment` whose attempt recorded the connector `name`, read from the log in order. */
async function attemptsCarriedBy(store: EventStore, name: string, environment: Environment): Promise<{ payments: string[]; payouts: string[]; refunds: string[] }> {
  const payments = new Set<string>();
  const payouts = new Set<string>();
  const refunds = new Set<string>();
  const carried = (e: RecordedEvent) => (e.data as { connector?: string }).connector === name;
  for (let after: string | null = null; ;) {
    const batch = await store.readAll(after, 1000);
    if (batch.length === 0) break;
    for (const e of batch) {
      if (e.type === 'payment_intent.confirmation_started' && carried(e) && (e.data as { livemode: boolean }).livemode === (environment === 'live')) payments.add(e.streamId.slice('payment_intent-'.length));
      if (e.type === 'payout.created' && carried(e) && (e.data as { environment: Environment }).environment === environment) payouts.add((e.data as { id: string }).id);
      if (e.type === 'rail_refund.requested') {
        const r = (e.data as { refund: RailRefundRecord }).refund;
        if (r.connector === name && r.environment === environment) refunds.add(r.id);
      }
    }
    after = batch[batch.length - 1]!.position;
  }
  return { payments: [...payments], payouts: [...payouts], refunds: [...refunds] };
}
