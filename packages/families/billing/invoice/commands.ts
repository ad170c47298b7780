import type { Fact } from '#packages/core/decider.js';
import { getCurrency } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { newId } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import { assertOwned, isOwned } from '#packages/core/aggregate.js';
import type { CustomerRef, Customers } from '../customer/commands.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { PaymentIntents } from '#packages/families/payments/index.js';
import type { CustomerDirectory, PaymentIntentReader, PriceCatalog } from '#packages/families/read-ports.js';
import { assertLiveCanTakeMoney, type ActivationGate } from '#packages/families/platform/index.js';
import type { CheckoutSessionObject } from '#packages/families/checkout/index.js';
import type { MessageOutcome } from '#packages/messaging/messages.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import type { PeriodInvoice, SubscriptionCreated } from '../subscription/events.js';
import { amountRemaining, PAYABLE, type InvoiceCommand, type InvoiceState } from './decider.js';
import { invoiceAggregate, toInvoiceObject } from './render.js';
import { invoiceStream, type InvoiceEvent, type InvoiceLine, type InvoiceObject, type InvoiceStatus } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** The metadata key that points a payment intent at the invoice it pays (visible to the merchant, like Stripe's `invoice`). */
export const INVOICE_METADATA_KEY = 'invoice_id';
const DAY_MS = 86_400_000;
/** Invoices created without a due date are due this many days after creation. */
export const DEFAULT_DAYS_UNTIL_DUE = 30;

/** An invoice to create, whichever surface asks. */
export interface NewInvoice {
  /** Names the invoice when the caller must create it once whatever happens (an automation step retried after a crash). */
  id?: string;
  customer: CustomerRef;
  currency?: string;
  /** Lines: a price × quantity, or free text (a description and its unit amount × quantity, in the invoice's currency). */
  items?: ({ price: string; quantity: number } | { description: string; unitAmount: number; quantity: number })[];
  amountDue?: number;
  description?: string | null;
  metadata?: Record<string, string>;
  dueAt?: Date;
  daysUntilDue?: number;
  subscriptionId?: string;
  periodStart?: Date;
  periodEnd?: Date;
  /** Merchant invoices start as drafts; billing-family invoices are finalized (open) at once. */
  finalize: boolean;
}

export interface PayInput {
  transactionCountry?: string;
  payerCountry?: string;
  railCountry?: string;
  description?: string;
  metadata?: Record<string, string>;
  idempotencyKey?: string;
}

/** A payment of an invoice from the customer's wallet, as its mend names it. */
export type WalletApplicationRef = Owner & { customerId: string; applicationId: string; invoiceId: string };

/** The checkout session an invoice's hosted page pays through (the checkout family's, as payment links use it). */
export interface InvoiceCheckout {
  openForPayee(
    who: Owner,
    payee: { metadataKey: string; id: string; scope?: string },
    fixed: {
      amount: number;
      currency: string;
      country: string;
      description: string | null;
      paymentMethodTypes: ('mobile_money' | 'card')[];
      successUrl: string;
      cancelUrl: string;
      customerEmail: string | null;
      metadata: Record<string, string>;
    },
    actor: Actor,
  ): Promise<CheckoutSessionObject>;
}

/** What the invoice's customer is told by e-mail: the invoice sent, and its receipt once a payment paid it. */
export interface InvoiceMessages {
  sent(state: InvoiceState, language: PayerLanguage): Promise<MessageOutcome>;
  /** A reminder `offsetDays` from the due date (negative: before it), in the language the invoice was last sent in (else English); null without an e-mail address. */
  reminder(state: InvoiceState, offsetDays: number): Promise<MessageOutcome | null>;
  receipt(state: InvoiceState, payment: PaymentIntentObject, language: PayerLanguage): Promise<MessageOutcome | null>;
}

export type PayerLanguage = 'en' | 'fr';
/** The intent's metadata key holding the language its payer read the hosted page in (their receipt is in it). */
export const PAYER_LANGUAGE_KEY = 'payer_language';

export interface InvoiceDeps {
  /** Its activation gate: a live invoice is made only once the merchant's live is open. */
  reads: PriceCatalog & PaymentIntentReader & CustomerDirectory & ActivationGate;
  checkout: InvoiceCheckout;
  messages: InvoiceMessages;
  store: EventStore;
  clock: Clock;
  publicUrl: string;
  customers: Customers;
  paymentIntents: PaymentIntents;
  /** The mend of a wallet application a crash left half done. */
  scheduleWalletApplication: Enqueue<WalletApplicationRef>;
  /** A subscription's invoice left the payable statuses (paid, void, uncollectible): the subscription may leave past_due. */
  onSettled(state: InvoiceState): Promise<void>;
  /** Whether a subscription id names a subscription of this owner, and its customer. */
  subscriptionCustomer(who: Owner, subscriptionId: string): Promise<string | null>;
}

const SETTLED: readonly InvoiceStatus[] = ['paid', 'void', 'uncollectible'];

/** The invoice if it is this owner's; otherwise 404 naming `field`. */
export async function ownedInvoice(invoices: Pick<CommandService<InvoiceCommand, InvoiceState, Fact<InvoiceEvent>>, 'load'>, who: Owner, id: string, field: string): Promise<InvoiceState> {
  const { state } = await invoices.load(id);
  assertOwned(state.invoice, who, `No such invoice: '${id}'`, field);
  return state;
}

/**
 * Follow-ups of an invoice change, each idempotent so a retry or a mend job may run them again:
 * a voided invoice gives the wallet back what it took from it; a settled subscription invoice
 * may bring its subscription back from past_due.
 */
export async function followUpInvoiceChange(deps: Pick<InvoiceDeps, 'customers' | 'onSettled'>, state: InvoiceState, meta: EventMetadata): Promise<void> {
  const i = state.invoice!;
  const who = { merchantId: i.merchantId, environment: i.environment };
  if (state.status === 'void' && state.walletApplied > 0) {
    await deps.customers.creditInternal(who, i.customer, { creditId: `invoice_voided:${i.id}`, amount: state.walletApplied, currency: i.currency, reason: 'invoice_voided', source: i.id }, meta);
  }
  if (i.subscription && SETTLED.includes(state.status)) await deps.onSettled(state);
}

/** Invoices drafted, issued and moved through their statuses (finalised, voided, marked uncollectible), sent and reminded. */
export class InvoiceIssuing extends CommandService<InvoiceCommand, InvoiceState, Fact<InvoiceEvent>> {
  constructor(private readonly deps: Pick<InvoiceDeps, 'reads' | 'store' | 'clock' | 'publicUrl' | 'customers' | 'messages' | 'onSettled' | 'subscriptionCustomer'>) {
    super(deps.store, invoiceStream, invoiceAggregate);
  }

  private hostedUrl(id: string): string {
    return `${this.deps.publicUrl}/hosted/invoices/${id}`;
  }

  async create(who: Owner, input: NewInvoice, actor: Actor): Promise<InvoiceState> {
    const id = input.id ?? newId('in');
    if (input.id !== undefined) {
      const earlier = await this.load(id);
      if (earlier.state.invoice) return ownedInvoice(this, who, id, 'invoiceId');
    }
    await assertLiveCanTakeMoney(this.deps.reads, who);
    const meta = auditMetadata(this.deps.clock, who, id, actor);
    if ((input.items === undefined) === (input.amountDue === undefined)) {
      throw new Refusal(input.items === undefined ? 'IKW-VAL-001' : 'IKW-VAL-002', 'Give exactly one of items and amount_due', input.items === undefined ? 'items' : 'amountDue');
    }
    let currency = input.currency ? getCurrency(input.currency)?.code.toLowerCase() : undefined;
    if (input.currency && !currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    let lines: InvoiceLine[];
    if (input.items) {
      const prices = await this.deps.reads.findPrices(
        who,
        input.items.flatMap((i) => ('price' in i ? [i.price] : [])),
      );
      lines = input.items.map((item, n) => {
        if (!('price' in item)) {
          const amount = item.unitAmount * item.quantity;
          if (!Number.isSafeInteger(amount)) throw new Refusal('IKW-VAL-001', 'The line amount is too large', `items.${n}.unitAmount`);
          return { description: item.description, price: null, quantity: item.quantity, unit_amount: item.unitAmount, amount, meter_key: null };
        }
        const field = `items.${n}.price`;
        const row = prices.get(item.price);
        if (!row) throw new Refusal('IKW-BIL-007', `No such price: '${item.price}'`, field);
        if (row.product_status !== 'active') throw new Refusal('IKW-BIL-008', `Price ${item.price} belongs to product ${row.product_id}, which is ${row.product_status}`, field);
        currency ??= row.price.currency;
        if (row.price.currency !== currency) throw new Refusal('IKW-BIL-008', `Price ${item.price} is in ${row.price.currency}; this invoice is in ${currency}`, field);
        const amount = row.price.unit_amount * item.quantity;
        if (!Number.isSafeInteger(amount)) throw new Refusal('IKW-VAL-001', 'The line amount is too large', field);
        return { description: row.product_name, price: item.price, quantity: item.quantity, unit_amount: row.price.unit_amount, amount, meter_key: null };
      });
    } else {
      if (!currency) throw new Refusal('IKW-VAL-001', 'Missing required parameter: currency', 'currency');
      lines = [{ description: input.description ?? 'Amount due', price: null, quantity: 1, unit_amount: input.amountDue!, amount: input.amountDue!, meter_key: null }];
    }
    // Free-text lines only: nothing but the request names the currency.
    if (!currency) throw new Refusal('IKW-VAL-001', 'Missing required parameter: currency (the lines are free text)', 'currency');
    const amountDue = lines.reduce((sum, l) => sum + l.amount, 0);
    if (!Number.isSafeInteger(amountDue)) throw new Refusal('IKW-VAL-001', 'The invoice total is too large', 'items');

    let customerRef = input.customer;
    if (input.subscriptionId !== undefined) {
      const subscriptionCustomer = await this.deps.subscriptionCustomer(who, input.subscriptionId);
      if (!subscriptionCustomer) throw new Refusal('IKW-VAL-001', `No such subscription: '${input.subscriptionId}'`, 'subscriptionId');
      if (customerRef.id !== undefined && customerRef.id !== subscriptionCustomer) {
        throw new Refusal('IKW-VAL-001', `Subscription ${input.subscriptionId} belongs to customer ${subscriptionCustomer}`, 'customerId');
      }
      customerRef = { ...customerRef, id: subscriptionCustomer };
    }
    const customer = await this.deps.customers.resolve(who, customerRef, meta);
    const now = this.deps.clock.now();
    const dueAt = input.dueAt ?? new Date(now.getTime() + (input.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE) * DAY_MS);
    if (input.periodStart && input.periodEnd && input.periodEnd <= input.periodStart) throw new Refusal('IKW-VAL-001', 'The period must end after it starts', 'periodEnd');

    const result = await this.run(
      id,
      {
        type: 'create',
        at: now,
        finalize: input.finalize,
        invoice: {
          id,
          merchantId: who.merchantId,
          environment: who.environment,
          customer,
          subscription: input.subscriptionId ?? null,
          currency: currency!,
          lines,
          amountDue,
          description: input.description ?? null,
          metadata: input.metadata ?? {},
          dueAt: dueAt.toISOString(),
          periodStart: input.periodStart?.toISOString() ?? null,
          periodEnd: input.periodEnd?.toISOString() ?? null,
          hostedUrl: this.hostedUrl(id),
          createdAt: now.toISOString(),
        },
      },
      meta,
    );
    return result.state;
  }

  /** Issues a subscription period's invoice, finalized. Idempotent: the id comes from the subscription's event. */
  async issueForSubscription(subscription: SubscriptionCreated, invoice: PeriodInvoice, meta: EventMetadata): Promise<InvoiceState> {
    const result = await this.run(
      invoice.id,
      {
        type: 'create',
        at: this.deps.clock.now(),
        finalize: true,
        invoice: {
          id: invoice.id,
          merchantId: subscription.merchantId,
          environment: subscription.environment,
          customer: subscription.customer,
          subscription: subscription.id,
          currency: subscription.currency,
          lines: invoice.lines,
          amountDue: invoice.amountDue,
          description: `Subscription ${subscription.id}`,
          metadata: {},
          dueAt: invoice.dueAt,
          periodStart: invoice.periodStart,
          periodEnd: invoice.periodEnd,
          hostedUrl: this.hostedUrl(invoice.id),
          createdAt: this.deps.clock.now().toISOString(),
        },
      },
      meta,
      'internal',
    );
    return result.state;
  }

  /** PATCH …/status: draft → open → paid | void | uncollectible; uncollectible → paid | void. */
  async transition(who: Owner, id: string, to: InvoiceStatus, actor: Actor): Promise<InvoiceObject> {
    const meta = auditMetadata(this.deps.clock, who, id, actor);
    const result = await this.run(id, { type: 'transition', owner: who, at: this.deps.clock.now(), to }, meta);
    await followUpInvoiceChange(this.deps, result.state, meta);
    return toInvoiceObject(result.state);
  }

  /**
   * POST /api/v1/merchant/invoices/{id}/send: a draft is finalized first; then the customer gets
   * the invoice by e-mail, from "<merchant> via Sika", with its link, in `language`. Sending again
   * sends again (a reminder by hand). A paid or void invoice is not sent (IKW-BIL-009).
   */
  async send(who: Owner, invoiceId: string, language: PayerLanguage, actor: Actor): Promise<{ invoice: InvoiceObject; delivery: MessageOutcome }> {
    let state = await ownedInvoice(this, who, invoiceId, 'invoiceId');
    const customer = await this.deps.reads.findCustomer(who, state.invoice!.customer);
    if (!customer?.email) throw new Refusal('IKW-BIL-013', `Customer ${state.invoice!.customer} has no e-mail address`, 'customer');
    if (state.status === 'draft') {
      await this.transition(who, invoiceId, 'open', actor);
      state = (await this.load(invoiceId)).state;
    }
    if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${state.status}, not open for payment`, 'invoiceId');
    return { invoice: toInvoiceObject(state), delivery: await this.deps.messages.sent(state, language) };
  }

  /**
   * A reminder of an invoice still due (the automations' `send_invoice_reminders` step): read from
   * its stream, not the read model, so an invoice paid or voided a moment ago is not reminded
   * (null). Whether it was reminded already at this offset is the caller's to know.
   */
  async remind(who: Owner, invoiceId: string, offsetDays: number): Promise<MessageOutcome | null> {
    const { state } = await this.load(invoiceId);
    if (!isOwned(state.invoice, who) || state.status !== 'open' || amountRemaining(state) <= 0) return null;
    return this.deps.messages.reminder(state, offsetDays);
  }
}

/** The invoice's number as its customer reads it (page, e-mails, PDF): short, from its id, so it needs no counter. */
export const invoiceNumber = (id: string): string => `INV-${id.slice(-8).toUpperCase()}`;
