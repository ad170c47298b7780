import type { DomainEvent } from '../../core/decider.js';
import type { Environment } from '../merchant/events.js';

/** What an activation allows: each direction on or off, and the amounts (minor units) accepted. */
export interface ActivationRule {
  enabledForPayIn: boolean;
  enabledForPayout: boolean;
  minAmount: number | null;
  maxAmount: number | null;
}

/** The public CountryActivation, camelCase like the configuration family. */
export interface CountryActivationObject extends ActivationRule {
  id: string;
  object: 'country_activation';
  merchantId: string;
  countryCode: string;
  currencyIso: string;
  livemode: boolean;
  created: number;
  updated: number;
}

export interface ActivationCreated extends ActivationRule {
  id: string;
  merchantId: string;
  environment: Environment;
  countryCode: string;
  currencyIso: string;
  createdAt: string;
}

type WithObject<D> = D & { object: CountryActivationObject };

export type CountryActivationEvent =
  | DomainEvent<'country_activation.created', WithObject<ActivationCreated>>
  | DomainEvent<'country_activation.updated', WithObject<ActivationRule & { at: string }>>
  | DomainEvent<'country_activation.deleted', WithObject<{ at: string }>>;

export const countryActivationStream = (id: string) => `country_activation-${id}`;
