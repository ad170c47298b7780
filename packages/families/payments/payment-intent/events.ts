import type { PassedOverRail } from '#packages/connectors/port.js';
import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';
import { clearingOf, type RailClearing } from '#packages/ledger/clearing.js';

export type PaymentIntentStatus = 'requires_payment_method' | 'processing' | 'requires_action' | 'succeeded' | 'failed' | 'canceled';

export type PaymentMethodDetails =
  | { type: 'mobile_money'; country: string; operator: string; msisdn: string; preferred_flow?: string }
  /** No token: the payer enters the card on the acquirer's page (a redirect); a token: a saved card. */
  | { type: 'card'; token?: string };

export type NextAction =
  | { type: 'redirect_to_url'; redirect_to_url: { url: string; return_url: string } }
  | { type: 'mobile_money_authorization'; mobile_money_authorization: { instructions: string; expires_at: string } }
  | { type: 'mobile_money_otp'; mobile_money_otp: { instructions: string; expires_at?: string } };

export type CancellationReason = 'duplicate' | 'fraudulent' | 'requested_by_customer' | 'abandoned';
export const CANCELLATION_REASONS: readonly CancellationReason[] = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'];

/** The PaymentIntent as the API returns it; every public event carries it as `object`. */
export interface PaymentIntentObject {
  id: string;
  object: 'payment_intent';
  created: number;
  livemode: boolean;
  amount: number;
  currency: string;
  status: PaymentIntentStatus;
  description: string | null;
  metadata: Record<string, string>;
  next_action: NextAction | null;
  customer: string | null;
  transaction_country: string;
  payer_country: string | null;
  rail_country: string | null;
  payment_method: { type: 'mobile_money'; mobile_money: { country: string; operator: string; msisdn: string } } | { type: 'card'; card: { brand: string; last4: string } } | null;
  last_payment_error: { code: string; message: string } | null;
  latest_operation: string | null;
  return_url: string | null;
  amount_received: number;
  fee: number | null;
  cancellation_reason: CancellationReason | null;
  canceled_at: number | null;
  /** The operator's receipt of a succeeded payment (pawaPay's providerTransactionId), when it gave one; absent otherwise. */
  provider_reference?: string;
}

export interface Created {
  id: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  transactionCountry: string;
  payerCountry: string | null;
  railCountry: string | null;
  description: string | null;
  /** As stored: may hold platform keys, which responses filter out. */
  metadata: Record<string, string>;
  customer: string | null;
  /**
   * False when cards it is paid with must not be kept on its customer: the payer typed the e-mail
   * (or phone) on a public page and it matched a customer this payment did not create. Absent: kept.
   */
  keepsCards?: false;
  createdAt: string;
}

/** Public events carry the resource after the change (`object`), for webhooks and auditors. */
type WithObject<D> = D & { object: PaymentIntentObject };

export type PaymentIntentEvent =
  | DomainEvent<'payment_intent.created', WithObject<Created>>
  | DomainEvent<'payment_intent.updated', WithObject<{ description?: string | null; metadata?: Record<string, string> }>>
  | DomainEvent<
      'payment_intent.confirmation_started',
      // amount, currency and livemode repeat the intent's, for the operation status page's read model.
      // connector: the one carrying it, when it keeps Sika's money in a wallet (its clearing account); absent otherwise and before it was recorded.
      // request: the confirm request that started it (Idempotency-Key and body), when it carried a key.
      // passedOver: the rails that serve the method and that the router passed over for this one (docs/connectors.md, "Health"); absent: none.
      {
        operationId: string;
        paymentMethod: PaymentMethodDetails;
        returnUrl: string;
        startedAt: string;
        amount: number;
        currency: string;
        livemode: boolean;
        instanceId?: number;
        connector?: string;
        request?: string;
        passedOver?: PassedOverRail[];
      }
    >
  // failureCode: the rail's failure when it refused the attempt with one (absent: it could not be asked, `initiation_failed`);
  // at: when, on the service's clock (absent from events recorded before it was kept).
  | DomainEvent<'payment_intent.confirmation_aborted', { operationId: string; reason: string; at?: string; failureCode?: string }>
  | DomainEvent<'payment_intent.processing', WithObject<{ operationId: string }>>
  | DomainEvent<'payment_intent.requires_action', WithObject<{ operationId: string; nextAction: NextAction }>>
  | DomainEvent<'payment_intent.succeeded', WithObject<{ operationId: string; fee: number; at: string; providerReference?: string }>>
  | DomainEvent<'payment_intent.payment_failed', WithObject<{ operationId: string; failureCode: string; failureMessage: string; at: string }>>
  | DomainEvent<'payment_intent.canceled', WithObject<{ reason: CancellationReason | null; at: string }>>
  // Internal: the intent will fund this escrow contract (committed with the contract's submit_funding).
  | DomainEvent<'payment_intent.escrow_assigned', { contractId: string; at: string }>;

export const paymentIntentStream = (id: string) => `payment_intent-${id}`;

/** The ledger account a payment came in through, and a refund of it goes back through. */
export type PayinClearing = 'card_clearing' | `operator_clearing:${string}` | RailClearing;

/** `connector`: what the confirmation recorded as carrying it (its rail's clearing account), if anything. */
export function payinClearing(pm: Pick<PaymentMethodDetails & { type: 'mobile_money' }, 'type' | 'operator'> | { type: 'card' }, connector: string | undefined): PayinClearing {
  return clearingOf(connector, pm.type === 'mobile_money' ? `operator_clearing:${pm.operator}` : 'card_clearing');
}

/** Event types merchants can receive for payment intents (webhooks). */
export const PUBLIC_PAYMENT_INTENT_EVENTS = ['payment_intent.created', 'payment_intent.processing', 'payment_intent.requires_action', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled'] as const;

/** The events that carry the intent (`data.object`): the public ones and `payment_intent.updated`, which has no webhook. */
export const PAYMENT_INTENT_OBJECT_EVENTS = [...PUBLIC_PAYMENT_INTENT_EVENTS, 'payment_intent.updated'] as const;
