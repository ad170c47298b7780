import { hasScope } from '#packages/core/scopes.js';

/**
 * Which read scope shows each family of public events (docs/accounts.md, "Events and scopes"): the
 * scope of the routes that answer the family's object, so a credential learns through events and
 * webhooks only what it could read through the API. A family is the part of a type before its
 * first dot (`payout_batch` of `payout_batch.completed`).
 */
const READ_SCOPE_OF_FAMILY: Readonly<Record<string, string>> = {
  payment_intent: 'payment_intents.read',
  payout: 'payouts.read',
  payout_batch: 'payouts.read',
  customer: 'billing.read',
  product: 'billing.read',
  subscription: 'billing.read',
  invoice: 'billing.read',
  refund: 'billing.read',
  marketplace_order: 'marketplace.read',
  escrow_contract: 'escrow.read',
  funding_campaign: 'funding.read',
  dispute: 'payment_intents.read',
  statement: 'statements.read',
};

/**
 * The scope needed to read events of `type` (or of a family filter such as `payout.*`);
 * undefined for a family that is not public (`*` included: it names no one family).
 */
export function readScopeOfEventType(type: string): string | undefined {
  const family = type.split('.', 1)[0];
  return Object.hasOwn(READ_SCOPE_OF_FAMILY, family) ? READ_SCOPE_OF_FAMILY[family] : undefined;
}

/** Whether a credential holding `scopes` may read events of `type`: never for a type of no public family. */
export function canReadEventType(scopes: readonly string[], type: string): boolean {
  const scope = readScopeOfEventType(type);
  return scope !== undefined && hasScope(scopes, scope);
}
