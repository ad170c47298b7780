import type { Decider } from '../../core/decider.js';
import type { Environment } from '../merchant/events.js';
import { defaultPayoutSettings, type MerchantSettingsEvent, type PayoutSettings } from './events.js';

export type MerchantSettingsCommand = { type: 'update'; merchantId: string; environment: Environment; changes: Partial<PayoutSettings>; at: Date };

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
    return [
      {
        type: 'merchant.payout_settings_updated',
        data: { merchantId: command.merchantId, environment: command.environment, changes, settings: { ...current, ...changes }, updatedAt: command.at.toISOString() },
      },
    ];
  },
};
