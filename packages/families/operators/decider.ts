import type { Decider } from '#packages/core/decider.js';
import type { OperatorRole } from '#packages/core/owner.js';
import { Refusal } from '#packages/core/refusal.js';
import { SIGN_IN_TRIES, type CredentialEvent, type OperatorInvited, type OperatorPasskey, type OperatorStatus, type SessionEndReason, type TeamEvent } from './events.js';
import { operatorErrors } from './errors.js';

export interface TeamMember {
  operatorId: string;
  email: string;
  role: OperatorRole;
  status: OperatorStatus;
}

export interface TeamState {
  members: ReadonlyMap<string, TeamMember>;
}

export type TeamCommand =
  | { type: 'invite'; operator: OperatorInvited }
  | { type: 'activate'; operatorId: string; at: Date }
  | { type: 'change_role'; operatorId: string; role: OperatorRole; at: Date }
  | { type: 'deactivate'; operatorId: string; at: Date };

/** The member holding an address (any case), deactivated ones aside. */
export function memberByEmail(state: TeamState, email: string): TeamMember | undefined {
  const wanted = email.trim().toLowerCase();
  return [...state.members.values()].find((m) => m.email === wanted && m.status !== 'deactivated');
}

function changeable(state: TeamState, operatorId: string): TeamMember {
  const member = state.members.get(operatorId);
  if (!member) throw new Refusal('IKW-RES-001', `No such operator: '${operatorId}'`, 'operatorId');
  if (member.status === 'deactivated') throw new Refusal('IKW-OPR-009', operatorErrors['IKW-OPR-009'].message, 'operatorId');
  return member;
}

/** Refuses a change that would leave no active admin: `member` stops being one. */
function keepAnAdmin(state: TeamState, member: TeamMember): void {
  if (member.role !== 'admin' || member.status !== 'active') return;
  const others = [...state.members.values()].filter((m) => m.operatorId !== member.operatorId && m.role === 'admin' && m.status === 'active');
  if (others.length === 0) throw new Refusal('IKW-OPR-006', 'This is the last active admin: make another operator admin first', 'operatorId');
}

/** The operator team: one operator per address, roles, and always an active admin once there is one. */
export const teamDecider: Decider<TeamCommand, TeamState, TeamEvent> = {
  initialState: { members: new Map() },
  evolve(state, event) {
    const members = new Map(state.members);
    const d = event.data;
    const member = members.get(d.operatorId);
    switch (event.type) {
      case 'operator.invited':
        members.set(event.data.operatorId, { operatorId: event.data.operatorId, email: event.data.email, role: event.data.role, status: 'invited' });
        break;
      case 'operator.activated':
        if (member) members.set(d.operatorId, { ...member, status: 'active' });
        break;
      case 'operator.role_changed':
        if (member) members.set(d.operatorId, { ...member, role: event.data.role });
        break;
      case 'operator.deactivated':
        if (member) members.set(d.operatorId, { ...member, status: 'deactivated' });
        break;
    }
    return { members };
  },
  decide(command, state) {
    switch (command.type) {
      case 'invite':
        if (memberByEmail(state, command.operator.email)) throw new Refusal('IKW-OPR-007', operatorErrors['IKW-OPR-007'].message, 'email');
        return [{ type: 'operator.invited', data: command.operator }];
      case 'activate': {
        const member = changeable(state, command.operatorId);
        return member.status === 'active' ? [] : [{ type: 'operator.activated', data: { operatorId: command.operatorId, at: command.at.toISOString() } }];
      }
      case 'change_role': {
        const member = changeable(state, command.operatorId);
        if (member.role === command.role) return [];
        if (command.role !== 'admin') keepAnAdmin(state, member);
        return [{ type: 'operator.role_changed', data: { operatorId: command.operatorId, role: command.role, previousRole: member.role, at: command.at.toISOString() } }];
      }
      case 'deactivate': {
        const member = state.members.get(command.operatorId);
        if (!member) throw new Refusal('IKW-RES-001', `No such operator: '${command.operatorId}'`, 'operatorId');
        if (member.status === 'deactivated') return [];
        keepAnAdmin(state, member);
        return [{ type: 'operator.deactivated', data: { operatorId: command.operatorId, at: command.at.toISOString() } }];
      }
    }
  },
};

interface SignIn {
  enrolment: string | null;
  /** What a passkey of the operator may sign in place of the app's code; null when they had none. */
  webauthnChallenge: string | null;
  expiresAt: string;
  failures: number;
  done: boolean;
}

export interface CredentialState {
  operatorId: string | null;
  passwordHash: string | null;
  invitation: { tokenHash: string; expiresAt: string } | null;
  /** The authenticator app's sealed secret, and the last time step used (each code works once). */
  totp: { sealedSecret: string; lastStep: number } | null;
  signIns: ReadonlyMap<string, SignIn>;
  /** Passkeys by credential id, with when each last signed in. */
  passkeys: ReadonlyMap<string, OperatorPasskey & { lastUsedAt: string | null }>;
  /** Registrations begun, by WebAuthn challenge, with when each expires. */
  passkeyRegistrations: ReadonlyMap<string, string>;
  /** Sessions not ended, by id, with when they expire (expired ones are dropped as new ones start). */
  sessions: ReadonlyMap<string, string>;
}

export type CredentialCommand =
  | { type: 'issue_invitation'; operatorId: string; tokenHash: string; expiresAt: Date; at: Date }
  | { type: 'accept_invitation'; tokenHash: string; passwordHash: string; at: Date }
  | { type: 'start_sign_in'; challengeHash: string; enrolment: string | null; webauthnChallenge: string | null; expiresAt: Date; at: Date }
  | { type: 'fail_sign_in'; challengeHash: string; at: Date }
  | { type: 'complete_sign_in'; challengeHash: string; step: number; sessionId: string; expiresAt: Date; at: Date }
  | { type: 'complete_sign_in_with_passkey'; challengeHash: string; credentialId: string; counter: number; sessionId: string; expiresAt: Date; at: Date }
  | { type: 'start_passkey_registration'; challenge: string; expiresAt: Date; at: Date }
  | { type: 'add_passkey'; passkey: OperatorPasskey; challenge: string; at: Date }
  | { type: 'remove_passkey'; credentialId: string; at: Date }
  | { type: 'end_session'; sessionId: string; reason: SessionEndReason; at: Date }
  | { type: 'end_all_sessions'; reason: SessionEndReason; at: Date };

/** A sign-in that can still be answered at `at`. */
export function openSignIn(state: CredentialState, challengeHash: string, at: Date): SignIn {
  const signIn = state.signIns.get(challengeHash);
  if (!signIn || signIn.done || signIn.failures >= SIGN_IN_TRIES || Date.parse(signIn.expiresAt) <= at.getTime()) throw new Refusal('IKW-OPR-005', operatorErrors['IKW-OPR-005'].message, 'challengeToken');
  return signIn;
}

/**
 * An operator's credentials: a password set once through an invitation link, the authenticator
 * app enrolled by the first sign-in's code, and sessions that start only after that code.
 */
export const credentialDecider: Decider<CredentialCommand, CredentialState, CredentialEvent> = {
  initialState: { operatorId: null, passwordHash: null, invitation: null, totp: null, signIns: new Map(), passkeys: new Map(), passkeyRegistrations: new Map(), sessions: new Map() },
  evolve(state, event) {
    switch (event.type) {
      case 'operator.invitation_issued':
        return { ...state, operatorId: event.data.operatorId, invitation: { tokenHash: event.data.tokenHash, expiresAt: event.data.expiresAt } };
      case 'operator.password_set':
        return { ...state, passwordHash: event.data.passwordHash, invitation: null };
      case 'operator.sign_in_started': {
        const signIns = new Map(state.signIns);
        // Finished and expired sign-ins are forgotten as new ones start: the state stays small.
        for (const [hash, s] of signIns) if (s.done || Date.parse(s.expiresAt) <= Date.parse(event.data.at)) signIns.delete(hash);
        signIns.set(event.data.challengeHash, { enrolment: event.data.enrolment, webauthnChallenge: event.data.webauthnChallenge ?? null, expiresAt: event.data.expiresAt, failures: 0, done: false });
        return { ...state, signIns };
      }
      case 'operator.sign_in_failed': {
        const signIn = state.signIns.get(event.data.challengeHash);
        if (!signIn) return state;
        return { ...state, signIns: new Map(state.signIns).set(event.data.challengeHash, { ...signIn, failures: signIn.failures + 1 }) };
      }
      case 'operator.totp_enrolled':
        return { ...state, totp: { sealedSecret: event.data.sealedSecret, lastStep: -1 } };
      case 'operator.session_started': {
        const signIn = state.signIns.get(event.data.challengeHash);
        const signIns = new Map(state.signIns);
        if (signIn) signIns.set(event.data.challengeHash, { ...signIn, done: true });
        const sessions = new Map(state.sessions);
        for (const [id, expiresAt] of sessions) if (Date.parse(expiresAt) <= Date.parse(event.data.at)) sessions.delete(id);
        sessions.set(event.data.sessionId, event.data.expiresAt);
        return { ...state, signIns, totp: state.totp && { ...state.totp, lastStep: event.data.step }, sessions };
      }
      case 'operator.session_ended': {
        const sessions = new Map(state.sessions);
        sessions.delete(event.data.sessionId);
        return { ...state, sessions };
      }
      case 'operator.passkey_registration_started': {
        const registrations = new Map(state.passkeyRegistrations);
        for (const [challenge, expiresAt] of registrations) if (Date.parse(expiresAt) <= Date.parse(event.data.at)) registrations.delete(challenge);
        return { ...state, passkeyRegistrations: registrations.set(event.data.challenge, event.data.expiresAt) };
      }
      case 'operator.passkey_added': {
        const registrations = new Map(state.passkeyRegistrations);
        registrations.delete(event.data.challenge);
        return { ...state, passkeyRegistrations: registrations, passkeys: new Map(state.passkeys).set(event.data.passkey.credentialId, { ...event.data.passkey, lastUsedAt: null }) };
      }
      case 'operator.passkey_removed': {
        const passkeys = new Map(state.passkeys);
        passkeys.delete(event.data.credentialId);
        return { ...state, passkeys };
      }
      case 'operator.passkey_used': {
        const passkey = state.passkeys.get(event.data.credentialId);
        if (!passkey) return state;
        return { ...state, passkeys: new Map(state.passkeys).set(event.data.credentialId, { ...passkey, counter: event.data.counter, lastUsedAt: event.data.at }) };
      }
    }
  },
  decide(command, state) {
    const at = command.at.toISOString();
    switch (command.type) {
      case 'issue_invitation':
        return [{ type: 'operator.invitation_issued', data: { operatorId: command.operatorId, tokenHash: command.tokenHash, expiresAt: command.expiresAt.toISOString(), at } }];
      case 'accept_invitation': {
        const invitation = state.invitation;
        if (!invitation || invitation.tokenHash !== command.tokenHash || Date.parse(invitation.expiresAt) <= command.at.getTime()) throw new Refusal('IKW-OPR-008', operatorErrors['IKW-OPR-008'].message, 'token');
        return [{ type: 'operator.password_set', data: { passwordHash: command.passwordHash, at } }];
      }
      case 'start_sign_in':
        if (state.passwordHash === null) throw new Refusal('IKW-OPR-003', operatorErrors['IKW-OPR-003'].message);
        if (command.enrolment === null && state.totp === null) throw new Error('a sign-in without an authenticator app must enrol one');
        return [
          {
            type: 'operator.sign_in_started',
            data: {
              challengeHash: command.challengeHash,
              enrolment: state.totp ? null : command.enrolment,
              webauthnChallenge: state.totp && state.passkeys.size > 0 ? command.webauthnChallenge : null,
              expiresAt: command.expiresAt.toISOString(),
              at,
            },
          },
        ];
      case 'fail_sign_in':
        openSignIn(state, command.challengeHash, command.at);
        return [{ type: 'operator.sign_in_failed', data: { challengeHash: command.challengeHash, at } }];
      case 'complete_sign_in': {
        const signIn = openSignIn(state, command.challengeHash, command.at);
        // A code already used (its time step or an earlier one) does not open a second session.
        if (!signIn.enrolment && state.totp && command.step <= state.totp.lastStep) throw new Refusal('IKW-OPR-004', 'This code was used already; wait for the next one', 'code');
        const session = { type: 'operator.session_started' as const, data: { sessionId: command.sessionId, challengeHash: command.challengeHash, step: command.step, expiresAt: command.expiresAt.toISOString(), at } };
        return signIn.enrolment ? [{ type: 'operator.totp_enrolled', data: { sealedSecret: signIn.enrolment, at } }, session] : [session];
      }
      case 'complete_sign_in_with_passkey': {
        const signIn = openSignIn(state, command.challengeHash, command.at);
        const passkey = state.passkeys.get(command.credentialId);
        // A first sign-in adds the authenticator app: a passkey comes after, from the console.
        if (signIn.enrolment || signIn.webauthnChallenge === null || !passkey) throw new Refusal('IKW-OPR-010', operatorErrors['IKW-OPR-010'].message, 'passkey');
        // A counter that did not go up is a cloned authenticator (WebAuthn §6.1.1); both 0: the authenticator keeps none.
        if ((command.counter !== 0 || passkey.counter !== 0) && command.counter <= passkey.counter) throw new Refusal('IKW-OPR-010', 'This passkey’s signature counter went back: it may have been copied', 'passkey');
        return [
          { type: 'operator.passkey_used', data: { credentialId: command.credentialId, counter: command.counter, at } },
          { type: 'operator.session_started', data: { sessionId: command.sessionId, challengeHash: command.challengeHash, step: state.totp?.lastStep ?? -1, expiresAt: command.expiresAt.toISOString(), at } },
        ];
      }
      case 'start_passkey_registration':
        return [{ type: 'operator.passkey_registration_started', data: { challenge: command.challenge, expiresAt: command.expiresAt.toISOString(), at } }];
      case 'add_passkey': {
        const expiresAt = state.passkeyRegistrations.get(command.challenge);
        if (!expiresAt || Date.parse(expiresAt) <= command.at.getTime()) throw new Refusal('IKW-OPR-010', 'The passkey registration expired or was not begun: begin again', 'response');
        if (state.passkeys.has(command.passkey.credentialId)) throw new Refusal('IKW-OPR-010', 'This passkey is registered already', 'response');
        return [{ type: 'operator.passkey_added', data: { passkey: command.passkey, challenge: command.challenge, at } }];
      }
      case 'remove_passkey':
        if (!state.passkeys.has(command.credentialId)) throw new Refusal('IKW-RES-001', `No such passkey: '${command.credentialId}'`, 'credentialId');
        return [{ type: 'operator.passkey_removed', data: { credentialId: command.credentialId, at } }];
      case 'end_session':
        return state.sessions.has(command.sessionId) ? [{ type: 'operator.session_ended', data: { sessionId: command.sessionId, reason: command.reason, at } }] : [];
      case 'end_all_sessions':
        return [...state.sessions.keys()].map((sessionId) => ({ type: 'operator.session_ended' as const, data: { sessionId, reason: command.reason, at } }));
    }
  },
};
