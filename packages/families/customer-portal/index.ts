import { merchants } from '#packages/families/merchants/index.js';
import { KeyedHasher } from '#packages/core/hashing.js';
import { CustomerPortal } from './commands.js';
import { PortalSettingsService } from './settings.js';
// Part 2 debt: reads billing's customers table directly until billing's read API offers the lookup.
import { findCustomerIdByEmail } from '#packages/families/billing/read/index.js';
import { defineFamily } from '#packages/families/family.js';
import { customerPortalReadSide } from './read/index.js';
import { customerPortalErrors } from './errors.js';

/** The customer portal's sign-in by e-mailed code (docs/customer-portal.md). */
export const customerPortal = defineFamily({
  name: 'customer-portal',
  readSide: customerPortalReadSide,
  needs: [merchants],
  errors: customerPortalErrors,
  build: ({ config, store, clock, knex, secretsKey, outbox: messenger, rateLimiter }) => ({
    customerPortal: new CustomerPortal({
      store,
      clock,
      customerByEmail: (owner, email) => findCustomerIdByEmail(knex, owner, email),
      codes: new KeyedHasher(secretsKey, 'sika:customer-portal-codes:v1'),
      messenger,
      countCodeRequest: async (owner) => {
        const rule = config.customerPortalCodeLimit;
        if (rule) await rateLimiter.take([{ key: `portal-code:${owner.merchantId}:${owner.environment}`, rule }]);
      },
    }),
    /** The portal's settings (what customers may do there), on the merchant settings' stream. */
    portalSettings: new PortalSettingsService({ store, clock }),
  }),
});

// What other families' routes and read models use of this family.
export type { PortalSettingsService } from './settings.js';
