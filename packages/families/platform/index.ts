import { CountryActivations } from './country-activation/commands.js';
import { FeatureFlags } from './feature-flag/commands.js';
import { PaymentCapabilities } from './payment-capability/commands.js';
import { defineFamily } from '#packages/families/family.js';
import { platformReadSide } from './read/index.js';
import { platformErrors } from './errors.js';

/** The platform's switches: what each merchant may use, country activations, feature flags (docs/platform.md, docs/configuration.md). */
export const platform = defineFamily({
  name: 'platform',
  readSide: platformReadSide,
  needs: [],
  errors: platformErrors,
  build: ({ store, clock }) => ({
    /** What each merchant may use, over the catalog's defaults. */
    paymentCapabilities: new PaymentCapabilities({ store, clock }),
    countryActivations: new CountryActivations({ store, clock }),
    featureFlags: new FeatureFlags({ store, clock }),
  }),
});

// What other families use of this one (its public face): they import it from here, never from its files.
export { activationCheck, assertLiveCanTakeMoney, assertLiveOpen } from './country-activation/commands.js';
export type { ActivationGate, LiveState } from './country-activation/commands.js';
export { assertCapable } from './payment-capability/commands.js';
export type { CapabilityGate } from './payment-capability/commands.js';
export type { CapabilityScope } from './payment-capability/events.js';
