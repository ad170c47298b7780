import type { Fact } from '#packages/core/decider.js';
import { randomBase62, newUuid } from '#packages/core/ids.js';
import type { Clock } from '#packages/core/clock.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { collectible, type CheckoutMethodType, type FeeMode } from '../checkout-session/amount.js';
import type { ClaimHolder, PaymentLinkCommand, PaymentLinkState } from './decider.js';
import { paymentLinkAggregate, toPaymentLinkObject } from './render.js';
import { paymentLinkStream, type PaymentLinkEvent, type PaymentLinkObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertLiveCanTakeMoney, type ActivationGate } from '#packages/families/platform/index.js';

export interface CreatePaymentLinkInput {
  amount: number;
  currency: string;
  country: string;
  feeMode?: FeeMode;
  description?: string | null;
  paymentMethodTypes?: CheckoutMethodType[];
  expiresAt?: string | null;
  isSingleUse?: boolean;
  successUrl?: string | null;
  cancelUrl?: string | null;
}

/** Slugs are 16 base62 characters (~95 bits): a link's URL cannot be guessed from another's. */
const SLUG_LENGTH = 16;

/** Payment links: a fixed amount anyone with the URL can pay through a hosted checkout page. */
export class PaymentLinks extends CommandService<PaymentLinkCommand, PaymentLinkState, Fact<PaymentLinkEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock; publicUrl: string; activations: ActivationGate }) {
    super(deps.store, paymentLinkStream, paymentLinkAggregate);
  }

  /** A live link only once live is open (IKW-ACT-005, IKW-ACT-006): a payer could not pay it before. */
  async create(who: Owner, input: CreatePaymentLinkInput, actor: Actor): Promise<PaymentLinkObject> {
    await assertLiveCanTakeMoney(this.deps.activations, who);
    const money = collectible(input.amount, input.currency, input.country);
    const now = this.deps.clock.now();
    if (input.expiresAt != null && Date.parse(input.expiresAt) <= now.getTime()) {
      throw new Refusal('IKW-VAL-001', 'expiresAt must be in the future', 'expiresAt');
    }
    const id = newUuid();
    const slug = randomBase62(SLUG_LENGTH);
    const result = await this.run(
      id,
      {
        type: 'create',
        link: {
          id,
          merchantId: who.merchantId,
          environment: who.environment,
          slug,
          url: `${this.deps.publicUrl}/pay/${slug}`,
          ...money,
          feeMode: input.feeMode ?? 'merchant',
          description: input.description ?? null,
          paymentMethodTypes: [...new Set<CheckoutMethodType>(input.paymentMethodTypes ?? ['mobile_money'])],
          expiresAt: input.expiresAt != null ? new Date(input.expiresAt).toISOString() : null,
          isSingleUse: input.isSingleUse ?? false,
          successUrl: input.successUrl ?? null,
          cancelUrl: input.cancelUrl ?? null,
          createdAt: now.toISOString(),
        },
      },
      auditMetadata(this.deps.clock, who, id, actor),
    );
    return toPaymentLinkObject(result.state);
  }

  async deactivate(who: Owner, id: string, actor: Actor): Promise<PaymentLinkObject> {
    const result = await this.run(id, { type: 'deactivate', owner: who, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, who, id, actor));
    return toPaymentLinkObject(result.state);
  }

  /**
   * A session takes a single-use link for a payment attempt. `holder` is where the session holding
   * the claim now stands; the append is guarded by the version read, so of racing sessions one
   * wins and the others are refused (a lost race is decided again, on the state that won).
   */
  claim(who: Owner, id: string, sessionId: string, holder: ClaimHolder | null, actor: Actor) {
    return this.run(id, { type: 'claim', owner: who, at: this.deps.clock.now(), sessionId, holder }, auditMetadata(this.deps.clock, who, id, actor));
  }
}
