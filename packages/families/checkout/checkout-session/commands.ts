import { normalizeMsisdn, normalizePhone, quoteFee } from '../../../catalog/index.js';
import type { Clock } from '../../../core/clock.js';
import { isRefused, Refusal } from '../../../core/refusal.js';
import { assertLiveCanTakeMoney, type ActivationGate } from '../../platform/index.js';
import { derivedId, newId } from '../../../core/ids.js';
import type { EventStore } from '../../../eventstore/port.js';
import { CommandService } from '../../../eventstore/command-handler.js';
import { assertOwned, isOwned } from '../../../core/aggregate.js';
import type { PaymentIntents } from '../../payments/index.js';
import type { PaymentIntentObject } from '../../payments/index.js';
import { assertOpen as assertLinkOpen, type ClaimHolder } from '../payment-link/decider.js';
import type { PaymentLinks } from '../payment-link/commands.js';
import type { CountPublicPush } from '../../../core/public-pushes.js';
import { collectible, type CheckoutMethodType, type FeeMode } from './amount.js';
import { checkoutSessionDecider, paymentStatusOf, sessionStatus, type CheckoutSessionCommand, type CheckoutSessionState } from './decider.js';
import { toCheckoutSessionObject } from './render.js';
import { checkoutSessionStream, type CheckoutPaymentStatus, type CheckoutSessionEvent, type CheckoutSessionObject } from './events.js';
import type { Actor, Owner } from '../../../core/owner.js';
import { auditMetadata } from '../../../eventstore/metadata.js';

/** Sessions expire 24 h after they are opened. */
export const SESSION_LIFETIME_MS = 24 * 3_600_000;
/** A claim on a single-use link whose payment never reached the operator is let go after this. */
export const UNSTARTED_CLAIM_MS = 15 * 60_000;
/** Metadata keys the intents of a session carry, so the merchant finds the session from the payment. */
export const SESSION_METADATA_KEY = 'checkout_session_id';
export const LINK_METADATA_KEY = 'payment_link_id';
/** How many sessions one payee (an invoice) may have opened in turn, each ended before the next. */
const MAX_PAYEE_ROUNDS = 1000;

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

/**
 * Checkout sessions: a hosted payment of a fixed amount, by the merchant's API call or a payment
 * link. The session makes payment intents (one per attempt) and confirms them with what the
 * customer chose on the page; a single-use link is claimed first, so it takes one payment only.
 */
export class CheckoutSessions extends CommandService<CheckoutSessionCommand, CheckoutSessionState, CheckoutSessionEvent> {
  constructor(private readonly deps: CheckoutSessionDeps) {
    super(deps.store, checkoutSessionStream, checkoutSessionDecider);
  }

  private meta(who: Owner, id: string, actor: Actor) {
    return auditMetadata(this.deps.clock, who, id, actor);
  }

  /** The latest attempt's intent status, as the session's commands and views need it. */
  private async paymentStatus(state: CheckoutSessionState): Promise<CheckoutPaymentStatus> {
    if (!state.paymentIntentId) return 'unpaid';
    const { state: intent } = await this.deps.paymentIntents.load(state.paymentIntentId);
    return paymentStatusOf(intent.intent ? intent.status : null);
  }

  /** The session of this id, whoever asks (the hosted page and its API know only the unguessable id). */
  private async loadSession(id: string): Promise<CheckoutSessionState & { session: NonNullable<CheckoutSessionState['session']> }> {
    const { state } = await this.load(id);
    if (!state.session) throw new Refusal('IKW-RES-001', `No such checkout session: '${id}'`, 'sessionId');
    return state as CheckoutSessionState & { session: NonNullable<CheckoutSessionState['session']> };
  }

  private ownerOf(state: { session: { merchantId: string; environment: Owner['environment'] } }): Owner {
    return { merchantId: state.session.merchantId, environment: state.session.environment };
  }

  async view(id: string): Promise<CheckoutSessionObject> {
    const state = await this.loadSession(id);
    return toCheckoutSessionObject(state, await this.paymentStatus(state), this.deps.clock.now());
  }

  /** POST /api/v1/checkout/sessions: with an amount of its own, or for a payment link (whose amount it takes). */
  async create(who: Owner, input: CreateSessionInput, actor: Actor, requestRef?: string): Promise<CheckoutSessionObject> {
    await assertLiveCanTakeMoney(this.deps.activations, who);
    if (input.paymentLinkId != null && input.paymentLinkV2Id != null && input.paymentLinkId !== input.paymentLinkV2Id) {
      throw new Refusal('IKW-VAL-002', 'Give paymentLinkId or paymentLinkV2Id, not two different links', 'paymentLinkV2Id');
    }
    const linkId = input.paymentLinkId ?? input.paymentLinkV2Id ?? null;
    const id = requestRef === undefined ? newId('cs') : derivedId('cs', `${who.merchantId}|${who.environment}|${requestRef}`);
    if (linkId !== null) {
      for (const field of ['amount', 'currency', 'country'] as const) {
        if (input[field] !== undefined) throw new Refusal('IKW-VAL-002', `${field} comes from the payment link; do not send it with paymentLinkId`, field);
      }
      return this.openForLink(who, linkId, input, actor, id);
    }
    for (const field of ['amount', 'currency', 'country'] as const) {
      if (input[field] === undefined) throw new Refusal('IKW-VAL-001', `Missing required parameter: ${field}`, field);
    }
    const money = collectible(input.amount!, input.currency!, input.country!);
    return this.open(who, { ...money, description: null, feeMode: 'merchant', linkId: null, paymentMethodTypes: input.paymentMethodTypes ?? ['mobile_money'] }, input, actor, id);
  }

  /**
   * GET /pay/{slug}: the session this browser opened for the link (`remembered`, from its cookie)
   * while it is still open, so that visits do not open a session each; else a new one.
   */
  async visitLink(who: Owner, linkId: string, remembered: string | null, actor: Actor): Promise<CheckoutSessionObject> {
    const { claim } = await this.fromLink(who, linkId);
    const { state } = remembered ? await this.load(remembered) : { state: null };
    const s = state?.session;
    if (state && isOwned(s, who) && s.paymentLinkId === linkId) {
      const view = toCheckoutSessionObject(state, await this.paymentStatus(state), this.deps.clock.now());
      // A single-use link paid (through any session) takes no more: openForLink says so.
      if (view.status === 'open' && !(claim && (await this.holderOf(claim)) === 'paid')) return view;
    }
    return this.openForLink(who, linkId, {}, actor);
  }

  /** A new session for the link, deferred (intents are made when the customer pays). */
  async openForLink(who: Owner, linkId: string, input: CreateSessionInput, actor: Actor, id = newId('cs')): Promise<CheckoutSessionObject> {
    const { link, claim } = await this.fromLink(who, linkId);
    if (claim && (await this.holderOf(claim)) === 'paid') throw new Refusal('IKW-CHK-003', 'This single-use payment link has already been paid', 'paymentLinkId');
    return this.open(
      who,
      { amount: link.amount, currency: link.currency, country: link.country, description: link.description, feeMode: link.feeMode, linkId, paymentMethodTypes: input.paymentMethodTypes ?? link.paymentMethodTypes },
      { successUrl: link.successUrl, cancelUrl: link.cancelUrl, ...input, deferPaymentIntentCreation: true },
      actor,
      id,
    );
  }

  /**
   * The session that pays another family's object (an invoice's hosted page): one open session per
   * object (and `scope`: an invoice's, the payer's country) at a time, named by the object and a round, so every browser and every click lands on the
   * same session and its attempts (one intent in flight, confirmed once). A round that ended
   * (canceled, expired, complete) gives way to the next.
   */
  async openForPayee(
    who: Owner,
    payee: { metadataKey: string; id: string; scope?: string },
    fixed: {
      amount: number;
      currency: string;
      country: string;
      description: string | null;
      paymentMethodTypes: CheckoutMethodType[];
      successUrl: string;
      cancelUrl: string;
      customerEmail: string | null;
      metadata: Record<string, string>;
    },
    actor: Actor,
  ): Promise<CheckoutSessionObject> {
    for (let round = 0, lost = 0; round < MAX_PAYEE_ROUNDS; round++) {
      const id = derivedId('cs', `${who.merchantId}|${who.environment}|payee|${payee.metadataKey}|${payee.id}|${payee.scope ?? ''}|${round}`);
      const { state } = await this.load(id);
      if (state.session) {
        const view = toCheckoutSessionObject(state, await this.paymentStatus(state), this.deps.clock.now());
        if (view.status === 'open') return view;
        continue;
      }
      try {
        return await this.open(
          who,
          { amount: fixed.amount, currency: fixed.currency, country: fixed.country, description: fixed.description, feeMode: 'merchant', linkId: null, paymentMethodTypes: fixed.paymentMethodTypes },
          { successUrl: fixed.successUrl, cancelUrl: fixed.cancelUrl, customerEmail: fixed.customerEmail, metadata: { ...fixed.metadata, [payee.metadataKey]: payee.id }, deferPaymentIntentCreation: true },
          actor,
          id,
        );
      } catch (err) {
        // Another browser opened this round's session at the same moment: look at it again.
        if (!isRefused(err, 'IKW-RES-003') || ++lost > 5) throw err;
        round--;
      }
    }
    throw new Refusal('IKW-CHK-001', 'Too many checkout sessions were opened for this payment', 'sessionId');
  }

  /** The caller's link, open for payments, with its single-use claim. */
  private async fromLink(who: Owner, linkId: string) {
    const { state } = await this.deps.paymentLinks.load(linkId);
    const link = state.link;
    assertOwned(link, who, `No such payment link: '${linkId}'`, 'paymentLinkId');
    assertLinkOpen(state, this.deps.clock.now());
    return { link, claim: state.claim };
  }

  private async open(
    who: Owner,
    fixed: { amount: number; currency: string; country: string; description: string | null; feeMode: FeeMode; linkId: string | null; paymentMethodTypes: CheckoutMethodType[] },
    input: CreateSessionInput,
    actor: Actor,
    id: string,
  ): Promise<CheckoutSessionObject> {
    let customerPhone: string | null = null;
    if (input.customerPhone != null) {
      customerPhone = normalizePhone(input.customerPhone, fixed.country);
      if (!customerPhone) throw new Refusal('IKW-VAL-007', 'customerPhone is not a valid phone number (international, or national in the session country)', 'customerPhone');
    }
    const { state: earlier } = await this.load(id);
    const now = this.deps.clock.now();
    // A retried request (same Idempotency-Key and body) carries on with the session its first attempt made.
    if (!earlier.session) {
      await this.run(
        id,
        {
          type: 'create',
          session: {
            id,
            merchantId: who.merchantId,
            environment: who.environment,
            amount: fixed.amount,
            currency: fixed.currency,
            country: fixed.country,
            description: fixed.description,
            paymentMethodTypes: [...new Set(fixed.paymentMethodTypes)],
            successUrl: input.successUrl ?? null,
            cancelUrl: input.cancelUrl ?? null,
            customerEmail: input.customerEmail ?? null,
            customerPhone,
            paymentLinkId: fixed.linkId,
            feeMode: fixed.feeMode,
            deferPaymentIntentCreation: input.deferPaymentIntentCreation ?? false,
            metadata: input.metadata ?? {},
            url: `${this.deps.publicUrl}/checkout/session/${id}`,
            expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString(),
            createdAt: now.toISOString(),
          },
        },
        this.meta(who, id, actor),
      );
    }
    const state = await this.loadSession(id);
    if (!state.session.deferPaymentIntentCreation && state.attempt === 0) await this.attachIntent(state, state.session.amount, actor);
    return this.view(id);
  }

  /** A new attempt: its payment intent (named by session and attempt, so racing requests make one) attached to the session. */
  private async attachIntent(state: Awaited<ReturnType<CheckoutSessions['loadSession']>>, amountTotal: number, actor: Actor, collected: Record<string, string> = {}): Promise<PaymentIntentObject> {
    const s = state.session;
    const who = this.ownerOf(state);
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
  private async holderOf(claim: { sessionId: string; at: string }): Promise<ClaimHolder> {
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
    let state = await this.loadSession(id);
    const s = state.session;
    const who = this.ownerOf(state);
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
      method.type === 'mobile_money'
        ? { type: 'mobile_money' as const, mobile_money: { country: method.mobile_money.country ?? s.country, operator: method.mobile_money.operator, msisdn: method.mobile_money.msisdn } }
        : method;
    for (const payee of this.deps.payees()) {
      const target = s.metadata[payee.metadataKey];
      if (typeof target === 'string') await payee.beforeConfirm(who, target, intentId!);
    }
    await this.deps.paymentIntents.confirm(who, intentId!, { payment_method: paymentMethod, return_url: returnUrl ?? s.url }, actor);
    return this.view(id);
  }

  /** The customer gives up: the session ends, and its intent if it can still be canceled. */
  async cancel(id: string, actor: Actor): Promise<CheckoutSessionObject> {
    const state = await this.loadSession(id);
    const who = this.ownerOf(state);
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
