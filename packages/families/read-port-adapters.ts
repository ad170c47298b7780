import type { Knex } from 'knex';
import { EvictedByEvents } from '#packages/eventstore/evicted-cache.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { ReadPorts } from './read-ports.js';
import { listMembersOfMerchant, listMemberships, liveSessionRole, organizationOfMerchant } from '#packages/families/accounts/read/index.js';
import { findCustomer, findPrices } from '#packages/families/billing/read/index.js';
import { liveStateOf } from '#packages/families/merchants/read/index.js';
import { activationErrors } from '#packages/families/activation/index.js';
import { findPaymentIntent } from '#packages/families/payments/read/index.js';
import { readPayoutSettings } from '#packages/families/payouts/read/index.js';
import { activationRule, governingCapability } from '#packages/families/platform/read/index.js';
import { limitsOf } from '#packages/families/risk/read/index.js';
import type { PayoutSettings } from '#packages/families/merchants/index.js';
import type { Environment } from '#packages/core/owner.js';

/** The domain's read ports (packages/families/read-ports.ts) over the read models. */
export function readPorts(knex: Knex): ReadPorts {
  return {
    findCustomer: (owner, id) => findCustomer(knex, owner, id),
    findPrices: (owner, ids) => findPrices(knex, owner, ids),
    findPaymentIntent: (owner, id) => findPaymentIntent(knex, owner, id),
    memberships: async (userId) => (await listMemberships(knex, userId)).map((m) => ({ organizationId: m.id, role: m.role, merchantIds: m.merchant_ids, requireMfa: m.require_mfa })),
    sessionRole: (sessionId, organizationId, at) => liveSessionRole(knex, sessionId, organizationId, at),
    organizationOfMerchant: (merchantId) => organizationOfMerchant(knex, merchantId),
    merchantMembers: async (merchantId) => (await listMembersOfMerchant(knex, merchantId)).map((m) => ({ userId: m.user_id, email: m.email, role: m.role })),
    activationRule: (owner, countryCode, currencyIso) => activationRule(knex, owner, countryCode, currencyIso),
    liveState: (merchantId) => liveStateOf(knex, merchantId),
    liveRefusalWords: { 'IKW-ACT-005': activationErrors['IKW-ACT-005'].message, 'IKW-ACT-006': activationErrors['IKW-ACT-006'].message },
    capabilityRefusal: async (owner, method) => {
      const capability = await governingCapability(knex, owner, method);
      if (!capability) return null;
      if (capability.status === 'suspended') return { status: 'suspended', reason: capability.suspension_reason ?? '' };
      return capability.is_enabled ? null : { status: 'disabled' };
    },
    limitsOf: (owner) => limitsOf(knex, owner.merchantId, owner.environment),
  };
}

const GATE_EVENTS = ['payment_capability.', 'country_activation.', 'merchant.live_', 'merchant_limits.'];
type Refusal = Awaited<ReturnType<ReadPorts['capabilityRefusal']>>;
type ActivationRule = NonNullable<Awaited<ReturnType<ReadPorts['activationRule']>>>;
type Limits = Awaited<ReturnType<ReadPorts['limitsOf']>>;
type LiveState = Awaited<ReturnType<ReadPorts['liveState']>>;

/**
 * The gates every payment and payout checks (activation rules, live activation, capability
 * refusals, the risk operators' limits), remembered per process (docs/performance.md). They change
 * rarely, so any capability, activation or limits event evicts them all.
 */
export function rememberedGates(reads: ReadPorts, store: EventStore): { reads: ReadPorts; cache: EvictedByEvents<ActivationRule | Refusal | Limits | LiveState | null> } {
  const cache = new EvictedByEvents<ActivationRule | Refusal | Limits | LiveState | null>(store, (e) => (GATE_EVENTS.some((prefix) => e.type.startsWith(prefix)) ? ['gates'] : []));
  const all = () => 'gates';
  return {
    cache,
    reads: {
      ...reads,
      activationRule: async (owner, countryCode, currencyIso) =>
        (await cache.get(`activation|${owner.merchantId}|${owner.environment}|${countryCode}|${currencyIso}`, () => reads.activationRule(owner, countryCode, currencyIso), all)) as ActivationRule | null,
      liveState: async (merchantId) => (await cache.get(`live|${merchantId}`, () => reads.liveState(merchantId), all)) as LiveState,
      capabilityRefusal: async (owner, method) => (await cache.get(`capability|${owner.merchantId}|${owner.environment}|${JSON.stringify(method)}`, () => reads.capabilityRefusal(owner, method), all)) as Refusal,
      limitsOf: async (owner) => (await cache.get(`limits|${owner.merchantId}|${owner.environment}`, () => reads.limitsOf(owner), all)) as Limits,
    },
  };
}

/**
 * The merchant's payout settings as hot paths read them: the default return URL of every confirm
 * without one, whether API keys may pay inline destinations on every payout. Remembered per
 * merchant and environment, evicted by that merchant's settings events (another process's within
 * a second, as the gates are).
 */
export function rememberedPayoutSettings(knex: Knex, store: EventStore): { payoutSettings(merchantId: string, environment: Environment): Promise<PayoutSettings>; cache: EvictedByEvents<PayoutSettings> } {
  const cache = new EvictedByEvents<PayoutSettings>(store, (e) => {
    if (e.type !== 'merchant.payout_settings_updated') return [];
    const { merchantId, environment } = e.data as { merchantId: string; environment: Environment };
    return [`${merchantId}|${environment}`];
  });
  return {
    cache,
    payoutSettings: (merchantId, environment) =>
      cache.get(
        `${merchantId}|${environment}`,
        async () => (await readPayoutSettings(knex, merchantId, environment)).settings,
        () => `${merchantId}|${environment}`,
      ),
  };
}
