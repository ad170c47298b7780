import type { Environment } from '../domain/merchant/events.js';
import type { InitiationResult } from '../domain/payment-intent/decider.js';
import type { PaymentMethodDetails } from '../domain/payment-intent/events.js';

/** What an operator or acquirer is asked to collect. `operationId` is the idempotency key with it. */
export interface PayinRequest {
  operationId: string;
  paymentIntentId: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  paymentMethod: PaymentMethodDetails;
  returnUrl: string;
}

/** A final answer that arrives later (operator callback, sandbox timer). */
export type PayinOutcome = { status: 'succeeded' } | { status: 'failed'; failureCode: string; failureMessage: string };

export interface PayinCallback {
  paymentIntentId: string;
  operationId: string;
  merchantId: string;
  environment: Environment;
  outcome: PayinOutcome;
}

/**
 * The port every connector implements (sandbox simulator, and per-operator live connectors).
 * `initiatePayin` answers at once with the first state; the final outcome arrives through the
 * callback sink the connector was built with.
 */
export interface PaymentProvider {
  /** Throws an ApiError (IKW-PRV-001 or a validation code) when it cannot take this payment method. */
  assertCanCollect(paymentMethod: PaymentMethodDetails): void;
  initiatePayin(request: PayinRequest): Promise<InitiationResult>;
}

/** Where connectors deliver outcomes: at `at`, the callback is applied (durably scheduled). */
export type PayinCallbackSink = (callback: PayinCallback, at: Date) => Promise<void>;
