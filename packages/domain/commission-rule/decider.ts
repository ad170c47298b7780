import { unixSeconds } from '../../core/clock.js';
import type { Decider } from '../../core/decider.js';
import { Refusal } from '../../core/refusal.js';
import { assertOwned, objectAttacher, present } from '../aggregate.js';
import type { CommissionRuleCreated, CommissionRuleEvent, CommissionRuleObject, CommissionRuleTerms } from './events.js';
import type { Owner } from '../../core/owner.js';

export type CommissionRuleCommand =
  | { type: 'create'; rule: CommissionRuleCreated }
  | { type: 'update'; owner: Owner; at: Date; changes: Partial<CommissionRuleTerms> };

export interface CommissionRuleState {
  rule: CommissionRuleCreated | null;
  updatedAt: string | null;
}

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

const withObjects = objectAttacher<CommissionRuleState, CommissionRuleEvent>((s, e) => commissionRuleDecider.evolve(s, e), toCommissionRuleObject);

/** A commission rule: created, then its terms changed (PATCH) or switched on and off; it is never deleted, as orders name it. */
export const commissionRuleDecider: Decider<CommissionRuleCommand, CommissionRuleState, CommissionRuleEvent> = {
  initialState: { rule: null, updatedAt: null },

  evolve(state, event) {
    switch (event.type) {
      case 'commission_rule.created':
        return { rule: event.data, updatedAt: event.data.createdAt };
      case 'commission_rule.updated': {
        const { percentBasisPoints, fixedFeeMinor, isActive, at } = event.data;
        return { rule: { ...state.rule!, percentBasisPoints, fixedFeeMinor, isActive }, updatedAt: at };
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'create':
        if (state.rule) throw new Refusal('IKW-RES-003', `Commission rule ${command.rule.id} already exists`);
        return withObjects(state, [{ type: 'commission_rule.created', data: command.rule }]);
      case 'update': {
        assertOwned(state.rule, command.owner, 'No such commission rule', 'id');
        const r = state.rule;
        const terms: CommissionRuleTerms = {
          percentBasisPoints: command.changes.percentBasisPoints ?? r.percentBasisPoints,
          fixedFeeMinor: command.changes.fixedFeeMinor ?? r.fixedFeeMinor,
          isActive: command.changes.isActive ?? r.isActive,
        };
        // An update that changes nothing appends nothing.
        if (terms.percentBasisPoints === r.percentBasisPoints && terms.fixedFeeMinor === r.fixedFeeMinor && terms.isActive === r.isActive) return [];
        return withObjects(state, [{ type: 'commission_rule.updated', data: { ...terms, at: command.at.toISOString() } }]);
      }
    }
  },
};
