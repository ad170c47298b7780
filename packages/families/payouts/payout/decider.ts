import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import type { DelayReason, PayoutCreated, PayoutEvent, PayoutStatus } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type { Owner };

export type PayoutCommand =
  | { type: 'create'; payout: PayoutCreated }
  | ({ owner: Owner; at: Date } & (
      | { type: 'submit'; result: { status: 'accepted' } | { status: 'rejected'; failureCode: string; failureMessage: string } }
      | { type: 'report_delay'; reason: DelayReason }
      | { type: 'check_overdue' }
      /** strict: the ledger side rides in the same commit, so a payout already final refuses (IKW-RES-002) instead of deciding nothing. */
      | { type: 'complete'; strict?: boolean; providerReference?: string }
      | { type: 'fail'; failureCode: string; failureMessage: string; strict?: boolean }
      | { type: 'dispatch' }
      | { type: 'cancel' }
      /** A person releases a payout the risk rules held for review (IKW-LIM-009 for one never held); once released, again decides nothing. */
      | { type: 'release_review' }
      /** A person declines a payout held for review: it fails (declined_in_review) and its hold goes back; IKW-LIM-009 unless held; once declined, again decides nothing. */
      | { type: 'decline_review'; reason?: string }
    ));

export interface PayoutState {
  payout: PayoutCreated | null;
  status: PayoutStatus;
  delayReason: DelayReason | null;
  delayedAt: string | null;
  failure: { code: string; message: string } | null;
  /** Handed to the operator, or about to be: from then on it cannot be canceled (batch payouts record it before the call). */
  dispatched: boolean;
  /** The operator's receipt of the payment, when it gave one. */
  providerReference?: string;
  /** A payout held for review (payout.review) was released. */
  reviewReleased?: true;
  /** A payout held for review was declined: it failed without reaching a rail. */
  reviewDeclined?: true;
}

/** Held by the risk rules and not released yet: not sent, and not late. */
export const heldForReview = (state: PayoutState): boolean => state.payout?.review !== undefined && state.reviewReleased !== true && state.reviewDeclined !== true;

/** The failure code of a payout declined in review (docs/risk.md, "Review"). */
export const DECLINED_IN_REVIEW = 'declined_in_review';

export const FINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['paid', 'failed', 'canceled'];

type OngoingCommand = Exclude<PayoutCommand, { type: 'create' }>;

/**
 * The payout lifecycle: pending → in_transit → paid | failed, and pending → failed | canceled.
 * Each command names the statuses it may act on; from any other status it decides nothing
 * (operator news that comes late or twice), except cancel, which is refused. The delay overlay
 * (delay_state, delay_reason, delayed_at) never changes the status. A payout of a batch waits
 * pending until its batch dispatches it; only an undispatched payout can be canceled, so a cancel
 * never races an operator call.
 */
export const PAYOUT_TRANSITIONS: Readonly<Record<OngoingCommand['type'], readonly PayoutStatus[]>> = {
  submit: ['pending'], // → in_transit, or failed when the operator refuses it
  report_delay: ['pending', 'in_transit'], // overlay only
  check_overdue: ['pending', 'in_transit'], // overlay only, once expected_by has passed
  complete: ['pending', 'in_transit'], // → paid
  fail: ['pending', 'in_transit'], // → failed
  dispatch: ['pending'], // overlay only: handed to the operator
  cancel: ['pending'], // → canceled, unless dispatched
  release_review: ['pending'], // overlay only: sent from then on
  decline_review: ['pending'], // → failed, never sent
};

function decideCreate(command: Extract<PayoutCommand, { type: 'create' }>, state: PayoutState): Fact<PayoutEvent>[] {
  if (state.payout) throw new Refusal('IKW-RES-003', `Payout ${command.payout.id} already exists`);
  return [{ type: 'payout.created', data: command.payout }];
}

/** One decision per command, on a payout that exists, is the owner's and may take the command. */
function decideOngoing(command: OngoingCommand, state: PayoutState, payout: PayoutCreated): Fact<PayoutEvent>[] {
  const at = command.at.toISOString();
  switch (command.type) {
    case 'submit':
      return command.result.status === 'accepted'
        ? [{ type: 'payout.updated', data: { status: 'in_transit', at } }]
        : [{ type: 'payout.failed', data: { failureCode: command.result.failureCode, failureMessage: command.result.failureMessage, at } }];
    case 'report_delay':
      return state.delayReason === command.reason ? [] : [{ type: 'payout.delayed', data: { reason: command.reason, at } }];
    case 'check_overdue':
      return heldForReview(state) || state.delayReason || command.at.getTime() < new Date(payout.expectedBy).getTime() ? [] : [{ type: 'payout.delayed', data: { reason: 'unknown', at } }];
    case 'complete':
      return [{ type: 'payout.paid', data: { at, ...(command.providerReference ? { providerReference: command.providerReference } : {}) } }];
    case 'fail':
      return [{ type: 'payout.failed', data: { failureCode: command.failureCode, failureMessage: command.failureMessage, at } }];
    case 'dispatch':
      return state.dispatched ? [] : [{ type: 'payout.dispatched', data: { at } }];
    case 'cancel':
      if (state.dispatched) throw new Refusal('IKW-RES-002', 'This payout has been handed to the operator and cannot be canceled');
      return [{ type: 'payout.canceled', data: { at } }];
    case 'release_review':
      if (!payout.review) throw new Refusal('IKW-LIM-009');
      return state.reviewReleased ? [] : [{ type: 'payout.review_released', data: { at } }];
    case 'decline_review': {
      if (!heldForReview(state) || state.dispatched) throw new Refusal('IKW-LIM-009', undefined, 'payoutId');
      const reason = command.reason ?? 'Declined in review';
      return [
        { type: 'payout.review_declined', data: { at, ...(command.reason !== undefined ? { reason: command.reason } : {}) } },
        { type: 'payout.failed', data: { failureCode: DECLINED_IN_REVIEW, failureMessage: reason, at } },
      ];
    }
    default:
      return unreachable(command);
  }
}

export const payoutDecider: Decider<PayoutCommand, PayoutState, Fact<PayoutEvent>> = {
  initialState: { payout: null, status: 'pending', delayReason: null, delayedAt: null, failure: null, dispatched: false },

  evolve(state, event) {
    switch (event.type) {
      case 'payout.created':
        return { ...state, payout: event.data, status: 'pending' };
      case 'payout.dispatched':
        return { ...state, dispatched: true };
      case 'payout.review_released':
        return { ...state, reviewReleased: true };
      case 'payout.review_declined':
        return { ...state, reviewDeclined: true };
      case 'payout.updated':
        return { ...state, status: 'in_transit', dispatched: true };
      case 'payout.delayed':
        return { ...state, delayReason: event.data.reason, delayedAt: state.delayedAt ?? event.data.at };
      case 'payout.paid':
        return { ...state, status: 'paid', ...(event.data.providerReference ? { providerReference: event.data.providerReference } : {}) };
      case 'payout.failed':
        return { ...state, status: 'failed', failure: { code: event.data.failureCode, message: event.data.failureMessage } };
      case 'payout.canceled':
        return { ...state, status: 'canceled' };
    }
  },

  decide(command, state) {
    if (command.type === 'create') return decideCreate(command, state);
    const payout = state.payout;
    assertOwned(payout, command.owner, 'No such payout', 'payoutId');
    // Release and decline race on the stream's version: the one decided second finds the other's end and is refused.
    if (command.type === 'release_review' && state.reviewDeclined) throw new Refusal('IKW-LIM-009', undefined, 'payoutId');
    if (command.type === 'decline_review' && state.reviewDeclined) return [];
    if (command.type === 'decline_review' && state.status !== 'pending') throw new Refusal('IKW-LIM-009', undefined, 'payoutId');
    if (!PAYOUT_TRANSITIONS[command.type].includes(state.status)) {
      if (command.type === 'cancel') throw new Refusal('IKW-RES-002', `A payout with status ${state.status} cannot be canceled`);
      if ((command.type === 'complete' || command.type === 'fail') && command.strict) throw new Refusal('IKW-RES-002', `A payout with status ${state.status} is final`);
      return [];
    }
    return decideOngoing(command, state, payout);
  },
};
