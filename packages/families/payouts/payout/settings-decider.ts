import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import type { Environment } from '#packages/core/owner.js';
import { loadState } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { changed, defaultPayoutSettings, merchantSettingsStream, withPayoutDefaults, type MerchantSettingsEvent, type PayoutSettings } from '#packages/families/merchants/index.js';
import { payoutErrors } from '../errors.js';

/**
 * What allows a change to weaken a payout safeguard (lower the safety delay, open inline
 * destinations to API keys again): a signed-in user's second-factor challenge (its consumption is
 * a step of the same commit), or nothing: an API key (no second factor behind it), or a user who
 * gave no challenge.
 */
export type WeakeningProof = { challengeId: string } | 'api_key' | 'no_challenge';

export type PayoutSettingsCommand = { type: 'update'; merchantId: string; environment: Environment; changes: Partial<PayoutSettings>; proof: WeakeningProof; at: Date };

/** A merchant's payout settings of one environment (null until first changed). */
export interface PayoutSettingsState {
  settings: PayoutSettings | null;
  updatedAt: string | null;
}

/** The payout settings on the merchant's settings stream (packages/families/merchants/merchant-settings/events.ts); the portal's events there are not theirs. */
export const payoutSettingsDecider: Decider<PayoutSettingsCommand, PayoutSettingsState, MerchantSettingsEvent> = {
  initialState: { settings: null, updatedAt: null },
  evolve(state, event) {
    // Each event carries the whole settings after the change.
    if (event.type !== 'merchant.payout_settings_updated') return state;
    return { settings: withPayoutDefaults(event.data.settings, event.data.environment), updatedAt: event.data.updatedAt };
  },
  decide(command, state) {
    const current = state.settings ?? defaultPayoutSettings(command.environment);
    const changes = changed(current, command.changes);
    if (Object.keys(changes).length === 0) return [];
    // The delay is the time to notice a takeover before money leaves for a new destination, and
    // refusing inline destinations to API keys keeps a stolen key to saved ones: switching either
    // off quietly would defeat it (strengthening needs nothing more).
    const lowered = changes.safetyDelayMinutes !== undefined && changes.safetyDelayMinutes < current.safetyDelayMinutes;
    const reopened = changes.inlineDestinationsForApiKeys === true;
    const field = lowered ? 'safetyDelay' : 'inlineDestinations';
    if ((lowered || reopened) && command.proof === 'api_key') throw new Refusal('IKW-PAY-005', payoutErrors['IKW-PAY-005'].message, field);
    if ((lowered || reopened) && command.proof === 'no_challenge') throw new Refusal('IKW-PAY-006', payoutErrors['IKW-PAY-006'].message, 'challenge');
    const challengeId = typeof command.proof === 'object' ? command.proof.challengeId : null;
    return [
      {
        type: 'merchant.payout_settings_updated',
        data: {
          merchantId: command.merchantId,
          environment: command.environment,
          changes,
          settings: { ...current, ...changes },
          updatedAt: command.at.toISOString(),
          ...(lowered && challengeId ? { safetyDelayLowered: { fromMinutes: current.safetyDelayMinutes, toMinutes: changes.safetyDelayMinutes!, challengeId } } : {}),
          ...(reopened && challengeId ? { inlineDestinationsReopened: { challengeId } } : {}),
        },
      },
    ];
  },
};

/** The settings as their stream holds them: a read for services of other aggregates (payouts, payout methods), which hold only a store. */
export async function payoutSettings(store: EventStore, merchantId: string, environment: Environment): Promise<{ settings: PayoutSettings; updatedAt: string | null }> {
  const { state } = await loadState(store, merchantSettingsStream(merchantId, environment), payoutSettingsDecider);
  return { settings: state.settings ?? defaultPayoutSettings(environment), updatedAt: state.updatedAt };
}
