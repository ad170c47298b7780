import { getCurrency } from '../../catalog/index.js';
import type { Clock } from '../../core/clock.js';
import { Refusal } from '../../core/refusal.js';
import { derivedId, derivedUuid, newUuid } from '../../core/ids.js';
import { CommandService, handleSteps, loadState, step, type AnyStep, type CommandStep } from '../../eventstore/command-handler.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import type { DomainEvent, Fact } from '../../core/decider.js';
import type { Enqueue } from '../../scheduler/scheduler.js';
import { assertOwned, isOwned } from '../../core/aggregate.js';
import { ledgerStep } from '../ledger/index.js';
import { ledgerDecider, type LedgerAction } from '../../ledger/decider.js';
import { balanceStream, type Account } from '../ledger/index.js';
import { paymentIntentAggregate } from '../payments/index.js';
import { fundEscrow, fundEscrowFromPayment, refundEscrow, releaseEscrow } from './postings.js';
import { payinClearing, paymentIntentStream } from '../payments/index.js';
import type { ReleasedFundsPayouts } from '../payouts/index.js';
import type { RailRefunds } from '../payments/index.js';
import type { RailRefundRecord } from '../payments/index.js';
import { loadPayoutMethod } from '../payouts/index.js';
import { unusableReason } from '../payouts/index.js';
import type { EscrowDirectory } from '../read-ports.js';
import type { PaymentRecipient } from '../payments/index.js';
import { disposableMinor, heldMinor, resolutionAmounts, type EscrowCommand, type EscrowState } from './decider.js';
import { escrowAggregate, toContractObject, toDisputeObject, toReleaseObject } from './render.js';
import {
  escrowContractStream,
  type ContractObject,
  type DisputeObject,
  type DisputeOpener,
  type DisputeOutcome,
  type EscrowEvent,
  type FundingSourceType,
  type LedgerDestinationType,
  type ParticipantRole,
  type Refund,
  type Release,
  type ReleaseDestination,
  type ReleaseMode,
  type ReleaseObject,
  type ReleaseTrigger,
} from './events.js';
import type { Actor, Owner, Requester } from '../../core/owner.js';
import { auditMetadata } from '../../eventstore/metadata.js';

export interface CreateContractInput {
  currency: string;
  amountMinor?: number | null;
  fundingSourceType?: FundingSourceType | null;
  fundingSourceLedgerAccountCode?: string | null;
  defaultReleaseMode?: ReleaseMode | null;
  ledgerDestinationType?: LedgerDestinationType | null;
  ledgerDestinationAccountCode?: string | null;
  defaultPayoutMethodId?: string | null;
  autoReleaseAtUtc?: string | null;
  metadata?: string | null;
}

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

export interface ResolveDisputeInput {
  outcome: DisputeOutcome;
  outcomeMetadata?: string | null;
  splitReleaseMinor?: number | null;
}

/** A contract as timers and bus reactions name it. */
export type ContractRef = Owner & { contractId: string };

export interface EscrowDeps {
  store: EventStore;
  clock: Clock;
  releasedFundsPayouts: ReleasedFundsPayouts;
  /** Held funds that came in through a rail keeping Sika's money go back through it (docs/connectors.md, "Refunds through a rail"). */
  railRefunds: RailRefunds;
  directory: EscrowDirectory;
  /** Durable timer: the automatic release at `autoReleaseAtUtc`. */
  scheduleAutoRelease: Enqueue<ContractRef>;
}

const SYSTEM: Actor = { actor: 'scheduler' };

/**
 * Escrow contracts (docs/escrow.md): funds held on the merchant's ledger in `escrow:<contract>`,
 * released to the merchant's balance or paid out, refunded to the payer, frozen by a dispute. Each
 * money movement is the contract's event and its ledger entry in one commit.
 */
export class EscrowContracts extends CommandService<EscrowCommand, EscrowState, Fact<EscrowEvent>> {
  constructor(private readonly deps: EscrowDeps) {
    super(deps.store, escrowContractStream, escrowAggregate, { onConflict: 'contended' });
    // The contract's refund stands whatever the rail answers: a failed one's money returns to the contract's escrow, for review.
    deps.railRefunds.follow('escrow_refund', () => []);
  }

  private meta(owner: Owner, id: string, actor: Actor): EventMetadata {
    return auditMetadata(this.deps.clock, owner, id, actor);
  }

  private contractStep(id: string, command: EscrowCommand, meta: EventMetadata): CommandStep<unknown, unknown, DomainEvent> {
    return step({ streamId: escrowContractStream(id), decider: escrowAggregate, command, metadata: meta });
  }

  private ledgerStep(owner: Owner, currency: string, action: LedgerAction, meta: EventMetadata): AnyStep {
    return ledgerStep(this.deps.clock, { ...owner, currency }, action, meta);
  }

  /** The contract's state, refused as "no such" when it is not this owner's. */
  private async owned(owner: Owner, id: string): Promise<EscrowState> {
    const { state } = await this.load(id);
    assertOwned(state.contract, owner, `No such escrow contract: '${id}'`, 'contractId');
    return state;
  }

  private async contractOf(kind: 'release' | 'dispute', owner: Owner, id: string): Promise<string> {
    const contractId = kind === 'release' ? await this.deps.directory.contractOfRelease(owner, id) : await this.deps.directory.contractOfDispute(owner, id);
    if (!contractId) throw new Refusal('IKW-RES-001', `No such escrow ${kind}: '${id}'`, `${kind}Id`);
    return contractId;
  }

  async create(owner: Owner, input: CreateContractInput, actor: Actor, requestRef?: string): Promise<ContractObject> {
    const currency = getCurrency(input.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    const fundingSourceType = input.fundingSourceType ?? 'payment_intent';
    const ledgerDestinationType = input.ledgerDestinationType ?? (input.defaultPayoutMethodId ? 'payout_method' : 'merchant_balance');
    if (ledgerDestinationType === 'payout_method' && !input.defaultPayoutMethodId) {
      throw new Refusal('IKW-VAL-001', 'ledgerDestinationType payout_method needs defaultPayoutMethodId', 'defaultPayoutMethodId');
    }
    if (fundingSourceType === 'merchant_balance' && !input.amountMinor) {
      throw new Refusal('IKW-VAL-001', 'A contract funded from the merchant balance needs amountMinor', 'amountMinor');
    }
    if (input.defaultPayoutMethodId) await this.assertPayoutMethod(owner, input.defaultPayoutMethodId);
    const now = this.deps.clock.now();
    const id = requestRef === undefined ? newUuid() : derivedUuid(`escrow_contract|${owner.merchantId}|${owner.environment}|${requestRef}`);
    const meta = this.meta(owner, id, actor);
    const code = currency.code.toLowerCase();
    const command: EscrowCommand = {
      type: 'create',
      fundFromBalance: fundingSourceType === 'merchant_balance',
      contract: {
        id,
        merchantId: owner.merchantId,
        environment: owner.environment,
        currency: code,
        amountMinor: input.amountMinor ?? null,
        fundingSourceType,
        fundingSourceLedgerAccountCode: input.fundingSourceLedgerAccountCode ?? null,
        defaultReleaseMode: input.defaultReleaseMode ?? 'manual',
        ledgerDestinationType,
        ledgerDestinationAccountCode: input.ledgerDestinationAccountCode ?? null,
        defaultPayoutMethodId: input.defaultPayoutMethodId ?? null,
        autoReleaseAtUtc: input.autoReleaseAtUtc ? new Date(input.autoReleaseAtUtc).toISOString() : null,
        metadata: input.metadata ?? null,
        createdAt: now.toISOString(),
      },
    };
    if (command.contract.autoReleaseAtUtc) await this.scheduleAutoRelease({ ...owner, contractId: id }, command.contract.autoReleaseAtUtc);
    const steps = [this.contractStep(id, command, meta)];
    if (command.fundFromBalance) steps.push(this.ledgerStep(owner, code, fundEscrow({ source: id, contract: id, amount: input.amountMinor! }), meta));
    await handleSteps(this.deps.store, steps, { onConflict: 'contended' });
    return toContractObject((await this.load(id)).state);
  }

  /** A default payout method must be one of this merchant's, not deleted (its safety delay is checked at payout). */
  private async assertPayoutMethod(owner: Owner, id: string): Promise<void> {
    const reason = unusableReason(await loadPayoutMethod(this.deps.store, id), owner.merchantId, owner.environment, this.deps.clock.now());
    if (reason === 'missing') throw new Refusal('IKW-PAY-002', `No such payout method: '${id}'`, 'defaultPayoutMethodId');
    if (reason === 'inactive') throw new Refusal('IKW-PAY-003', undefined, 'defaultPayoutMethodId');
  }

  private scheduleAutoRelease(ref: ContractRef, at: string): Promise<void> {
    const due = new Date(Math.max(new Date(at).getTime(), this.deps.clock.now().getTime()));
    return this.deps.scheduleAutoRelease(ref, due);
  }

  /** Links the payer's payment intent: when it succeeds, its funds are posted to the contract's escrow. */
  async submitForFunding(owner: Owner, id: string, paymentIntentId: string, actor: Actor): Promise<ContractObject> {
    const state = await this.owned(owner, id);
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
    const meta = this.meta(owner, id, actor);
    // The contract names the intent and the intent the contract, in one commit: a confirm that
    // starts meanwhile, or another contract claiming the same intent, makes one of them lose
    // (409, retryable, or IKW-ESC-002), so no payment reaches the balance meant for escrow.
    const [submitted] = await handleSteps(
      this.deps.store,
      [
        this.contractStep(id, { type: 'submit_funding', owner, at, paymentIntentId }, meta),
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
      const posting = this.ledgerStep(owner, intent.currency, fundEscrowFromPayment({ source: intent.id, clearing, amount: intent.amount, fee, contract: contractId }), meta);
      const { state } = await this.load(contractId);
      if (!isOwned(state.contract, owner) || state.fundingSources.has(intent.id) || state.canceledAt) return { steps: [posting], after: null };
      const ref = { ...owner, contractId };
      const autoRelease = state.contract.autoReleaseAtUtc;
      return {
        steps: [posting, this.contractStep(contractId, { type: 'record_funding', at: this.deps.clock.now(), source: intent.id, amountMinor: intent.amount - fee, lateRefund: null }, meta)],
        after: async () => {
          if (autoRelease) await this.scheduleAutoRelease(ref, autoRelease);
        },
      };
    },
    // The intent names the contract it funds (assigned before its confirmation). Intents submitted
    // before that was recorded: the ledger's word, posted with the payment's success (an entry once
    // posted stays, so no race can undo this check).
    assertRefundable: async ({ intent, escrowContract }) => {
      const owner = { merchantId: intent.merchantId, environment: intent.environment };
      const funded = escrowContract !== null || (await loadState(this.deps.store, balanceStream(intent.merchantId, intent.environment, intent.currency), ledgerDecider)).state.posted.has(`escrow_funding:${intent.id}`);
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
    const { state } = await this.load(ref.contractId);
    if (!state.contract || state.fundingSources.has(ref.source)) return;
    const meta = this.meta(ref, ref.contractId, SYSTEM);
    const late: Refund | null = state.canceledAt ? { id: derivedUuid(`escrow_refund|late|${ref.source}`), amountMinor: ref.amountMinor, reason: 'late_funding', at: this.deps.clock.now().toISOString() } : null;
    const steps = [this.contractStep(ref.contractId, { type: 'record_funding', at: this.deps.clock.now(), source: ref.source, amountMinor: ref.amountMinor, lateRefund: late }, meta)];
    const refunding = late ? await this.refundSteps(ref, ref.contractId, state.contract.currency, late, ref.clearing, ref.source, meta) : null;
    await handleSteps(this.deps.store, [...steps, ...(refunding?.steps ?? [])], { onConflict: 'internal' });
    await this.sendRailRefund(refunding?.railRefund ?? null);
    const autoRelease = state.contract.autoReleaseAtUtc;
    if (autoRelease && !late) await this.scheduleAutoRelease(ref, autoRelease);
  }

  async addParticipant(owner: Owner, id: string, input: { role: ParticipantRole; displayName: string; email?: string | null }, actor: Actor): Promise<ContractObject> {
    const at = this.deps.clock.now();
    const participant = { id: newUuid(), role: input.role, displayName: input.displayName, email: input.email ?? null, addedAt: at.toISOString() };
    const result = await this.run(id, { type: 'add_participant', owner, at, participant }, this.meta(owner, id, actor));
    return toContractObject(result.state);
  }

  async addMilestone(owner: Owner, id: string, input: { title: string; amountMinor: number }, actor: Actor): Promise<ContractObject> {
    const at = this.deps.clock.now();
    const milestone = { id: newUuid(), title: input.title, amountMinor: input.amountMinor, status: 'open' as const, createdAt: at.toISOString(), completedAt: null };
    const result = await this.run(id, { type: 'add_milestone', owner, at, milestone }, this.meta(owner, id, actor));
    return toContractObject(result.state);
  }

  async completeMilestone(owner: Owner, id: string, milestoneId: string, actor: Actor): Promise<ContractObject> {
    const result = await this.run(id, { type: 'complete_milestone', owner, at: this.deps.clock.now(), milestoneId }, this.meta(owner, id, actor));
    return toContractObject(result.state);
  }

  /** Where held funds go back to: the funding payment's clearing account, or the merchant's balance it came from. */
  private async payerAccount(state: EscrowState): Promise<Account> {
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
  private async refundSteps(owner: Owner, contractId: string, currency: string, refund: Refund, to: Account, paymentIntentId: string | null, meta: EventMetadata): Promise<{ steps: AnyStep[]; railRefund: RailRefundRecord | null }> {
    const ledger = this.ledgerStep(owner, currency, refundEscrow({ source: refund.id, contract: contractId, amount: refund.amountMinor, to }), meta);
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
  private async sendRailRefund(railRefund: RailRefundRecord | null): Promise<void> {
    if (railRefund) await this.deps.railRefunds.send(railRefund);
  }

  /**
   * Refunds held funds to the payer: `amountMinor`, or everything not promised to pending releases.
   * `requestRef` (the Idempotency-Key) names the refund, so a retry after a crash makes no second one.
   */
  async refund(owner: Owner, id: string, input: { amountMinor?: number | null }, actor: Actor, requestRef?: string): Promise<ContractObject> {
    const state = await this.owned(owner, id);
    const c = state.contract!;
    const refundId = requestRef === undefined ? newUuid() : derivedUuid(`escrow_refund|${id}|${requestRef}`);
    if (state.refundIds.has(refundId)) return toContractObject(state);
    const amount = input.amountMinor ?? disposableMinor(state);
    const refund: Refund = { id: refundId, amountMinor: amount, reason: 'requested', at: this.deps.clock.now().toISOString() };
    const meta = this.meta(owner, id, actor);
    const refunding = await this.refundSteps(owner, id, c.currency, refund, await this.payerAccount(state), state.paymentIntentId, meta);
    const [contract] = await handleSteps(this.deps.store, [this.contractStep(id, { type: 'refund', owner, at: this.deps.clock.now(), refund }, meta), ...refunding.steps], { onConflict: 'contended' });
    // Sent by the request whose commit made the refund, only: a retry that took over a first attempt still running leaves it to that attempt (or to its status check).
    if (contract!.events.length > 0) await this.sendRailRefund(refunding.railRefund);
    return toContractObject((await this.load(id)).state);
  }

  /** Cancels the contract: pending releases are canceled and whatever it holds goes back to the payer. */
  async cancel(owner: Owner, id: string, actor: Actor): Promise<ContractObject> {
    const state = await this.owned(owner, id);
    const c = state.contract!;
    const held = heldMinor(state);
    const at = this.deps.clock.now();
    const refund: Refund | null = held > 0 ? { id: derivedUuid(`escrow_refund|cancel|${id}`), amountMinor: held, reason: 'canceled', at: at.toISOString() } : null;
    const meta = this.meta(owner, id, actor);
    const refunding = refund ? await this.refundSteps(owner, id, c.currency, refund, await this.payerAccount(state), state.paymentIntentId, meta) : null;
    await handleSteps(this.deps.store, [this.contractStep(id, { type: 'cancel', owner, at, refund }, meta), ...(refunding?.steps ?? [])], { onConflict: 'none' });
    await this.sendRailRefund(refunding?.railRefund ?? null);
    return toContractObject((await this.load(id)).state);
  }

  /**
   * Creates a release of held funds: `amountMinor`, else the milestone's amount, else everything not
   * promised to other releases. The same `idempotencyKey` on the contract answers the release it
   * made; without one, `requestRef` (the Idempotency-Key with the body's fingerprint) names it, so a
   * request retried after a crash answers the first attempt's release and moves nothing again. In
   * `immediate` mode it is executed at once to the contract's default destination; a repeat finding
   * it still pending (the first died before executing it) executes it, once.
   */
  async createRelease(owner: Owner, contractId: string, input: CreateReleaseInput, by: Requester | 'scheduled', actor: Actor, requestRef?: string, trigger?: ReleaseTrigger): Promise<ReleaseObject> {
    const state = await this.owned(owner, contractId);
    const c = state.contract!;
    const id = input.idempotencyKey
      ? derivedUuid(`escrow_release|${contractId}|${input.idempotencyKey}`)
      : requestRef !== undefined
        ? derivedUuid(`escrow_release|${contractId}|request|${requestRef}`)
        : newUuid();
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
    const created = await this.run(contractId, { type: 'create_release', owner, at: this.deps.clock.now(), release }, this.meta(owner, contractId, actor));
    const made = created.state.releases.get(id)!;
    if (made.mode === 'immediate' && made.status === 'pending') return this.execute(owner, contractId, id, {}, actor, by);
    return toReleaseObject(made, c);
  }

  async executeRelease(owner: Owner, releaseId: string, input: ExecuteReleaseInput, by: Requester, actor: Actor): Promise<ReleaseObject> {
    return this.execute(owner, await this.contractOf('release', owner, releaseId), releaseId, input, actor, by);
  }

  /**
   * Moves a pending release's funds: a ledger transfer to the merchant's available balance (for a
   * beneficiary participant, or the default), or a payout to a payout method. The contract's event
   * and the ledger entry (and the payout) are one commit. `by` is who asks, for the rule of new
   * destinations (docs/escrow.md): a scheduled execution that may not pay its destination leaves
   * the release pending for a request to execute.
   */
  private async execute(owner: Owner, contractId: string, releaseId: string, input: ExecuteReleaseInput, actor: Actor, by: Requester | 'scheduled'): Promise<ReleaseObject> {
    const state = await this.owned(owner, contractId);
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
    const meta = this.meta(owner, contractId, actor);
    if (payoutMethodId) {
      // The payout is named by its release, so an execution retried after a crash finds it.
      const payoutId = derivedId('po', `escrow_payout|${releaseId}`);
      try {
        await this.deps.releasedFundsPayouts.createFromReleased(
        owner,
        { payoutId, payoutMethodId, currency: c.currency, amount: release.amountMinor, metadata: { escrow_contract: contractId, escrow_release: releaseId }, source: 'escrow', held: { escrow: { contractId, releaseId } } },
        (fee) => {
          if (fee >= release.amountMinor) throw new Refusal('IKW-ESC-004', `The release (${release.amountMinor}) does not cover the payout fee (${fee})`, 'amountMinor');
          return this.contractStep(contractId, { type: 'execute_release', owner, at, releaseId, destination: { type: 'payout', payoutMethodId, payoutId, fee } }, meta);
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
          this.contractStep(contractId, { type: 'execute_release', owner, at, releaseId, destination }, meta),
          this.ledgerStep(owner, c.currency, releaseEscrow({ source: releaseId, contract: contractId, amount: release.amountMinor }), meta),
        ],
        { onConflict: 'contended' },
      );
    }
    const after = (await this.load(contractId)).state;
    return toReleaseObject(after.releases.get(releaseId)!, c);
  }

  async cancelRelease(owner: Owner, releaseId: string, actor: Actor): Promise<ReleaseObject> {
    const contractId = await this.contractOf('release', owner, releaseId);
    const result = await this.run(contractId, { type: 'cancel_release', owner, at: this.deps.clock.now(), releaseId }, this.meta(owner, contractId, actor));
    return toReleaseObject(result.state.releases.get(releaseId)!, result.state.contract!);
  }

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
    const result = await this.run(contractId, { type: 'open_dispute', owner, at, dispute }, this.meta(owner, contractId, actor));
    return toDisputeObject(result.state.disputes.get(dispute.id)!, result.state.contract!);
  }

  /**
   * Resolves a dispute: pending releases are canceled, then what the contract holds goes to the
   * beneficiary (a release, in the contract's default mode), back to the payer (a refund), or is
   * split between them; `dismissed` moves nothing and lifts the freeze.
   */
  async resolveDispute(owner: Owner, disputeId: string, input: ResolveDisputeInput, actor: Actor): Promise<DisputeObject> {
    const contractId = await this.contractOf('dispute', owner, disputeId);
    const state = await this.owned(owner, contractId);
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
    const meta = this.meta(owner, contractId, actor);
    const steps = [
      this.contractStep(contractId, { type: 'resolve_dispute', owner, at, disputeId, outcome: input.outcome, outcomeMetadata: input.outcomeMetadata ?? null, plan: { ...amounts, release, refund } }, meta),
    ];
    const refunding = refund ? await this.refundSteps(owner, contractId, c.currency, refund, await this.payerAccount(state), state.paymentIntentId, meta) : null;
    await handleSteps(this.deps.store, [...steps, ...(refunding?.steps ?? [])], { onConflict: 'none' });
    await this.sendRailRefund(refunding?.railRefund ?? null);
    // Executed for the resolution, not by a request to pay: scheduled (it waits where a second factor is needed).
    if (release && release.mode === 'immediate') await this.execute(owner, contractId, release.id, {}, actor, 'scheduled');
    if (input.outcome === 'dismissed' && c.autoReleaseAtUtc) await this.scheduleAutoRelease({ ...owner, contractId }, c.autoReleaseAtUtc);
    const after = (await this.load(contractId)).state;
    return toDisputeObject(after.disputes.get(disputeId)!, c);
  }

  /**
   * The auto-release timer: at `autoReleaseAtUtc`, whatever a funded contract holds beyond its
   * pending releases is released and executed to the default destination. A contract not funded
   * yet or under dispute is left alone; funding or a dismissal sets the timer again.
   */
  async autoRelease(ref: ContractRef): Promise<void> {
    const { state } = await this.load(ref.contractId);
    const c = state.contract;
    if (!c?.autoReleaseAtUtc || new Date(c.autoReleaseAtUtc) > this.deps.clock.now()) return;
    if (state.canceledAt || state.openDisputeId || state.fundedMinor === 0 || disposableMinor(state) === 0) return;
    // An immediate release is executed by createRelease, also when a crash left it pending.
    await this.createRelease(ref, ref.contractId, { idempotencyKey: `auto_release:${state.fundedMinor}`, mode: 'immediate' }, 'scheduled', SYSTEM, undefined, 'auto_release');
  }
}
