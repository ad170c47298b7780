import { CountryActivations } from './country-activation/commands.js';
import { FeatureFlags } from './feature-flag/commands.js';
import { PaymentCapabilities } from './payment-capability/commands.js';
import { defineFamily } from '../family.js';
import { platformErrors } from './errors.js';

/** The platform's switches: what each merchant may use, country activations, feature flags (docs/payment-capabilities.md, docs/configuration.md). */
export const platform = defineFamily({
  name: 'platform',
  needs: [],
  errors: platformErrors,
  build: ({ store, clock }) => ({
    /** What each merchant may use, over the catalog's defaults. */
    paymentCapabilities: new PaymentCapabilities({ store, clock }),
    countryActivations: new CountryActivations({ store, clock }),
    featureFlags: new FeatureFlags({ store, clock }),
  }),
});
