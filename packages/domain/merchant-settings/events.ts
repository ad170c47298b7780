import type { DomainEvent } from '../../core/decider.js';
import type { Environment } from '../merchant/events.js';

/** A merchant's payout settings for one environment (GET/PATCH /api/v1/merchant/settings/payouts). */
export interface PayoutSettings {
  /** Where customers return after a payment when a confirm gives no return_url. */
  defaultReturnUrl: string | null;
  /** Minutes a new saved destination must wait before it can receive payouts. */
  safetyDelayMinutes: number;
  /** Currency preselected for new payouts in the dashboard. */
  defaultCurrency: string | null;
  /** Saved destination used when a merchant payout names none. */
  defaultPayoutMethodId: string | null;
}

/** Defaults: a day's safety delay in live (time to notice an account takeover); none in sandbox. */
export function defaultPayoutSettings(environment: Environment): PayoutSettings {
  return { defaultReturnUrl: null, safetyDelayMinutes: environment === 'live' ? 1440 : 0, defaultCurrency: null, defaultPayoutMethodId: null };
}

/** A lower safety delay, and the second-factor challenge (used in the same commit) that allowed it. */
export interface SafetyDelayLowered {
  fromMinutes: number;
  toMinutes: number;
  challengeId: string;
}

export type MerchantSettingsEvent = DomainEvent<
  'merchant.payout_settings_updated',
  { merchantId: string; environment: Environment; changes: Partial<PayoutSettings>; settings: PayoutSettings; updatedAt: string; safetyDelayLowered?: SafetyDelayLowered }
>;

/** One merchant's settings in one environment are one aggregate: its id names both. */
export const merchantSettingsId = (merchantId: string, environment: Environment) => `${merchantId}-${environment}`;
export const merchantSettingsStreamOf = (id: string) => `merchant_settings-${id}`;
export const merchantSettingsStream = (merchantId: string, environment: Environment) => merchantSettingsStreamOf(merchantSettingsId(merchantId, environment));
