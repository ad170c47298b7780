import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { unreachable } from '#packages/core/aggregate.js';
import type { StatementComputed, StatementEvent, StatementRequested } from './events.js';

export type StatementCommand = { type: 'request'; statement: StatementRequested } | { type: 'record_computed'; computed: StatementComputed };

export interface StatementState {
  requested: StatementRequested | null;
  computed: StatementComputed | null;
}

/** A statement: requested once, computed once (a job run again after a crash records nothing twice). */
export const statementDecider: Decider<StatementCommand, StatementState, Fact<StatementEvent>> = {
  initialState: { requested: null, computed: null },

  evolve(state, event) {
    // As stored, each event carries the rendered statement too (`object`): the state keeps the facts alone.
    switch (event.type) {
      case 'statement.requested': {
        const { object: _object, ...requested } = event.data as StatementRequested & { object?: unknown };
        return { ...state, requested };
      }
      case 'statement.ready': {
        const { object: _object, ...computed } = event.data as StatementComputed & { object?: unknown };
        return { ...state, computed };
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'request':
        if (state.requested) throw new Refusal('IKW-RES-003', `Statement ${command.statement.id} already exists`);
        return [{ type: 'statement.requested', data: command.statement }];
      case 'record_computed':
        if (!state.requested || state.computed) return [];
        return [{ type: 'statement.ready', data: command.computed }];
      default:
        return unreachable(command);
    }
  },
};
