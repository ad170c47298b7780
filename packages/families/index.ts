/**
 * The family list (docs/architecture.md, "Families"), in dependency order: each family comes after
 * the families it needs, its manifest paired with its routers. services/system.ts builds them in
 * this order and registers the job kinds and bus consumers they declare; the read models are
 * assembled from their read sides (read-model-registry.ts) and the server mounts their routers
 * (services/api/app.ts). A new family is one entry here.
 */
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import { assembleErrorCodes, KERNEL_ERROR_CODES, type ErrorCode, type ErrorSpec } from '#packages/core/errors.js';
import { assembleChart } from '#packages/ledger/chart.js';
import type { OwnedLedgerPart } from '#packages/ledger/decider.js';
import type { PublicEvents } from '#packages/core/public-events.js';
import { PublicEventCatalogue } from '#packages/core/public-events.js';
import { outboxPurge } from '#packages/processes/outbox-purge.js';
import type { Process } from '#packages/processes/process.js';
import { accounts } from '#packages/families/accounts/index.js';
import { activation } from '#packages/families/activation/index.js';
import { assets } from '#packages/families/assets/index.js';
import { automations } from '#packages/families/automations/index.js';
import { billing } from '#packages/families/billing/index.js';
import { checkout } from '#packages/families/checkout/index.js';
import { customerPortal } from '#packages/families/customer-portal/index.js';
import { disputes } from '#packages/families/disputes/index.js';
import { escrow } from '#packages/families/escrow/index.js';
import { inFrozenOrder } from '#packages/core/frozen-order.js';
import { buildFamilies, withRouters, type ApisOf, type BuiltFamilies } from './family.js';
import { accountsRouters } from '#packages/families/accounts/http/routers.js';
import { activationRouters } from '#packages/families/activation/http/routers.js';
import { assetsRouters } from '#packages/families/assets/http/routers.js';
import { automationsRouters } from '#packages/families/automations/http/routers.js';
import { billingRouters } from '#packages/families/billing/http/routers.js';
import { checkoutRouters } from '#packages/families/checkout/http/routers.js';
import { customerPortalRouters } from '#packages/families/customer-portal/http/routers.js';
import { disputesRouters } from '#packages/families/disputes/http/routers.js';
import { escrowRouters } from '#packages/families/escrow/http/routers.js';
import { fundingRouters } from '#packages/families/funding/http/routers.js';
import { intelligenceRouters } from '#packages/families/intelligence/http/routers.js';
import { ledgerRouters } from '#packages/families/ledger/http/routers.js';
import { marketplaceRouters } from '#packages/families/marketplace/http/routers.js';
import { merchantsRouters } from '#packages/families/merchants/http/routers.js';
import { operatorsRouters } from '#packages/families/operators/http/routers.js';
import { paymentsRouters } from '#packages/families/payments/http/routers.js';
import { payoutEngineRouters } from '#packages/families/payout-engine/http/routers.js';
import { payoutsRouters } from '#packages/families/payouts/http/routers.js';
import { platformRouters } from '#packages/families/platform/http/routers.js';
import { riskRouters } from '#packages/families/risk/http/routers.js';
import { statementsRouters } from '#packages/families/statements/http/routers.js';
import { supportRouters } from '#packages/families/support/http/routers.js';
import { templatesRouters } from '#packages/families/templates/http/routers.js';
import { webhooksRouters } from '#packages/families/webhooks/http/routers.js';

import { funding } from '#packages/families/funding/index.js';
import { intelligence } from '#packages/families/intelligence/index.js';
import type { Kernel } from './kernel.js';
import { ledger } from '#packages/families/ledger/index.js';
import { marketplace } from '#packages/families/marketplace/index.js';
import { merchants } from '#packages/families/merchants/index.js';
import { payments } from '#packages/families/payments/index.js';
import { payoutEngine } from '#packages/families/payout-engine/index.js';
import { operators } from '#packages/families/operators/index.js';
import { payouts } from '#packages/families/payouts/index.js';
import { platform } from '#packages/families/platform/index.js';
import { risk } from '#packages/families/risk/index.js';
import { statements } from '#packages/families/statements/index.js';
import { support } from '#packages/families/support/index.js';
import { templates } from '#packages/families/templates/index.js';
import { webhooks } from '#packages/families/webhooks/index.js';

// Funding, marketplace, escrow: the order their payment recipients have always been asked in.
export const FAMILIES = [
  withRouters(platform, platformRouters),
  withRouters(risk, riskRouters),
  withRouters(accounts, accountsRouters),
  withRouters(merchants, merchantsRouters),
  withRouters(ledger, ledgerRouters),
  withRouters(payments, paymentsRouters),
  withRouters(checkout, checkoutRouters),
  withRouters(payouts, payoutsRouters),
  withRouters(payoutEngine, payoutEngineRouters),
  withRouters(funding, fundingRouters),
  withRouters(marketplace, marketplaceRouters),
  withRouters(escrow, escrowRouters),
  withRouters(billing, billingRouters),
  withRouters(customerPortal, customerPortalRouters),
  withRouters(webhooks, webhooksRouters),
  withRouters(assets, assetsRouters),
  withRouters(support, supportRouters),
  withRouters(templates, templatesRouters),
  withRouters(automations, automationsRouters),
  withRouters(intelligence, intelligenceRouters),
  withRouters(operators, operatorsRouters),
  withRouters(activation, activationRouters),
  withRouters(disputes, disputesRouters),
  withRouters(statements, statementsRouters),
] as const;

/** Every family's services, merged: what routes, processes and tests call (svc.payouts, svc.marketplace.orders, …). */
export type FamilyApis = ApisOf<typeof FAMILIES>;

/** The kernel's own job kinds: the outbox's purge (packages/messaging). */
export const KERNEL_PROCESSES: readonly Process<never>[] = [outboxPurge];

/**
 * The job kinds and consumers in the order they were registered before the families declared
 * them (test/snapshots/registries.json); kinds and consumers added since follow in list order.
 */
const JOB_KIND_ORDER = [
  'payin.callback',
  'payout.callback',
  'payout.overdue',
  'payout.reconcile',
  'payout_batch.run',
  'payout_batch.item_settled',
  'ledger.settle',
  'webhook.deliver',
  'invoice.payment_intent_succeeded',
  'invoice.wallet_application',
  'subscription.renew',
  'subscription.issue_invoice',
  'subscription.invoice_due',
  'refund.reconcile',
  'support_ticket.forward',
  'asset.purge',
  'escrow.funding_received',
  'escrow.auto_release',
  'funding.payment_outcome',
  'funding.deadline',
  'funding.payout_mend',
  'automation.step',
  'automation.tick',
  'outbox.purge',
];
const CONSUMER_ORDER = ['webhook-dispatcher', 'billing-payments', 'payout-batch-items', 'support-tickets', 'asset-purge', 'escrow-funding', 'funding-payments', 'automations'];

/** Every saga and timer of the service: the scheduler runs exactly these job kinds. */
export const PROCESSES: readonly Process<never>[] = inFrozenOrder([...FAMILIES.flatMap((family) => family.processes ?? []), ...KERNEL_PROCESSES], JOB_KIND_ORDER, (process) => process.job.name, 'job kinds');

/** The objects of the public events in the catalogue's order (docs/events.md) before the families declared them. */
const PUBLIC_EVENT_ORDER = ['payment_intent', 'payout', 'payout_batch', 'customer', 'product', 'subscription', 'invoice', 'refund', 'marketplace_order', 'escrow_contract', 'funding_campaign'];
/** The object a family's public-events module is about: its types' prefix (`payout.paid`: `payout`). */
const objectOf = (events: PublicEvents) => events.types[0]!.type.split('.')[0]!;

/** Every family's public events: the types merchants subscribe to and the test events' examples (the kernel's publicEvents). */
export const PUBLIC_EVENTS = new PublicEventCatalogue(
  inFrozenOrder(
    FAMILIES.flatMap((family) => family.publicEvents ?? []),
    PUBLIC_EVENT_ORDER,
    objectOf,
    'public events',
  ),
);

/** The groups of codes (their prefixes) in the order docs/errors.md listed them before the families declared them; new groups follow in list order. */
const ERROR_GROUP_ORDER = ['AUT', 'REQ', 'VAL', 'RTE', 'LIM', 'RES', 'IDM', 'PAY', 'PEN', 'CAP', 'CFG', 'WHK', 'BIL', 'CHK', 'CPT', 'BAL', 'ACC', 'FED', 'MKT', 'ESC', 'FND', 'PRV', 'AST', 'ITL', 'SVC', 'INT', 'TPL', 'ATM'];

/**
 * The error catalogue (docs/errors.md): the kernel's codes and every family's `errors`. A value,
 * not a registry: the system hands it to the HTTP edge (`AppDeps.errors`), which answers each
 * refusal with its status and retryability; docs/errors.md, the OpenAPI document and the registry
 * snapshot list it.
 */
export const ERROR_CODES = assembleErrorCodes([{ owner: 'the kernel', codes: KERNEL_ERROR_CODES }, ...FAMILIES.flatMap((family) => (family.errors ? [{ owner: family.name, codes: family.errors }] : []))], ERROR_GROUP_ORDER) as Readonly<
  Record<ErrorCode, ErrorSpec>
>;

/** The chart of accounts (docs/ledger.md): every family's `accounts`. With `LEDGER_PARTS`, what services/system.ts makes the kernel's `ledger` of. */
export const CHART = assembleChart(FAMILIES.flatMap((family) => (family.accounts ? [{ owner: family.name, accounts: family.accounts }] : [])));

/** The families' kinds of hold and reducers: the ledger folds and completes what they register (docs/ledger.md, "Recipes"). */
export const LEDGER_PARTS: readonly OwnedLedgerPart[] = FAMILIES.flatMap((family) => (family.ledger ? [{ owner: family.name, part: family.ledger }] : []));

/** Builds every family on the kernel; its bus consumers in their registered order. */
export function openFamilies(kernel: Kernel): BuiltFamilies<FamilyApis> {
  const built = buildFamilies(kernel, FAMILIES);
  return { ...built, consumers: inFrozenOrder<ConsumerSpec>(built.consumers, CONSUMER_ORDER, (consumer) => consumer.name, 'bus consumers') };
}

export type { Kernel } from './kernel.js';
export type { Marketplace } from '#packages/families/marketplace/index.js';
// The rails' callback and status-check sinks (services/rails.ts, through services/system.ts) and the messenger's purge enqueue these.
export { outboxPurge } from '#packages/processes/outbox-purge.js';
export { payinCallback } from '#packages/families/payments/processes/payin-callback.js';
export { payinStatusCheck, refundStatusCheck } from '#packages/families/payments/processes/status-check.js';
export { refundCallback } from '#packages/families/payments/processes/refund-callback.js';
export { payoutCallback } from '#packages/families/payouts/processes/payout-callback.js';
export { payoutStatusCheck } from '#packages/families/payouts/processes/status-check.js';
export { disputeRead } from '#packages/families/disputes/index.js';
