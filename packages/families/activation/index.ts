import { assets } from '#packages/families/assets/index.js';
import { defineFamily } from '#packages/families/family.js';
import { activationReadSide } from './read/index.js';
import { merchants } from '#packages/families/merchants/index.js';
import { payouts } from '#packages/families/payouts/index.js';
import { ActivationApplications } from './commands.js';
import { activationErrors } from './errors.js';

/**
 * Going live (docs/merchants.md, "Going live"): the merchant's activation application and the
 * platform's decisions on it. Its own family, after those it checks an application with: the
 * identity document is an asset, the settlement destination is checked as a payout destination,
 * and a decision switches the merchant's live environment.
 */
export const activation = defineFamily({
  name: 'activation',
  readSide: activationReadSide,
  needs: [merchants, payouts, assets],
  errors: activationErrors,
  build: ({ store, clock, outbox: messenger, reads }, { assets, accountHolders }) => ({
    activationApplications: new ActivationApplications({
      store,
      clock,
      document: async (id) => {
        const { state } = await assets.load(id);
        if (!state.asset || state.deleted) return null;
        return { merchantId: state.asset.merchantId, environment: state.asset.environment, purpose: state.asset.purpose, ready: state.status === 'ready' };
      },
      checkSettlement: (merchantId, destination) => accountHolders.checkSettlement(merchantId, destination),
      messenger,
      recipients: async (merchantId) => [...new Set((await reads.merchantMembers(merchantId)).filter((m) => m.role === 'owner' || m.role === 'admin').map((m) => m.email))],
    }),
  }),
});

export { APPLICATION_STATUSES, activationStream } from './events.js';
export type { ApplicationDetails, ApplicationEvent, ApplicationObject, ApplicationStatus, Decision, DestinationCheck, RequestedField } from './events.js';
export type { ActivationApplications, ApplicationInput } from './commands.js';
export type { ApplicationState } from './decider.js';
export { requirementsOf } from './commands.js';
export { activationErrors } from './errors.js';
