import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { handleSteps } from '#packages/eventstore/command-handler.js';
import { heldMinor, resolutionAmounts } from './decider.js';
import { toDisputeObject } from './render.js';
import type { DisputeObject, DisputeOpener, DisputeOutcome, Refund, Release } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import type { EscrowContractCommits, EscrowDeps } from './commands.js';
import type { EscrowRefunds } from './refunds.js';
import type { EscrowReleases } from './releases.js';

export interface ResolveDisputeInput {
  outcome: DisputeOutcome;
  outcomeMetadata?: string | null;
  splitReleaseMinor?: number | null;
}

/**
 * A contract's disputes (docs/escrow.md): one opened freezes its funds; its resolution moves what
 * the contract holds to the beneficiary, back to the payer, or both, or lifts the freeze.
 */
export class EscrowDisputes {
  constructor(
    private readonly deps: EscrowDeps,
    private readonly commits: EscrowContractCommits,
    private readonly refunds: EscrowRefunds,
    private readonly releases: EscrowReleases,
  ) {}

  /**
   * Opens a dispute. `requestRef` (the Idempotency-Key) names it, so a retry after a crash lost the
   * idempotency record answers the dispute the first attempt opened instead of opening a second.
   */
  async openDispute(owner: Owner, contractId: string, input: { reason: string; openedByRole?: DisputeOpener | null }, actor: Actor, requestRef?: string): Promise<DisputeObject> {
    const at = this.deps.clock.now();
    const dispute = {
      id: requestRef === undefined ? newUuid() : derivedUuid(`escrow_dispute|${contractId}|${requestRef}`),
      contractId,
      reason: input.reason,
      openedByRole: input.openedByRole ?? 'payer',
      status: 'open' as const,
      outcome: null,
      outcomeMetadata: null,
      releasedMinor: 0,
      refundedMinor: 0,
      openedAt: at.toISOString(),
      resolvedAt: null,
    };
    const result = await this.commits.run(contractId, { type: 'open_dispute', owner, at, dispute }, this.commits.metadata(owner, contractId, actor));
    return toDisputeObject(result.state.disputes.get(dispute.id)!, result.state.contract!);
  }

  /**
   * Resolves a dispute: pending releases are canceled, then what the contract holds goes to the
   * beneficiary (a release, in the contract's default mode), back to the payer (a refund), or is
   * split between them; `dismissed` moves nothing and lifts the freeze.
   */
  async resolveDispute(owner: Owner, disputeId: string, input: ResolveDisputeInput, actor: Actor): Promise<DisputeObject> {
    const contractId = await this.commits.contractOf('dispute', owner, disputeId);
    const state = await this.commits.owned(owner, contractId);
    const c = state.contract!;
    const at = this.deps.clock.now();
    const held = heldMinor(state);
    const amounts = resolutionAmounts(held, input.outcome, input.splitReleaseMinor ?? undefined);
    const release: Release | null =
      amounts.releaseMinor > 0
        ? {
            id: derivedUuid(`escrow_release|dispute|${disputeId}`),
            contractId,
            amountMinor: amounts.releaseMinor,
            milestoneId: null,
            mode: c.defaultReleaseMode,
            trigger: 'dispute_resolution',
            idempotencyKey: null,
            manualOverride: false,
            status: 'pending',
            destination: null,
            createdAt: at.toISOString(),
            executedAt: null,
            canceledAt: null,
          }
        : null;
    const refund: Refund | null = amounts.refundMinor > 0 ? { id: derivedUuid(`escrow_refund|dispute|${disputeId}`), amountMinor: amounts.refundMinor, reason: 'dispute', at: at.toISOString() } : null;
    const meta = this.commits.metadata(owner, contractId, actor);
    const steps = [this.commits.contractStep(contractId, { type: 'resolve_dispute', owner, at, disputeId, outcome: input.outcome, outcomeMetadata: input.outcomeMetadata ?? null, plan: { ...amounts, release, refund } }, meta)];
    const refunding = refund ? await this.refunds.refundSteps(owner, contractId, c.currency, refund, await this.refunds.payerAccount(state), state.paymentIntentId, meta) : null;
    await handleSteps(this.deps.store, [...steps, ...(refunding?.steps ?? [])], { onConflict: 'none' });
    await this.refunds.sendRailRefund(refunding?.railRefund ?? null);
    // Executed for the resolution, not by a request to pay: scheduled (it waits where a second factor is needed).
    if (release && release.mode === 'immediate') await this.releases.execute(owner, contractId, release.id, {}, actor, 'scheduled');
    if (input.outcome === 'dismissed' && c.autoReleaseAtUtc) await this.commits.scheduleAutoRelease({ ...owner, contractId }, c.autoReleaseAtUtc);
    const after = (await this.commits.load(contractId)).state;
    return toDisputeObject(after.disputes.get(disputeId)!, c);
  }
}
