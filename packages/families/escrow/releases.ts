import { Refusal } from '#packages/core/refusal.js';
import { derivedId, derivedUuid, newUuid } from '#packages/core/ids.js';
import { handleSteps } from '#packages/eventstore/command-handler.js';
import { releaseEscrow } from './postings.js';
import { disposableMinor } from './decider.js';
import { toReleaseObject } from './render.js';
import type { Release, ReleaseDestination, ReleaseMode, ReleaseObject, ReleaseTrigger } from './events.js';
import type { Actor, Owner, Requester } from '#packages/core/owner.js';
import { SYSTEM, type ContractRef, type EscrowContractCommits, type EscrowDeps } from './commands.js';

export interface CreateReleaseInput {
  amountMinor?: number | null;
  milestoneId?: string | null;
  mode?: ReleaseMode | null;
  trigger?: ReleaseTrigger | null;
  idempotencyKey?: string | null;
  manualOverride?: boolean | null;
}

export interface ExecuteReleaseInput {
  payoutMethodId?: string | null;
  beneficiaryParticipantId?: string | null;
}

/**
 * Releases of held funds (docs/escrow.md): created by a request, a milestone or the auto-release
 * timer, executed to the merchant's balance or as a payout, canceled while pending.
 */
export class EscrowReleases {
  constructor(
    private readonly deps: EscrowDeps,
    private readonly commits: EscrowContractCommits,
  ) {}

  /**
   * Creates a release of held funds: `amountMinor`, else the milestone's amount, else everything not
   * promised to other releases. The same `idempotencyKey` on the contract answers the release it
   * made; without one, `requestRef` (the Idempotency-Key with the body's fingerprint) names it, so a
   * request retried after a crash answers the first attempt's release and moves nothing again. In
   * `immediate` mode it is executed at once to the contract's default destination; a repeat finding
   * it still pending (the first died before executing it) executes it, once.
   */
  async createRelease(owner: Owner, contractId: string, input: CreateReleaseInput, by: Requester | 'scheduled', actor: Actor, requestRef?: string, trigger?: ReleaseTrigger): Promise<ReleaseObject> {
    const state = await this.commits.owned(owner, contractId);
    const c = state.contract!;
    const id = input.idempotencyKey ? derivedUuid(`escrow_release|${contractId}|${input.idempotencyKey}`) : requestRef !== undefined ? derivedUuid(`escrow_release|${contractId}|request|${requestRef}`) : newUuid();
    const existing = state.releases.get(id);
    if (existing) return existing.mode === 'immediate' && existing.status === 'pending' ? this.execute(owner, contractId, id, {}, actor, by) : toReleaseObject(existing, c);
    const milestone = input.milestoneId ? state.milestones.find((m) => m.id === input.milestoneId) : undefined;
    const release: Release = {
      id,
      contractId,
      amountMinor: input.amountMinor ?? milestone?.amountMinor ?? disposableMinor(state),
      milestoneId: input.milestoneId ?? null,
      mode: input.mode ?? c.defaultReleaseMode,
      trigger: trigger ?? input.trigger ?? (input.milestoneId ? 'milestone' : 'manual'),
      idempotencyKey: input.idempotencyKey ?? null,
      manualOverride: input.manualOverride ?? false,
      status: 'pending',
      destination: null,
      createdAt: this.deps.clock.now().toISOString(),
      executedAt: null,
      canceledAt: null,
    };
    const created = await this.commits.run(contractId, { type: 'create_release', owner, at: this.deps.clock.now(), release }, this.commits.metadata(owner, contractId, actor));
    const made = created.state.releases.get(id)!;
    if (made.mode === 'immediate' && made.status === 'pending') return this.execute(owner, contractId, id, {}, actor, by);
    return toReleaseObject(made, c);
  }

  async executeRelease(owner: Owner, releaseId: string, input: ExecuteReleaseInput, by: Requester, actor: Actor): Promise<ReleaseObject> {
    return this.execute(owner, await this.commits.contractOf('release', owner, releaseId), releaseId, input, actor, by);
  }

  /**
   * Moves a pending release's funds: a ledger transfer to the merchant's available balance (for a
   * beneficiary participant, or the default), or a payout to a payout method. The contract's event
   * and the ledger entry (and the payout) are one commit. `by` is who asks, for the rule of new
   * destinations (docs/escrow.md): a scheduled execution that may not pay its destination leaves
   * the release pending for a request to execute.
   */
  async execute(owner: Owner, contractId: string, releaseId: string, input: ExecuteReleaseInput, actor: Actor, by: Requester | 'scheduled'): Promise<ReleaseObject> {
    const state = await this.commits.owned(owner, contractId);
    const c = state.contract!;
    const release = state.releases.get(releaseId);
    if (!release) throw new Refusal('IKW-RES-001', `No such escrow release: '${releaseId}'`, 'releaseId');
    if (release.status === 'canceled') throw new Refusal('IKW-ESC-005', 'This release was canceled', 'releaseId');
    if (release.status === 'executed') return toReleaseObject(release, c); // executing twice answers it as it is
    if (input.payoutMethodId && input.beneficiaryParticipantId) throw new Refusal('IKW-ESC-008', 'Give payoutMethodId or beneficiaryParticipantId, not both', 'beneficiaryParticipantId');
    if (input.beneficiaryParticipantId) {
      const p = state.participants.find((x) => x.id === input.beneficiaryParticipantId);
      if (!p || p.role !== 'beneficiary') throw new Refusal('IKW-ESC-007', 'beneficiaryParticipantId is not a beneficiary participant of this contract', 'beneficiaryParticipantId');
    }
    const payoutMethodId = input.payoutMethodId ?? (input.beneficiaryParticipantId ? null : c.ledgerDestinationType === 'payout_method' ? c.defaultPayoutMethodId : null);
    const at = this.deps.clock.now();
    const meta = this.commits.metadata(owner, contractId, actor);
    if (payoutMethodId) {
      // The payout is named by its release, so an execution retried after a crash finds it.
      const payoutId = derivedId('po', `escrow_payout|${releaseId}`);
      try {
        await this.deps.releasedFundsPayouts.createFromReleased(
          owner,
          { payoutId, payoutMethodId, currency: c.currency, amount: release.amountMinor, metadata: { escrow_contract: contractId, escrow_release: releaseId }, source: 'escrow', held: { escrow: { contractId, releaseId } } },
          (fee) => {
            if (fee >= release.amountMinor) throw new Refusal('IKW-ESC-004', `The release (${release.amountMinor}) does not cover the payout fee (${fee})`, 'amountMinor');
            return this.commits.contractStep(contractId, { type: 'execute_release', owner, at, releaseId, destination: { type: 'payout', payoutMethodId, payoutId, fee } }, meta);
          },
          actor,
          by,
        );
      } catch (e) {
        if (by === 'scheduled' && e instanceof Refusal && e.code === 'IKW-PAY-007') return toReleaseObject(release, c);
        throw e;
      }
    } else {
      const destination: ReleaseDestination = { type: 'ledger_transfer', beneficiaryParticipantId: input.beneficiaryParticipantId ?? null, accountCode: c.ledgerDestinationAccountCode };
      await handleSteps(
        this.deps.store,
        [
          this.commits.contractStep(contractId, { type: 'execute_release', owner, at, releaseId, destination }, meta),
          this.commits.ledgerStep(owner, c.currency, releaseEscrow({ source: releaseId, contract: contractId, amount: release.amountMinor }), meta),
        ],
        { onConflict: 'contended' },
      );
    }
    const after = (await this.commits.load(contractId)).state;
    return toReleaseObject(after.releases.get(releaseId)!, c);
  }

  async cancelRelease(owner: Owner, releaseId: string, actor: Actor): Promise<ReleaseObject> {
    const contractId = await this.commits.contractOf('release', owner, releaseId);
    const result = await this.commits.run(contractId, { type: 'cancel_release', owner, at: this.deps.clock.now(), releaseId }, this.commits.metadata(owner, contractId, actor));
    return toReleaseObject(result.state.releases.get(releaseId)!, result.state.contract!);
  }

  /**
   * The auto-release timer: at `autoReleaseAtUtc`, whatever a funded contract holds beyond its
   * pending releases is released and executed to the default destination. A contract not funded
   * yet or under dispute is left alone; funding or a dismissal sets the timer again.
   */
  async autoRelease(ref: ContractRef): Promise<void> {
    const { state } = await this.commits.load(ref.contractId);
    const c = state.contract;
    if (!c?.autoReleaseAtUtc || new Date(c.autoReleaseAtUtc) > this.deps.clock.now()) return;
    if (state.canceledAt || state.openDisputeId || state.fundedMinor === 0 || disposableMinor(state) === 0) return;
    // An immediate release is executed by createRelease, also when a crash left it pending.
    await this.createRelease(ref, ref.contractId, { idempotencyKey: `auto_release:${state.fundedMinor}`, mode: 'immediate' }, 'scheduled', SYSTEM, undefined, 'auto_release');
  }
}
