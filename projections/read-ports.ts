import type { Knex } from 'knex';
import type { ReadPorts } from '../packages/domain/read-ports.js';
import { findCustomer } from './customers.js';
import { listMemberships, organizationOfMerchant } from './organizations.js';
import { liveSessionRole } from './user-sessions.js';
import { findPaymentIntent } from './payment-intents.js';
import { findPrices } from './products.js';

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
  };
}
