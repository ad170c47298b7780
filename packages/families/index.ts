/**
 * The family list (docs/architecture.md, "Families"), in dependency order: each family comes after
 * the families it needs, its manifest paired with its routers. services/system.ts builds them in
 * this order and registers the job kinds and bus consumers they declare; the read models are
 * assembled from their read sides (read-model-registry.ts) and the server mounts their routers
 * (services/api/app.ts). A new family is one entry here.
 */
import type { ConsumerSpec } from '../bus/consumer.js';
import { assembleErrorCodes, KERNEL_ERROR_CODES, type ErrorCode, type ErrorSpec } from '../core/errors.js';
import { assembleChart } from '../ledger/chart.js';
import type { OwnedLedgerPart } from '../ledger/decider.js';
import type { PublicEvents } from '../core/public-events.js';
import { PublicEventCatalogue } from '../core/public-events.js';
import { outboxPurge } from '../processes/outbox-purge.js';
import type { Process } from '../processes/process.js';
import { accounts } from './accounts/index.js';
import { activation } from './activation/index.js';
import { assets } from './assets/index.js';
import { automations } from './automations/index.js';
import { billing } from './billing/index.js';
import { checkout } from './checkout/index.js';
import { customerPortal } from './customer-portal/index.js';
import { disputes } from './disputes/index.js';
import { escrow } from './escrow/index.js';
import { inFrozenOrder } from '../core/frozen-order.js';
import { buildFamilies, withRouters, type ApisOf, type BuiltFamilies } from './family.js';
import { accountsRouters } from './accounts/http/routers.js';
import { activationRouters } from './activation/http/routers.js';
import { assetsRouters } from './assets/http/routers.js';
import { automationsRouters } from './automations/http/routers.js';
import { billingRouters } from './billing/http/routers.js';
import { checkoutRouters } from './checkout/http/routers.js';
import { customerPortalRouters } from './customer-portal/http/routers.js';
import { disputesRouters } from './disputes/http/routers.js';
import { escrowRouters } from './escrow/http/routers.js';
import { fundingRouters } from './funding/http/routers.js';
import { intelligenceRouters } from './intelligence/http/routers.js';
import { ledgerRouters } from './ledger/http/routers.js';
import { marketplaceRouters } from './marketplace/http/routers.js';
import { merchantsRouters } from './merchants/http/routers.js';
import { operatorsRouters } from './operators/http/routers.js';
import { paymentsRouters } from './payments/http/routers.js';
import { payoutEngineRouters } from './payout-engine/http/routers.js';
import { payoutsRouters } from './payouts/http/routers.js';
import { platformRouters } from './platform/http/routers.js';
import { riskRouters } from './risk/http/routers.js';
import { statementsRouters } from './statements/http/routers.js';
import { supportRouters } from './support/http/routers.js';
import { templatesRouters } from './templates/http/routers.js';
import { webhooksRouters } from './webhooks/http/routers.js';

import { funding } from './funding/index.js';
import { intelligence } from './intelligence/index.js';
import type { Kernel } from './kernel.js';
import { ledger } from './ledger/index.js';
import { marketplace } from './marketplace/index.js';
import { merchants } from './merchants/index.js';
import { payments } from './payments/index.js';
import { payoutEngine } from './payout-engine/index.js';
import { operators } from './operators/index.js';
import { payouts } from './payouts/index.js';
import { platform } from './platform/index.js';
import { risk } from './risk/index.js';
import { statements } from './statements/index.js';
import { support } from './support/index.js';
import { templates } from './templates/index.js';
import { webhooks } from './webhooks/index.js';

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
export type { Marketplace } from './marketplace/index.js';
// The rails' callback and status-check sinks (services/rails.ts, through services/system.ts) and the messenger's purge enqueue these.
export { outboxPurge } from '../processes/outbox-purge.js';
export { payinCallback } from './payments/processes/payin-callback.js';
export { payinStatusCheck, refundStatusCheck } from './payments/processes/status-check.js';
export { refundCallback } from './payments/processes/refund-callback.js';
export { payoutCallback } from './payouts/processes/payout-callback.js';
export { payoutStatusCheck } from './payouts/processes/status-check.js';
export { disputeRead } from './disputes/index.js';
