import type { AnyStep } from '#packages/eventstore/command-handler.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import type { PayinClearing } from './events.js';
import type { Environment } from '#packages/core/owner.js';

/** A succeeded payment, as the family whose money it is sees it. */
export interface SucceededPayment {
  intent: { id: string; merchantId: string; environment: Environment; amount: number; currency: string; metadata: Record<string, string> };
  fee: number;
  clearing: PayinClearing;
  /** When the merchant's share of it would become available (the environment's settlement delay). */
  availableOn: Date;
  /** The escrow contract the intent's own events say it funds, if any. */
  escrowContract: string | null;
}

/** A succeeded payment a merchant asks to refund. */
export interface RefundedIntent {
  intent: { id: string; merchantId: string; environment: Environment; currency: string; metadata: Record<string, string> };
  escrowContract: string | null;
}

/** The steps committed with a payment's success, and what to do once they are (timers). */
export interface PaymentMoney {
  steps: AnyStep[];
  after: (() => Promise<void>) | null;
}

/**
 * Where a succeeded payment's money goes when it is not simply the merchant's balance: a family
 * that holds or splits payments (a funding campaign, a marketplace order, an escrow contract)
 * registers one. `moneyOf` answers null for a payment that is not its own.
 */
export interface PaymentRecipient {
  readonly name: string;
  moneyOf(payment: SucceededPayment, meta: EventMetadata): Promise<PaymentMoney | null>;
  /**
   * Refuses a merchant's refund of a payment that is its own, naming the way its family refunds
   * it: the money is not in the merchant's available balance, and taking it from there would
   * leave the holder still counting it.
   */
  assertRefundable(payment: RefundedIntent): Promise<void>;
}

/**
 * The recipients payment intents ask, in the order they were registered: the first that claims a
 * payment gives the steps of its success; none, and the payment is posted to the merchant's balance.
 * Families register theirs in their manifests (packages/families), taken once every family is
 * built, so none refers to one built later.
 */
export class PaymentRecipients {
  private readonly registered: PaymentRecipient[] = [];

  register(...recipients: PaymentRecipient[]): void {
    for (const r of recipients) {
      if (this.registered.some((x) => x.name === r.name)) throw new Error(`Payment recipient ${r.name} is registered twice`);
      this.registered.push(r);
    }
  }

  async assertRefundable(payment: RefundedIntent): Promise<void> {
    for (const recipient of this.registered) await recipient.assertRefundable(payment);
  }

  async moneyOf(payment: SucceededPayment, meta: EventMetadata): Promise<PaymentMoney | null> {
    for (const recipient of this.registered) {
      const money = await recipient.moneyOf(payment, meta);
      if (money) return money;
    }
    return null;
  }
}
