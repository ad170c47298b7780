import type { Clock } from '#packages/core/clock.js';
import type { Decider } from '#packages/core/decider.js';
import type { Actor, Environment, Owner } from '#packages/core/owner.js';
import { Refusal } from '#packages/core/refusal.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { changed, DEFAULT_CUSTOMER_PORTAL_SETTINGS, merchantSettingsId, merchantSettingsStreamOf, type CustomerPortalSettings, type MerchantSettingsEvent } from '#packages/families/merchants/index.js';

export type PortalSettingsCommand = { type: 'update_customer_portal'; merchantId: string; environment: Environment; changes: Partial<CustomerPortalSettings>; at: Date };

/** What a merchant's customers may do in its customer portal, in one environment (null until first changed). */
export interface PortalSettingsState {
  settings: CustomerPortalSettings | null;
  updatedAt: string | null;
}

/** The portal settings on the merchant's settings stream (packages/families/merchants/merchant-settings/events.ts); the payout settings' events there are not theirs. */
export const portalSettingsDecider: Decider<PortalSettingsCommand, PortalSettingsState, MerchantSettingsEvent> = {
  initialState: { settings: null, updatedAt: null },
  evolve(state, event) {
    // Each event carries the whole settings after the change.
    if (event.type !== 'merchant.customer_portal_settings_updated') return state;
    return { settings: event.data.settings, updatedAt: event.data.updatedAt };
  },
  decide(command, state) {
    const current = state.settings ?? DEFAULT_CUSTOMER_PORTAL_SETTINGS;
    const changes = changed(current, command.changes);
    if (Object.keys(changes).length === 0) return [];
    const { merchantId, environment } = command;
    return [{ type: 'merchant.customer_portal_settings_updated', data: { merchantId, environment, changes, settings: { ...current, ...changes }, updatedAt: command.at.toISOString() } }];
  },
};

/** What the merchant's customers may do in its customer portal (docs/customer-portal.md); a change to nothing new records nothing. */
export class PortalSettingsService extends CommandService<PortalSettingsCommand, PortalSettingsState, MerchantSettingsEvent> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, merchantSettingsStreamOf, portalSettingsDecider);
  }

  async update(owner: Owner, changes: Partial<CustomerPortalSettings>, actor: Actor): Promise<void> {
    const command: PortalSettingsCommand = { type: 'update_customer_portal', merchantId: owner.merchantId, environment: owner.environment, changes, at: this.deps.clock.now() };
    await this.run(merchantSettingsId(owner.merchantId, owner.environment), command, auditMetadata(this.deps.clock, owner, owner.merchantId, actor));
  }
}

/** What the merchant's portal settings decide, by feature: what a customer may not do without it. */
const PORTAL_FEATURES = {
  subscriptionCancel: 'cancel a subscription',
  customerUpdate: 'change their name or phone number',
} as const;

/** Refuses (403 IKW-CPT-003) what the merchant's customer portal settings do not let its customers do. */
export function assertPortalAllows(settings: CustomerPortalSettings, feature: keyof typeof PORTAL_FEATURES, field?: string): void {
  if (!settings[feature]) throw new Refusal('IKW-CPT-003', `This merchant's customer portal does not let customers ${PORTAL_FEATURES[feature]}`, field);
}
