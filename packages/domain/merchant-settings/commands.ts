import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import type { EventStore } from '../../eventstore/port.js';
import { CommandService, handleSteps, loadState, step } from '../../eventstore/command-handler.js';
import { tellOwners, type OwnerNoticeDeps } from '../organization/owner-notices.js';
import type { Verifications } from '../verification/commands.js';
import { merchantSettingsDecider, type WeakeningProof, type MerchantSettingsCommand, type MerchantSettingsState } from './decider.js';
import {
  defaultPayoutSettings,
  merchantSettingsId,
  merchantSettingsStream,
  merchantSettingsStreamOf,
  type CustomerPortalSettings,
  type MerchantSettingsEvent,
  type PayoutSettings,
} from './events.js';
import type { Actor, Environment, Owner, Requester } from '../../core/owner.js';
import { auditMetadata } from '../../eventstore/metadata.js';

/** The settings as their stream holds them: a read for services of other aggregates (payouts, payout methods), which hold only a store. */
export async function payoutSettings(store: EventStore, merchantId: string, environment: Environment): Promise<{ settings: PayoutSettings; updatedAt: string | null }> {
  const { state } = await loadState(store, merchantSettingsStream(merchantId, environment), merchantSettingsDecider);
  return { settings: state.settings ?? defaultPayoutSettings(environment), updatedAt: state.updatedAt };
}

export interface MerchantSettingsDeps extends OwnerNoticeDeps {
  store: EventStore;
  clock: Clock;
  verifications: Verifications;
}

/**
 * A merchant's settings of one environment: payouts (docs/decisions.md, "Payouts") and its
 * customer portal (docs/checkout.md). Weakening a payout safeguard (lowering the safety delay of
 * saved payout destinations, opening inline destinations to API keys again) takes a verified
 * second-factor challenge of purpose `payout-settings/delay`, used up in the same commit, and
 * every owner of the merchant's organization is told by e-mail.
 */
export class MerchantSettingsService extends CommandService<MerchantSettingsCommand, MerchantSettingsState, MerchantSettingsEvent> {
  constructor(private readonly deps: MerchantSettingsDeps) {
    super(deps.store, merchantSettingsStreamOf, merchantSettingsDecider);
  }

  /** What the merchant's customers may do in its portal; a change to nothing new records nothing. */
  async updateCustomerPortal(owner: Owner, changes: Partial<CustomerPortalSettings>, actor: Actor): Promise<void> {
    const command: MerchantSettingsCommand = { type: 'update_customer_portal', merchantId: owner.merchantId, environment: owner.environment, changes, at: this.deps.clock.now() };
    await this.run(merchantSettingsId(owner.merchantId, owner.environment), command, auditMetadata(this.deps.clock, owner, owner.merchantId, actor));
  }

  async updatePayouts(owner: Owner, changes: Partial<PayoutSettings>, by: Requester, actor: Actor): Promise<{ settings: PayoutSettings; updatedAt: string | null }> {
    const { store, clock, verifications } = this.deps;
    if (by.userId === null && by.challengeId !== null) throw new ApiError('IKW-VAL-002', 'challenge_id is a signed-in user’s second factor; an API key has none', 'challenge_id');
    const proof: WeakeningProof = by.userId === null ? 'api_key' : by.challengeId === null ? 'no_challenge' : { challengeId: by.challengeId };
    const command: MerchantSettingsCommand = { type: 'update', merchantId: owner.merchantId, environment: owner.environment, changes, proof, at: clock.now() };
    const metadata = auditMetadata(clock, owner, owner.merchantId, actor);
    // A challenge given is used, whether or not the change turns out to need it; in the change's
    // commit and first, so that a store without atomic appends never records a lowering whose
    // challenge was not used.
    const result =
      by.userId !== null && by.challengeId !== null
        ? ((await handleSteps(store, [
            verifications.consumption(by.challengeId, 'payout-settings/delay', null, by.userId, actor),
            step({ streamId: merchantSettingsStream(owner.merchantId, owner.environment), decider: merchantSettingsDecider, command, metadata }),
          ])).at(-1)! as { state: MerchantSettingsState; events: MerchantSettingsEvent[] })
        : await this.run(merchantSettingsId(owner.merchantId, owner.environment), command, metadata);
    const weakened = result.events.flatMap((e) => (e.type === 'merchant.payout_settings_updated' ? [e.data] : []))[0];
    if (weakened?.safetyDelayLowered || weakened?.inlineDestinationsReopened) await this.tellOwners(owner, by.userId!, weakened);
    const state = result.state;
    return { settings: state.settings ?? defaultPayoutSettings(owner.environment), updatedAt: state.updatedAt };
  }

  private async tellOwners(owner: Owner, userId: string, change: Extract<MerchantSettingsEvent, { type: 'merchant.payout_settings_updated' }>['data']): Promise<void> {
    const what = [
      ...(change.safetyDelayLowered
        ? [`lowered the safety delay of new saved payout destinations from ${change.safetyDelayLowered.fromMinutes} minutes to ${change.safetyDelayLowered.toMinutes} minutes`]
        : []),
      ...(change.inlineDestinationsReopened ? ['let API keys pay out to inline destinations (not saved ones) again'] : []),
    ].join(' and ');
    await tellOwners(this.deps, owner.merchantId, userId, (who) => ({
      subject: change.safetyDelayLowered ? 'The safety delay of saved payout destinations was lowered' : 'API keys may pay out to inline destinations again',
      text:
        `${who} ${what} for merchant ${owner.merchantId} (${owner.environment}), with a second factor, at ${this.deps.clock.now().toISOString()}. ` +
        'Money can now leave for new destinations with less in the way. If you did not expect this, change it back and review who can pay out.',
    }));
  }
}
