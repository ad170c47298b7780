import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { ActivationCreated, ActivationRule, ActivationSetter, CountryActivationEvent } from './events.js';
import type { Owner } from '#packages/core/owner.js';
import { platformErrors } from '../errors.js';

/**
 * `by`: who asks. `legacySetter`: who set an activation whose events predate `setBy`, as the
 * service read it from their actor (setterOf); the decider uses it only while the state knows none.
 */
export type CountryActivationCommand =
  | { type: 'create'; activation: ActivationCreated & { setBy: ActivationSetter } }
  | ({ owner: Owner; at: Date; by: ActivationSetter; legacySetter: ActivationSetter } & ({ type: 'update'; rule: ActivationRule } | { type: 'delete' }));

export interface CountryActivationState {
  activation: ActivationCreated | null;
  rule: ActivationRule | null;
  /** Who set the rule as it stands; null when its events predate `setBy`. */
  setBy: ActivationSetter | null;
  deleted: boolean;
  updatedAt: string | null;
}

/** One activation per merchant × environment × country × currency (its id derives from them); deleted, the catalog's default applies. */
export const countryActivationDecider: Decider<CountryActivationCommand, CountryActivationState, Fact<CountryActivationEvent>> = {
  initialState: { activation: null, rule: null, setBy: null, deleted: false, updatedAt: null },

  evolve(state, event) {
    switch (event.type) {
      case 'country_activation.created': {
        const { enabledForPayIn, enabledForPayout, minAmount, maxAmount } = event.data;
        return { activation: event.data, rule: { enabledForPayIn, enabledForPayout, minAmount, maxAmount }, setBy: event.data.setBy ?? null, deleted: false, updatedAt: event.data.createdAt };
      }
      case 'country_activation.updated': {
        const { enabledForPayIn, enabledForPayout, minAmount, maxAmount } = event.data;
        return { ...state, rule: { enabledForPayIn, enabledForPayout, minAmount, maxAmount }, setBy: event.data.setBy ?? null, updatedAt: event.data.at };
      }
      case 'country_activation.deleted':
        return { ...state, deleted: true, updatedAt: event.data.at };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.activation && !state.deleted) throw new Refusal('IKW-CFG-003', platformErrors['IKW-CFG-003'].message, 'countryCode');
      return [{ type: 'country_activation.created', data: command.activation }];
    }
    assertOwned(state.deleted ? null : state.activation, command.owner, 'No such activation', 'activationId');
    // The operator's bounds on a merchant are the platform's decision, not the merchant's to undo.
    if ((state.setBy ?? command.legacySetter) === 'operator' && command.by === 'merchant') throw new Refusal('IKW-CFG-005', platformErrors['IKW-CFG-005'].message, 'activationId');
    const at = command.at.toISOString();
    return [command.type === 'update' ? { type: 'country_activation.updated', data: { ...command.rule, at, setBy: command.by } } : { type: 'country_activation.deleted', data: { at } }];
  },
};
