import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import type { FeatureFlagEvent, FeatureFlagSet } from './events.js';

export type FeatureFlagCommand = { type: 'set'; flag: FeatureFlagSet } | { type: 'delete'; id: string; at: Date };

export interface FeatureFlagState {
  flag: FeatureFlagSet | null;
}

/** A flag is set (created or changed: one per key and merchant) and deleted; only the platform operator does either. */
export const featureFlagDecider: Decider<FeatureFlagCommand, FeatureFlagState, Fact<FeatureFlagEvent>> = {
  initialState: { flag: null },
  evolve(_state, event) {
    return { flag: event.type === 'feature_flag.set' ? event.data : null };
  },
  decide(command, state) {
    if (command.type === 'set') return [{ type: 'feature_flag.set', data: command.flag }];
    if (!state.flag) throw new Refusal('IKW-RES-001', `No such feature flag: '${command.id}'`, 'flagId');
    return [{ type: 'feature_flag.deleted', data: { id: command.id, at: command.at.toISOString() } }];
  },
};
