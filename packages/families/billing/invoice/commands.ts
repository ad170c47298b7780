import type { Fact } from '../../../core/decider.js';
import { getCountry, getCurrency, listCountries, takesCards } from '../../../catalog/index.js';
import type { Clock } from '../../../core/clock.js';
import { isRefused, Refusal } from '../../../core/refusal.js';
import { derivedUuid, newId, newUuid } from '../../../core/ids.js';
import type { EventMetadata, EventStore } from '../../../eventstore/port.js';
import type { Enqueue } from '../../../scheduler/scheduler.js';
import { assertOwned, isOwned } from '../../../core/aggregate.js';
import type { CustomerRef, Customers } from '../customer/commands.js';
import { CommandService } from '../../../eventstore/command-handler.js';
import type { ConfirmInput, PaymentIntents, PaymentMethodDetails } from '../../payments/index.js';
import type { CustomerDirectory, PaymentIntentReader, PriceCatalog } from '../../read-ports.js';
import { assertLiveCanTakeMoney, type ActivationGate } from '../../platform/index.js';
import type { CheckoutSessionObject } from '../../checkout/index.js';
import type { MessageOutcome } from '../../../messaging/messages.js';
import { toObject as toPaymentIntentObject, type PaymentIntentObject } from '../../payments/index.js';
import type { PeriodInvoice, SubscriptionCreated } from '../subscription/events.js';
import { amountRemaining, PAYABLE, type InvoiceCommand, type InvoiceState } from './decider.js';
import { invoiceAggregate, toInvoiceObject } from './render.js';
import { invoiceStream, type InvoiceEvent, type InvoiceLine, type InvoiceObject, type InvoiceStatus } from './events.js';
import type { Actor, Owner } from '../../../core/owner.js';
import { auditMetadata } from '../../../eventstore/metadata.js';

/** The metadata key that points a payment intent at the invoice it pays (visible to the merchant, like Stripe's `invoice`). */
export const INVOICE_METADATA_KEY = 'invoice_id';
/** When the mend of a wallet application left half-done by a crash runs. */
const RECONCILE_AFTER_MS = 60_000;
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

/** Invoices: creation, status transitions, and payment by the customer's wallet or by payment intents. */
export class Invoices extends CommandService<InvoiceCommand, InvoiceState, Fact<InvoiceEvent>> {
  constructor(private readonly deps: InvoiceDeps) {
    super(deps.store, invoiceStream, invoiceAggregate);
  }



  /** The invoice if it is this owner's; otherwise 404 naming `field`. */
  async owned(who: Owner, id: string, field: string): Promise<InvoiceState> {
    const { state } = await this.load(id);
    assertOwned(state.invoice, who, `No such invoice: '${id}'`, field);
    return state;
  }

  private hostedUrl(id: string): string {
    return `${this.deps.publicUrl}/hosted/invoices/${id}`;
  }

  async create(who: Owner, input: NewInvoice, actor: Actor): Promise<InvoiceState> {
    const id = input.id ?? newId('in');
    if (input.id !== undefined) {
      const earlier = await this.load(id);
      if (earlier.state.invoice) return this.owned(who, id, 'invoiceId');
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
      const prices = await this.deps.reads.findPrices(who, input.items.flatMap((i) => ('price' in i ? [i.price] : [])));
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
    await this.afterChange(result.state, meta);
    return toInvoiceObject(result.state);
  }

  /**
   * Follow-ups of an invoice change, each idempotent so a retry or a mend job may run them again:
   * a voided invoice gives the wallet back what it took from it; a settled subscription invoice
   * may bring its subscription back from past_due.
   */
  private async afterChange(state: InvoiceState, meta: EventMetadata): Promise<void> {
    const i = state.invoice!;
    const who = { merchantId: i.merchantId, environment: i.environment };
    if (state.status === 'void' && state.walletApplied > 0) {
      await this.deps.customers.creditInternal(
        who,
        i.customer,
        { creditId: `invoice_voided:${i.id}`, amount: state.walletApplied, currency: i.currency, reason: 'invoice_voided', source: i.id },
        meta,
      );
    }
    if (i.subscription && SETTLED.includes(state.status)) await this.deps.onSettled(state);
  }

  /**
   * POST /api/v1/merchant/billing/wallet/invoices/{invoiceId}/apply. Two streams, no shared
   * transaction: the wallet's balance check and debit is one decision on the customer stream
   * (`customer.balance_applied`, naming an application id); the invoice then records the
   * application by that id, once, taking at most what remains; whatever it did not take (it was
   * paid or voided meanwhile) goes back to the wallet. A scheduled job redoes the last two steps
   * should the process die between them, so money is never lost or counted twice. `requestRef`
   * (the Idempotency-Key with the body's fingerprint) names the application: a request retried
   * after a crash answers the invoice its first attempt paid, and takes nothing more.
   */
  async applyWallet(who: Owner, invoiceId: string, input: { amount?: number }, actor: Actor, requestRef?: string): Promise<InvoiceObject> {
    const state = await this.owned(who, invoiceId, 'invoiceId');
    const i = state.invoice!;
    const applicationId = `wapp_${requestRef === undefined ? newUuid() : derivedUuid(`wallet_application|${who.merchantId}|${who.environment}|${invoiceId}|${requestRef}`)}`;
    // Before the status check: the first attempt's application may have paid the invoice in full.
    if (state.payments.has(applicationId)) return toInvoiceObject(state);
    if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${state.status}, not open for payment`, 'invoiceId');
    const remaining = amountRemaining(state);
    if (input.amount !== undefined && input.amount > remaining) {
      throw new Refusal('IKW-VAL-001', `The amount is above what remains to pay on the invoice (${remaining})`, 'amount');
    }
    const meta = auditMetadata(this.deps.clock, who, invoiceId, actor);
    const job = { ...who, customerId: i.customer, applicationId, invoiceId };
    await this.deps.scheduleWalletApplication(job, new Date(this.deps.clock.now().getTime() + RECONCILE_AFTER_MS));
    await this.deps.customers.applyToInvoice(who, i.customer, { applicationId, invoiceId, currency: i.currency, maxAmount: input.amount ?? remaining }, meta);
    const after = await this.completeApplication(job, meta);
    if (!after.payments.has(applicationId)) {
      // Paid or voided between the check above and the application: the wallet got everything back.
      throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${after.status}, not open for payment; nothing was taken from the wallet`, 'invoiceId');
    }
    return toInvoiceObject(after);
  }

  /** Offers a wallet application to its invoice and returns what the invoice did not take. Idempotent. */
  async completeApplication(job: WalletApplicationRef, meta: EventMetadata): Promise<InvoiceState> {
    const who = { merchantId: job.merchantId, environment: job.environment };
    const { state: customer } = await this.deps.customers.load(job.customerId);
    const application = customer.applications.get(job.applicationId);
    if (!application) return (await this.load(job.invoiceId)).state; // the debit never happened
    const result = await this.run(
      job.invoiceId,
      { type: 'record_payment', owner: who, at: this.deps.clock.now(), ref: job.applicationId, source: 'wallet', amount: application.amount },
      meta,
      'internal',
    );
    const accepted = result.state.payments.get(job.applicationId)?.amount ?? 0;
    await this.deps.customers.settleApplication(who, job.customerId, job.applicationId, accepted, meta);
    await this.afterChange(result.state, meta);
    return result.state;
  }

  /** The default transaction country of an invoice's payment: the first catalog country of its currency. */
  private country(currency: string, given: string | undefined, field: string): string {
    if (given !== undefined) {
      const c = getCountry(given);
      if (!c) throw new Refusal('IKW-VAL-004', `Unsupported country '${given}'`, field);
      return c.code;
    }
    const c = listCountries().find((x) => x.currency.toLowerCase() === currency);
    if (!c) throw new Refusal('IKW-VAL-001', `No country collects ${currency}; give ${field}`, field);
    return c.code;
  }

  /**
   * POST /api/v1/billing/invoices/{id}/pay: a payment intent for what remains to pay, attached to
   * the invoice (its success pays the invoice). The same idempotencyKey gives the same intent; without
   * one, `requestRef` (the Idempotency-Key with the body's fingerprint) does, so a request retried
   * after a crash answers the intent its first attempt made, even once that intent paid the invoice.
   */
  async pay(who: Owner, invoiceId: string, input: PayInput, actor: Actor, requestRef?: string): Promise<PaymentIntentObject> {
    const state = await this.owned(who, invoiceId, 'invoiceId');
    const i = state.invoice!;
    const given =
      input.idempotencyKey ?? (requestRef !== undefined ? derivedUuid(`invoice_payment|${who.merchantId}|${who.environment}|${invoiceId}|${requestRef}`) : undefined);
    const existing = given !== undefined ? state.paymentIntents.get(given) : undefined;
    if (existing) return this.paymentIntent(who, existing);
    if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${state.status}, not open for payment`, 'invoiceId');
    const intent = await this.deps.paymentIntents.create(
      who,
      {
        amount: amountRemaining(state),
        currency: i.currency,
        transactionCountry: this.country(i.currency, input.transactionCountry, 'transactionCountry'),
        ...(input.payerCountry ? { payerCountry: input.payerCountry } : {}),
        ...(input.railCountry ? { railCountry: input.railCountry } : {}),
        description: input.description ?? `Invoice ${invoiceId}`,
        metadata: { ...input.metadata, [INVOICE_METADATA_KEY]: invoiceId },
        customer: i.customer,
      },
      actor,
      // Named by its key, so a crash between the intent and its attachment leaves no second intent; "|intent" ends no request's ref.
      given !== undefined ? `invoice_payment|${invoiceId}|${given}|intent` : undefined,
    );
    const key = given ?? intent.id;
    const attached = await this.run(invoiceId, { type: 'attach_payment_intent', owner: who, at: this.deps.clock.now(), key, paymentIntentId: intent.id }, auditMetadata(this.deps.clock, who, invoiceId, actor), 'internal');
    const winner = attached.state.paymentIntents.get(key)!;
    // A concurrent request with the same key attached its intent first: answer with that one.
    return winner === intent.id ? intent : this.paymentIntent(who, winner);
  }

  /** POST /api/v1/billing/invoices/{id}/confirm: pay (above), then confirm the intent with the payment method. */
  async confirm(
    who: Owner,
    invoiceId: string,
    input: { paymentMethod: ConfirmInput['payment_method']; returnUrl?: string; idempotencyKey?: string; transactionCountry?: string },
    actor: Actor,
    requestRef?: string,
  ): Promise<{ invoice: InvoiceState; paymentIntent: PaymentIntentObject }> {
    const pm = input.paymentMethod;
    const transactionCountry = pm.type === 'mobile_money' ? pm.mobile_money.country : input.transactionCountry;
    // A retry finds the intent its first attempt confirmed, which answers as it stands: the payer is asked once.
    const intent = await this.pay(who, invoiceId, { ...(transactionCountry ? { transactionCountry } : {}), ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}) }, actor, requestRef);
    const confirmed = await this.confirmAttempt(who, invoiceId, intent.id, { payment_method: pm, ...(input.returnUrl ? { return_url: input.returnUrl } : {}) }, actor);
    return { invoice: (await this.load(invoiceId)).state, paymentIntent: confirmed };
  }

  /**
   * POST /api/v1/customer-portal/invoices/{id}/pay, a public page with no Idempotency-Key: as
   * Stripe's hosted invoice page, an invoice has one payment at a time. A payment already with the
   * provider or done (processing, requires_action, succeeded) answers a submit with the same payment
   * method as it stands, and refuses another method (IKW-BIL-012) until it ends; otherwise the
   * attempt is named by how many intents the invoice has, so concurrent submits land on one intent,
   * confirmed once (a confirm meeting it in flight answers it), and one created but not confirmed
   * yet is confirmed rather than another made. A failed payment lets the next
   * submit make a new attempt.
   */
  async payFromPortal(who: Owner, invoiceId: string, input: ConfirmInput, actor: Actor): Promise<PaymentIntentObject> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.payFromPortalOnce(who, invoiceId, input, actor);
      } catch (e) {
        // A concurrent submit is creating or confirming the same attempt: look again, and find it.
        if (!(e instanceof Refusal && e.code === 'IKW-RES-003') || attempt === PORTAL_PAY_ATTEMPTS) throw e;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  }

  private async payFromPortalOnce(who: Owner, invoiceId: string, input: ConfirmInput, actor: Actor): Promise<PaymentIntentObject> {
    const state = await this.owned(who, invoiceId, 'invoiceId');
    let unconfirmed: string | null = null;
    for (const [key, intentId] of state.paymentIntents) {
      const { state: pi } = await this.deps.paymentIntents.load(intentId);
      // Only the portal's own: another path's unconfirmed intent (a checkout session's) is that path's attempt.
      if (pi.status === 'requires_payment_method' && key.startsWith(PORTAL_KEY)) unconfirmed = intentId;
      if (!IN_FLIGHT.includes(pi.status)) continue;
      if (!samePaymentMethod(pi.paymentMethod, input.payment_method)) {
        throw new Refusal('IKW-BIL-012', `A payment of invoice ${invoiceId} is ${pi.status} with another payment method`, 'invoiceId');
      }
      return toPaymentIntentObject(pi);
    }
    // A concurrent submit's intent not confirmed yet is this submit's too (a confirm takes it once).
    if (unconfirmed !== null) return this.confirmAttempt(who, invoiceId, unconfirmed, input, actor);
    const pm = input.payment_method;
    const intent = await this.pay(
      who,
      invoiceId,
      { ...(pm.type === 'mobile_money' ? { transactionCountry: pm.mobile_money.country } : {}), idempotencyKey: `${PORTAL_KEY}${state.paymentIntents.size}` },
      actor,
    );
    return this.confirmAttempt(who, invoiceId, intent.id, input, actor);
  }

  /**
   * Confirms an intent of the invoice as its one payment in flight: the invoice decides first
   * (startAttempt), so of two paths confirming at once only one reaches the provider. An intent
   * whose confirm was refused for the payer's input, nothing started, is canceled: it gives the
   * invoice back at once instead of holding it until it counts as abandoned.
   */
  private async confirmAttempt(who: Owner, invoiceId: string, paymentIntentId: string, input: ConfirmInput, actor: Actor): Promise<PaymentIntentObject> {
    await this.startAttempt(who, invoiceId, paymentIntentId);
    try {
      return await this.deps.paymentIntents.confirm(who, paymentIntentId, input, actor);
    } catch (err) {
      if (isRefused(err) && err.code.startsWith('IKW-VAL-')) await this.cancelUnconfirmed(who, paymentIntentId);
      throw err;
    }
  }

  /**
   * The invoice's one decision before an intent of it is confirmed, whatever path pays it (portal,
   * billing confirm, a checkout session): the intent becomes the payment in flight, or the attempt
   * is refused (IKW-BIL-012) while another one is. The attempt in flight gives way when its intent
   * failed or was canceled, or, started but never confirmed (its process died in between) for
   * ATTEMPT_ABANDONED_AFTER_MS, once it is canceled here: a cancel and a confirm of one intent are
   * decided on its stream, so it is either with the provider (and still in flight) or never will be.
   */
  private async startAttempt(who: Owner, invoiceId: string, paymentIntentId: string): Promise<void> {
    const state = await this.owned(who, invoiceId, 'invoiceId');
    const ended: string[] = [];
    const holder = state.attempt;
    if (holder && holder.paymentIntentId !== paymentIntentId) {
      const { state: pi } = await this.deps.paymentIntents.load(holder.paymentIntentId);
      const abandoned = pi.status === 'requires_payment_method' && this.deps.clock.now().getTime() - Date.parse(holder.at) >= ATTEMPT_ABANDONED_AFTER_MS;
      if (pi.status === 'failed' || pi.status === 'canceled' || (abandoned && (await this.cancelUnconfirmed(who, holder.paymentIntentId)))) ended.push(holder.paymentIntentId);
    }
    const meta = auditMetadata(this.deps.clock, who, invoiceId, { actor: 'billing', causationId: paymentIntentId });
    // On a conflict the decider runs again on the newer state, with the same ended intents: a
    // concurrent attempt that got there first is then refused as in flight, not a 409 conflict.
    await this.run(invoiceId, { type: 'start_attempt', owner: who, at: this.deps.clock.now(), paymentIntentId, ended }, meta, 'internal');
  }

  /** Cancels an intent nobody confirmed; false if it was confirmed (or ended) meanwhile. */
  private async cancelUnconfirmed(who: Owner, paymentIntentId: string): Promise<boolean> {
    try {
      await this.deps.paymentIntents.cancel(who, paymentIntentId, 'abandoned', { actor: 'billing', causationId: paymentIntentId });
      return true;
    } catch (err) {
      if (isRefused(err)) return false;
      throw err;
    }
  }

  /**
   * POST /hosted/invoices/{id}/pay: the checkout session the customer pays the invoice on, the
   * one payment links use (docs/checkout.md), for what remains to pay; its pages return to the
   * invoice's. Anyone holding the invoice's link may pay it, as its page shows it.
   */
  async openCheckout(invoiceId: string, language: PayerLanguage, country: string | undefined, actor: Actor): Promise<CheckoutSessionObject> {
    const { state } = await this.load(invoiceId);
    const i = state.invoice;
    if (!i || state.status === 'draft') throw new Refusal('IKW-RES-001', `No such invoice: '${invoiceId}'`, 'invoiceId');
    if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${state.status}, not open for payment`, 'invoiceId');
    const who = { merchantId: i.merchantId, environment: i.environment };
    const customer = await this.deps.reads.findCustomer(who, i.customer);
    const payIn = this.country(i.currency, country, 'Country');
    const place = getCountry(payIn)!;
    if (place.currency.toLowerCase() !== i.currency) throw new Refusal('IKW-VAL-009', `${payIn} payments are not in ${i.currency}`, 'Country');
    // Mobile money where the country has operators, cards where its currency's cards are carried (Nigeria: cards only).
    const paymentMethodTypes = [...(place.operators.length > 0 ? (['mobile_money'] as const) : []), ...(takesCards(place) ? (['card'] as const) : [])];
    if (paymentMethodTypes.length === 0) throw new Refusal('IKW-VAL-009', `No payment method collects ${i.currency} in ${payIn}`, 'Country');
    return this.deps.checkout.openForPayee(
      who,
      // One open session per invoice and country the payer's account is in.
      { metadataKey: INVOICE_METADATA_KEY, id: invoiceId, scope: payIn },
      {
        amount: amountRemaining(state),
        currency: i.currency,
        country: payIn,
        description: `${invoiceNumber(invoiceId)}`,
        paymentMethodTypes,
        successUrl: i.hostedUrl,
        cancelUrl: i.hostedUrl,
        customerEmail: customer?.email ?? null,
        metadata: { [PAYER_LANGUAGE_KEY]: language },
      },
      actor,
    );
  }

  /**
   * The invoice as a checkout payee: before a session's attempt is confirmed, the invoice must still
   * take payments and have no other payment in flight (the portal's rule, IKW-BIL-012), and the
   * attempt's intent is attached to it (only intents the invoice attached pay it). Idempotent.
   */
  async beforeCheckoutConfirm(who: Owner, invoiceId: string, paymentIntentId: string): Promise<void> {
    const state = await this.owned(who, invoiceId, 'invoiceId');
    if (state.attempt?.paymentIntentId === paymentIntentId) return;
    if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${state.status}, not open for payment`, 'invoiceId');
    // A payment confirmed outside the invoice's paths (the merchant's own confirm of an intent `…/pay` made) started no attempt.
    for (const intentId of state.paymentIntents.values()) {
      if (intentId === paymentIntentId) continue;
      const { state: pi } = await this.deps.paymentIntents.load(intentId);
      if (IN_FLIGHT.includes(pi.status)) throw new Refusal('IKW-BIL-012', `A payment of invoice ${invoiceId} is already ${pi.status}`, 'invoiceId');
    }
    if (![...state.paymentIntents.values()].includes(paymentIntentId)) {
      await this.run(invoiceId, { type: 'attach_payment_intent', owner: who, at: this.deps.clock.now(), key: `checkout|${paymentIntentId}`, paymentIntentId }, auditMetadata(this.deps.clock, who, invoiceId, { actor: 'checkout', causationId: paymentIntentId }), 'internal');
    }
    await this.startAttempt(who, invoiceId, paymentIntentId);
  }

  /**
   * POST /api/v1/merchant/invoices/{id}/send: a draft is finalized first; then the customer gets
   * the invoice by e-mail, from "<merchant> via Sika", with its link, in `language`. Sending again
   * sends again (a reminder by hand). A paid or void invoice is not sent (IKW-BIL-009).
   */
  async send(who: Owner, invoiceId: string, language: PayerLanguage, actor: Actor): Promise<{ invoice: InvoiceObject; delivery: MessageOutcome }> {
    let state = await this.owned(who, invoiceId, 'invoiceId');
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

  private async paymentIntent(who: Owner, id: string): Promise<PaymentIntentObject> {
    const found = await this.deps.reads.findPaymentIntent(who, id);
    if (!found) throw new Error(`Payment intent ${id} of an invoice is missing from the read model`);
    return found;
  }

  /**
   * A payment intent created for an invoice succeeded (a job queued by the bus consumer below):
   * the invoice records it once; what it could not take (paid by the wallet meanwhile, or voided)
   * is credited to the customer's wallet as an overpayment.
   */
  async recordPaymentIntent(job: Owner & { paymentIntentId: string }): Promise<void> {
    const { state: pi } = await this.deps.paymentIntents.load(job.paymentIntentId);
    const intent = pi.intent;
    const invoiceId = pi.metadata[INVOICE_METADATA_KEY];
    if (!intent || pi.status !== 'succeeded' || !invoiceId) return;
    const who = { merchantId: intent.merchantId, environment: intent.environment };
    const { state } = await this.load(invoiceId);
    const i = state.invoice;
    if (!isOwned(i, who)) return;
    // Only intents this invoice created pay it; another intent that merely names it stays an ordinary payment.
    if (![...state.paymentIntents.values()].includes(intent.id)) return;
    const meta = auditMetadata(this.deps.clock, who, invoiceId, { actor: 'billing', causationId: intent.id });
    const result = await this.run(
      invoiceId,
      { type: 'record_payment', owner: who, at: this.deps.clock.now(), ref: intent.id, source: 'payment_intent', amount: intent.amount },
      meta,
      'internal',
    );
    const accepted = result.state.payments.get(intent.id)?.amount ?? 0;
    if (accepted < intent.amount) {
      try {
        await this.deps.customers.creditInternal(
          who,
          i.customer,
          { creditId: `overpayment:${intent.id}`, amount: intent.amount - accepted, currency: intent.currency, reason: 'invoice_overpayment', source: intent.id },
          meta,
        );
      } catch (err) {
        // A wallet in another currency cannot hold it: the money stays in the merchant's balance (refund it if due).
        if (!isRefused(err, 'IKW-BIL-010')) throw err;
      }
    }
    await this.afterChange(result.state, meta);
    // The payment that paid it (this command's invoice.paid): the customer's receipt. Sent once, by
    // the run that recorded it; a crash between the two loses the e-mail, never sends it twice.
    if (result.events.some((e) => e.type === 'invoice.paid')) {
      const language = pi.metadata[PAYER_LANGUAGE_KEY] === 'fr' ? 'fr' : 'en';
      await this.deps.messages.receipt(result.state, toPaymentIntentObject(pi), language);
    }
  }
}

/** The invoice's number as its customer reads it (page, e-mails, PDF): short, from its id, so it needs no counter. */
export const invoiceNumber = (id: string): string => `INV-${id.slice(-8).toUpperCase()}`;

/** A payment of an invoice with the provider or done: while one is, no other payment of the invoice starts (IKW-BIL-012). */
const IN_FLIGHT: readonly string[] = ['processing', 'requires_action', 'succeeded'];

/** The keys of the intents the customer portal makes, numbered by how many intents the invoice had. */
const PORTAL_KEY = 'portal|';

/** How long an attempt started but never confirmed (its process died in between) holds its invoice. */
export const ATTEMPT_ABANDONED_AFTER_MS = 15 * 60_000;

/** How many times a portal payment looks again for a concurrent submit's intent before answering its 409. */
const PORTAL_PAY_ATTEMPTS = 6;

/** Whether a submitted payment method is the one an intent was confirmed with (a card has no number to compare: its token, when saved). */
function samePaymentMethod(confirmed: PaymentMethodDetails | null, given: ConfirmInput['payment_method']): boolean {
  if (confirmed === null || confirmed.type !== given.type) return false;
  if (confirmed.type === 'card' && given.type === 'card') return (confirmed.token ?? null) === (given.card.token ?? null);
  if (confirmed.type === 'mobile_money' && given.type === 'mobile_money') {
    return confirmed.msisdn === given.mobile_money.msisdn && confirmed.operator === given.mobile_money.operator && confirmed.country === given.mobile_money.country;
  }
  return false;
}
