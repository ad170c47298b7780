import { randomBytes } from 'node:crypto';
import { verify as argon2Verify } from '@node-rs/argon2';
import type { Clock } from '#packages/core/clock.js';
import { sha256Hex } from '#packages/core/hashing.js';
import { newId, newUuid } from '#packages/core/ids.js';
import type { Actor, OperatorRole } from '#packages/core/owner.js';
import { Refusal } from '#packages/core/refusal.js';
import type { SecretBox } from '#packages/core/secrets.js';
import { handleCommand, handleSteps, loadState, step } from '#packages/eventstore/command-handler.js';
import { actorMetadata } from '#packages/eventstore/metadata.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { Messenger } from '#packages/messaging/messages.js';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { hashPassword, newTotpSecret, totpStepOf, type RelyingParty } from '#packages/families/accounts/index.js';
import { credentialDecider, memberByEmail, openSignIn, teamDecider, type CredentialCommand, type CredentialState, type TeamCommand, type TeamMember } from './decider.js';
import { INVITATION_TTL_MS, OPERATOR_TEAM_STREAM, operatorStream, SESSION_TTL_MS, SIGN_IN_TTL_MS, type SessionEndReason } from './events.js';
import { signInAssertionOptions, verifySignInAssertion } from './passkeys.js';
import type { OperatorTokens } from './tokens.js';
import { operatorErrors } from './errors.js';

export interface OperatorDeps {
  store: EventStore;
  clock: Clock;
  box: SecretBox;
  tokens: OperatorTokens;
  messenger: Messenger;
  /** Where browsers reach the service: invitation links start with it. */
  publicUrl: string;
  /** The site operators' passkeys are bound to (PUBLIC_URL's). */
  rp: RelyingParty;
  /** Counts a wrong authenticator code against the operator (429 over the sign-in rule); a right one forgets the count. */
  attempts(operatorId: string): Promise<{ succeeded(): Promise<void> }>;
}

export interface NewOperator {
  email: string;
  name: string;
  role: OperatorRole;
}

/**
 * What a proved password answers (docs/operator.md, "Signing in"): no session yet, a sign-in to
 * complete with a code from the authenticator app within 10 minutes. `enroll_totp`, for an operator
 * without an app: `totp` holds the new secret to add to one, shown this once.
 */
export interface SignInStarted {
  challengeToken: string;
  next: 'verify_totp' | 'enroll_totp';
  expiresAt: string;
  totp?: { secret: string; otpauthUrl: string };
  /** For `verify_totp` by an operator with passkeys: what one of them may sign in place of the code. */
  passkeyOptions?: PublicKeyCredentialRequestOptionsJSON;
}

export interface OperatorSession {
  sessionToken: string;
  sessionId: string;
  expiresAt: string;
  operatorId: string;
}

/** Links and sign-ins name their operator, so each finds its stream without a lookup table. */
const TOKEN_SHAPE = /^(oi|oc)_[A-Za-z0-9_-]{43}\.(opr_[0-9A-Za-z]{24})$/;
const newToken = (kind: 'oi' | 'oc', operatorId: string) => `${kind}_${randomBytes(32).toString('base64url')}.${operatorId}`;
const operatorOf = (token: string, kind: 'oi' | 'oc') => {
  const match = TOKEN_SHAPE.exec(token);
  return match && match[1] === kind ? match[2]! : null;
};

/**
 * The platform's operators (docs/operator.md): the team and its roles, invitations, and sign-in
 * with a password and an authenticator app, never one without the other. Operators' use cases take
 * the acting operator as an Actor (`operator:<id>`); which role may call them is the HTTP edge's rule.
 */
export class Operators {
  /** Checked against when the address is unknown, so a sign-in costs the same either way. */
  private readonly decoyHash: Promise<string>;

  constructor(private readonly deps: OperatorDeps) {
    this.decoyHash = hashPassword(randomBytes(16).toString('hex'));
  }

  /** An operator's own events name them as actor when the request had none (a sign-in is public). */
  metadata(operatorId: string, actor: Actor): EventMetadata {
    return { correlation_id: operatorId, actor: actor.actor === 'public' ? `operator:${operatorId}` : actor.actor, occurred_at: this.deps.clock.now().toISOString(), ...actorMetadata(actor) };
  }

  private team(command: TeamCommand, operatorId: string, actor: Actor) {
    return handleCommand(this.deps.store, OPERATOR_TEAM_STREAM, teamDecider, command, this.metadata(operatorId, actor), { onConflict: 'internal' });
  }

  private credentials(operatorId: string, command: CredentialCommand, actor: Actor) {
    return handleCommand(this.deps.store, operatorStream(operatorId), credentialDecider, command, this.metadata(operatorId, actor), { onConflict: 'internal' });
  }

  private async stateOf(operatorId: string): Promise<CredentialState> {
    return (await loadState(this.deps.store, operatorStream(operatorId), credentialDecider)).state;
  }

  /** The team member, as the team stream holds them (undefined: no such operator). */
  async memberOf(operatorId: string): Promise<TeamMember | undefined> {
    return (await loadState(this.deps.store, OPERATOR_TEAM_STREAM, teamDecider)).state.members.get(operatorId);
  }

  /**
   * A new operator, invited: the team entry and a one-time link (3 days) to set a password and add
   * the authenticator app, e-mailed to them. Answers the link too, for the command line that makes
   * the first admin (`bin/sika operator users create`); the API never shows it.
   */
  async invite(input: NewOperator, actor: Actor): Promise<{ operatorId: string; invitationUrl: string; expiresAt: string }> {
    const at = this.deps.clock.now();
    const email = input.email.trim().toLowerCase();
    // Inviting an address whose operator has not signed in yet renews their link (the old one stops working), with the role given.
    const pending = memberByEmail((await loadState(this.deps.store, OPERATOR_TEAM_STREAM, teamDecider)).state, email);
    const operatorId = pending?.status === 'invited' ? pending.operatorId : newId('opr');
    const token = newToken('oi', operatorId);
    const expiresAt = new Date(at.getTime() + INVITATION_TTL_MS);
    const metadata = this.metadata(operatorId, actor);
    const team: TeamCommand = pending?.status === 'invited' ? { type: 'change_role', operatorId, role: input.role, at } : { type: 'invite', operator: { operatorId, email, name: input.name, role: input.role, at: at.toISOString() } };
    await handleSteps(
      this.deps.store,
      [
        step({ streamId: OPERATOR_TEAM_STREAM, decider: teamDecider, command: team, metadata }),
        step({ streamId: operatorStream(operatorId), decider: credentialDecider, command: { type: 'issue_invitation', operatorId, tokenHash: sha256Hex(token), expiresAt, at }, metadata }),
      ],
      { onConflict: 'internal' },
    );
    const invitationUrl = `${this.deps.publicUrl}/console/invitation?token=${token}`;
    const text = `You are invited to operate Sika as ${input.role}. Set your password and add an authenticator app within 3 days: ${invitationUrl}`;
    await this.deps.messenger.send({ channel: 'email', to: email, purpose: 'invitation', template: { purpose: 'security_notice', values: { subject: 'Your Sika operator invitation', text } } });
    return { operatorId, invitationUrl, expiresAt: expiresAt.toISOString() };
  }

  /** Accepting an invitation: the password is set, and the sign-in goes on to adding the authenticator app. */
  async acceptInvitation(token: string, password: string, actor: Actor): Promise<SignInStarted> {
    const operatorId = operatorOf(token, 'oi');
    const member = operatorId ? await this.memberOf(operatorId) : undefined;
    if (!operatorId || !member || member.status === 'deactivated') throw new Refusal('IKW-OPR-008', operatorErrors['IKW-OPR-008'].message, 'token');
    const asOperator = { ...actor, actor: `operator:${operatorId}` };
    await this.credentials(operatorId, { type: 'accept_invitation', tokenHash: sha256Hex(token), passwordHash: await hashPassword(password), at: this.deps.clock.now() }, asOperator);
    return this.startSignIn(operatorId, member.email, asOperator);
  }

  /** The first step: the password. A wrong address, a wrong password and a deactivated operator get the same IKW-OPR-003. */
  async signIn(email: string, password: string, actor: Actor): Promise<SignInStarted> {
    const member = memberByEmail((await loadState(this.deps.store, OPERATOR_TEAM_STREAM, teamDecider)).state, email);
    const state = member ? await this.stateOf(member.operatorId) : null;
    const matches = await argon2Verify(state?.passwordHash ?? (await this.decoyHash), password);
    if (!member || !state?.passwordHash || !matches) throw new Refusal('IKW-OPR-003', operatorErrors['IKW-OPR-003'].message);
    return this.startSignIn(member.operatorId, member.email, { ...actor, actor: `operator:${member.operatorId}` });
  }

  private async startSignIn(operatorId: string, email: string, actor: Actor): Promise<SignInStarted> {
    const at = this.deps.clock.now();
    const token = newToken('oc', operatorId);
    const expiresAt = new Date(at.getTime() + SIGN_IN_TTL_MS);
    const state = await this.stateOf(operatorId);
    const app = state.totp ? null : await newTotpSecret(email, 'Sika operator');
    const passkeyOptions = state.totp ? await signInAssertionOptions(state, this.deps.rp) : null;
    await this.credentials(
      operatorId,
      { type: 'start_sign_in', challengeHash: sha256Hex(token), enrolment: app ? this.deps.box.seal(app.secret, 'operator-totp') : null, webauthnChallenge: passkeyOptions?.challenge ?? null, expiresAt, at },
      actor,
    );
    return { challengeToken: token, next: app ? 'enroll_totp' : 'verify_totp', expiresAt: expiresAt.toISOString(), ...(app ? { totp: app } : {}), ...(passkeyOptions ? { passkeyOptions } : {}) };
  }

  /** The sign-in a challenge token names, still open, with its operator (IKW-OPR-005 for any other token). */
  private async signInUnderWay(challengeToken: string, actor: Actor) {
    const operatorId = operatorOf(challengeToken, 'oc');
    if (!operatorId) throw new Refusal('IKW-OPR-005', operatorErrors['IKW-OPR-005'].message, 'challengeToken');
    const at = this.deps.clock.now();
    const challengeHash = sha256Hex(challengeToken);
    const state = await this.stateOf(operatorId);
    const signIn = openSignIn(state, challengeHash, at);
    const member = await this.memberOf(operatorId);
    if (!member) throw new Refusal('IKW-OPR-005', operatorErrors['IKW-OPR-005'].message, 'challengeToken');
    return { operatorId, asOperator: { ...actor, actor: `operator:${operatorId}` }, at, challengeHash, state, signIn, member };
  }

  /**
   * The second step: a code from the authenticator app (the one being added, on a first sign-in)
   * starts the session. A wrong code counts against the sign-in (5) and the operator's attempts.
   */
  async completeSignIn(challengeToken: string, code: string, actor: Actor): Promise<OperatorSession> {
    const { operatorId, asOperator, at, challengeHash, state, signIn, member } = await this.signInUnderWay(challengeToken, actor);
    if (member.status === 'deactivated') throw new Refusal('IKW-OPR-005', operatorErrors['IKW-OPR-005'].message, 'challengeToken');
    const attempt = await this.deps.attempts(operatorId);
    const sealed = signIn.enrolment ?? state.totp!.sealedSecret;
    const step = await totpStepOf(this.deps.box.open(sealed, 'operator-totp'), code, at);
    if (step === null) {
      await this.credentials(operatorId, { type: 'fail_sign_in', challengeHash, at }, asOperator);
      throw new Refusal('IKW-OPR-004', operatorErrors['IKW-OPR-004'].message, 'code');
    }
    const sessionId = newUuid();
    const expiresAt = new Date(at.getTime() + SESSION_TTL_MS);
    await this.credentials(operatorId, { type: 'complete_sign_in', challengeHash, step, sessionId, expiresAt, at }, asOperator);
    await attempt.succeeded();
    // An invited operator is a member of the team from their first session: password and app both set.
    if (member.status === 'invited') await this.team({ type: 'activate', operatorId, at }, operatorId, asOperator);
    return { sessionToken: await this.deps.tokens.sign({ operatorId, sessionId }, expiresAt), sessionId, expiresAt: expiresAt.toISOString(), operatorId };
  }

  /** The second step with a passkey in place of the app's code (an operator who registered one): the session. */
  async completeSignInWithPasskey(challengeToken: string, response: AuthenticationResponseJSON, actor: Actor): Promise<OperatorSession> {
    const { operatorId, asOperator, at, challengeHash, state, signIn, member } = await this.signInUnderWay(challengeToken, actor);
    if (member.status !== 'active') throw new Refusal('IKW-OPR-005', operatorErrors['IKW-OPR-005'].message, 'challengeToken');
    if (!signIn.webauthnChallenge) throw new Refusal('IKW-OPR-010', 'This sign-in offered no passkey: give the code of your authenticator app', 'passkey');
    const attempt = await this.deps.attempts(operatorId);
    const used = await verifySignInAssertion(state, signIn.webauthnChallenge, response, this.deps.rp).catch(async (err: unknown) => {
      await this.credentials(operatorId, { type: 'fail_sign_in', challengeHash, at }, asOperator);
      throw err;
    });
    const sessionId = newUuid();
    const expiresAt = new Date(at.getTime() + SESSION_TTL_MS);
    await this.credentials(operatorId, { type: 'complete_sign_in_with_passkey', challengeHash, ...used, sessionId, expiresAt, at }, asOperator);
    await attempt.succeeded();
    return { sessionToken: await this.deps.tokens.sign({ operatorId, sessionId }, expiresAt), sessionId, expiresAt: expiresAt.toISOString(), operatorId };
  }

  async signOut(operatorId: string, sessionId: string, actor: Actor): Promise<void> {
    await this.endSession(operatorId, sessionId, 'signed_out', actor);
  }

  private async endSession(operatorId: string, sessionId: string, reason: SessionEndReason, actor: Actor): Promise<void> {
    await this.credentials(operatorId, { type: 'end_session', sessionId, reason, at: this.deps.clock.now() }, actor);
  }

  /** An admin changes an operator's role; the last active admin stays one (IKW-OPR-006). Effective at the operator's next request. */
  async changeRole(operatorId: string, role: OperatorRole, actor: Actor): Promise<void> {
    await this.team({ type: 'change_role', operatorId, role, at: this.deps.clock.now() }, operatorId, actor);
  }

  /** An admin deactivates an operator: their sessions end at once; the last active admin cannot be (IKW-OPR-006). */
  async deactivate(operatorId: string, actor: Actor): Promise<void> {
    const at = this.deps.clock.now();
    await this.team({ type: 'deactivate', operatorId, at }, operatorId, actor);
    await this.credentials(operatorId, { type: 'end_all_sessions', reason: 'deactivated', at }, actor);
  }
}
