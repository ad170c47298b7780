import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

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
  /**
   * API keys may pay out to inline destinations (`destination` on a payout); false: only to saved
   * payout methods, past their safety delay. Signed-in users are not bound by it (docs/decisions.md, "Payouts to new destinations").
   */
  inlineDestinationsForApiKeys: boolean;
}

/**
 * Defaults: a day's safety delay in live (time to notice an account takeover), none in sandbox;
 * inline destinations open to API keys, as the interface has them.
 */
export function defaultPayoutSettings(environment: Environment): PayoutSettings {
  return { defaultReturnUrl: null, safetyDelayMinutes: environment === 'live' ? 1440 : 0, defaultCurrency: null, defaultPayoutMethodId: null, inlineDestinationsForApiKeys: true };
}

/** Settings as an event or row holds them: those recorded before a setting existed take its default. */
export function withPayoutDefaults(settings: Partial<PayoutSettings>, environment: Environment): PayoutSettings {
  return { ...defaultPayoutSettings(environment), ...settings };
}

/** A lower safety delay, and the second-factor challenge (used in the same commit) that allowed it. */
export interface SafetyDelayLowered {
  fromMinutes: number;
  toMinutes: number;
  challengeId: string;
}

/** API keys allowed inline destinations again, and the second-factor challenge (used in the same commit) that allowed it. */
export interface InlineDestinationsReopened {
  challengeId: string;
}

/**
 * What a merchant's customers may do in its customer portal, in one environment (GET/PATCH
 * /api/v1/merchant/settings/customer-portal); the portal's pages and API honour each.
 */
export interface CustomerPortalSettings {
  /** Customers may set their subscriptions to end at the end of the period (resuming one set to end is always allowed). */
  subscriptionCancel: boolean;
  /** Customers may change their name and phone number (PATCH /api/v1/customer-portal/me). */
  customerUpdate: boolean;
  /** The merchant's site, which the portal's pages link back to; none when null. */
  returnUrl: string | null;
}

/** Defaults: the portal as it was before it had settings, every feature on. */
export const DEFAULT_CUSTOMER_PORTAL_SETTINGS: CustomerPortalSettings = { subscriptionCancel: true, customerUpdate: true, returnUrl: null };

export type MerchantSettingsEvent =
  | DomainEvent<
      'merchant.payout_settings_updated',
      {
        merchantId: string;
        environment: Environment;
        changes: Partial<PayoutSettings>;
        settings: PayoutSettings;
        updatedAt: string;
        safetyDelayLowered?: SafetyDelayLowered;
        inlineDestinationsReopened?: InlineDestinationsReopened;
      }
    >
  | DomainEvent<'merchant.customer_portal_settings_updated', { merchantId: string; environment: Environment; changes: Partial<CustomerPortalSettings>; settings: CustomerPortalSettings; updatedAt: string }>;

/** The fields of `changes` that differ from `current`: a change to nothing new records nothing. */
export function changed<T extends object>(current: T, changes: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([k, v]) => v !== undefined && current[k as keyof T] !== v)) as Partial<T>;
}

/**
 * One merchant's settings in one environment are one stream, which holds both kinds of settings:
 * the payout settings (packages/families/payouts/payout/settings.ts) and the customer portal's
 * (packages/families/customer-portal/settings.ts), each with its own decider that folds only its own
 * events. Stored streams keep their ids, so the two share it.
 */
export const merchantSettingsId = (merchantId: string, environment: Environment) => `${merchantId}-${environment}`;
export const merchantSettingsStreamOf = (id: string) => `merchant_settings-${id}`;
export const merchantSettingsStream = (merchantId: string, environment: Environment) => merchantSettingsStreamOf(merchantSettingsId(merchantId, environment));
