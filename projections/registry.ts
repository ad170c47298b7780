import { READ_SIDES } from './index.js';
import { objectEventsProjection } from './object-events.js';
import type { Projection } from './projection.js';

/**
 * The read models that existed when the registry began to be assembled from the families' read
 * sides, in the order they were then listed. That order is part of the stored state: migrations run
 * in ALL_PROJECTIONS order (infra/migrations.ts) and inline projections apply in it within each
 * commit, so it is frozen here rather than derived from the order of the families. A read model
 * added later is appended after these, in the order of the read-model list (projections/index.ts);
 * none of these may be dropped (its migrations have run).
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
] as const;

/** The families' read models and the one history of every object a family keeps (read.object_events), in the frozen order. */
function assemble(): Projection[] {
  const declared = [...READ_SIDES.flatMap((side) => side.readModels), objectEventsProjection(READ_SIDES.flatMap((side) => side.histories ?? []))];
  const byName = new Map<string, Projection>();
  for (const projection of declared) {
    if (byName.has(projection.name)) throw new Error(`Two read models are named ${projection.name}`);
    byName.set(projection.name, projection);
  }
  const frozen = new Set<string>(ORDER_AT_ASSEMBLY);
  const missing = ORDER_AT_ASSEMBLY.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new Error(`Read models no family declares: ${missing.join(', ')}`);
  return [...ORDER_AT_ASSEMBLY.map((name) => byName.get(name)!), ...declared.filter((p) => !frozen.has(p.name))];
}

/** Every read model the service keeps, in the order they are migrated. */
export const ALL_PROJECTIONS: readonly Projection[] = assemble();

/** Applied in each append's transaction by the Postgres store: a client reads what it wrote. */
export const INLINE_PROJECTIONS = ALL_PROJECTIONS.filter((p) => !p.followsLog);
/** Applied by a consumer that follows the log (with the Postgres store; with EventStoreDB every projection does). */
export const FOLLOWING_PROJECTIONS = ALL_PROJECTIONS.filter((p) => p.followsLog);
