import type { Decider } from '../../core/decider.js';
import { Refusal } from '../../core/refusal.js';
import type { Environment } from '../merchant/events.js';
import { defaultPayoutSettings, type MerchantSettingsEvent, type PayoutSettings } from './events.js';

/**
 * What allows a change to lower the safety delay: a signed-in user's second-factor challenge (its
 * consumption is a step of the same commit), or nothing: an API key (no second factor behind it),
 * or a user who gave no challenge.
 */
export type DelayLoweringProof = { challengeId: string } | 'api_key' | 'no_challenge';

export type MerchantSettingsCommand = { type: 'update'; merchantId: string; environment: Environment; changes: Partial<PayoutSettings>; proof: DelayLoweringProof; at: Date };

export interface MerchantSettingsState {
  settings: PayoutSettings | null;
  updatedAt: string | null;
}

export const merchantSettingsDecider: Decider<MerchantSettingsCommand, MerchantSettingsState, MerchantSettingsEvent> = {
  initialState: { settings: null, updatedAt: null },
  evolve(_state, event) {
    // Each event carries the whole settings after the change.
    return { settings: event.data.settings, updatedAt: event.data.updatedAt };
  },
  decide(command, state) {
    const current = state.settings ?? defaultPayoutSettings(command.environment);
    const changes = Object.fromEntries(
      Object.entries(command.changes).filter(([k, v]) => v !== undefined && current[k as keyof PayoutSettings] !== v),
    ) as Partial<PayoutSettings>;
    if (Object.keys(changes).length === 0) return [];
    // The delay is the time to notice a takeover before money leaves for a new destination:
    // switching it off quietly would defeat it (raising it needs nothing more).
    const lowered = changes.safetyDelayMinutes !== undefined && changes.safetyDelayMinutes < current.safetyDelayMinutes;
    if (lowered && command.proof === 'api_key') throw new Refusal('IKW-PAY-005', undefined, 'safetyDelay');
    if (lowered && command.proof === 'no_challenge') throw new Refusal('IKW-PAY-006', undefined, 'challenge');
    const proof = command.proof;
    return [
      {
        type: 'merchant.payout_settings_updated',
        data: {
          merchantId: command.merchantId,
          environment: command.environment,
          changes,
          settings: { ...current, ...changes },
          updatedAt: command.at.toISOString(),
          ...(lowered && typeof proof === 'object' ? { safetyDelayLowered: { fromMinutes: current.safetyDelayMinutes, toMinutes: changes.safetyDelayMinutes!, challengeId: proof.challengeId } } : {}),
        },
      },
    ];
  },
};
