import type { DomainEvent } from '#packages/core/decider.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { isAdminActor } from '../platform-admin/events.js';
import type { Environment } from '#packages/core/owner.js';

/** What an activation allows: each direction on or off, and the amounts (minor units) accepted. */
export interface ActivationRule {
  enabledForPayIn: boolean;
  enabledForPayout: boolean;
  minAmount: number | null;
  maxAmount: number | null;
}

/**
 * Who set an activation's rule as it stands: the platform operator (the sk_admin_… credential),
 * whose activations the merchant cannot change or delete (IKW-CFG-005), or the merchant.
 */
export type ActivationSetter = 'operator' | 'merchant';

/** The public CountryActivation, camelCase like the configuration family. */
export interface CountryActivationObject extends ActivationRule {
  id: string;
  object: 'country_activation';
  merchantId: string;
  countryCode: string;
  currencyIso: string;
  setBy: ActivationSetter;
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
  /** Absent on activations created before it was recorded: see setterOf. */
  setBy?: ActivationSetter;
  createdAt: string;
}

type WithObject<D> = D & { object: CountryActivationObject };

export type CountryActivationEvent =
  | DomainEvent<'country_activation.created', WithObject<ActivationCreated>>
  | DomainEvent<'country_activation.updated', WithObject<ActivationRule & { at: string; setBy?: ActivationSetter }>>
  | DomainEvent<'country_activation.deleted', WithObject<{ at: string }>>;

export const countryActivationStream = (id: string) => `country_activation-${id}`;

/**
 * Who set the rule a creation or change of an activation left: as the event records it, or, for an
 * event from before it did, as its actor says (the operator credential's requests are audited as
 * `admin:<key id>`).
 */
export function setterOf(event: Pick<RecordedEvent, 'data' | 'metadata'>): ActivationSetter {
  return (event.data as { setBy?: ActivationSetter }).setBy ?? (isAdminActor(event.metadata.actor) ? 'operator' : 'merchant');
}
