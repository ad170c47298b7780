import type { Decider } from '../../core/decider.js';
import { Refusal } from '../../core/refusal.js';
import { DEFAULT_CUSTOMER_PORTAL_SETTINGS, defaultPayoutSettings, withPayoutDefaults, type CustomerPortalSettings, type MerchantSettingsEvent, type PayoutSettings } from './events.js';
import type { Environment } from '../../core/owner.js';

/**
 * What allows a change to weaken a payout safeguard (lower the safety delay, open inline
 * destinations to API keys again): a signed-in user's second-factor challenge (its consumption is
 * a step of the same commit), or nothing: an API key (no second factor behind it), or a user who
 * gave no challenge.
 */
export type WeakeningProof = { challengeId: string } | 'api_key' | 'no_challenge';

export type MerchantSettingsCommand =
  | { type: 'update'; merchantId: string; environment: Environment; changes: Partial<PayoutSettings>; proof: WeakeningProof; at: Date }
  | { type: 'update_customer_portal'; merchantId: string; environment: Environment; changes: Partial<CustomerPortalSettings>; at: Date };

/** A merchant's settings of one environment: payouts, and its customer portal (each null until first changed). */
export interface MerchantSettingsState {
  settings: PayoutSettings | null;
  updatedAt: string | null;
  customerPortal: CustomerPortalSettings | null;
  customerPortalUpdatedAt: string | null;
}

/** The fields of `changes` that differ from `current`. */
function changed<T extends object>(current: T, changes: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([k, v]) => v !== undefined && current[k as keyof T] !== v)) as Partial<T>;
}

export const merchantSettingsDecider: Decider<MerchantSettingsCommand, MerchantSettingsState, MerchantSettingsEvent> = {
  initialState: { settings: null, updatedAt: null, customerPortal: null, customerPortalUpdatedAt: null },
  evolve(state, event) {
    // Each event carries the whole settings of its kind after the change.
    switch (event.type) {
      case 'merchant.payout_settings_updated':
        return { ...state, settings: withPayoutDefaults(event.data.settings, event.data.environment), updatedAt: event.data.updatedAt };
      case 'merchant.customer_portal_settings_updated':
        return { ...state, customerPortal: event.data.settings, customerPortalUpdatedAt: event.data.updatedAt };
    }
  },
  decide(command, state) {
    if (command.type === 'update_customer_portal') {
      const current = state.customerPortal ?? DEFAULT_CUSTOMER_PORTAL_SETTINGS;
      const changes = changed(current, command.changes);
      if (Object.keys(changes).length === 0) return [];
      const { merchantId, environment } = command;
      return [{ type: 'merchant.customer_portal_settings_updated', data: { merchantId, environment, changes, settings: { ...current, ...changes }, updatedAt: command.at.toISOString() } }];
    }
    const current = state.settings ?? defaultPayoutSettings(command.environment);
    const changes = changed(current, command.changes);
    if (Object.keys(changes).length === 0) return [];
    // The delay is the time to notice a takeover before money leaves for a new destination, and
    // refusing inline destinations to API keys keeps a stolen key to saved ones: switching either
    // off quietly would defeat it (strengthening needs nothing more).
    const lowered = changes.safetyDelayMinutes !== undefined && changes.safetyDelayMinutes < current.safetyDelayMinutes;
    const reopened = changes.inlineDestinationsForApiKeys === true;
    const field = lowered ? 'safetyDelay' : 'inlineDestinations';
    if ((lowered || reopened) && command.proof === 'api_key') throw new Refusal('IKW-PAY-005', undefined, field);
    if ((lowered || reopened) && command.proof === 'no_challenge') throw new Refusal('IKW-PAY-006', undefined, 'challenge');
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

/** What the merchant's portal settings decide, by feature: what a customer may not do without it. */
const PORTAL_FEATURES = {
  subscriptionCancel: 'cancel a subscription',
  customerUpdate: 'change their name or phone number',
} as const;

/** Refuses (403 IKW-CPT-003) what the merchant's customer portal settings do not let its customers do. */
export function assertPortalAllows(settings: CustomerPortalSettings, feature: keyof typeof PORTAL_FEATURES, field?: string): void {
  if (!settings[feature]) throw new Refusal('IKW-CPT-003', `This merchant's customer portal does not let customers ${PORTAL_FEATURES[feature]}`, field);
}
