import type { Clock } from '../../core/clock.js';
import type { Decider, DomainEvent } from '../../core/decider.js';
import { newId } from '../../core/ids.js';
import type { Environment } from '../../core/owner.js';
import { Refusal } from '../../core/refusal.js';
import { CommandService } from '../../eventstore/command-handler.js';
import type { EventStore } from '../../eventstore/port.js';

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

/** What a reconciliation of a rail found (services/reconciliation.ts, docs/reconciliation.md, "Rails"). */
export interface RailReconciliation {
  rail: string;
  environment: Environment;
  wallets: WalletDifference[];
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
  constructor(store: EventStore, private readonly clock: Clock) {
    super(store, reconciliationRunStream, reconciliationRunDecider);
  }

  async record(report: RailReconciliation, actor: string): Promise<ReconciliationRunRecorded> {
    const ranAt = this.clock.now().toISOString();
    const run: ReconciliationRunRecorded = { runId: newId('recon'), actor, ranAt, ...report };
    await this.run(run.runId, { type: 'record_run', run }, { actor, occurred_at: ranAt, environment: report.environment, correlation_id: run.runId });
    return run;
  }
}
