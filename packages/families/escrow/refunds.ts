import { Refusal } from '#packages/core/refusal.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { handleSteps, loadState, type AnyStep } from '#packages/eventstore/command-handler.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import type { Account } from '#packages/families/ledger/index.js';
import { payinClearing, paymentIntentAggregate, paymentIntentStream, type RailRefundRecord } from '#packages/families/payments/index.js';
import { refundEscrow } from './postings.js';
import { disposableMinor, heldMinor, type EscrowState } from './decider.js';
import { toContractObject } from './render.js';
import type { ContractObject, Refund } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import type { EscrowContractCommits, EscrowDeps } from './commands.js';

/**
 * Held funds going back to the payer (docs/escrow.md): a refund asked for, the cancel of a
 * contract, and the steps of a give-back that funding after a cancel and a dispute's resolution
 * commit with their own.
 */
export class EscrowRefunds {
  constructor(
    private readonly deps: EscrowDeps,
    private readonly commits: EscrowContractCommits,
  ) {
    // The contract's refund stands whatever the rail answers: a failed one's money returns to the contract's escrow, for review.
    deps.railRefunds.follow('escrow_refund', () => []);
  }

  /**
   * Refunds held funds to the payer: `amountMinor`, or everything not promised to pending releases.
   * `requestRef` (the Idempotency-Key) names the refund, so a retry after a crash makes no second one.
   */
  async refund(owner: Owner, id: string, input: { amountMinor?: number | null }, actor: Actor, requestRef?: string): Promise<ContractObject> {
    const state = await this.commits.owned(owner, id);
    const c = state.contract!;
    const refundId = requestRef === undefined ? newUuid() : derivedUuid(`escrow_refund|${id}|${requestRef}`);
    if (state.refundIds.has(refundId)) return toContractObject(state);
    const amount = input.amountMinor ?? disposableMinor(state);
    const refund: Refund = { id: refundId, amountMinor: amount, reason: 'requested', at: this.deps.clock.now().toISOString() };
    const meta = this.commits.metadata(owner, id, actor);
    const refunding = await this.refundSteps(owner, id, c.currency, refund, await this.payerAccount(state), state.paymentIntentId, meta);
    const [contract] = await handleSteps(this.deps.store, [this.commits.contractStep(id, { type: 'refund', owner, at: this.deps.clock.now(), refund }, meta), ...refunding.steps], { onConflict: 'contended' });
    // Sent by the request whose commit made the refund, only: a retry that took over a first attempt still running leaves it to that attempt (or to its status check).
    if (contract!.events.length > 0) await this.sendRailRefund(refunding.railRefund);
    return toContractObject((await this.commits.load(id)).state);
  }

  /** Cancels the contract: pending releases are canceled and whatever it holds goes back to the payer. */
  async cancel(owner: Owner, id: string, actor: Actor): Promise<ContractObject> {
    const state = await this.commits.owned(owner, id);
    const c = state.contract!;
    const held = heldMinor(state);
    const at = this.deps.clock.now();
    const refund: Refund | null = held > 0 ? { id: derivedUuid(`escrow_refund|cancel|${id}`), amountMinor: held, reason: 'canceled', at: at.toISOString() } : null;
    const meta = this.commits.metadata(owner, id, actor);
    const refunding = refund ? await this.refundSteps(owner, id, c.currency, refund, await this.payerAccount(state), state.paymentIntentId, meta) : null;
    await handleSteps(this.deps.store, [this.commits.contractStep(id, { type: 'cancel', owner, at, refund }, meta), ...(refunding?.steps ?? [])], { onConflict: 'none' });
    await this.sendRailRefund(refunding?.railRefund ?? null);
    return toContractObject((await this.commits.load(id)).state);
  }

  /** Where held funds go back to: the funding payment's clearing account, or the merchant's balance it came from. */
  async payerAccount(state: EscrowState): Promise<Account> {
    const c = state.contract!;
    if (c.fundingSourceType === 'merchant_balance' || !state.paymentIntentId) return 'available';
    const pi = (await loadState(this.deps.store, paymentIntentStream(state.paymentIntentId), paymentIntentAggregate)).state;
    const pm = pi.paymentMethod;
    if (!pm) return 'available';
    return payinClearing(pm, pi.confirmation?.connector);
  }

  /**
   * The ledger side of held funds going back to the payer of `paymentIntentId` through `to`; through
   * a rail keeping Sika's money, with the rail refund's request (under the escrow refund's id), to
   * commit with the contract's step and send after it (`sendRailRefund`). IKW-PRV-006, before
   * anything is recorded, when that rail's connector is not configured any more.
   */
  async refundSteps(owner: Owner, contractId: string, currency: string, refund: Refund, to: Account, paymentIntentId: string | null, meta: EventMetadata): Promise<{ steps: AnyStep[]; railRefund: RailRefundRecord | null }> {
    const ledger = this.commits.ledgerStep(owner, currency, refundEscrow({ source: refund.id, contract: contractId, amount: refund.amountMinor, to }), meta);
    if (!to.startsWith('rail_clearing:') || paymentIntentId === null) return { steps: [ledger], railRefund: null };
    const connector = to.slice('rail_clearing:'.length);
    if (!this.deps.railRefunds.canRefund(owner.environment, connector)) {
      throw new Refusal('IKW-PRV-006', `The contract's funds came in through ${connector}, which is not configured on this service any more: nothing can carry their refund; nothing was refunded`, 'contractId');
    }
    const pi = (await loadState(this.deps.store, paymentIntentStream(paymentIntentId), paymentIntentAggregate)).state;
    const railRefund: RailRefundRecord = {
      id: refund.id,
      connector,
      operationId: pi.confirmation!.operationId,
      merchantId: owner.merchantId,
      environment: owner.environment,
      amount: refund.amountMinor,
      currency,
      origin: { family: 'escrow_refund', contractId },
      requestedAt: refund.at,
    };
    return { steps: [ledger, await this.deps.railRefunds.request(railRefund, meta)], railRefund };
  }

  /** Sends a committed rail refund (refundSteps), when the refund went through a rail. */
  async sendRailRefund(railRefund: RailRefundRecord | null): Promise<void> {
    if (railRefund) await this.deps.railRefunds.send(railRefund);
  }
}
