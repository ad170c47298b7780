import { inFrozenOrder } from '#packages/core/frozen-order.js';
import { FAMILIES } from './index.js';
import type { ReadSide } from '#packages/read-models/read-side.js';
import { objectEventsProjection } from '#packages/read-models/object-events.js';
import type { Projection } from '#packages/read-models/projection.js';

/**
 * The read models that existed when the registry began to be assembled from the families' read
 * sides, in the order they were then listed. That order is part of the stored state: migrations run
 * in ALL_PROJECTIONS order (infra/migrations.ts) and inline projections apply in it within each
 * commit, so it is frozen here rather than derived from the order of the families. A read model
 * added later comes after these, in the order of the family list (packages/families/index.ts).
 */
const ORDER_AT_ASSEMBLY = [
  'merchants',
  'api_keys',
  'balances',
  'balance_transactions',
  'customers',
  'payment_intents',
  'object_events',
  'operations',
  'payout_settings',
  'customer_portal_settings',
  'payout_methods',
  'payouts',
  'webhook_endpoints',
  'payout_recipients',
  'payout_batches',
  'payout_batch_items',
  'payout_batch_logs',
  'payment_capabilities',
  'country_activations',
  'admin_keys',
  'feature_flags',
  'products',
  'subscriptions',
  'invoices',
  'refunds',
  'usage_records',
  'users',
  'user_sessions',
  'user_passkeys',
  'user_security_events',
  'organizations',
  'organization_invitations',
  'payment_links',
  'checkout_sessions',
  'customer_portal_sessions',
  'ledger_entries',
  'marketplace_commission_rules',
  'marketplace_sellers',
  'marketplace_orders',
  'marketplace_refunds',
  'marketplace_funds',
  'marketplace_payouts',
  'assets',
  'intelligence_payments',
  'intelligence_decisions',
  'escrow_contracts',
  'escrow_releases',
  'escrow_disputes',
  'funding_campaigns',
  'templates',
  'automations',
  // Added before the families' manifests declared their read sides, in the order the read-model list then gave them.
  'reconciliation-runs',
  'rail_refunds',
  'payment-rail-attempts',
  'payout-rail-attempts',
  'operators',
  'operator_sessions',
  'merchant_limits',
  'risk_assessments',
  'activation_applications',
  'disputes',
  'statements',
] as const;

/** Every family's read side, as its manifest declares it (`readSide`). */
const READ_SIDES: readonly ReadSide[] = FAMILIES.flatMap((family) => (family.readSide ? [family.readSide] : []));

/** Every read model the service keeps, in the order they are migrated. */
export const ALL_PROJECTIONS: readonly Projection[] = inFrozenOrder(
  [...READ_SIDES.flatMap((side) => side.readModels), objectEventsProjection(READ_SIDES.flatMap((side) => side.histories ?? []))],
  ORDER_AT_ASSEMBLY,
  (projection) => projection.name,
  'read models',
);

/** Applied in each append's transaction by the Postgres store: a client reads what it wrote. */
export const INLINE_PROJECTIONS = ALL_PROJECTIONS.filter((p) => !p.followsLog);
/** Applied by a consumer that follows the log (with the Postgres store; with EventStoreDB every projection does). */
export const FOLLOWING_PROJECTIONS = ALL_PROJECTIONS.filter((p) => p.followsLog);
