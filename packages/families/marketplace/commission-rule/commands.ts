import type { Fact } from '#packages/core/decider.js';
import { getCurrency } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { isOwned } from '#packages/core/aggregate.js';
import type { CommissionRuleCommand, CommissionRuleState } from './decider.js';
import { commissionRuleAggregate, toCommissionRuleObject } from './render.js';
import { commissionRuleStream, type CommissionRuleEvent, type CommissionRuleObject, type CommissionRuleTerms } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

export interface CreateCommissionRuleInput {
  name: string;
  percentBasisPoints?: number;
  fixedFeeMinor?: number;
  currency: string;
  isActive?: boolean;
}

export type UpdateCommissionRuleInput = Partial<CommissionRuleTerms>;

/** The commission rules of a marketplace: what the platform keeps of each order line. */
export class CommissionRules extends CommandService<CommissionRuleCommand, CommissionRuleState, Fact<CommissionRuleEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, commissionRuleStream, commissionRuleAggregate);
  }

  /** `requestRef` (Idempotency-Key with the body's fingerprint) names the rule, so a retry after a crash finds it. */
  async create(owner: Owner, input: CreateCommissionRuleInput, actor: Actor, requestRef?: string): Promise<CommissionRuleObject> {
    const currency = getCurrency(input.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    const id = requestRef === undefined ? newUuid() : derivedUuid(`commission_rule|${owner.merchantId}|${owner.environment}|${requestRef}`);
    const earlier = await this.load(id);
    if (earlier.state.rule) return toCommissionRuleObject(earlier.state);
    const result = await this.run(
      id,
      {
        type: 'create',
        rule: {
          id,
          ...owner,
          name: input.name.trim(),
          percentBasisPoints: input.percentBasisPoints ?? 0,
          fixedFeeMinor: input.fixedFeeMinor ?? 0,
          currency: currency.code.toLowerCase(),
          isActive: input.isActive ?? true,
          createdAt: this.deps.clock.now().toISOString(),
        },
      },
      auditMetadata(this.deps.clock, owner, id, actor),
    );
    return toCommissionRuleObject(result.state);
  }

  async update(owner: Owner, id: string, changes: UpdateCommissionRuleInput, actor: Actor): Promise<CommissionRuleObject> {
    const result = await this.run(id, { type: 'update', owner, at: this.deps.clock.now(), changes }, auditMetadata(this.deps.clock, owner, id, actor));
    return toCommissionRuleObject(result.state);
  }

  /** The owner's rule with this id as it stands now (null when there is none): what an order line's commission is computed with. */
  async usable(owner: Owner, id: string): Promise<CommissionRuleState['rule']> {
    const { state } = await this.load(id);
    return isOwned(state.rule, owner) ? state.rule : null;
  }
}
