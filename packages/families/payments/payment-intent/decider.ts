import type { CollectRequest, PassedOverRail } from '#packages/connectors/port.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import { assertMetadataSize } from './metadata.js';
import type { CancellationReason, Created, NextAction, PaymentIntentEvent, PaymentIntentStatus, PaymentMethodDetails } from './events.js';
import type { Owner } from '#packages/core/owner.js';

/** A confirmation whose provider call has not answered within this long is taken to have died. */
export const CONFIRMATION_LEASE_MS = 60_000;

export const CONFIRMATION_IN_PROGRESS = 'Payment intent confirmation is already in progress';

export type InitiationResult = { status: 'processing' } | { status: 'requires_action'; nextAction: NextAction } | { status: 'failed'; failureCode: string; failureMessage: string };

export type ProviderOutcome = { status: 'succeeded'; fee: number; providerReference?: string } | { status: 'failed'; failureCode: string; failureMessage: string };

export type PaymentIntentCommand =
  | { type: 'create'; intent: Created; at: Date }
  | ({ owner: Owner; at: Date } & (
      | { type: 'update'; description?: string | null; metadata?: Record<string, string> }
      | { type: 'start_confirmation'; operationId: string; paymentMethod: PaymentMethodDetails; returnUrl: string; instanceId?: number; holderGone?: boolean; connector?: string; request?: string; passedOver?: PassedOverRail[] }
      | { type: 'record_initiation'; operationId: string; result: InitiationResult }
      /** The provider's answer to the payer's one-time code (submit_otp), for an intent waiting for one. */
      | { type: 'record_otp'; operationId: string; result: InitiationResult }
      /** `failureCode`: the rail's own failure, when it answered one (a refusal the payment is tried again elsewhere after). */
      | { type: 'abort_confirmation'; operationId: string; reason: string; failureCode?: string }
      | { type: 'record_outcome'; operationId: string; outcome: ProviderOutcome }
      | { type: 'cancel'; reason: CancellationReason | null }
      /** The intent will fund an escrow contract: its payment goes to the contract's escrow (docs/escrow.md). */
      | { type: 'assign_escrow'; contractId: string }
    ));

export interface Confirmation {
  operationId: string;
  startedAt: string;
  returnUrl: string;
  /** True between the start of a confirmation and the provider's first answer. */
  inFlight: boolean;
  /** The process that started it: when that process is gone, the confirmation may start again at once. */
  instanceId?: number;
  /** The connector carrying it, when it keeps Sika's money in a wallet: the payment's clearing account is that rail's. */
  connector?: string;
  /** The request that started it (its Idempotency-Key with the body's fingerprint): its retry answers this confirmation. */
  request?: string;
}

/**
 * The collection request of a confirmation already started, as its rail knows it: what a status
 * check, a resend or the payer's one-time code asks about (the request that started it carries the
 * same, and any code the payer gave before paying).
 */
export function collectRequestOf(intent: Created, op: Confirmation, paymentMethod: PaymentMethodDetails, payer?: CollectRequest['payer'] | null): CollectRequest {
  return {
    operationId: op.operationId,
    paymentIntentId: intent.id,
    merchantId: intent.merchantId,
    environment: intent.environment,
    amount: intent.amount,
    currency: intent.currency,
    paymentMethod,
    returnUrl: op.returnUrl,
    ...(payer ? { payer } : {}),
    ...(op.connector !== undefined ? { connector: op.connector } : {}),
  };
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
  /** The operator's receipt of the success, when it gave one. */
  providerReference?: string;
  /** The escrow contract this intent funds, set before its confirmation; null for intents submitted before this was recorded (the contracts' read model names them). */
  escrowContract: string | null;
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
  escrowContract: null,
};

function leaseExpired(c: Confirmation, at: Date): boolean {
  return at.getTime() - new Date(c.startedAt).getTime() >= CONFIRMATION_LEASE_MS;
}

type OngoingCommand = Exclude<PaymentIntentCommand, { type: 'create' }>;

const ALL_STATUSES: readonly PaymentIntentStatus[] = ['requires_payment_method', 'processing', 'requires_action', 'succeeded', 'failed', 'canceled'];

/**
 * The statuses in which each command acts (docs/payments.md). Outside them a command
 * changes nothing (provider news that comes late or twice, a confirm of an intent already with the
 * provider or final: the caller answers with the current object), except cancel, which is refused,
 * and a confirm of a canceled intent. `processing` admits a confirm only to take over a
 * confirmation whose holder died or whose lease ran out.
 */
export const PAYMENT_INTENT_TRANSITIONS: Readonly<Record<OngoingCommand['type'], readonly PaymentIntentStatus[]>> = {
  update: ALL_STATUSES, // description and metadata only
  start_confirmation: ['requires_payment_method', 'processing'], // → processing
  record_initiation: ['processing'], // → processing | requires_action | failed
  record_otp: ['requires_action'], // with next action mobile_money_otp → processing | failed (requires_action again: nothing)
  abort_confirmation: ['processing'], // → requires_payment_method
  record_outcome: ['processing', 'requires_action'], // → succeeded | failed
  cancel: ['requires_payment_method', 'requires_action'], // → canceled
  assign_escrow: ['requires_payment_method'], // only before its payment can reach any balance
};

/**
 * Whether a confirm meets an intent that is already with the provider or final (processing and
 * no longer in flight, requires_action, succeeded, failed): it answers the current object and
 * calls no provider, whatever payment method it carries.
 */
export function confirmedAlready(state: PaymentIntentState): boolean {
  if (state.status === 'processing') return !state.confirmation?.inFlight;
  return state.status !== 'requires_payment_method' && state.status !== 'canceled';
}

/** A confirmation with the provider, whose process lives and whose lease runs: the platform-side lock. */
function confirmationHeld(op: Confirmation | null, at: Date, holderGone = false): boolean {
  return !!op?.inFlight && !leaseExpired(op, at) && !holderGone;
}

function decideCreate(command: Extract<PaymentIntentCommand, { type: 'create' }>, state: PaymentIntentState): Fact<PaymentIntentEvent>[] {
  if (state.intent) throw new Refusal('IKW-RES-003', `Payment intent ${command.intent.id} already exists`);
  return [{ type: 'payment_intent.created', data: command.intent }];
}

/** What a command meets outside its statuses: a refusal, or nothing to do. */
function refuseOrIgnore(command: OngoingCommand, state: PaymentIntentState): [] {
  if (command.type === 'cancel') throw new Refusal('IKW-RES-002', `A payment intent with status ${state.status} cannot be canceled`);
  if (command.type === 'start_confirmation' && state.status === 'canceled') throw new Refusal('IKW-RES-002', 'This payment intent is canceled and cannot be confirmed');
  if (command.type === 'record_otp') throw new Refusal('IKW-RES-002', otpRefusal(state.status));
  if (command.type === 'assign_escrow') throw new Refusal('IKW-ESC-002', `The payment intent is ${state.status}; only one not yet confirmed can fund a contract`, 'paymentIntentId');
  return [];
}

/** Why an intent takes no one-time code now. */
export function otpRefusal(status: PaymentIntentStatus): string {
  return `This payment intent waits for no one-time code (it is ${status}${status === 'requires_action' ? ', for another action' : ''})`;
}

/** Whether the intent waits for the payer's one-time code (submit_otp). */
export function awaitsOtp(state: PaymentIntentState): boolean {
  return state.status === 'requires_action' && state.nextAction?.type === 'mobile_money_otp';
}

/** A provider's answer about the confirmation in flight: processing, requires_action or failed. */
function decideInitiation(result: InitiationResult, operationId: string, at: string): Fact<PaymentIntentEvent>[] {
  switch (result.status) {
    case 'processing':
      return [{ type: 'payment_intent.processing', data: { operationId } }];
    case 'requires_action':
      return [{ type: 'payment_intent.requires_action', data: { operationId, nextAction: result.nextAction } }];
    case 'failed':
      return [{ type: 'payment_intent.payment_failed', data: { operationId, failureCode: result.failureCode, failureMessage: result.failureMessage, at } }];
  }
}

/** One decision per command, on an intent that exists, is the owner's and is in a status the command acts in. */
function decideOngoing(command: OngoingCommand, state: PaymentIntentState, intent: Created): Fact<PaymentIntentEvent>[] {
  const at = command.at.toISOString();
  const op = state.confirmation;
  // Provider news of another (older) operation, or of none, changes nothing.
  const aboutCurrent = (operationId: string) => op !== null && op.operationId === operationId;
  switch (command.type) {
    case 'update': {
      if (command.metadata) assertMetadataSize({ ...state.metadata, ...command.metadata });
      const data: { description?: string | null; metadata?: Record<string, string> } = {};
      if (command.description !== undefined) data.description = command.description;
      if (command.metadata !== undefined) data.metadata = command.metadata;
      return [{ type: 'payment_intent.updated', data }];
    }
    case 'start_confirmation':
      if (confirmationHeld(op, command.at, command.holderGone)) throw new Refusal('IKW-RES-003', CONFIRMATION_IN_PROGRESS);
      if (confirmedAlready(state)) return [];
      return [
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
            ...(command.connector !== undefined ? { connector: command.connector } : {}),
            ...(command.request !== undefined ? { request: command.request } : {}),
            ...(command.passedOver?.length ? { passedOver: command.passedOver } : {}),
          },
        },
      ];
    case 'record_initiation':
      return aboutCurrent(command.operationId) && op!.inFlight ? decideInitiation(command.result, command.operationId, at) : [];
    case 'record_otp':
      if (!awaitsOtp(state) || !aboutCurrent(command.operationId)) throw new Refusal('IKW-RES-002', otpRefusal(state.status));
      // Still waiting for a code (a conflict answered from the provider's record): nothing changes.
      if (command.result.status === 'requires_action' && command.result.nextAction.type === 'mobile_money_otp') return [];
      return decideInitiation(command.result, command.operationId, at);
    case 'abort_confirmation':
      return aboutCurrent(command.operationId) && op!.inFlight
        ? [{ type: 'payment_intent.confirmation_aborted', data: { operationId: command.operationId, reason: command.reason, at, ...(command.failureCode !== undefined ? { failureCode: command.failureCode } : {}) } }]
        : [];
    case 'record_outcome': {
      if (!aboutCurrent(command.operationId)) return [];
      const o = command.outcome;
      return o.status === 'succeeded'
        ? [{ type: 'payment_intent.succeeded', data: { operationId: command.operationId, fee: o.fee, at, ...(o.providerReference ? { providerReference: o.providerReference } : {}) } }]
        : [{ type: 'payment_intent.payment_failed', data: { operationId: command.operationId, failureCode: o.failureCode, failureMessage: o.failureMessage, at } }];
    }
    case 'cancel':
      return [{ type: 'payment_intent.canceled', data: { reason: command.reason, at } }];
    case 'assign_escrow':
      if (state.escrowContract === command.contractId) return [];
      if (state.escrowContract !== null) throw new Refusal('IKW-ESC-002', 'This payment intent funds another contract', 'paymentIntentId');
      return [{ type: 'payment_intent.escrow_assigned', data: { contractId: command.contractId, at } }];
    default:
      return unreachable(command);
  }
}

/**
 * The payment intent lifecycle, as PAYMENT_INTENT_TRANSITIONS lists it:
 * requires_payment_method → (confirm) → processing | requires_action → succeeded | failed;
 * cancel from requires_payment_method or requires_action. Only one confirmation may be with the
 * provider at a time: that is the "platform-side lock", held in the stream itself.
 */
export const paymentIntentDecider: Decider<PaymentIntentCommand, PaymentIntentState, Fact<PaymentIntentEvent>> = {
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
          confirmation: {
            operationId: event.data.operationId,
            startedAt: event.data.startedAt,
            returnUrl: event.data.returnUrl,
            inFlight: true,
            ...(event.data.instanceId !== undefined ? { instanceId: event.data.instanceId } : {}),
            ...(event.data.connector !== undefined ? { connector: event.data.connector } : {}),
            ...(event.data.request !== undefined ? { request: event.data.request } : {}),
          },
        };
      case 'payment_intent.confirmation_aborted':
        return { ...state, status: 'requires_payment_method', confirmation: state.confirmation && { ...state.confirmation, inFlight: false } };
      case 'payment_intent.processing':
        return { ...state, status: 'processing', confirmation: state.confirmation && { ...state.confirmation, inFlight: false } };
      case 'payment_intent.requires_action':
        return { ...state, status: 'requires_action', nextAction: event.data.nextAction, confirmation: state.confirmation && { ...state.confirmation, inFlight: false } };
      case 'payment_intent.succeeded':
        return {
          ...state,
          status: 'succeeded',
          succeeded: true,
          fee: event.data.fee,
          nextAction: null,
          confirmation: state.confirmation && { ...state.confirmation, inFlight: false },
          ...(event.data.providerReference ? { providerReference: event.data.providerReference } : {}),
        };
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
      case 'payment_intent.escrow_assigned':
        return { ...state, escrowContract: event.data.contractId };
    }
  },

  decide(command, state) {
    if (command.type === 'create') return decideCreate(command, state);
    const intent = state.intent;
    assertOwned(intent, command.owner, 'No such payment intent', 'paymentIntentId');
    // Cancel waits for the provider's first answer: that answer may already have taken the money.
    if (command.type === 'cancel' && confirmationHeld(state.confirmation, command.at)) {
      throw new Refusal('IKW-RES-003', 'This payment intent is being confirmed; cancel it once the provider has answered');
    }
    if (!PAYMENT_INTENT_TRANSITIONS[command.type].includes(state.status)) return refuseOrIgnore(command, state);
    return decideOngoing(command, state, intent);
  },
};
