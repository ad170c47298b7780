import type { Fact } from '#packages/core/decider.js';
import { getCountry, listCountries, takesCards } from '#packages/catalog/index.js';
import { isOwned } from '#packages/core/aggregate.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { derivedUuid } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import type { CheckoutSessionObject } from '#packages/families/checkout/index.js';
import { toObject as toPaymentIntentObject, type ConfirmInput, type PaymentIntentObject, type PaymentMethodDetails } from '#packages/families/payments/index.js';
import { amountRemaining, PAYABLE, type InvoiceCommand, type InvoiceState } from './decider.js';
import { invoiceAggregate } from './render.js';
import { invoiceStream, type InvoiceEvent } from './events.js';
import { followUpInvoiceChange, INVOICE_METADATA_KEY, invoiceNumber, ownedInvoice, PAYER_LANGUAGE_KEY, type InvoiceDeps, type PayerLanguage, type PayInput } from './commands.js';

/**
 * Invoices paid by payment intents, whatever path pays them (billing's pay and confirm, the customer
 * portal, the hosted page's checkout session): one payment in flight at a time, and the succeeded
 * payment recorded on the invoice.
 */
export class InvoicePayments extends CommandService<InvoiceCommand, InvoiceState, Fact<InvoiceEvent>> {
  constructor(private readonly deps: Pick<InvoiceDeps, 'reads' | 'store' | 'clock' | 'checkout' | 'messages' | 'customers' | 'paymentIntents' | 'onSettled'>) {
    super(deps.store, invoiceStream, invoiceAggregate);
  }

  /**
   * POST /api/v1/billing/invoices/{id}/pay: a payment intent for what remains to pay, attached to
   * the invoice (its success pays the invoice). The same idempotencyKey gives the same intent; without
   * one, `requestRef` (the Idempotency-Key with the body's fingerprint) does, so a request retried
   * after a crash answers the intent its first attempt made, even once that intent paid the invoice.
   */
  async pay(who: Owner, invoiceId: string, input: PayInput, actor: Actor, requestRef?: string): Promise<PaymentIntentObject> {
    const state = await ownedInvoice(this, who, invoiceId, 'invoiceId');
    const i = state.invoice!;
    const given = input.idempotencyKey ?? (requestRef !== undefined ? derivedUuid(`invoice_payment|${who.merchantId}|${who.environment}|${invoiceId}|${requestRef}`) : undefined);
    const existing = given !== undefined ? state.paymentIntents.get(given) : undefined;
    if (existing) return this.paymentIntent(who, existing);
    if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${state.status}, not open for payment`, 'invoiceId');
    const intent = await this.deps.paymentIntents.create(
      who,
      {
        amount: amountRemaining(state),
        currency: i.currency,
        transactionCountry: paymentCountry(i.currency, input.transactionCountry, 'transactionCountry'),
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
    const state = await ownedInvoice(this, who, invoiceId, 'invoiceId');
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
    const intent = await this.pay(who, invoiceId, { ...(pm.type === 'mobile_money' ? { transactionCountry: pm.mobile_money.country } : {}), idempotencyKey: `${PORTAL_KEY}${state.paymentIntents.size}` }, actor);
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
    const state = await ownedInvoice(this, who, invoiceId, 'invoiceId');
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
    const payIn = paymentCountry(i.currency, country, 'Country');
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
    const state = await ownedInvoice(this, who, invoiceId, 'invoiceId');
    if (state.attempt?.paymentIntentId === paymentIntentId) return;
    if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${state.status}, not open for payment`, 'invoiceId');
    // A payment confirmed outside the invoice's paths (the merchant's own confirm of an intent `…/pay` made) started no attempt.
    for (const intentId of state.paymentIntents.values()) {
      if (intentId === paymentIntentId) continue;
      const { state: pi } = await this.deps.paymentIntents.load(intentId);
      if (IN_FLIGHT.includes(pi.status)) throw new Refusal('IKW-BIL-012', `A payment of invoice ${invoiceId} is already ${pi.status}`, 'invoiceId');
    }
    if (![...state.paymentIntents.values()].includes(paymentIntentId)) {
      await this.run(
        invoiceId,
        { type: 'attach_payment_intent', owner: who, at: this.deps.clock.now(), key: `checkout|${paymentIntentId}`, paymentIntentId },
        auditMetadata(this.deps.clock, who, invoiceId, { actor: 'checkout', causationId: paymentIntentId }),
        'internal',
      );
    }
    await this.startAttempt(who, invoiceId, paymentIntentId);
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
    const result = await this.run(invoiceId, { type: 'record_payment', owner: who, at: this.deps.clock.now(), ref: intent.id, source: 'payment_intent', amount: intent.amount }, meta, 'internal');
    const accepted = result.state.payments.get(intent.id)?.amount ?? 0;
    if (accepted < intent.amount) {
      try {
        await this.deps.customers.creditInternal(who, i.customer, { creditId: `overpayment:${intent.id}`, amount: intent.amount - accepted, currency: intent.currency, reason: 'invoice_overpayment', source: intent.id }, meta);
      } catch (err) {
        // A wallet in another currency cannot hold it: the money stays in the merchant's balance (refund it if due).
        if (!isRefused(err, 'IKW-BIL-010')) throw err;
      }
    }
    await followUpInvoiceChange(this.deps, result.state, meta);
    // The payment that paid it (this command's invoice.paid): the customer's receipt. Sent once, by
    // the run that recorded it; a crash between the two loses the e-mail, never sends it twice.
    if (result.events.some((e) => e.type === 'invoice.paid')) {
      const language = pi.metadata[PAYER_LANGUAGE_KEY] === 'fr' ? 'fr' : 'en';
      await this.deps.messages.receipt(result.state, toPaymentIntentObject(pi), language);
    }
  }
}

/** The default transaction country of an invoice's payment: the first catalog country of its currency. */
function paymentCountry(currency: string, given: string | undefined, field: string): string {
  if (given !== undefined) {
    const c = getCountry(given);
    if (!c) throw new Refusal('IKW-VAL-004', `Unsupported country '${given}'`, field);
    return c.code;
  }
  const c = listCountries().find((x) => x.currency.toLowerCase() === currency);
  if (!c) throw new Refusal('IKW-VAL-001', `No country collects ${currency}; give ${field}`, field);
  return c.code;
}

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
