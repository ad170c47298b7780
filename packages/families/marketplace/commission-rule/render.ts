import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { CommissionRuleEvent, CommissionRuleObject } from './events.js';
import { type CommissionRuleCommand, commissionRuleDecider, type CommissionRuleState } from './decider.js';

/** The public commission rule: what the API answers and what its events carry (`data.object`). */
export function toCommissionRuleObject(state: CommissionRuleState): CommissionRuleObject {
  const r = present(state.rule, 'commission rule');
  return {
    id: r.id,
    object: 'marketplace_commission_rule',
    name: r.name,
    percentBasisPoints: r.percentBasisPoints,
    fixedFeeMinor: r.fixedFeeMinor,
    currency: r.currency,
    isActive: r.isActive,
    status: r.isActive ? 'active' : 'inactive',
    livemode: r.environment === 'live',
    created: unixSeconds(new Date(r.createdAt)),
    updated: unixSeconds(new Date(state.updatedAt ?? r.createdAt)),
  };
}

/** The commission rule aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const commissionRuleAggregate: Decider<CommissionRuleCommand, CommissionRuleState, Fact<CommissionRuleEvent>> = { ...commissionRuleDecider, render: { object: toCommissionRuleObject } };
