import { normalizeMsisdn, quoteFee } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import type { ActivationGate } from '#packages/families/platform/index.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { PaymentIntents } from '#packages/families/payments/index.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import type { ClaimHolder } from '../payment-link/decider.js';
import type { PaymentLinks } from '../payment-link/commands.js';
import type { CountPublicPush } from '#packages/core/public-pushes.js';
import type { CheckoutMethodType, FeeMode } from './amount.js';
import { checkoutSessionDecider, paymentStatusOf, sessionStatus, type CheckoutSessionCommand, type CheckoutSessionState } from './decider.js';
import { toCheckoutSessionObject } from './render.js';
import { checkoutSessionStream, type CheckoutPaymentStatus, type CheckoutSessionEvent, type CheckoutSessionObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** Sessions expire 24 h after they are opened. */
export const SESSION_LIFETIME_MS = 24 * 3_600_000;
/** A claim on a single-use link whose payment never reached the operator is let go after this. */
export const UNSTARTED_CLAIM_MS = 15 * 60_000;
/** Metadata keys the intents of a session carry, so the merchant finds the session from the payment. */
export const SESSION_METADATA_KEY = 'checkout_session_id';
export const LINK_METADATA_KEY = 'payment_link_id';

export interface CreateSessionInput {
  amount?: number;
  currency?: string;
  country?: string;
  paymentMethodTypes?: CheckoutMethodType[];
  successUrl?: string | null;
  cancelUrl?: string | null;
  customerEmail?: string | null;
  customerPhone?: string | null;
  paymentLinkId?: string | null;
  paymentLinkV2Id?: string | null;
  deferPaymentIntentCreation?: boolean;
  metadata?: Record<string, unknown>;
}

export type CheckoutPaymentMethod =
  | { type: 'mobile_money'; mobile_money: { country?: string; operator: string; msisdn: string } }
  // No token: the card is typed on the provider's page (Paystack's checkout; the sandbox's card page), where the payer is sent.
  | { type: 'card'; card: { token?: string } };

export interface FeeQuoteInput {
  paymentMethodType?: CheckoutMethodType;
  operator?: string;
}

export interface CheckoutFeeQuote {
  object: 'checkout.fee_quote';
  sessionId: string;
  currency: string;
  amount: number;
  fee: number;
  feeMode: FeeMode;
  /** What the customer pays. */
  amountTotal: number;
  /** What reaches the merchant's balance. */
  merchantReceives: number;
  paymentMethodType: CheckoutMethodType;
  operator: string | null;
}

/**
 * What a session may pay besides a plain amount: another family's object (an invoice), named in the
 * session's metadata under `metadataKey`. Asked before every attempt is confirmed, so the object's
 * own rules decide (no longer payable, another payment in flight) and its payment is tied to it.
 */
export interface CheckoutPayee {
  metadataKey: string;
  /** Refuses the attempt, or ties its intent to the object (idempotent: a retry asks again). */
  beforeConfirm(who: Owner, objectId: string, paymentIntentId: string): Promise<void>;
}

export interface CheckoutSessionDeps {
  store: EventStore;
  clock: Clock;
  publicUrl: string;
  paymentIntents: PaymentIntents;
  paymentLinks: PaymentLinks;
  /** Every mobile-money attempt is a push from a public page: counted per number, session and link. */
  countPublicPush: CountPublicPush;
  /** The payees other families registered (filled once every family is built). */
  payees: () => readonly CheckoutPayee[];
  /** A live session is made only once the merchant's live is open. */
  activations: ActivationGate;
}

/** A session as its commands need it: one that exists. */
export type OpenedSession = CheckoutSessionState & { session: NonNullable<CheckoutSessionState['session']> };

/** The session of this id, whoever asks (the hosted page and its API know only the unguessable id). */
export async function loadSession(sessions: { load(id: string): Promise<{ state: CheckoutSessionState }> }, id: string): Promise<OpenedSession> {
  const { state } = await sessions.load(id);
  if (!state.session) throw new Refusal('IKW-RES-001', `No such checkout session: '${id}'`, 'sessionId');
  return state as OpenedSession;
}

/** The latest attempt's intent status, as the session's commands and views need it. */
export async function paymentStatus(paymentIntents: PaymentIntents, state: CheckoutSessionState): Promise<CheckoutPaymentStatus> {
  if (!state.paymentIntentId) return 'unpaid';
  const { state: intent } = await paymentIntents.load(state.paymentIntentId);
  return paymentStatusOf(intent.intent ? intent.status : null);
}

export function sessionOwner(state: { session: { merchantId: string; environment: Owner['environment'] } }): Owner {
  return { merchantId: state.session.merchantId, environment: state.session.environment };
}

/**
 * Checkout sessions paid and ended: the customer's attempts (each a payment intent, confirmed with
 * what the customer chose on the page; a single-use link is claimed first, so it takes one payment
 * only), the fee quotes, and the end of a session by the customer or the merchant. Sessions are
 * opened by `CheckoutSessionOpening` (opening.ts), which makes its first attempt here.
 */
export class CheckoutSessionPayments extends CommandService<CheckoutSessionCommand, CheckoutSessionState, CheckoutSessionEvent> {
  constructor(private readonly deps: Pick<CheckoutSessionDeps, 'store' | 'clock' | 'paymentIntents' | 'paymentLinks' | 'countPublicPush' | 'payees'>) {
    super(deps.store, checkoutSessionStream, checkoutSessionDecider);
  }

  private meta(who: Owner, id: string, actor: Actor) {
    return auditMetadata(this.deps.clock, who, id, actor);
  }

  private paymentStatus(state: CheckoutSessionState): Promise<CheckoutPaymentStatus> {
    return paymentStatus(this.deps.paymentIntents, state);
  }

  async view(id: string): Promise<CheckoutSessionObject> {
    const state = await loadSession(this, id);
    return toCheckoutSessionObject(state, await this.paymentStatus(state), this.deps.clock.now());
  }

  /** A new attempt: its payment intent (named by session and attempt, so racing requests make one) attached to the session. */
  async attachIntent(state: OpenedSession, amountTotal: number, actor: Actor, collected: Record<string, string> = {}): Promise<PaymentIntentObject> {
    const s = state.session;
    const who = sessionOwner(state);
    const attempt = state.attempt + 1;
    const intent = await this.deps.paymentIntents.create(
      who,
      {
        amount: amountTotal,
        currency: s.currency,
        transactionCountry: s.country,
        ...(s.description !== null ? { description: s.description } : {}),
        metadata: {
          ...s.metadata,
          ...Object.fromEntries(Object.entries(collected).map(([k, v]) => [`collected_${k}`, v])),
          [SESSION_METADATA_KEY]: s.id,
          ...(s.paymentLinkId !== null ? { [LINK_METADATA_KEY]: s.paymentLinkId } : {}),
        },
        ...(s.customerEmail !== null ? { customerEmail: s.customerEmail } : {}),
        ...(s.customerPhone !== null ? { customerPhone: s.customerPhone } : {}),
      },
      actor,
      `checkout:${s.id}:${attempt}`,
    );
    await this.run(
      s.id,
      { type: 'attach_payment_intent', owner: who, at: this.deps.clock.now(), paymentIntentId: intent.id, attempt, amount: amountTotal, paymentStatus: await this.paymentStatus(state) },
      this.meta(who, s.id, actor),
      'internal',
    );
    return intent;
  }

  /** The fee of a payment of the session by this method (and operator), and who carries it. */
  quote(state: { session: { id: string; amount: number; currency: string; country: string; feeMode: FeeMode; paymentMethodTypes: CheckoutMethodType[] } }, input: FeeQuoteInput, typeField = 'paymentMethodType'): CheckoutFeeQuote {
    const s = state.session;
    const type = input.paymentMethodType ?? s.paymentMethodTypes[0] ?? 'mobile_money';
    if (!s.paymentMethodTypes.includes(type)) throw new Refusal('IKW-CHK-004', `This session accepts ${s.paymentMethodTypes.join(', ')}, not ${type}`, typeField);
    const operator = type === 'mobile_money' ? input.operator : undefined;
    if (type === 'mobile_money' && operator === undefined) throw new Refusal('IKW-VAL-001', 'operator is required for mobile_money', 'operator');
    if (type === 'card' && input.operator !== undefined) throw new Refusal('IKW-VAL-002', 'operator applies to mobile_money only', 'operator');
    const fee = quoteFee({ amount: s.amount, currency: s.currency, direction: 'payin', method: type, country: s.country, ...(operator !== undefined ? { operator } : {}) }).fee;
    const amountTotal = s.feeMode === 'customer' ? s.amount + fee : s.amount;
    return {
      object: 'checkout.fee_quote',
      sessionId: s.id,
      currency: s.currency,
      amount: s.amount,
      fee,
      feeMode: s.feeMode,
      amountTotal,
      merchantReceives: s.feeMode === 'customer' ? s.amount : s.amount - fee,
      paymentMethodType: type,
      operator: operator?.toLowerCase() ?? null,
    };
  }

  async feeQuote(who: Owner, id: string, input: FeeQuoteInput): Promise<CheckoutFeeQuote> {
    const { state } = await this.load(id);
    assertOwned(state.session, who, `No such checkout session: '${id}'`, 'checkoutSessionId');
    return this.quote({ session: state.session }, input);
  }

  /** Where the session holding a single-use link's claim stands (see ClaimHolder). */
  async holderOf(claim: { sessionId: string; at: string }): Promise<ClaimHolder> {
    const { state } = await this.load(claim.sessionId);
    if (!state.session) return 'released';
    const intentStatus = state.paymentIntentId ? (await this.deps.paymentIntents.load(state.paymentIntentId)).state.status : null;
    const payment = paymentStatusOf(intentStatus);
    if (payment === 'paid') return 'paid';
    if (payment === 'processing') return 'paying';
    if (sessionStatus({ canceledAt: state.canceledAt, expiredAt: state.expiredAt, session: state.session }, payment, this.deps.clock.now()) !== 'open') return 'released';
    if (payment === 'failed' || intentStatus === 'canceled') return 'released';
    // Claimed, but the payment never reached the operator (the customer left, the operator was down).
    return this.deps.clock.now().getTime() - Date.parse(claim.at) >= UNSTARTED_CLAIM_MS ? 'released' : 'paying';
  }

  private async claimLink(who: Owner, linkId: string, sessionId: string, actor: Actor): Promise<void> {
    // A lost race is decided again with the winner as the holder: the answer is a claim or a refusal, never a 409 to retry.
    for (let round = 0; ; round++) {
      const { state } = await this.deps.paymentLinks.load(linkId);
      const holder = state.claim && state.claim.sessionId !== sessionId ? await this.holderOf(state.claim) : null;
      try {
        await this.deps.paymentLinks.claim(who, linkId, sessionId, holder, actor);
        return;
      } catch (err) {
        if (!isRefused(err, 'IKW-RES-003') || round >= 20) throw err;
      }
    }
  }

  /**
   * The customer pays: with a payment method the session accepts, the fee added when the customer
   * carries it. A failed attempt is followed by a new intent; an attempt with the operator is
   * answered as it stands (the intent's confirm calls no operator twice).
   */
  async pay(id: string, method: CheckoutPaymentMethod, returnUrl: string | null, actor: Actor, options: { collected?: Record<string, string> } = {}): Promise<CheckoutSessionObject> {
    let state = await loadSession(this, id);
    const s = state.session;
    const who = sessionOwner(state);
    const payment = await this.paymentStatus(state);
    const status = sessionStatus({ canceledAt: state.canceledAt, expiredAt: state.expiredAt, session: s }, payment, this.deps.clock.now());
    if (status !== 'open') throw new Refusal('IKW-CHK-001', `The checkout session is ${status}`, 'sessionId');
    if (payment === 'processing') return this.view(id);
    if (!s.paymentMethodTypes.includes(method.type)) throw new Refusal('IKW-CHK-004', `This session accepts ${s.paymentMethodTypes.join(', ')}, not ${method.type}`, 'paymentMethod.type');
    // The number is checked before a single-use link is claimed or an intent made for it.
    const msisdn = method.type === 'mobile_money' ? normalizeMsisdn(method.mobile_money.msisdn, method.mobile_money.country ?? s.country) : null;
    if (method.type === 'mobile_money' && !msisdn) throw new Refusal('IKW-VAL-007', `Not a valid ${s.country} mobile number`, 'paymentMethod.mobileMoney.msisdn');
    const quote = this.quote(state, method.type === 'mobile_money' ? { paymentMethodType: 'mobile_money', operator: method.mobile_money.operator } : { paymentMethodType: 'card' }, 'paymentMethod.type');
    // Anyone holding the page may pay: the phone it rings is counted before anything is claimed or made.
    if (msisdn) await this.deps.countPublicPush({ environment: s.environment, msisdn, checkoutSessionId: id, link: s.paymentLinkId !== null ? `payment_link:${s.paymentLinkId}` : null });
    if (s.paymentLinkId !== null) {
      const { state: link } = await this.deps.paymentLinks.load(s.paymentLinkId);
      if (link.link?.isSingleUse) await this.claimLink(who, s.paymentLinkId, id, actor);
    }
    let intentId = state.paymentIntentId;
    const current = intentId ? (await this.deps.paymentIntents.load(intentId)).state : null;
    if (current && current.status === 'requires_payment_method' && state.amountTotal !== quote.amountTotal) {
      // The customer chose a method with another fee: this attempt's intent gives way to one for the new total.
      await this.deps.paymentIntents.cancel(who, current.intent!.id, 'abandoned', actor);
    }
    if (!current || current.status !== 'requires_payment_method' || state.amountTotal !== quote.amountTotal) {
      intentId = (await this.attachIntent(state, quote.amountTotal, actor, options.collected)).id;
    }
    const paymentMethod =
      method.type === 'mobile_money' ? { type: 'mobile_money' as const, mobile_money: { country: method.mobile_money.country ?? s.country, operator: method.mobile_money.operator, msisdn: method.mobile_money.msisdn } } : method;
    for (const payee of this.deps.payees()) {
      const target = s.metadata[payee.metadataKey];
      if (typeof target === 'string') await payee.beforeConfirm(who, target, intentId!);
    }
    await this.deps.paymentIntents.confirm(who, intentId!, { payment_method: paymentMethod, return_url: returnUrl ?? s.url }, actor);
    return this.view(id);
  }

  /** The customer gives up: the session ends, and its intent if it can still be canceled. */
  async cancel(id: string, actor: Actor): Promise<CheckoutSessionObject> {
    const state = await loadSession(this, id);
    const who = sessionOwner(state);
    const payment = await this.paymentStatus(state);
    await this.run(id, { type: 'cancel', owner: who, at: this.deps.clock.now(), paymentStatus: payment }, this.meta(who, id, actor));
    await this.releaseIntent(state, who, payment, actor);
    return this.view(id);
  }

  /**
   * POST /api/v1/checkout/sessions/{id}/expire: the merchant ends an open session now, as its
   * lifetime's end would (its `expiresAt` becomes now), and its intent with it if it can still be
   * canceled; the hosted page then says it expired. Another owner's session is not found.
   */
  async expire(who: Owner, id: string, actor: Actor): Promise<CheckoutSessionObject> {
    const { state } = await this.load(id);
    assertOwned(state.session, who, `No such checkout session: '${id}'`, 'checkoutSessionId');
    const payment = await this.paymentStatus(state);
    await this.run(id, { type: 'expire', owner: who, at: this.deps.clock.now(), paymentStatus: payment }, this.meta(who, id, actor));
    await this.releaseIntent(state, who, payment, actor);
    return this.view(id);
  }

  /** The unpaid attempt's intent of a session that ended, canceled when it still can be (nothing reached the operator). */
  private async releaseIntent(state: CheckoutSessionState, who: Owner, payment: CheckoutPaymentStatus, actor: Actor): Promise<void> {
    if (!state.paymentIntentId || payment !== 'unpaid') return;
    const { state: intent } = await this.deps.paymentIntents.load(state.paymentIntentId);
    if (intent.status === 'requires_payment_method') await this.deps.paymentIntents.cancel(who, state.paymentIntentId, 'abandoned', actor);
  }
}
