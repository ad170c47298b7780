import { ApiKeyManagement } from './merchant/api-keys.js';
import { createMerchant, merchantCreation } from './merchant/commands.js';
import { accounts, type MerchantOpening } from '#packages/families/accounts/index.js';
import { defineFamily } from '#packages/families/family.js';
import { merchantsReadSide } from './read/index.js';

/** Merchants and their API keys, created, rolled and revoked by signed-in owners and admins (docs/merchants.md). */
export const merchants = defineFamily({
  name: 'merchants',
  readSide: merchantsReadSide,
  needs: [accounts],
  build: ({ store, clock, outbox: messenger, reads }, { accounts, verifications }) => {
    /** How an organization opens its merchant: registered with accounts. */
    const merchantOpening: MerchantOpening = {
      create: (name, actor) => createMerchant(store, clock, name, actor),
      creation: (name, actor, email) => {
        const { created, step } = merchantCreation(clock, name, actor, email);
        return { merchantId: created.id, step };
      },
    };
    return {
      apiKeyManagement: new ApiKeyManagement({ store, clock, accounts, verifications, messenger, directory: reads }),
      merchantOpening,
    };
  },
  registrations: ({ merchantOpening }) => ({ merchantOpening }),
});

// What other families use of this one (its public face): they import it from here, never from its files.
export { liveSwitchStep } from './merchant/commands.js';
export { DEFAULT_CUSTOMER_PORTAL_SETTINGS, changed, defaultPayoutSettings, merchantSettingsId, merchantSettingsStream, merchantSettingsStreamOf, withPayoutDefaults } from './merchant-settings/events.js';
export type { CustomerPortalSettings, MerchantSettingsEvent, PayoutSettings } from './merchant-settings/events.js';

// What other families' routes and read models use of this family.
export { merchantStream } from './merchant/events.js';
