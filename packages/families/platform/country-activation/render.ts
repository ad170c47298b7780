import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { CountryActivationEvent, CountryActivationObject } from './events.js';
import { type CountryActivationCommand, countryActivationDecider, type CountryActivationState } from './decider.js';

/** The public country activation: what the API answers and what its events carry (`data.object`). */
export function toCountryActivationObject(state: CountryActivationState): CountryActivationObject {
  const a = present(state.activation, 'country activation');
  return {
    id: a.id,
    object: 'country_activation',
    merchantId: a.merchantId,
    countryCode: a.countryCode,
    currencyIso: a.currencyIso,
    ...state.rule!,
    setBy: state.setBy ?? 'merchant',
    livemode: a.environment === 'live',
    created: unixSeconds(new Date(a.createdAt)),
    updated: unixSeconds(new Date(state.updatedAt ?? a.createdAt)),
  };
}

/** The country activation aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const countryActivationAggregate: Decider<CountryActivationCommand, CountryActivationState, Fact<CountryActivationEvent>> = { ...countryActivationDecider, render: { object: toCountryActivationObject } };
