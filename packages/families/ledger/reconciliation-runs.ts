import type { Clock } from '#packages/core/clock.js';
import type { Decider, DomainEvent } from '#packages/core/decider.js';
import { newId } from '#packages/core/ids.js';
import type { Environment } from '#packages/core/owner.js';
import { Refusal } from '#packages/core/refusal.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';

/** One currency: what the ledger expects the rail to hold for Sika, what the rail says it holds. */
export interface WalletDifference {
  currency: string;
  expected: number;
  reported: number;
  /** reported − expected: positive when the rail holds more than the ledger says. */
  difference: number;
}

/** An attempt whose state at Sika is not what the rail's record says. */
export interface AttemptDifference {
  kind: 'payment' | 'payout' | 'refund';
  id: string;
  merchantId: string;
  /** As Sika holds it: the payment intent's, payout's or refund's status. */
  sika: string;
  /** As the rail's record says: `succeeded`/`paid`, `failed`, `pending` (no final answer), `not_found`. */
  rail: string;
  /** When the rail reports another amount or currency than the attempt's. */
  reportedAmount?: { amount: number; currency: string };
}

/** One currency as a run found it, differing or not: the next run measures what moved since from it. */
export interface RailHolding {
  currency: string;
  expected: number;
  reported: number;
}

/**
 * One currency since the previous run of the rail and environment: the rail's statement over that
 * period (what the ledger says moved in and out of the wallet, by kind of entry) beside what the
 * wallet itself moved; `unexplained` is the difference that appeared in the period.
 */
export interface RailPeriod {
  currency: string;
  /** When the previous run ran; null for the first run (the period then starts with the ledger). */
  since: string | null;
  lines: { kind: string; amount: number; count: number }[];
  /** Σ lines: what the ledger says the wallet gained (negative: lost) in the period. */
  expectedMoved: number;
  /** What the wallet gained by its own balances; null when the previous run recorded none for the currency. */
  reportedMoved: number | null;
  /** reportedMoved − expectedMoved, or null with it. */
  unexplained: number | null;
}

/** What a reconciliation of a rail found (services/reconciliation.ts, docs/reconciliation.md, "Rails"). */
export interface RailReconciliation {
  rail: string;
  environment: Environment;
  wallets: WalletDifference[];
  /** Every currency, differing or not (absent in runs recorded before it was kept). */
  holdings?: RailHolding[];
  /** The rail's statement of each currency since the previous run (absent in runs recorded before it was kept). */
  periods?: RailPeriod[];
  attempts: AttemptDifference[];
  /** How many attempts were compared (the differences among them are in `attempts`). */
  checked: number;
}

/** A run as recorded: its report, who ran it and when. */
export interface ReconciliationRunRecorded extends RailReconciliation {
  runId: string;
  actor: string;
  ranAt: string;
}

export type ReconciliationRunEvent = DomainEvent<'reconciliation.run_recorded', ReconciliationRunRecorded>;

export const reconciliationRunStream = (runId: string) => `reconciliation_run-${runId}`;

type RecordRun = { type: 'record_run'; run: ReconciliationRunRecorded };

/** A run is recorded once: its stream holds its one event. */
const reconciliationRunDecider: Decider<RecordRun, { recorded: boolean }, ReconciliationRunEvent> = {
  initialState: { recorded: false },
  evolve: () => ({ recorded: true }),
  decide(command, state) {
    if (state.recorded) throw new Refusal('IKW-RES-003', `Reconciliation run ${command.run.runId} is recorded already`);
    return [{ type: 'reconciliation.run_recorded', data: command.run }];
  },
};

/**
 * The history of rails' reconciliations (docs/reconciliation.md, "Rails"): each run's report, with
 * the operator (or the command line) that ran it, so finance can see what differed when.
 */
export class ReconciliationRuns extends CommandService<RecordRun, { recorded: boolean }, ReconciliationRunEvent> {
  constructor(
    store: EventStore,
    private readonly clock: Clock,
  ) {
    super(store, reconciliationRunStream, reconciliationRunDecider);
  }

  async record(report: RailReconciliation, actor: string): Promise<ReconciliationRunRecorded> {
    const ranAt = this.clock.now().toISOString();
    const run: ReconciliationRunRecorded = { runId: newId('recon'), actor, ranAt, ...report };
    await this.run(run.runId, { type: 'record_run', run }, { actor, occurred_at: ranAt, environment: report.environment, correlation_id: run.runId });
    return run;
  }
}
