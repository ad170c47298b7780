import { getCurrency } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import type { Owner, Actor, Requester } from '#packages/core/owner.js';
import { Refusal } from '#packages/core/refusal.js';
import { CommandService, handleSteps, step } from '#packages/eventstore/command-handler.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { isOwned } from '#packages/core/aggregate.js';
import { defaultPayoutSettings, merchantSettingsId, merchantSettingsStream, merchantSettingsStreamOf, type MerchantSettingsEvent, type PayoutSettings } from '#packages/families/merchants/index.js';
import { tellOwners, type OwnerNoticeDeps } from '#packages/families/accounts/index.js';
import { loadPayoutMethod } from '../payout-method/commands.js';
import type { Verifications } from '#packages/families/accounts/index.js';
import { payoutSettingsDecider, type PayoutSettingsCommand, type PayoutSettingsState, type WeakeningProof } from './settings-decider.js';
import { payoutErrors } from '../errors.js';

export interface PayoutSettingsDeps extends OwnerNoticeDeps {
  store: EventStore;
  clock: Clock;
  verifications: Verifications;
}

/**
 * A merchant's payout settings of one environment (docs/decisions.md, "Payouts"). A default
 * currency must be one the catalogue knows (IKW-VAL-003, field `defaultCurrency`), a default payout
 * method the merchant's own (IKW-PAY-002) and active (IKW-PAY-003, field `defaultPayoutMethod`).
 * Weakening a payout safeguard (lowering the safety delay of saved payout destinations, opening
 * inline destinations to API keys again) takes a verified second-factor challenge of purpose
 * `payout-settings/delay`, used up in the same commit, and every owner of the merchant's
 * organization is told by e-mail.
 */
export class PayoutSettingsService extends CommandService<PayoutSettingsCommand, PayoutSettingsState, MerchantSettingsEvent> {
  constructor(private readonly deps: PayoutSettingsDeps) {
    super(deps.store, merchantSettingsStreamOf, payoutSettingsDecider);
  }

  async update(owner: Owner, changes: Partial<PayoutSettings>, by: Requester, actor: Actor): Promise<{ settings: PayoutSettings; updatedAt: string | null }> {
    const { store, clock, verifications } = this.deps;
    if (changes.defaultCurrency && !getCurrency(changes.defaultCurrency)) throw new Refusal('IKW-VAL-003', `Unknown currency '${changes.defaultCurrency}'`, 'defaultCurrency');
    if (changes.defaultPayoutMethodId) {
      const method = await loadPayoutMethod(store, changes.defaultPayoutMethodId);
      if (!isOwned(method.method, owner)) throw new Refusal('IKW-PAY-002', payoutErrors['IKW-PAY-002'].message, 'defaultPayoutMethod');
      if (!method.active) throw new Refusal('IKW-PAY-003', payoutErrors['IKW-PAY-003'].message, 'defaultPayoutMethod');
    }
    if (by.userId === null && by.challengeId !== null) throw new Refusal('IKW-VAL-002', 'challenge_id is a signed-in user’s second factor; an API key has none', 'challenge');
    const proof: WeakeningProof = by.userId === null ? 'api_key' : by.challengeId === null ? 'no_challenge' : { challengeId: by.challengeId };
    const command: PayoutSettingsCommand = {
      type: 'update',
      merchantId: owner.merchantId,
      environment: owner.environment,
      changes: changes.defaultCurrency ? { ...changes, defaultCurrency: changes.defaultCurrency.toLowerCase() } : changes,
      proof,
      at: clock.now(),
    };
    const metadata = auditMetadata(clock, owner, owner.merchantId, actor);
    // A challenge given is used, whether or not the change turns out to need it; in the change's
    // commit and first, so that a store without atomic appends never records a lowering whose
    // challenge was not used.
    const result =
      by.userId !== null && by.challengeId !== null
        ? ((
            await handleSteps(store, [
              verifications.consumption(by.challengeId, 'payout-settings/delay', null, by.userId, actor),
              step({ streamId: merchantSettingsStream(owner.merchantId, owner.environment), decider: payoutSettingsDecider, command, metadata }),
            ])
          ).at(-1)! as { state: PayoutSettingsState; events: MerchantSettingsEvent[] })
        : await this.run(merchantSettingsId(owner.merchantId, owner.environment), command, metadata);
    const weakened = result.events.flatMap((e) => (e.type === 'merchant.payout_settings_updated' ? [e.data] : []))[0];
    if (weakened?.safetyDelayLowered || weakened?.inlineDestinationsReopened) await this.tellOwners(owner, by.userId!, weakened);
    const state = result.state;
    return { settings: state.settings ?? defaultPayoutSettings(owner.environment), updatedAt: state.updatedAt };
  }

  private async tellOwners(owner: Owner, userId: string, change: Extract<MerchantSettingsEvent, { type: 'merchant.payout_settings_updated' }>['data']): Promise<void> {
    const what = [
      ...(change.safetyDelayLowered ? [`lowered the safety delay of new saved payout destinations from ${change.safetyDelayLowered.fromMinutes} minutes to ${change.safetyDelayLowered.toMinutes} minutes`] : []),
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
