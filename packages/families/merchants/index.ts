import { ApiKeyManagement } from './merchant/api-keys.js';
import { accounts } from '../accounts/index.js';
import { defineFamily } from '../family.js';

/** Merchants and their API keys, created, rolled and revoked by signed-in owners and admins (docs/auth.md). */
export const merchants = defineFamily({
  name: 'merchants',
  needs: [accounts],
  build: ({ store, clock, outbox: messenger, reads }, { accounts, verifications }) => ({
    apiKeyManagement: new ApiKeyManagement({ store, clock, accounts, verifications, messenger, directory: reads }),
  }),
});
