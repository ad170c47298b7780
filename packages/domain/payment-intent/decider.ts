import { unixSeconds } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { assertOwned, objectAttacher, present } from '../aggregate.js';
import type { Decider } from '../../core/decider.js';
import { assertMetadataSize, publicMetadata } from './metadata.js';
import type {
  CancellationReason,
  Created,
  NextAction,
  PaymentIntentEvent,
  PaymentIntentObject,
  PaymentIntentStatus,
  PaymentMethodDetails,
} from './events.js';

/** A confirmation whose provider call has not answered within this long is taken to have died. */
export const CONFIRMATION_LEASE_MS = 60_000;

export const CONFIRMATION_IN_PROGRESS = 'Payment intent confirmation is already in progress';

export type InitiationResult =
  | { status: 'processing' }
  | { status: 'requires_action'; nextAction: NextAction }
  | { status: 'failed'; failureCode: string; failureMessage: string };

export type ProviderOutcome =
  | { status: 'succeeded'; fee: number }
  | { status: 'failed'; failureCode: string; failureMessage: string };

import type { Owner } from '../audit.js';

export type { Owner };

export type PaymentIntentCommand =
  | { type: 'create'; intent: Created; at: Date }
  | ({ owner: Owner; at: Date } & (
      | { type: 'update'; description?: string | null; metadata?: Record<string, string> }
      | { type: 'start_confirmation'; operationId: string; paymentMethod: PaymentMethodDetails; returnUrl: string; instanceId?: number; holderGone?: boolean }
      | { type: 'record_initiation'; operationId: string; result: InitiationResult }
      | { type: 'abort_confirmation'; operationId: string; reason: string }
      | { type: 'record_outcome'; operationId: string; outcome: ProviderOutcome }
      | { type: 'cancel'; reason: CancellationReason | null }
    ));

export interface Confirmation {
  operationId: string;
  startedAt: string;
  returnUrl: string;
  /** True between the start of a confirmation and the provider's first answer. */
  inFlight: boolean;
  /** The process that started it: when that process is gone, the confirmation may start again at once. */
  instanceId?: number;
}

export interface PaymentIntentState {
  intent: Created | null;
  status: PaymentIntentStatus;
  description: string | null;
  metadata: Record<string, string>;
  nextAction: NextAction | null;
  paymentMethod: PaymentMethodDetails | null;
  confirmation: Confirmation | null;
  lastError: { code: string; message: string } | null;
  fee: number | null;
  cancellationReason: CancellationReason | null;
  canceledAt: string | null;
  succeeded: boolean;
}

export const initialPaymentIntentState: PaymentIntentState = {
  intent: null,
  status: 'requires_payment_method',
  description: null,
  metadata: {},
  nextAction: null,
  paymentMethod: null,
  confirmation: null,
  lastError: null,
  fee: null,
  cancellationReason: null,
  canceledAt: null,
  succeeded: false,
};

const FINAL: readonly PaymentIntentStatus[] = ['succeeded', 'failed', 'canceled'];

function maskedMethod(pm: PaymentMethodDetails | null): PaymentIntentObject['payment_method'] {
  if (!pm) return null;
  if (pm.type === 'mobile_money') {
    return { type: 'mobile_money', mobile_money: { country: pm.country, operator: pm.operator, msisdn: `••••${pm.msisdn.slice(-4)}` } };
  }
  const brand = pm.token.startsWith('tok_visa') || pm.token === 'tok_3ds_required' ? 'visa' : 'unknown';
  return { type: 'card', card: { brand, last4: brand === 'visa' ? '4242' : '0000' } };
}

/** The public object of a state: what GET returns and what every public event carries. */
export function toObject(state: PaymentIntentState): PaymentIntentObject {
  const i = present(state.intent, 'payment intent');
  return {
    id: i.id,
    object: 'payment_intent',
    created: unixSeconds(new Date(i.createdAt)),
    livemode: i.environment === 'live',
    amount: i.amount,
    currency: i.currency,
    status: state.status,
    description: state.description,
    metadata: publicMetadata(state.metadata),
    next_action: state.status === 'requires_action' ? state.nextAction : null,
    customer: i.customer,
    transaction_country: i.transactionCountry,
    payer_country: i.payerCountry,
    rail_country: i.railCountry,
    payment_method: maskedMethod(state.paymentMethod),
    last_payment_error: state.lastError,
    latest_operation: state.confirmation?.operationId ?? null,
    return_url: state.confirmation?.returnUrl ?? null,
    amount_received: state.succeeded ? i.amount : 0,
    fee: state.fee,
    cancellation_reason: state.cancellationReason,
    canceled_at: state.canceledAt ? unixSeconds(new Date(state.canceledAt)) : null,
  };
}

function leaseExpired(c: Confirmation, at: Date): boolean {
  return at.getTime() - new Date(c.startedAt).getTime() >= CONFIRMATION_LEASE_MS;
}

const withObjects = objectAttacher<PaymentIntentState, PaymentIntentEvent>((state, event) => paymentIntentDecider.evolve(state, event), toObject, ['payment_intent.confirmation_started', 'payment_intent.confirmation_aborted']);

/**
 * The payment intent lifecycle (ARCHITECTURE.md section 4):
 * requires_payment_method → (confirm) → processing | requires_action → succeeded | failed;
 * cancel from requires_payment_method or requires_action. Only one confirmation may be with the
 * provider at a time: that is the "platform-side lock", held in the stream itself.
 */
export const paymentIntentDecider: Decider<PaymentIntentCommand, PaymentIntentState, PaymentIntentEvent> = {
  initialState: initialPaymentIntentState,

  evolve(state, event) {
    switch (event.type) {
      case 'payment_intent.created':
        return { ...state, intent: event.data, description: event.data.description, metadata: event.data.metadata };
      case 'payment_intent.updated':
        return {
          ...state,
          ...(event.data.description !== undefined ? { description: event.data.description } : {}),
          ...(event.data.metadata ? { metadata: { ...state.metadata, ...event.data.metadata } } : {}),
        };
      case 'payment_intent.confirmation_started':
        return {
          ...state,
          status: 'processing',
          paymentMethod: event.data.paymentMethod,
          lastError: null,
          nextAction: null,
          confirmation: { operationId: event.data.operationId, startedAt: event.data.startedAt, returnUrl: event.data.returnUrl, inFlight: true, ...(event.data.instanceId !== undefined ? { instanceId: event.data.instanceId } : {}) },
        };
      case 'payment_intent.confirmation_aborted':
        return { ...state, status: 'requires_payment_method', confirmation: state.confirmation && { ...state.confirmation, inFlight: false } };
      case 'payment_intent.processing':
        return { ...state, status: 'processing', confirmation: state.confirmation && { ...state.confirmation, inFlight: false } };
      case 'payment_intent.requires_action':
        return { ...state, status: 'requires_action', nextAction: event.data.nextAction, confirmation: state.confirmation && { ...state.confirmation, inFlight: false } };
      case 'payment_intent.succeeded':
        return { ...state, status: 'succeeded', succeeded: true, fee: event.data.fee, nextAction: null, confirmation: state.confirmation && { ...state.confirmation, inFlight: false } };
      case 'payment_intent.payment_failed':
        return {
          ...state,
          status: 'failed',
          nextAction: null,
          lastError: { code: event.data.failureCode, message: event.data.failureMessage },
          metadata: { ...state.metadata, FailureReason: event.data.failureCode },
          confirmation: state.confirmation && { ...state.confirmation, inFlight: false },
        };
      case 'payment_intent.canceled':
        return { ...state, status: 'canceled', nextAction: null, cancellationReason: event.data.reason, canceledAt: event.data.at };
    }
  },

  decide(command, state) {
    const at = command.at.toISOString();
    if (command.type === 'create') {
      if (state.intent) throw new ApiError('IKW-RES-003', `Payment intent ${command.intent.id} already exists`);
      return withObjects(state, [{ type: 'payment_intent.created', data: command.intent }]);
    }
    const intent = state.intent;
    assertOwned(intent, command.owner, 'No such payment intent', 'id');
    const op = state.confirmation;

    switch (command.type) {
      case 'update': {
        if (command.metadata) assertMetadataSize({ ...state.metadata, ...command.metadata });
        const data: { description?: string | null; metadata?: Record<string, string> } = {};
        if (command.description !== undefined) data.description = command.description;
        if (command.metadata !== undefined) data.metadata = command.metadata;
        return withObjects(state, [{ type: 'payment_intent.updated', data }]);
      }
      case 'start_confirmation': {
        if (state.status === 'canceled') throw new ApiError('IKW-RES-002', 'This payment intent is canceled and cannot be confirmed');
        // The lock holds while its process lives and the lease runs; a dead holder frees it at once.
        if (op?.inFlight && !leaseExpired(op, command.at) && !command.holderGone) throw new ApiError('IKW-RES-003', CONFIRMATION_IN_PROGRESS);
        // Already with the provider or final: the caller returns the current object and calls no provider.
        if (state.status !== 'requires_payment_method' && !op?.inFlight) return [];
        return withObjects(state, [
          {
            type: 'payment_intent.confirmation_started',
            data: {
              operationId: command.operationId,
              paymentMethod: command.paymentMethod,
              returnUrl: command.returnUrl,
              startedAt: at,
              amount: intent.amount,
              currency: intent.currency,
              livemode: intent.environment === 'live',
              ...(command.instanceId !== undefined ? { instanceId: command.instanceId } : {}),
            },
          },
        ]);
      }
      case 'record_initiation': {
        if (!op || op.operationId !== command.operationId || !op.inFlight || FINAL.includes(state.status)) return [];
        const r = command.result;
        if (r.status === 'processing') return withObjects(state, [{ type: 'payment_intent.processing', data: { operationId: op.operationId } }]);
        if (r.status === 'requires_action') {
          return withObjects(state, [{ type: 'payment_intent.requires_action', data: { operationId: op.operationId, nextAction: r.nextAction } }]);
        }
        return withObjects(state, [
          { type: 'payment_intent.payment_failed', data: { operationId: op.operationId, failureCode: r.failureCode, failureMessage: r.failureMessage, at } },
        ]);
      }
      case 'abort_confirmation':
        if (!op || op.operationId !== command.operationId || !op.inFlight) return [];
        return withObjects(state, [{ type: 'payment_intent.confirmation_aborted', data: { operationId: op.operationId, reason: command.reason } }]);
      case 'record_outcome': {
        // Late or repeated callbacks, and callbacks of an older operation, change nothing.
        if (!op || op.operationId !== command.operationId || FINAL.includes(state.status) || state.status === 'requires_payment_method') return [];
        const o = command.outcome;
        if (o.status === 'succeeded') return withObjects(state, [{ type: 'payment_intent.succeeded', data: { operationId: op.operationId, fee: o.fee, at } }]);
        return withObjects(state, [
          { type: 'payment_intent.payment_failed', data: { operationId: op.operationId, failureCode: o.failureCode, failureMessage: o.failureMessage, at } },
        ]);
      }
      case 'cancel': {
        if (op?.inFlight && !leaseExpired(op, command.at)) throw new ApiError('IKW-RES-003', CONFIRMATION_IN_PROGRESS);
        if (state.status !== 'requires_payment_method' && state.status !== 'requires_action') {
          throw new ApiError('IKW-RES-002', `A payment intent with status ${state.status} cannot be canceled`);
        }
        return withObjects(state, [{ type: 'payment_intent.canceled', data: { reason: command.reason, at } }]);
      }
    }
  },
};
