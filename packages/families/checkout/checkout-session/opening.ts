import { normalizePhone } from '#packages/catalog/index.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { assertLiveCanTakeMoney } from '#packages/families/platform/index.js';
import { derivedId, newId } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { assertOwned, isOwned } from '#packages/core/aggregate.js';
import { assertOpen as assertLinkOpen } from '../payment-link/decider.js';
import { collectible, type CheckoutMethodType, type FeeMode } from './amount.js';
import { checkoutSessionDecider, type CheckoutSessionCommand, type CheckoutSessionState } from './decider.js';
import { toCheckoutSessionObject } from './render.js';
import { checkoutSessionStream, type CheckoutSessionEvent, type CheckoutSessionObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { loadSession, paymentStatus, SESSION_LIFETIME_MS, type CheckoutSessionDeps, type CheckoutSessionPayments, type CreateSessionInput } from './commands.js';

/** How many sessions one payee (an invoice) may have opened in turn, each ended before the next. */
const MAX_PAYEE_ROUNDS = 1000;

/**
 * Checkout sessions opened: a hosted payment of a fixed amount, by the merchant's API call, a
 * payment link's page or another family's object (an invoice). A session that makes its intent at
 * once has its first attempt made by `CheckoutSessionPayments` (commands.ts), which is passed in.
 */
export class CheckoutSessionOpening extends CommandService<CheckoutSessionCommand, CheckoutSessionState, CheckoutSessionEvent> {
  constructor(private readonly deps: Pick<CheckoutSessionDeps, 'store' | 'clock' | 'publicUrl' | 'paymentIntents' | 'paymentLinks' | 'activations'> & { payments: CheckoutSessionPayments }) {
    super(deps.store, checkoutSessionStream, checkoutSessionDecider);
  }

  private meta(who: Owner, id: string, actor: Actor) {
    return auditMetadata(this.deps.clock, who, id, actor);
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
      const view = toCheckoutSessionObject(state, await paymentStatus(this.deps.paymentIntents, state), this.deps.clock.now());
      // A single-use link paid (through any session) takes no more: openForLink says so.
      if (view.status === 'open' && !(claim && (await this.deps.payments.holderOf(claim)) === 'paid')) return view;
    }
    return this.openForLink(who, linkId, {}, actor);
  }

  /** A new session for the link, deferred (intents are made when the customer pays). */
  async openForLink(who: Owner, linkId: string, input: CreateSessionInput, actor: Actor, id = newId('cs')): Promise<CheckoutSessionObject> {
    const { link, claim } = await this.fromLink(who, linkId);
    if (claim && (await this.deps.payments.holderOf(claim)) === 'paid') throw new Refusal('IKW-CHK-003', 'This single-use payment link has already been paid', 'paymentLinkId');
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
        const view = toCheckoutSessionObject(state, await paymentStatus(this.deps.paymentIntents, state), this.deps.clock.now());
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
    const state = await loadSession(this, id);
    if (!state.session.deferPaymentIntentCreation && state.attempt === 0) await this.deps.payments.attachIntent(state, state.session.amount, actor);
    return this.deps.payments.view(id);
  }
}
