import type { Fact } from '#packages/core/decider.js';
import type { Clock } from '#packages/core/clock.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { newId, newUuid, randomBase62 } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import { isOwned } from '#packages/core/aggregate.js';
import type { CustomerRef, Customers } from '../customer/commands.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { InvoiceIssuing } from '../invoice/commands.js';
import type { InvoiceState } from '../invoice/decider.js';
import type { PriceCatalog } from '#packages/families/read-ports.js';
import { planItems } from '../plans.js';
import type { Products } from '../product/commands.js';
import type { Price } from '../product/events.js';
import { addDays, addInterval, wholeSeconds } from './periods.js';
import { licensedLines, periodInvoice, type SubscriptionCommand, type SubscriptionState } from './decider.js';
import { subscriptionAggregate } from './render.js';
import { subscriptionStream, type PeriodInvoice, type SubscriptionEvent, type SubscriptionItem, type UsageRecord } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** When the mend of an invoice issue left undone by a crash runs. */
const RECONCILE_AFTER_MS = 60_000;
/** An attachment of a product to a subscription that does not exist this long after is left over from a crash. */
export const ATTACHMENT_GRACE_MS = 5 * 60_000;
/** Subscription invoices are due this many days after they are issued, unless told otherwise. */
export const DEFAULT_SUBSCRIPTION_DAYS_UNTIL_DUE = 7;

/** A subscription to create, whichever surface asks. */
export interface NewSubscription {
  customer: CustomerRef;
  items: { price: string; quantity: number }[];
  trialDays?: number;
  daysUntilDue?: number;
  cancelAtPeriodEnd?: boolean;
  metadata?: Record<string, string>;
  billingPlanId?: string;
  /** Billing family: the first period as given (default: now to now + one interval). */
  periodStart?: Date;
  periodEnd?: Date;
}

export interface UsageInput {
  subscriptionId: string;
  meterKey: string;
  quantity: number;
  occurredAt?: Date;
  externalId?: string;
  idempotencyKey?: string;
}

export interface SubscriptionDeps {
  prices: PriceCatalog;
  store: EventStore;
  clock: Clock;
  customers: Customers;
  products: Products;
  invoices: InvoiceIssuing;
  /** Durable timers: the end of a period, the mend of an invoice issue a crash left undone, an invoice's due date. */
  jobs: SubscriptionJobs;
}

/** A subscription as its timers name it. */
export type SubscriptionRef = Owner & { subscriptionId: string };
type Job = SubscriptionRef;

export interface SubscriptionJobs {
  renew: Enqueue<SubscriptionRef & { periodEnd: string }>;
  issueInvoice: Enqueue<SubscriptionRef & { invoiceId: string }>;
  invoiceDue: Enqueue<SubscriptionRef & { invoiceId: string }>;
}

/** Subscriptions: creation from prices, cancelation, usage, and the renewal of periods by scheduler jobs on the injected clock. */
export class Subscriptions extends CommandService<SubscriptionCommand, SubscriptionState, Fact<SubscriptionEvent>> {
  constructor(private readonly deps: SubscriptionDeps) {
    super(deps.store, subscriptionStream, subscriptionAggregate);
  }

  /** The subscription if it is this owner's, else null. */
  async owned(who: Owner, id: string): Promise<SubscriptionState | null> {
    const { state } = await this.load(id);
    return isOwned(state.subscription, who) ? state : null;
  }

  /**
   * Checks the prices (this merchant's, recurring, one currency and interval), records the
   * subscription on each product (so that the product cannot be deleted under it), then creates
   * it and issues the first period's invoice unless it starts with a trial.
   */
  async create(who: Owner, input: NewSubscription, actor: Actor): Promise<SubscriptionState> {
    const id = newId('sub');
    const meta = auditMetadata(this.deps.clock, who, id, actor);
    const customer = await this.deps.customers.resolve(who, input.customer, meta);

    const prices = await this.deps.prices.findPrices(
      who,
      input.items.map((i) => i.price),
    );
    const seen = new Set<string>();
    // Item by item, so that the error names the first item at fault; items after the first must match it.
    let first: Price | undefined;
    // A plan's items are the plan's: their refusals name it.
    const fieldOf = (n: number) => (input.billingPlanId !== undefined ? 'billingPlanId' : `items.${n}.price`);
    for (const [n, item] of input.items.entries()) {
      const field = fieldOf(n);
      const row = prices.get(item.price);
      if (!row) throw new Refusal('IKW-BIL-007', `No such price: '${item.price}'`, field);
      if (seen.has(item.price)) throw new Refusal('IKW-VAL-001', `Price ${item.price} appears twice`, field);
      seen.add(item.price);
      const r = row.price.recurring;
      if (!r) throw new Refusal('IKW-BIL-008', `Price ${item.price} is a one-time price; a subscription needs recurring prices`, field);
      first ??= row.price;
      if (row.price.currency !== first.currency || r.interval !== first.recurring!.interval || r.interval_count !== first.recurring!.interval_count) {
        throw new Refusal('IKW-BIL-008', 'All prices of a subscription must have the same currency and interval', field);
      }
    }
    if (!first) throw new Refusal('IKW-VAL-001', 'A subscription needs at least one item', 'items');
    const recurring = first.recurring!;

    // Record the subscription on its products first: each refuses if it is inactive or archived.
    const byProduct = new Map<string, { id: string; field: string }[]>();
    for (const [n, item] of input.items.entries()) {
      const productId = prices.get(item.price)!.product_id;
      byProduct.set(productId, [...(byProduct.get(productId) ?? []), { id: item.price, field: fieldOf(n) }]);
    }
    const attached: string[] = [];
    // The products' names as they are now: the invoices' lines name what is billed by them.
    const productNames = new Map<string, string>();
    try {
      for (const [productId, productPrices] of byProduct) {
        productNames.set(productId, (await this.deps.products.attach(who, productId, id, productPrices, meta)).name);
        attached.push(productId);
      }
    } catch (err) {
      for (const productId of attached) await this.deps.products.detach(who, productId, id, meta);
      throw err;
    }

    const items: SubscriptionItem[] = input.items.map((item) => {
      const price = prices.get(item.price)!.price;
      const productName = productNames.get(price.product);
      return { id: `si_${randomBase62(24)}`, price: price.id, product: price.product, ...(productName ? { product_name: productName } : {}), quantity: item.quantity, unit_amount: price.unit_amount, usage_type: price.recurring!.usage_type };
    });
    const now = this.deps.clock.now();
    const start = wholeSeconds(input.periodStart ?? now);
    const trialEnd = input.trialDays ? wholeSeconds(addDays(start, input.trialDays)) : null;
    const end = trialEnd ?? wholeSeconds(input.periodEnd ?? addInterval(start, recurring.interval, recurring.interval_count));
    if (end <= start) throw new Refusal('IKW-VAL-001', 'The period must end after it starts', 'currentPeriodEnd');
    const subscription = {
      id,
      merchantId: who.merchantId,
      environment: who.environment,
      customer,
      currency: first.currency,
      interval: recurring.interval,
      intervalCount: recurring.interval_count,
      items,
      billingPlanId: input.billingPlanId ?? null,
      metadata: input.metadata ?? {},
      daysUntilDue: input.daysUntilDue ?? DEFAULT_SUBSCRIPTION_DAYS_UNTIL_DUE,
      cancelAtPeriodEnd: input.cancelAtPeriodEnd ?? false,
      currentPeriodStart: start.toISOString(),
      currentPeriodEnd: end.toISOString(),
      // A first period of one whole interval anchors at its start; a trial or a given end anchors at that end.
      billingCycleAnchor: (trialEnd || input.periodEnd ? end : start).toISOString(),
      intervalsToFirstEnd: trialEnd || input.periodEnd ? 0 : 1,
      trialEnd: trialEnd?.toISOString() ?? null,
      invoice: null as PeriodInvoice | null,
      createdAt: now.toISOString(),
    };
    if (!trialEnd) subscription.invoice = periodInvoice(subscription, newId('in'), now, subscription.currentPeriodStart, subscription.currentPeriodEnd, licensedLines(subscription));

    // Timers first: for a subscription that never got created they do nothing.
    const job: Job = { ...who, subscriptionId: id };
    await this.scheduleRenewal(job, subscription.currentPeriodEnd);
    if (subscription.invoice) await this.scheduleIssue(job, subscription.invoice.id);
    const created = await this.run(id, { type: 'create', subscription }, meta);
    if (subscription.invoice) await this.issue(created.state, subscription.invoice.id, meta);
    return created.state;
  }

  private scheduleRenewal(job: Job, periodEnd: string): Promise<void> {
    return this.deps.jobs.renew({ ...job, periodEnd }, new Date(periodEnd));
  }

  private scheduleIssue(job: Job, invoiceId: string): Promise<void> {
    return this.deps.jobs.issueInvoice({ ...job, invoiceId }, new Date(this.deps.clock.now().getTime() + RECONCILE_AFTER_MS));
  }

  /** Creates a period's invoice (idempotent) and the timer that checks it is paid by its due date. */
  private async issue(state: SubscriptionState, invoiceId: string, meta: EventMetadata): Promise<void> {
    const s = state.subscription!;
    const invoice = state.invoices.get(invoiceId);
    if (!invoice) return;
    const issued = await this.deps.invoices.issueForSubscription(s, invoice, meta);
    if (issued.status === 'open') {
      await this.deps.jobs.invoiceDue({ merchantId: s.merchantId, environment: s.environment, subscriptionId: s.id, invoiceId }, new Date(invoice.dueAt));
    }
  }

  /** The crash mend of an invoice issue: issuing is idempotent, so it is simply done again. */
  async issueJob(job: Job & { invoiceId: string }): Promise<void> {
    const { state } = await this.load(job.subscriptionId);
    if (!state.subscription) return;
    await this.issue(state, job.invoiceId, auditMetadata(this.deps.clock, job, job.subscriptionId, { actor: 'scheduler' }));
  }

  /**
   * The renewal timer of the period ending at `periodEnd`: closes the period and opens the next
   * (or cancels, with cancel_at_period_end), issues the invoice the period produced, and sets the
   * next timer. Every step is idempotent: a job run twice renews once.
   */
  async renewJob(job: Job & { periodEnd: string }): Promise<void> {
    const meta = auditMetadata(this.deps.clock, job, job.subscriptionId, { actor: 'scheduler' });
    const { state: before } = await this.load(job.subscriptionId);
    if (!before.subscription) return;
    await this.settleStale(before, meta);
    const result = await this.run(job.subscriptionId, { type: 'renew', owner: job, at: this.deps.clock.now(), periodEnd: job.periodEnd, invoiceId: newId('in') }, meta, 'internal');
    const state = result.state;
    if (state.latestInvoice) await this.issue(state, state.latestInvoice, meta);
    if (state.status === 'canceled') await this.detachAll(state, meta);
    else await this.scheduleRenewal(job, state.currentPeriodEnd);
  }

  /** Overdue invoices that were settled while a follow-up was lost (a crash) are settled on the subscription now. */
  private async settleStale(state: SubscriptionState, meta: EventMetadata): Promise<void> {
    for (const invoiceId of state.overdue) {
      const { state: invoice } = await this.deps.invoices.load(invoiceId);
      if (invoice.invoice && invoice.status !== 'open') await this.invoiceSettled(invoice, meta);
    }
  }

  /** An invoice's due date passed: unpaid, it makes its subscription past_due. */
  async invoiceDueJob(job: Job & { invoiceId: string }): Promise<void> {
    const { state: invoice } = await this.deps.invoices.load(job.invoiceId);
    if (invoice.status !== 'open') return;
    await this.run(
      job.subscriptionId,
      { type: 'invoice_overdue', owner: job, at: this.deps.clock.now(), invoiceId: job.invoiceId },
      auditMetadata(this.deps.clock, job, job.subscriptionId, { actor: 'scheduler', causationId: job.invoiceId }),
      'internal',
    );
  }

  /** A subscription invoice was paid, voided or marked uncollectible. */
  async invoiceSettled(invoice: InvoiceState, meta?: EventMetadata): Promise<void> {
    const i = invoice.invoice!;
    if (!i.subscription) return;
    const who = { merchantId: i.merchantId, environment: i.environment };
    await this.run(i.subscription, { type: 'invoice_settled', owner: who, at: this.deps.clock.now(), invoiceId: i.id }, meta ?? auditMetadata(this.deps.clock, who, i.subscription, { actor: 'billing', causationId: i.id }), 'internal');
  }

  /** Cancels now (usage not yet invoiced goes on a last invoice) or at the end of the period. */
  async cancel(who: Owner, id: string, atPeriodEnd: boolean, actor: Actor): Promise<SubscriptionState> {
    const meta = auditMetadata(this.deps.clock, who, id, actor);
    const result = await this.run(id, { type: 'cancel', owner: who, at: this.deps.clock.now(), atPeriodEnd, invoiceId: newId('in') }, meta);
    const state = result.state;
    if (state.status === 'canceled') {
      const last = result.events.find((e) => e.type === 'subscription.canceled');
      if (last?.type === 'subscription.canceled' && last.data.invoice) await this.issue(state, last.data.invoice.id, meta);
      await this.detachAll(state, meta);
    }
    return state;
  }

  /** Withdraws a cancel at period end: the subscription renews again. */
  async resume(who: Owner, id: string, actor: Actor): Promise<SubscriptionState> {
    return (await this.run(id, { type: 'resume', owner: who, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, who, id, actor))).state;
  }

  private async detachAll(state: SubscriptionState, meta: EventMetadata): Promise<void> {
    const s = state.subscription!;
    const who = { merchantId: s.merchantId, environment: s.environment };
    for (const productId of new Set(s.items.map((i) => i.product))) await this.deps.products.detach(who, productId, s.id, meta);
  }

  /** For product delete: an attachment is stale when its subscription is canceled, or was never created (after a grace period). */
  async isStaleAttachment(subscriptionId: string, attachedAt: string): Promise<boolean> {
    const { state } = await this.load(subscriptionId);
    if (state.subscription) return state.status === 'canceled';
    return this.deps.clock.now().getTime() - new Date(attachedAt).getTime() > ATTACHMENT_GRACE_MS;
  }

  /**
   * POST /api/v1/billing/usage/records: metered usage on the subscription's stream, so that the
   * renewal that closes the period takes exactly the usage recorded before it. Idempotent on
   * idempotencyKey and on externalId: a repeat answers with the record first stored.
   */
  async recordUsage(who: Owner, input: UsageInput, actor: Actor): Promise<{ record: UsageRecord; replayed: boolean }> {
    const now = this.deps.clock.now();
    const record: UsageRecord = {
      id: newUuid(),
      subscriptionId: input.subscriptionId,
      meterKey: input.meterKey,
      quantity: input.quantity,
      occurredAt: (input.occurredAt ?? now).toISOString(),
      externalId: input.externalId ?? null,
      idempotencyKey: input.idempotencyKey ?? null,
      createdAt: now.toISOString(),
    };
    try {
      const result = await this.run(input.subscriptionId, { type: 'record_usage', owner: who, at: now, record }, auditMetadata(this.deps.clock, who, input.subscriptionId, actor), 'contended');
      if (result.events.length > 0) return { record, replayed: false };
      const s = result.state;
      const first = (record.idempotencyKey && s.usageKeys.get(`idem:${record.idempotencyKey}`)) || (record.externalId && s.usageKeys.get(`ext:${record.externalId}`));
      return { record: first || record, replayed: true };
    } catch (err) {
      throw isRefused(err, 'IKW-RES-001') ? new Refusal('IKW-RES-001', `No such subscription: '${input.subscriptionId}'`, 'subscriptionId') : err;
    }
  }

  /** POST /api/v1/billing/subscriptions: a subscription to a billing plan (packages/families/billing/plans.ts). */
  async subscribeToPlan(who: Owner, planId: string, input: Omit<NewSubscription, 'items' | 'billingPlanId'>, actor: Actor): Promise<SubscriptionState> {
    const plan = (await this.deps.prices.findPrices(who, [planId])).get(planId);
    const product = plan && (await this.deps.products.load(plan.product_id)).state;
    const items = planItems(planId, plan?.price, product?.product ? product.prices : undefined);
    return this.create(who, { ...input, items, billingPlanId: planId }, actor);
  }
}
