import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { CommandService, step, type AnyStep, type CommandStep, type ConflictPolicy, type HandleResult } from '#packages/eventstore/command-handler.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { DomainEvent, Fact } from '#packages/core/decider.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import { assertOwned } from '#packages/core/aggregate.js';
import { ledgerStep } from '#packages/families/ledger/index.js';
import type { Ledger, LedgerAction } from '#packages/ledger/decider.js';
import type { ReleasedFundsPayouts } from '#packages/families/payouts/index.js';
import type { RailRefunds } from '#packages/families/payments/index.js';
import type { EscrowDirectory } from '#packages/families/read-ports.js';
import type { EscrowCommand, EscrowState } from './decider.js';
import { escrowAggregate } from './render.js';
import { escrowContractStream, type EscrowEvent } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** A contract as timers and bus reactions name it. */
export type ContractRef = Owner & { contractId: string };

export interface EscrowDeps {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  releasedFundsPayouts: ReleasedFundsPayouts;
  /** Held funds that came in through a rail keeping Sika's money go back through it (docs/connectors.md, "Refunds through a rail"). */
  railRefunds: RailRefunds;
  directory: EscrowDirectory;
  /** Durable timer: the automatic release at `autoReleaseAtUtc`. */
  scheduleAutoRelease: Enqueue<ContractRef>;
}

/** Who acts when a timer or the bus moves a contract. */
export const SYSTEM: Actor = { actor: 'scheduler' };

/**
 * A contract's stream and its ledger side, the collaborator every escrow use case is given
 * (docs/escrow.md): funds held on the merchant's ledger in `escrow:<contract>`, each money movement
 * the contract's event and its ledger entry in one commit. Decides nothing a use case asks.
 */
export class EscrowContractCommits extends CommandService<EscrowCommand, EscrowState, Fact<EscrowEvent>> {
  constructor(private readonly deps: EscrowDeps) {
    super(deps.store, escrowContractStream, escrowAggregate, { onConflict: 'contended' });
  }

  /** A contract command run on its stream (the use cases' commands that move no money). */
  override run(id: string, command: EscrowCommand, metadata: EventMetadata, onConflict?: ConflictPolicy): Promise<HandleResult<EscrowState, Fact<EscrowEvent>>> {
    return super.run(id, command, metadata, onConflict);
  }

  metadata(owner: Owner, id: string, actor: Actor): EventMetadata {
    return auditMetadata(this.deps.clock, owner, id, actor);
  }

  /** The contract's command as a step of a commit with others (its ledger entry, a payment intent, a payout). */
  contractStep(id: string, command: EscrowCommand, meta: EventMetadata): CommandStep<unknown, unknown, DomainEvent> {
    return step({ streamId: escrowContractStream(id), decider: escrowAggregate, command, metadata: meta });
  }

  ledgerStep(owner: Owner, currency: string, action: LedgerAction, meta: EventMetadata): AnyStep {
    return ledgerStep(this.deps, { ...owner, currency }, action, meta);
  }

  /** The contract's state, refused as "no such" when it is not this owner's. */
  async owned(owner: Owner, id: string): Promise<EscrowState> {
    const { state } = await this.load(id);
    assertOwned(state.contract, owner, `No such escrow contract: '${id}'`, 'contractId');
    return state;
  }

  /** The contract of this owner's release or dispute (read model); IKW-RES-001 when there is none. */
  async contractOf(kind: 'release' | 'dispute', owner: Owner, id: string): Promise<string> {
    const contractId = kind === 'release' ? await this.deps.directory.contractOfRelease(owner, id) : await this.deps.directory.contractOfDispute(owner, id);
    if (!contractId) throw new Refusal('IKW-RES-001', `No such escrow ${kind}: '${id}'`, `${kind}Id`);
    return contractId;
  }

  /** Sets the auto-release timer, at once when `at` has passed. */
  scheduleAutoRelease(ref: ContractRef, at: string): Promise<void> {
    const due = new Date(Math.max(new Date(at).getTime(), this.deps.clock.now().getTime()));
    return this.deps.scheduleAutoRelease(ref, due);
  }
}
