import { Refusal } from '#packages/core/refusal.js';
import { derivedUuid } from '#packages/core/ids.js';
import { handleSteps, loadState, step } from '#packages/eventstore/command-handler.js';
import { isOwned } from '#packages/core/aggregate.js';
import { balanceStream, type Account } from '#packages/families/ledger/index.js';
import { paymentIntentAggregate, paymentIntentStream, type PaymentRecipient } from '#packages/families/payments/index.js';
import { fundEscrowFromPayment } from './postings.js';
import type { EscrowState } from './decider.js';
import { toContractObject } from './render.js';
import type { ContractObject, Refund } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { SYSTEM, type ContractRef, type EscrowContractCommits, type EscrowDeps } from './commands.js';
import type { EscrowRefunds } from './refunds.js';

/**
 * Funds arriving in a contract's escrow (docs/escrow.md): the payer's payment intent linked to the
 * contract, its payment posted to the escrow in the payment's own commit, and the funds the bus
 * records when that commit could not.
 */
export class EscrowFunding {
  constructor(
    private readonly deps: EscrowDeps,
    private readonly commits: EscrowContractCommits,
    private readonly refunds: EscrowRefunds,
  ) {}

  /** Links the payer's payment intent: when it succeeds, its funds are posted to the contract's escrow. */
  async submitForFunding(owner: Owner, id: string, paymentIntentId: string, actor: Actor): Promise<ContractObject> {
    const state = await this.commits.owned(owner, id);
    const c = state.contract!;
    // The same intent again: the contract as it is (the submit_funding decider decides the rest).
    if (state.paymentIntentId === paymentIntentId) return toContractObject(state);
    {
      if (c.fundingSourceType !== 'payment_intent') throw new Refusal('IKW-ESC-002', 'This contract is funded from the merchant balance, not by a payment intent', 'paymentIntentId');
      const pi = (await loadState(this.deps.store, paymentIntentStream(paymentIntentId), paymentIntentAggregate)).state;
      const intent = pi.intent;
      if (!isOwned(intent, owner)) {
        throw new Refusal('IKW-ESC-002', `No such payment intent: '${paymentIntentId}'`, 'paymentIntentId');
      }
      // Only an intent not yet confirmed: its payment must not reach the balance before the link exists.
      if (pi.status !== 'requires_payment_method') throw new Refusal('IKW-ESC-002', `The payment intent is ${pi.status}; only one not yet confirmed can fund a contract`, 'paymentIntentId');
      if (intent.currency !== c.currency) throw new Refusal('IKW-ESC-002', `The payment intent is in ${intent.currency}, the contract in ${c.currency}`, 'paymentIntentId');
      if (c.amountMinor !== null && intent.amount !== c.amountMinor) throw new Refusal('IKW-ESC-002', `The payment intent is for ${intent.amount}, the contract for ${c.amountMinor}`, 'paymentIntentId');
      if (await this.deps.directory.escrowContractFundedBy(owner, paymentIntentId)) throw new Refusal('IKW-ESC-002', 'This payment intent funds another contract', 'paymentIntentId');
    }
    const at = this.deps.clock.now();
    const meta = this.commits.metadata(owner, id, actor);
    // The contract names the intent and the intent the contract, in one commit: a confirm that
    // starts meanwhile, or another contract claiming the same intent, makes one of them lose
    // (409, retryable, or IKW-ESC-002), so no payment reaches the balance meant for escrow.
    const [submitted] = await handleSteps(
      this.deps.store,
      [
        this.commits.contractStep(id, { type: 'submit_funding', owner, at, paymentIntentId }, meta),
        step({ streamId: paymentIntentStream(paymentIntentId), decider: paymentIntentAggregate, command: { type: 'assign_escrow', owner, at, contractId: id }, metadata: meta }),
      ],
      { onConflict: 'none' },
    );
    return toContractObject(submitted!.state as EscrowState);
  }

  /**
   * Payments into escrow (docs/escrow.md): a payment intent submitted to fund a contract is posted
   * to the contract's escrow instead of the merchant's balance, and the contract records the funds
   * in the same commit, where it can (funds it recorded already, or a canceled contract: the bus
   * process records and gives them back in a commit of its own, the late refund drawing on the
   * escrow the payment's commit fills).
   */
  readonly paymentRecipient: PaymentRecipient = {
    name: 'escrow_contract',
    moneyOf: async ({ intent, fee, clearing, escrowContract }, meta) => {
      const owner = { merchantId: intent.merchantId, environment: intent.environment };
      const contractId = escrowContract ?? (await this.deps.directory.escrowContractFundedBy(owner, intent.id));
      if (contractId === undefined) return null;
      const posting = this.commits.ledgerStep(owner, intent.currency, fundEscrowFromPayment({ source: intent.id, clearing, amount: intent.amount, fee, contract: contractId }), meta);
      const { state } = await this.commits.load(contractId);
      if (!isOwned(state.contract, owner) || state.fundingSources.has(intent.id) || state.canceledAt) return { steps: [posting], after: null };
      const ref = { ...owner, contractId };
      const autoRelease = state.contract.autoReleaseAtUtc;
      return {
        steps: [posting, this.commits.contractStep(contractId, { type: 'record_funding', at: this.deps.clock.now(), source: intent.id, amountMinor: intent.amount - fee, lateRefund: null }, meta)],
        after: async () => {
          if (autoRelease) await this.commits.scheduleAutoRelease(ref, autoRelease);
        },
      };
    },
    // The intent names the contract it funds (assigned before its confirmation). Intents submitted
    // before that was recorded: the ledger's word, posted with the payment's success (an entry once
    // posted stays, so no race can undo this check).
    assertRefundable: async ({ intent, escrowContract }) => {
      const owner = { merchantId: intent.merchantId, environment: intent.environment };
      const funded = escrowContract !== null || (await loadState(this.deps.store, balanceStream(intent.merchantId, intent.environment, intent.currency), this.deps.ledger.decider)).state.posted.has(`escrow_funding:${intent.id}`);
      if (!funded) return;
      const contract = escrowContract ?? (await this.deps.directory.escrowContractFundedBy(owner, intent.id)) ?? '{id}';
      throw new Refusal('IKW-ESC-010', `Payment ${intent.id} funded an escrow contract; refund it with POST /api/v1/escrow/contracts/${contract}/refund`, 'paymentId');
    },
  };

  /**
   * Funds arrived in escrow (the ledger's `escrow_funding` entry of a payment intent), seen by the
   * bus when the payment's commit could not record them (a store without atomic commits, a
   * contract canceled meanwhile). Funds that arrive after a cancel are refunded at once, in the
   * same commit.
   */
  async recordFunding(ref: ContractRef & { source: string; amountMinor: number; clearing: Account }): Promise<void> {
    const { state } = await this.commits.load(ref.contractId);
    if (!state.contract || state.fundingSources.has(ref.source)) return;
    const meta = this.commits.metadata(ref, ref.contractId, SYSTEM);
    const late: Refund | null = state.canceledAt ? { id: derivedUuid(`escrow_refund|late|${ref.source}`), amountMinor: ref.amountMinor, reason: 'late_funding', at: this.deps.clock.now().toISOString() } : null;
    const steps = [this.commits.contractStep(ref.contractId, { type: 'record_funding', at: this.deps.clock.now(), source: ref.source, amountMinor: ref.amountMinor, lateRefund: late }, meta)];
    const refunding = late ? await this.refunds.refundSteps(ref, ref.contractId, state.contract.currency, late, ref.clearing, ref.source, meta) : null;
    await handleSteps(this.deps.store, [...steps, ...(refunding?.steps ?? [])], { onConflict: 'internal' });
    await this.refunds.sendRailRefund(refunding?.railRefund ?? null);
    const autoRelease = state.contract.autoReleaseAtUtc;
    if (autoRelease && !late) await this.commits.scheduleAutoRelease(ref, autoRelease);
  }
}
