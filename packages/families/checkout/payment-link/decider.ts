import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, present, unreachable } from '#packages/core/aggregate.js';
import type { PaymentLinkCreated, PaymentLinkEvent } from './events.js';
import type { Owner } from '#packages/core/owner.js';

/**
 * Where the checkout session holding a single-use link's claim stands, as its command service
 * found it: `paid` (the link is used up), `paying` (a payment is with the operator, or was just
 * started), `released` (its payment failed, or the session was canceled or expired).
 */
export type ClaimHolder = 'paid' | 'paying' | 'released';

export type PaymentLinkCommand =
  | { type: 'create'; link: PaymentLinkCreated }
  | { type: 'deactivate'; owner: Owner; at: Date }
  /** A session about to start a payment; `holder` is the state of the session holding the claim now, if another one does. */
  | { type: 'claim'; owner: Owner; at: Date; sessionId: string; holder: ClaimHolder | null };

export interface PaymentLinkState {
  link: PaymentLinkCreated | null;
  deactivatedAt: string | null;
  /** The session that last claimed a single-use link, and when. */
  claim: { sessionId: string; at: string } | null;
}

export const initialPaymentLinkState: PaymentLinkState = { link: null, deactivatedAt: null, claim: null };

/** Whether the link takes new payments at `at`: not deactivated, not expired. */
export function assertOpen(state: PaymentLinkState, at: Date): void {
  const l = present(state.link, 'payment link');
  if (state.deactivatedAt !== null) throw new Refusal('IKW-CHK-002', 'This payment link has been deactivated', 'paymentLinkId');
  if (l.expiresAt !== null && at.getTime() >= Date.parse(l.expiresAt)) throw new Refusal('IKW-CHK-002', 'This payment link has expired', 'paymentLinkId');
}

/**
 * Payment links. A single-use link is claimed by the checkout session that starts a payment, on
 * the link's own stream: of sessions racing for it, one append wins, so at most one payment is
 * ever with the operator. Another session may take the claim over only once the holder's payment
 * failed or the holder ended; once it is paid, the link takes no more.
 */
export const paymentLinkDecider: Decider<PaymentLinkCommand, PaymentLinkState, Fact<PaymentLinkEvent>> = {
  initialState: initialPaymentLinkState,

  evolve(state, event) {
    switch (event.type) {
      case 'payment_link.created':
        return { ...state, link: event.data };
      case 'payment_link.deactivated':
        return { ...state, deactivatedAt: event.data.at };
      case 'payment_link.claimed':
        return { ...state, claim: { sessionId: event.data.sessionId, at: event.data.at } };
    }
  },

  decide(command, state) {
    const drafts = decideDrafts(command, state);
    return drafts;
  },
};

function decideDrafts(command: PaymentLinkCommand, state: PaymentLinkState): Fact<PaymentLinkEvent>[] {
  if (command.type === 'create') {
    if (state.link) throw new Refusal('IKW-RES-003', `Payment link ${command.link.id} already exists`);
    return [{ type: 'payment_link.created', data: command.link }];
  }
  assertOwned(state.link, command.owner, 'No such payment link', 'paymentLinkId');
  const at = command.at.toISOString();
  switch (command.type) {
    case 'deactivate':
      // Deactivating twice changes nothing: the link stays as the first deactivation left it.
      return state.deactivatedAt === null ? [{ type: 'payment_link.deactivated', data: { at } }] : [];
    case 'claim': {
      assertOpen(state, command.at);
      const held = state.claim !== null && state.claim.sessionId !== command.sessionId;
      if (held && command.holder === 'paid') throw new Refusal('IKW-CHK-003', 'This single-use payment link has already been paid', 'paymentLinkId');
      if (held && command.holder !== 'released') throw new Refusal('IKW-CHK-003', 'This single-use payment link is being paid in another session', 'paymentLinkId');
      // Appended even when this session holds the claim already: its new attempt and another
      // session's takeover then race on the stream version, and only one of them goes ahead.
      return [{ type: 'payment_link.claimed', data: { sessionId: command.sessionId, at } }];
    }
    default:
      return unreachable(command);
  }
}
