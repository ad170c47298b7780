import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { CommissionRuleCreated, CommissionRuleEvent, CommissionRuleTerms } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type CommissionRuleCommand = { type: 'create'; rule: CommissionRuleCreated } | { type: 'update'; owner: Owner; at: Date; changes: Partial<CommissionRuleTerms> };

export interface CommissionRuleState {
  rule: CommissionRuleCreated | null;
  updatedAt: string | null;
}

/** A commission rule: created, then its terms changed (PATCH) or switched on and off; it is never deleted, as orders name it. */
export const commissionRuleDecider: Decider<CommissionRuleCommand, CommissionRuleState, Fact<CommissionRuleEvent>> = {
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
        return [{ type: 'commission_rule.created', data: command.rule }];
      case 'update': {
        assertOwned(state.rule, command.owner, 'No such commission rule', 'commissionRuleId');
        const r = state.rule;
        const terms: CommissionRuleTerms = {
          percentBasisPoints: command.changes.percentBasisPoints ?? r.percentBasisPoints,
          fixedFeeMinor: command.changes.fixedFeeMinor ?? r.fixedFeeMinor,
          isActive: command.changes.isActive ?? r.isActive,
        };
        // An update that changes nothing appends nothing.
        if (terms.percentBasisPoints === r.percentBasisPoints && terms.fixedFeeMinor === r.fixedFeeMinor && terms.isActive === r.isActive) return [];
        return [{ type: 'commission_rule.updated', data: { ...terms, at: command.at.toISOString() } }];
      }
    }
  },
};
