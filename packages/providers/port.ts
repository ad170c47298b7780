import type { Environment } from '../domain/merchant/events.js';
import type { InitiationResult } from '../domain/payment-intent/decider.js';
import type { PaymentMethodDetails } from '../domain/payment-intent/events.js';
import type { DelayReason } from '../domain/payout/events.js';
import type { Destination } from '../domain/payout-method/events.js';

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

/** A disbursement; `payoutId` is the idempotency key with the operator or bank. */
export interface PayoutRequest {
  payoutId: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  destination: Destination;
}

export type PayoutInitiation = { status: 'accepted' } | { status: 'rejected'; failureCode: string; failureMessage: string };

/** What an operator reports later about a payout: trouble (the delay overlay), or the final result. */
export type PayoutReport = { type: 'delayed'; reason: DelayReason } | { type: 'paid' } | { type: 'failed'; failureCode: string; failureMessage: string };

export interface PayoutCallback {
  payoutId: string;
  merchantId: string;
  environment: Environment;
  report: PayoutReport;
}

/**
 * The port every connector implements (sandbox simulator, and per-operator live connectors).
 * Initiation answers at once with the first state; later news arrives through the callback sinks
 * the connector was built with.
 */
export interface PaymentProvider {
  /** Throws an ApiError (IKW-PRV-001 or a validation code) when it cannot take this payment method. */
  assertCanCollect(paymentMethod: PaymentMethodDetails): void;
  initiatePayin(request: PayinRequest): Promise<InitiationResult>;
  /** Throws IKW-PRV-001 when no connector can pay out to this destination. */
  assertCanPayOut(destination: Destination): void;
  initiatePayout(request: PayoutRequest): Promise<PayoutInitiation>;
}

/** Where connectors deliver news: at `at`, the callback is applied (durably scheduled). */
export interface CallbackSinks {
  payin(callback: PayinCallback, at: Date): Promise<void>;
  payout(callback: PayoutCallback, at: Date): Promise<void>;
}
