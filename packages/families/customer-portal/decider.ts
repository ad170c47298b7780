import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { unreachable } from '#packages/core/aggregate.js';
import type { CustomerPortalEvent, PortalChallenge } from './events.js';

/** Wrong codes a challenge takes before it is spent: guessing one of a million codes stays hopeless. */
export const MAX_CODE_ATTEMPTS = 5;

export type CustomerPortalCommand =
  | { type: 'send_code'; challenge: PortalChallenge }
  /** `codeMatches`: whether the code given is the challenge's (the service compares keyed hashes in constant time). */
  | { type: 'verify'; at: Date; codeMatches: boolean; session: { id: string; tokenHash: string; expiresAt: string } }
  | { type: 'sign_out'; at: Date; sessionId: string };

export interface CustomerPortalState {
  challenge: PortalChallenge | null;
  failures: number;
  /** The portal session the code opened (a code opens one), and whether it was ended. */
  session: { id: string; expiresAt: string; signedOut: boolean } | null;
}

export const initialCustomerPortalState: CustomerPortalState = { challenge: null, failures: 0, session: null };

const WRONG_CODE = 'The code is wrong, has expired or was already used; ask for a new one';

/**
 * One sign-in: the code sent, the wrong codes tried, the portal session it opened. A wrong code is
 * recorded (so the attempts count across processes) and then refused by the command service.
 */
export const customerPortalDecider: Decider<CustomerPortalCommand, CustomerPortalState, CustomerPortalEvent> = {
  initialState: initialCustomerPortalState,

  evolve(state, event) {
    switch (event.type) {
      case 'customer_portal.code_sent':
        return { ...state, challenge: event.data };
      case 'customer_portal.code_failed':
        return { ...state, failures: state.failures + 1 };
      case 'customer_portal.signed_in':
        return { ...state, session: { id: event.data.sessionId, expiresAt: event.data.expiresAt, signedOut: false } };
      case 'customer_portal.signed_out':
        return state.session ? { ...state, session: { ...state.session, signedOut: true } } : state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'send_code':
        if (state.challenge) throw new Refusal('IKW-RES-003', `Sign-in ${command.challenge.id} already exists`);
        return [{ type: 'customer_portal.code_sent', data: command.challenge }];
      case 'verify': {
        const c = state.challenge;
        if (!c || state.session || state.failures >= MAX_CODE_ATTEMPTS || command.at.getTime() >= Date.parse(c.expiresAt)) {
          throw new Refusal('IKW-CPT-001', WRONG_CODE, 'code');
        }
        if (c.customerId === null || !command.codeMatches) return [{ type: 'customer_portal.code_failed', data: { at: command.at.toISOString() } }];
        const s = command.session;
        return [{ type: 'customer_portal.signed_in', data: { sessionId: s.id, tokenHash: s.tokenHash, customerId: c.customerId, expiresAt: s.expiresAt, at: command.at.toISOString() } }];
      }
      case 'sign_out':
        if (!state.session || state.session.id !== command.sessionId || state.session.signedOut) return [];
        return [{ type: 'customer_portal.signed_out', data: { sessionId: command.sessionId, at: command.at.toISOString() } }];
      default:
        return unreachable(command);
    }
  },
};

export { WRONG_CODE };
