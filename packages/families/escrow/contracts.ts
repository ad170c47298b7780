import { getCurrency } from '#packages/catalog/index.js';
import { Refusal } from '#packages/core/refusal.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { handleSteps } from '#packages/eventstore/command-handler.js';
import { loadPayoutMethod, unusableReason } from '#packages/families/payouts/index.js';
import { fundEscrow } from './postings.js';
import type { EscrowCommand } from './decider.js';
import { toContractObject } from './render.js';
import type { ContractObject, FundingSourceType, LedgerDestinationType, ParticipantRole, ReleaseMode } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import type { EscrowContractCommits, EscrowDeps } from './commands.js';
import { payoutErrors } from '#packages/families/payouts/index.js';

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

/**
 * A contract's terms (docs/escrow.md): its creation (funded from the merchant balance in the same
 * commit, when it is), its participants and its milestones.
 */
export class EscrowContracts {
  constructor(
    private readonly deps: EscrowDeps,
    private readonly commits: EscrowContractCommits,
  ) {}

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
    const meta = this.commits.metadata(owner, id, actor);
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
    if (command.contract.autoReleaseAtUtc) await this.commits.scheduleAutoRelease({ ...owner, contractId: id }, command.contract.autoReleaseAtUtc);
    const steps = [this.commits.contractStep(id, command, meta)];
    if (command.fundFromBalance) steps.push(this.commits.ledgerStep(owner, code, fundEscrow({ source: id, contract: id, amount: input.amountMinor! }), meta));
    await handleSteps(this.deps.store, steps, { onConflict: 'contended' });
    return toContractObject((await this.commits.load(id)).state);
  }

  /** A default payout method must be one of this merchant's, not deleted (its safety delay is checked at payout). */
  private async assertPayoutMethod(owner: Owner, id: string): Promise<void> {
    const reason = unusableReason(await loadPayoutMethod(this.deps.store, id), owner.merchantId, owner.environment, this.deps.clock.now());
    if (reason === 'missing') throw new Refusal('IKW-PAY-002', `No such payout method: '${id}'`, 'defaultPayoutMethodId');
    if (reason === 'inactive') throw new Refusal('IKW-PAY-003', payoutErrors['IKW-PAY-003'].message, 'defaultPayoutMethodId');
  }

  async addParticipant(owner: Owner, id: string, input: { role: ParticipantRole; displayName: string; email?: string | null }, actor: Actor): Promise<ContractObject> {
    const at = this.deps.clock.now();
    const participant = { id: newUuid(), role: input.role, displayName: input.displayName, email: input.email ?? null, addedAt: at.toISOString() };
    const result = await this.commits.run(id, { type: 'add_participant', owner, at, participant }, this.commits.metadata(owner, id, actor));
    return toContractObject(result.state);
  }

  async addMilestone(owner: Owner, id: string, input: { title: string; amountMinor: number }, actor: Actor): Promise<ContractObject> {
    const at = this.deps.clock.now();
    const milestone = { id: newUuid(), title: input.title, amountMinor: input.amountMinor, status: 'open' as const, createdAt: at.toISOString(), completedAt: null };
    const result = await this.commits.run(id, { type: 'add_milestone', owner, at, milestone }, this.commits.metadata(owner, id, actor));
    return toContractObject(result.state);
  }

  async completeMilestone(owner: Owner, id: string, milestoneId: string, actor: Actor): Promise<ContractObject> {
    const result = await this.commits.run(id, { type: 'complete_milestone', owner, at: this.deps.clock.now(), milestoneId }, this.commits.metadata(owner, id, actor));
    return toContractObject(result.state);
  }
}
