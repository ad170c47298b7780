import { Refusal } from '#packages/core/refusal.js';
import type { Decider } from '#packages/core/decider.js';
import { unreachable } from '#packages/core/aggregate.js';
import type {
  ContactChannel,
  GoogleLink,
  OnboardingChanges,
  Passkey,
  ProfileChanges,
  SecondFactorKind,
  SessionContext,
  SessionEndReason,
  SessionProof,
  SessionStarted,
  TotpEnrolment,
  UserCreated,
  UserEvent,
  UserTokenIssued,
  UserTokenKind,
} from './events.js';
import { accountErrors } from '../errors.js';

export interface Session extends SessionContext {
  refreshHash: string;
  /** Refresh tokens this session already exchanged: presenting one again means it was stolen. */
  used: Set<string>;
  expiresAt: string;
  revoked: boolean;
  /** What its sign-in proved; null for sessions started before proofs were recorded. */
  proof: SessionProof | null;
}

export interface UserState {
  user: UserCreated | null;
  sessions: Map<string, Session>;
  /** The organization a new session starts in (`organizations/switch` with `persist`). */
  defaultOrganizationId: string | null;
  profile: Required<Omit<ProfileChanges, 'name'>>;
  onboarding: Required<OnboardingChanges>;
  /** The addresses the user proved to receive at, by channel (the current e-mail or phone only). */
  verified: Record<ContactChannel, string | null>;
  /** Magic links, password-reset and e-mail change links not yet used, by token hash. */
  tokens: Map<string, UserTokenIssued>;
  /** The active authenticator app, with the last time step a code of it was accepted for. */
  totp: { secretId: string; sealedSecret: string; lastStep: number } | null;
  /** Enrolments started and not yet confirmed with a code, by secret id. */
  pendingTotp: Map<string, TotpEnrolment>;
  /** HMACs of the recovery codes not yet used. */
  recoveryCodes: Set<string>;
  passkeys: Map<string, Passkey>;
  /** Passkey registrations begun, by WebAuthn challenge, with their expiry. */
  passkeyRegistrations: Map<string, string>;
  /** The Google account linked to the user, if any (one at a time). */
  google: GoogleLink | null;
}

export type UserCommand =
  | { type: 'create'; user: UserCreated }
  /** Only `SignIns.admit` (sign-in.ts) starts sessions: it has applied the factor rule to `proof`. */
  | { type: 'start_session'; session: Omit<SessionStarted, 'at' | 'expiresAt' | 'proof'> & { proof: SessionProof }; expiresAt: Date; at: Date }
  | { type: 'refresh'; presentedHash: string; refreshHash: string; expiresAt: Date; at: Date }
  | { type: 'switch_session'; sessionId: string; context: SessionContext; at: Date }
  | { type: 'end_session'; sessionId: string; reason: 'signed_out' | 'revoked'; at: Date }
  | { type: 'end_other_sessions'; keep: string; at: Date }
  /** Sign out everywhere, this session too (a lost device). */
  | { type: 'end_all_sessions'; at: Date }
  | { type: 'set_default_organization'; organizationId: string; at: Date }
  /** A new password; every session but `keep` (the one changing it) ends. */
  | { type: 'change_password'; passwordHash: string; keep: string | null; at: Date }
  | { type: 'update_profile'; changes: ProfileChanges; at: Date }
  | { type: 'update_onboarding'; changes: OnboardingChanges; at: Date }
  | { type: 'verify_contact'; channel: ContactChannel; address: string; at: Date }
  | { type: 'end_sessions_in'; organizationId: string; at: Date }
  | { type: 'issue_token'; token: UserTokenIssued; at: Date }
  /** Uses a link once; a password reset also sets `passwordHash` and ends every session; an e-mail change link changes the address. */
  | { type: 'use_token'; kind: UserTokenKind; tokenHash: string; passwordHash?: string; at: Date }
  | { type: 'cancel_token'; kind: UserTokenKind; tokenId: string; at: Date }
  /** Sensitive changes behind a second factor: any of address, phone, password (which ends the other sessions). */
  | { type: 'change_credentials'; email?: string; phone?: string | null; passwordHash?: string; keep: string | null; at: Date }
  | { type: 'start_totp'; enrolment: TotpEnrolment; at: Date }
  /** `sessionId`: the session adding the factor, which proves it by doing so; the user's unproven sessions end. */
  | { type: 'activate_totp'; secretId: string; step: number; recoveryCodeHashes: string[]; sessionId: string; at: Date }
  | { type: 'use_totp_step'; step: number; at: Date }
  | { type: 'use_recovery_code'; codeHash: string; at: Date }
  | { type: 'replace_recovery_codes'; recoveryCodeHashes: string[]; at: Date }
  | { type: 'disable_totp'; at: Date }
  | { type: 'start_passkey_registration'; challenge: string; expiresAt: Date; at: Date }
  | { type: 'add_passkey'; passkey: Passkey; challenge: string; sessionId: string; at: Date }
  /** `counter`: the authenticator's signature counter, which must go up (a copied key would repeat it). */
  | { type: 'use_passkey'; credentialId: string; counter: number; at: Date }
  | { type: 'rename_passkey'; credentialId: string; nickname: string; at: Date }
  | { type: 'remove_passkey'; credentialId: string; at: Date }
  | { type: 'link_google'; link: GoogleLink; via: 'connect' | 'email'; at: Date }
  | { type: 'unlink_google'; at: Date };

/** Whether the user has a second factor (an authenticator app or a passkey); an e-mailed code is not one. */
export function hasSecondFactor(state: UserState): boolean {
  return state.totp !== null || state.passkeys.size > 0;
}

/** Whether a sign-in proved a second factor: answered one, or was itself a passkey (which verifies its user). */
export function provesSecondFactor(proof: SessionProof | null | undefined): boolean {
  return proof != null && (proof.secondFactor !== null || proof.method === 'passkey');
}

/**
 * The factor rule (docs/accounts.md): a session of a user with a second factor must have proved it.
 * Every sign-in, switch and refresh applies it (sign-in.ts, commands.ts).
 */
export function satisfiesFactorRule(state: UserState, proof: SessionProof | null | undefined): boolean {
  return !hasSecondFactor(state) || provesSecondFactor(proof);
}

/**
 * A factor was added by `sessionId`: that session has proved it, and every other live session
 * that never proved a second factor ends (it may be the very token that was stolen).
 */
function factorAdded(state: UserState, sessionId: string, secondFactor: SecondFactorKind, at: Date): UserEvent[] {
  const iso = at.toISOString();
  const proven: UserEvent[] = sessionLive(state.sessions.get(sessionId), at) ? [{ type: 'user.session_proven', data: { sessionId, secondFactor, at: iso } }] : [];
  const unproven = [...state.sessions]
    .filter(([id, s]) => id !== sessionId && sessionLive(s, at) && !provesSecondFactor(s.proof))
    .map(([id]): UserEvent => ({ type: 'user.session_revoked', data: { sessionId: id, reason: 'second_factor_added', at: iso } }));
  return [...proven, ...unproven];
}

const invalidRefresh = () => new Refusal('IKW-AUT-007', 'The refresh token is not valid', 'refreshToken');

/** A session that can still act: not revoked, not past its refresh lifetime. */
export function sessionLive(s: Session | undefined, at: Date): s is Session {
  return s !== undefined && !s.revoked && new Date(s.expiresAt).getTime() > at.getTime();
}

function known(state: UserState): UserCreated {
  if (!state.user) throw new Refusal('IKW-AUT-007', 'Unknown user');
  return state.user;
}

function liveSession(state: UserState, sessionId: string, at: Date): Session {
  const s = state.sessions.get(sessionId);
  if (!sessionLive(s, at)) throw new Refusal('IKW-RES-001', 'No such session', 'sessionId');
  return s;
}

function decideRefresh(state: UserState, c: Extract<UserCommand, { type: 'refresh' }>): UserEvent[] {
  const at = c.at.toISOString();
  for (const [sessionId, s] of state.sessions) {
    if (s.used.has(c.presentedHash)) {
      if (s.revoked) throw invalidRefresh();
      // A token that was already exchanged is back: someone kept a copy. End the session.
      return [{ type: 'user.session_revoked', data: { sessionId, reason: 'refresh_token_reused', at } }];
    }
    if (s.refreshHash !== c.presentedHash) continue;
    if (!sessionLive(s, c.at)) throw invalidRefresh();
    // A session that never proved the user's second factor does not go on (one begun before it was added).
    if (!satisfiesFactorRule(state, s.proof)) return [{ type: 'user.session_revoked', data: { sessionId, reason: 'second_factor_added', at } }];
    return [{ type: 'user.session_refreshed', data: { sessionId, refreshHash: c.refreshHash, expiresAt: c.expiresAt.toISOString(), at } }];
  }
  throw invalidRefresh();
}

/** Ends every live session but `keep`. */
function endOthers(state: UserState, keep: string | null, reason: SessionEndReason, at: Date): UserEvent[] {
  return [...state.sessions].filter(([id, s]) => id !== keep && sessionLive(s, at)).map(([sessionId]) => ({ type: 'user.session_revoked', data: { sessionId, reason, at: at.toISOString() } }));
}

/** Only the fields that change: a PATCH that changes nothing decides nothing. */
function changed<T extends object>(current: T, changes: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([k, v]) => v !== undefined && current[k as keyof T] !== v)) as Partial<T>;
}

function decideProfile(state: UserState, c: Extract<UserCommand, { type: 'update_profile' }>): UserEvent[] {
  const diff = changed({ name: state.user!.name, ...state.profile }, c.changes);
  return Object.keys(diff).length === 0 ? [] : [{ type: 'user.profile_updated', data: { ...diff, at: c.at.toISOString() } }];
}

function decideOnboarding(state: UserState, c: Extract<UserCommand, { type: 'update_onboarding' }>): UserEvent[] {
  const diff = changed(state.onboarding, c.changes);
  return Object.keys(diff).length === 0 ? [] : [{ type: 'user.onboarding_updated', data: { ...diff, at: c.at.toISOString() } }];
}

function decideUseToken(state: UserState, c: Extract<UserCommand, { type: 'use_token' }>): UserEvent[] {
  const token = state.tokens.get(c.tokenHash);
  if (!token || token.kind !== c.kind || c.at.getTime() >= Date.parse(token.expiresAt)) {
    throw new Refusal('IKW-ACC-006', 'This link has expired or was already used; ask for a new one', 'token');
  }
  const at = c.at.toISOString();
  const used: UserEvent = { type: 'user.token_used', data: { tokenId: token.tokenId, at } };
  if (c.kind === 'email_change') return [used, { type: 'user.email_changed', data: { email: token.newEmail!, previous: state.user!.email, at } }];
  if (c.kind !== 'password_reset') return [used];
  return [used, { type: 'user.password_changed', data: { passwordHash: c.passwordHash!, at } }, ...endOthers(state, null, 'password_reset', c.at)];
}

const wrongCode = (message: string) => new Refusal('IKW-ACC-005', message, 'code');

/** Second factors: an authenticator app (TOTP) and its recovery codes. */
function decideSecondFactor(state: UserState, c: Extract<UserCommand, { type: 'start_totp' | 'activate_totp' | 'use_totp_step' | 'use_recovery_code' | 'replace_recovery_codes' | 'disable_totp' }>): UserEvent[] {
  const at = c.at.toISOString();
  const active = () => {
    if (!state.totp) throw new Refusal('IKW-RES-002', 'No authenticator app is set up');
    return state.totp;
  };
  switch (c.type) {
    case 'start_totp':
      if (state.totp) throw new Refusal('IKW-RES-002', 'An authenticator app is already set up; disable it first');
      return [{ type: 'user.totp_enrolment_started', data: c.enrolment }];
    case 'activate_totp':
      if (state.totp?.secretId === c.secretId) return [];
      if (state.totp) throw new Refusal('IKW-RES-002', 'An authenticator app is already set up; disable it first');
      if (!state.pendingTotp.has(c.secretId)) throw new Refusal('IKW-RES-001', 'No such authenticator enrolment', 'secretId');
      return [{ type: 'user.totp_activated', data: { secretId: c.secretId, recoveryCodeHashes: c.recoveryCodeHashes, step: c.step, at } }, ...factorAdded(state, c.sessionId, 'totp', c.at)];
    case 'use_totp_step':
      if (c.step <= active().lastStep) throw wrongCode('This code was already used; wait for the next one');
      return [{ type: 'user.totp_step_used', data: { step: c.step, at } }];
    case 'use_recovery_code':
      active();
      if (!state.recoveryCodes.has(c.codeHash)) throw wrongCode('The recovery code is wrong or was already used');
      return [{ type: 'user.recovery_code_used', data: { codeHash: c.codeHash, at } }];
    case 'replace_recovery_codes':
      active();
      return [{ type: 'user.recovery_codes_replaced', data: { recoveryCodeHashes: c.recoveryCodeHashes, at } }];
    case 'disable_totp':
      active();
      return [{ type: 'user.totp_disabled', data: { at } }];
  }
}

const noPasskey = () => new Refusal('IKW-RES-001', 'No such passkey', 'credentialId');

function decidePasskey(state: UserState, c: Extract<UserCommand, { type: 'start_passkey_registration' | 'add_passkey' | 'use_passkey' | 'rename_passkey' | 'remove_passkey' }>): UserEvent[] {
  const at = c.at.toISOString();
  switch (c.type) {
    case 'start_passkey_registration':
      return [{ type: 'user.passkey_registration_started', data: { challenge: c.challenge, expiresAt: c.expiresAt.toISOString(), at } }];
    case 'add_passkey': {
      const until = state.passkeyRegistrations.get(c.challenge);
      if (until === undefined || c.at.getTime() >= Date.parse(until)) throw new Refusal('IKW-ACC-006', 'This passkey registration has expired or was already completed; begin again', 'attestationResponse');
      if (state.passkeys.has(c.passkey.credentialId)) throw new Refusal('IKW-RES-002', 'This passkey is already registered', 'attestationResponse');
      return [{ type: 'user.passkey_added', data: { passkey: c.passkey, challenge: c.challenge, at } }, ...factorAdded(state, c.sessionId, 'passkey', c.at)];
    }
    case 'use_passkey': {
      const passkey = state.passkeys.get(c.credentialId);
      if (!passkey) throw noPasskey();
      if ((c.counter > 0 || passkey.counter > 0) && c.counter <= passkey.counter) throw new Refusal('IKW-ACC-005', 'The passkey answered with a signature counter that did not go up; it may have been copied', 'assertionResponse');
      return [{ type: 'user.passkey_used', data: { credentialId: c.credentialId, counter: c.counter, at } }];
    }
    case 'rename_passkey': {
      const passkey = state.passkeys.get(c.credentialId);
      if (!passkey) throw noPasskey();
      return passkey.nickname === c.nickname ? [] : [{ type: 'user.passkey_renamed', data: { credentialId: c.credentialId, nickname: c.nickname, at } }];
    }
    case 'remove_passkey':
      if (!state.passkeys.has(c.credentialId)) throw noPasskey();
      return [{ type: 'user.passkey_removed', data: { credentialId: c.credentialId, at } }];
  }
}

/** One Google account at a time: linking the same one again changes nothing, another is refused. */
function decideGoogle(state: UserState, c: Extract<UserCommand, { type: 'link_google' | 'unlink_google' }>): UserEvent[] {
  const at = c.at.toISOString();
  if (c.type === 'unlink_google') {
    if (!state.google) throw new Refusal('IKW-RES-002', 'No Google account is connected to your account');
    return [{ type: 'user.google_unlinked', data: { ...state.google, at } }];
  }
  if (state.google?.issuer === c.link.issuer && state.google.subject === c.link.subject) return [];
  if (state.google) throw new Refusal('IKW-RES-002', 'Another Google account is already connected to your account; disconnect it first');
  return [{ type: 'user.google_linked', data: { ...c.link, via: c.via, at } }];
}

/** Users and their sessions: refresh tokens rotate, and a reused one revokes its whole session. */
export const userDecider: Decider<UserCommand, UserState, UserEvent> = {
  initialState: {
    user: null,
    sessions: new Map(),
    defaultOrganizationId: null,
    profile: { secondaryEmail: null, language: null },
    onboarding: { dismissed: false, completed: false, step: null },
    verified: { email: null, phone: null },
    tokens: new Map(),
    totp: null,
    pendingTotp: new Map(),
    recoveryCodes: new Set(),
    passkeys: new Map(),
    passkeyRegistrations: new Map(),
    google: null,
  },

  evolve(state, event) {
    const sessions = new Map(state.sessions);
    const change = (id: string, patch: Partial<Session>) => {
      sessions.set(id, { ...sessions.get(id)!, ...patch });
      return { ...state, sessions };
    };
    switch (event.type) {
      case 'user.created':
        return { ...state, user: event.data };
      case 'user.session_started': {
        const { sessionId, refreshHash, expiresAt, organizationId, merchantId, proof } = event.data;
        sessions.set(sessionId, { refreshHash, used: new Set(), expiresAt, revoked: false, organizationId, merchantId, proof: proof ?? null });
        return { ...state, sessions };
      }
      case 'user.session_proven': {
        const proof = sessions.get(event.data.sessionId)!.proof;
        return change(event.data.sessionId, { proof: { method: proof?.method ?? 'password', secondFactor: event.data.secondFactor } });
      }
      case 'user.session_refreshed': {
        const s = sessions.get(event.data.sessionId)!;
        return change(event.data.sessionId, { refreshHash: event.data.refreshHash, used: new Set(s.used).add(s.refreshHash), expiresAt: event.data.expiresAt });
      }
      case 'user.session_switched':
        return change(event.data.sessionId, { organizationId: event.data.organizationId, merchantId: event.data.merchantId });
      case 'user.session_revoked':
        return change(event.data.sessionId, { revoked: true });
      case 'user.default_organization_set':
        return { ...state, defaultOrganizationId: event.data.organizationId };
      case 'user.password_changed':
        return { ...state, user: { ...state.user!, passwordHash: event.data.passwordHash } };
      case 'user.profile_updated': {
        const { at: _at, name, ...profile } = event.data;
        return { ...state, user: { ...state.user!, name: name ?? state.user!.name }, profile: { ...state.profile, ...profile } };
      }
      case 'user.onboarding_updated': {
        const { at: _at, ...onboarding } = event.data;
        return { ...state, onboarding: { ...state.onboarding, ...onboarding } };
      }
      case 'user.contact_verified':
        return { ...state, verified: { ...state.verified, [event.data.channel]: event.data.address } };
      case 'user.token_issued':
        return { ...state, tokens: new Map(state.tokens).set(event.data.tokenHash, event.data) };
      case 'user.token_used':
      case 'user.token_canceled': {
        const tokens = new Map([...state.tokens].filter(([, t]) => t.tokenId !== event.data.tokenId));
        return { ...state, tokens };
      }
      case 'user.email_changed': {
        // Sign-in and reset links went to the old address: they stop working with it.
        const tokens = new Map([...state.tokens].filter(([, t]) => t.kind === 'email_change'));
        return { ...state, user: { ...state.user!, email: event.data.email }, tokens };
      }
      case 'user.phone_changed':
        return { ...state, user: { ...state.user!, phone: event.data.phone } };
      case 'user.totp_enrolment_started':
        return { ...state, pendingTotp: new Map(state.pendingTotp).set(event.data.secretId, event.data) };
      case 'user.totp_activated': {
        const enrolment = state.pendingTotp.get(event.data.secretId)!;
        return { ...state, totp: { secretId: enrolment.secretId, sealedSecret: enrolment.sealedSecret, lastStep: event.data.step }, pendingTotp: new Map(), recoveryCodes: new Set(event.data.recoveryCodeHashes) };
      }
      case 'user.totp_step_used':
        return { ...state, totp: { ...state.totp!, lastStep: event.data.step } };
      case 'user.recovery_code_used': {
        const recoveryCodes = new Set(state.recoveryCodes);
        recoveryCodes.delete(event.data.codeHash);
        return { ...state, recoveryCodes };
      }
      case 'user.recovery_codes_replaced':
        return { ...state, recoveryCodes: new Set(event.data.recoveryCodeHashes) };
      case 'user.totp_disabled':
        return { ...state, totp: null, recoveryCodes: new Set() };
      case 'user.passkey_registration_started':
        return { ...state, passkeyRegistrations: new Map(state.passkeyRegistrations).set(event.data.challenge, event.data.expiresAt) };
      case 'user.passkey_added': {
        const passkeyRegistrations = new Map(state.passkeyRegistrations);
        passkeyRegistrations.delete(event.data.challenge);
        return { ...state, passkeys: new Map(state.passkeys).set(event.data.passkey.credentialId, event.data.passkey), passkeyRegistrations };
      }
      case 'user.passkey_used': {
        const passkey = state.passkeys.get(event.data.credentialId)!;
        return { ...state, passkeys: new Map(state.passkeys).set(passkey.credentialId, { ...passkey, counter: event.data.counter, lastUsedAt: event.data.at }) };
      }
      case 'user.passkey_renamed': {
        const passkey = state.passkeys.get(event.data.credentialId)!;
        return { ...state, passkeys: new Map(state.passkeys).set(passkey.credentialId, { ...passkey, nickname: event.data.nickname }) };
      }
      case 'user.passkey_removed': {
        const passkeys = new Map(state.passkeys);
        passkeys.delete(event.data.credentialId);
        return { ...state, passkeys };
      }
      case 'user.google_linked': {
        const { issuer, subject, email } = event.data;
        return { ...state, google: { issuer, subject, email } };
      }
      case 'user.google_unlinked':
        return { ...state, google: null };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.user) throw new Refusal('IKW-ACC-001', accountErrors['IKW-ACC-001'].message, 'email');
      return [{ type: 'user.created', data: command.user }];
    }
    // A link names its user; one of no user is as bad as a used one.
    if (command.type === 'use_token') return decideUseToken(state, command);
    known(state);
    const at = command.at.toISOString();
    switch (command.type) {
      case 'start_session':
        return [{ type: 'user.session_started', data: { ...command.session, expiresAt: command.expiresAt.toISOString(), at } }];
      case 'refresh':
        return decideRefresh(state, command);
      case 'switch_session':
        // Moving a session is a sign-in elsewhere: the factor rule applies as at the start.
        if (!satisfiesFactorRule(state, liveSession(state, command.sessionId, command.at).proof)) {
          throw new Refusal('IKW-AUT-007', 'This session began without the second factor your account now has; sign in again');
        }
        return [{ type: 'user.session_switched', data: { sessionId: command.sessionId, ...command.context, at } }];
      case 'end_session':
        liveSession(state, command.sessionId, command.at);
        return [{ type: 'user.session_revoked', data: { sessionId: command.sessionId, reason: command.reason, at } }];
      case 'end_all_sessions':
        return endOthers(state, null, 'signed_out', command.at);
      case 'end_other_sessions':
        liveSession(state, command.keep, command.at);
        return endOthers(state, command.keep, 'other_sessions_revoked', command.at);
      case 'change_password':
        return [{ type: 'user.password_changed', data: { passwordHash: command.passwordHash, at } }, ...endOthers(state, command.keep, 'password_changed', command.at)];
      case 'update_profile':
        return decideProfile(state, command);
      case 'update_onboarding':
        return decideOnboarding(state, command);
      case 'end_sessions_in':
        return [...state.sessions]
          .filter(([, s]) => s.organizationId === command.organizationId && sessionLive(s, command.at))
          .map(([sessionId]) => ({ type: 'user.session_revoked', data: { sessionId, reason: 'removed_from_organization', at } }));
      case 'verify_contact':
        if (state.verified[command.channel] === command.address) return [];
        return [{ type: 'user.contact_verified', data: { channel: command.channel, address: command.address, at } }];
      case 'issue_token':
        return [{ type: 'user.token_issued', data: command.token }];
      case 'cancel_token': {
        const token = [...state.tokens.values()].find((t) => t.tokenId === command.tokenId && t.kind === command.kind);
        if (!token) throw new Refusal('IKW-RES-001', 'No such pending request', 'requestId');
        return [{ type: 'user.token_canceled', data: { tokenId: token.tokenId, at } }];
      }
      case 'change_credentials': {
        const user = state.user!;
        return [
          ...(command.email !== undefined && command.email !== user.email ? [{ type: 'user.email_changed', data: { email: command.email, previous: user.email, at } } as const] : []),
          ...(command.phone !== undefined && command.phone !== user.phone ? [{ type: 'user.phone_changed', data: { phone: command.phone, at } } as const] : []),
          ...(command.passwordHash !== undefined ? [{ type: 'user.password_changed', data: { passwordHash: command.passwordHash, at } } as const, ...endOthers(state, command.keep, 'password_changed', command.at)] : []),
        ];
      }
      case 'start_passkey_registration':
      case 'add_passkey':
      case 'use_passkey':
      case 'rename_passkey':
      case 'remove_passkey':
        return decidePasskey(state, command);
      case 'start_totp':
      case 'activate_totp':
      case 'use_totp_step':
      case 'use_recovery_code':
      case 'replace_recovery_codes':
      case 'disable_totp':
        return decideSecondFactor(state, command);
      case 'link_google':
      case 'unlink_google':
        return decideGoogle(state, command);
      case 'set_default_organization':
        if (state.defaultOrganizationId === command.organizationId) return [];
        return [{ type: 'user.default_organization_set', data: { organizationId: command.organizationId, at } }];
      default:
        return unreachable(command);
    }
  },
};
