import type { Knex } from 'knex';
import type { EscrowDirectory, ReadPorts } from '../packages/domain/read-ports.js';
import { findCustomer } from './customers.js';
import { listMemberships, organizationOfMerchant } from './organizations.js';
import { liveSessionRole } from './user-sessions.js';
import { findPaymentIntent } from './payment-intents.js';
import { activationRule } from './country-activations.js';
import { governingCapability } from './payment-capabilities.js';
import { findPrices } from './products.js';
import { escrowContractFundedBy } from './escrow-contracts.js';
import { contractOfDispute } from './escrow-disputes.js';
import { contractOfRelease } from './escrow-releases.js';

/** The domain's read ports (packages/domain/read-ports.ts) over the read models. */
export function readPorts(knex: Knex): ReadPorts {
  return {
    findCustomer: (owner, id) => findCustomer(knex, owner, id),
    findPrices: (owner, ids) => findPrices(knex, owner, ids),
    findPaymentIntent: (owner, id) => findPaymentIntent(knex, owner, id),
    memberships: async (userId) =>
      (await listMemberships(knex, userId)).map((m) => ({ organizationId: m.id, role: m.role, merchantIds: m.merchant_ids, requireMfa: m.require_mfa })),
    sessionRole: (sessionId, organizationId, at) => liveSessionRole(knex, sessionId, organizationId, at),
    organizationOfMerchant: (merchantId) => organizationOfMerchant(knex, merchantId),
    activationRule: (owner, countryCode, currencyIso) => activationRule(knex, owner, countryCode, currencyIso),
    capabilityRefusal: async (owner, method) => {
      const capability = await governingCapability(knex, owner, method);
      if (!capability) return null;
      if (capability.status === 'suspended') return { status: 'suspended', reason: capability.suspension_reason ?? '' };
      return capability.is_enabled ? null : { status: 'disabled' };
    },
  };
}

/** The escrow family's read port (packages/domain/read-ports.ts) over its read models. */
export function escrowDirectory(knex: Knex): EscrowDirectory {
  return {
    contractOfRelease: (owner, id) => contractOfRelease(knex, owner, id),
    contractOfDispute: (owner, id) => contractOfDispute(knex, owner, id),
    escrowContractFundedBy: (owner, id) => escrowContractFundedBy(knex, owner, id),
  };
}
