import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '#packages/core/clock.js';
import type { DomainEvent } from '#packages/core/decider.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { sha256Hex } from '#packages/core/hashing.js';
import { newUuid } from '#packages/core/ids.js';
import type { SecretBox } from '#packages/core/secrets.js';
import { CommandService, handleSteps, loadState, step, type CommandStep } from '#packages/eventstore/command-handler.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { googleIdentityDecider, type GoogleIdentityCommand } from '../google-identity/decider.js';
import { googleIdentityStream } from '../google-identity/events.js';
import type { Messenger } from '#packages/messaging/messages.js';
import type { Accounts } from '../user/commands.js';
import type { Device, TokenPair } from '../user/sessions.js';
import type { MfaRequired } from '../user/second-factors.js';
import type { SignIns } from '../user/sign-in.js';
import type { AppTokenClaims } from '../user/tokens.js';
import { normalizeEmail } from '../user-email/events.js';
import type { Verifications } from '../verification/commands.js';
import { googleSignInDecider, type GoogleSignInCommand, type GoogleSignInState } from './decider.js';
import { GOOGLE_EXCHANGE_TTL_MS, GOOGLE_STATE_TTL_MS, googleSignInStream, type GoogleSignInEvent, type GoogleSignInOutcome, type GoogleSignInPurpose } from './events.js';
import type { OpenIdProvider, VerifiedIdentity } from './port.js';
import type { Actor } from '#packages/core/owner.js';
import { actorMetadata } from '#packages/eventstore/metadata.js';
import { accountErrors } from '../errors.js';

export interface GoogleSignInDeps {
  store: EventStore;
  clock: Clock;
  accounts: Accounts;
  signIns: SignIns;
  verifications: Verifications;
  messenger: Messenger;
  box: SecretBox;
  /** Null when sign-in with Google is not configured: every operation answers IKW-FED-001. */
  provider: OpenIdProvider | null;
  /** This service's public URL: the callback is under it, and `returnUrl` may point to its origin. */
  publicUrl: string;
  /** Other origins `returnUrl` may point to (GOOGLE_RETURN_ORIGINS). */
  returnOrigins: string[];
}

export interface AuthorizationStart {
  /** Where the browser goes next: Google's authorization endpoint. */
  authorizationUrl: string;
  expiresAt: string;
  /** Kept by the browser that started (e.g. in sessionStorage) and sent with `exchange`: binds the attempt to it. */
  exchangeKey: string;
}

export type GoogleExchangeResult = TokenPair | MfaRequired | { connected: true; email: string };

type Steps = CommandStep<unknown, unknown, DomainEvent>[];

/** `<32 random bytes>.<attempt id>`: state and one-time codes name their attempt, so no lookup table is needed. */
const TOKEN_SHAPE = /^([A-Za-z0-9_-]{43})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const newToken = (attemptId: string) => `${randomBytes(32).toString('base64url')}.${attemptId}`;

/** The path of the callback under PUBLIC_URL; the redirect URI registered with Google. */
export const GOOGLE_CALLBACK_PATH = '/api/v1/auth/google/callback';

/**
 * Sign-in with Google (docs/accounts.md, "Sign-in with Google"): authorization code with PKCE, state
 * and nonce, kept server-side in a `google_sign_in` stream per attempt; the callback signs in the
 * user linked to the Google account, or links the account holding its verified address, or refuses;
 * the outcome reaches the dashboard by a one-time code in the redirect's fragment, never tokens in
 * a URL. Connecting and disconnecting a Google account are behind second-factor challenges.
 */
export class GoogleSignIn extends CommandService<GoogleSignInCommand, GoogleSignInState, GoogleSignInEvent> {
  /** A browser's attempt has nobody to retry a 409: a lost race decides again. */
  constructor(private readonly deps: GoogleSignInDeps) {
    super(deps.store, googleSignInStream, googleSignInDecider, { onConflict: 'internal' });
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  /** Whether sign-in with Google is configured here (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET): a sign-in page offers it only then. */
  get available(): boolean {
    return this.deps.provider !== null;
  }

  get redirectUri(): string {
    return `${this.deps.publicUrl}${GOOGLE_CALLBACK_PATH}`;
  }

  private provider(): OpenIdProvider {
    if (!this.deps.provider) throw new Refusal('IKW-FED-001', accountErrors['IKW-FED-001'].message);
    return this.deps.provider;
  }

  private metadata(correlationId: string, actor: Actor): EventMetadata {
    return { correlation_id: correlationId, actor: actor.actor, occurred_at: this.now().toISOString(), ...actorMetadata(actor) };
  }

  private attemptStep(attemptId: string, command: GoogleSignInCommand, actor: Actor) {
    return step({ streamId: googleSignInStream(attemptId), decider: googleSignInDecider, command, metadata: this.metadata(attemptId, actor) });
  }

  private identityStep(command: GoogleIdentityCommand, actor: Actor) {
    return step({ streamId: googleIdentityStream(command.issuer, command.subject), decider: googleIdentityDecider, command, metadata: this.metadata(command.userId, actor) });
  }

  private async notice(email: string, subject: string, text: string): Promise<void> {
    await this.deps.messenger.send({ channel: 'email', to: email, purpose: 'security_notice', template: { purpose: 'security_notice', values: { subject, text, google: true } } });
  }

  /** Same origin as PUBLIC_URL or an allowed one; http(s) only, no credentials, no fragment (the one-time code goes there). */
  checkReturnUrl(returnUrl: string): string {
    let url: URL;
    try {
      url = new URL(returnUrl);
    } catch {
      throw new Refusal('IKW-FED-003', accountErrors['IKW-FED-003'].message, 'returnUrl');
    }
    const allowed = [new URL(this.deps.publicUrl).origin, ...this.deps.returnOrigins];
    if (!['http:', 'https:'].includes(url.protocol) || url.username !== '' || url.password !== '' || url.hash !== '' || returnUrl.includes('#') || !allowed.includes(url.origin)) {
      throw new Refusal('IKW-FED-003', accountErrors['IKW-FED-003'].message, 'returnUrl');
    }
    return url.toString();
  }

  /** Records the attempt (after `first`, e.g. a challenge used up, in one commit) and answers where to send the browser. */
  private async begin(purpose: GoogleSignInPurpose, userId: string | null, returnUrl: string, first: Steps, actor: Actor): Promise<AuthorizationStart> {
    const provider = this.provider();
    const target = this.checkReturnUrl(returnUrl);
    const attemptId = newUuid();
    const state = newToken(attemptId);
    const nonce = randomBytes(32).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
    // Discovery first: when Google cannot be reached nothing is stored and no challenge is used up.
    const authorizationUrl = await provider.authorizationUrl({ redirectUri: this.redirectUri, state, nonce, codeChallenge });
    const at = this.now();
    const expiresAt = new Date(at.getTime() + GOOGLE_STATE_TTL_MS).toISOString();
    const exchangeKey = randomBytes(32).toString('base64url');
    const started = {
      attemptId,
      purpose,
      userId,
      stateHash: sha256Hex(state),
      nonce,
      sealedVerifier: this.deps.box.seal(verifier, 'google-pkce'),
      exchangeKeyHash: sha256Hex(exchangeKey),
      returnUrl: target,
      expiresAt,
      at: at.toISOString(),
    };
    await handleSteps(this.deps.store, [...first, this.attemptStep(attemptId, { type: 'start', started }, actor)], { onConflict: 'internal' });
    return { authorizationUrl, expiresAt, exchangeKey };
  }

  /** `POST google/login`: where to send the browser to sign in with Google. */
  login(returnUrl: string, actor: Actor): Promise<AuthorizationStart> {
    return this.begin('login', null, returnUrl, [], actor);
  }

  /** `POST google/connect`: the same, to connect a Google account to the caller, behind a verified `google/connect` challenge (used up here). */
  connect(claims: AppTokenClaims, challengeId: string, returnUrl: string, actor: Actor): Promise<AuthorizationStart> {
    const asUser: Actor = { ...actor, actor: `user:${claims.userId}` };
    this.provider();
    this.checkReturnUrl(returnUrl);
    return this.begin('connect', claims.userId, returnUrl, [this.deps.verifications.consumption(challengeId, 'google/connect', null, claims.userId, asUser)], asUser);
  }

  /**
   * The browser back from Google. An unknown, forged, used or expired `state` is IKW-FED-002 (there
   * is no trusted place to send the browser). Otherwise the attempt is spent, whatever happens
   * next, and the browser goes to its `returnUrl` with a one-time code in the fragment; the code's
   * exchange answers the outcome: tokens, a second-factor challenge, the connection, or the refusal.
   */
  async callback(query: Record<string, string>, actor: Actor): Promise<string> {
    const provider = this.provider();
    const state = query.state ?? '';
    const attemptId = TOKEN_SHAPE.exec(state)?.[2];
    if (!attemptId) throw new Refusal('IKW-FED-002', accountErrors['IKW-FED-002'].message, 'state');
    const attempt = (await this.load(attemptId)).state;
    const started = attempt.started;
    const stateHash = sha256Hex(state);
    if (!started || started.stateHash !== stateHash || attempt.returned || this.now().getTime() >= Date.parse(started.expiresAt)) throw new Refusal('IKW-FED-002', accountErrors['IKW-FED-002'].message, 'state');

    const code = newToken(attemptId);
    const returned = { exchangeHash: sha256Hex(code), exchangeExpiresAt: new Date(this.now().getTime() + GOOGLE_EXCHANGE_TTL_MS).toISOString(), at: this.now().toISOString() };
    try {
      const identity = await provider.exchange(this.redirectUri, query, { state, nonce: started.nonce, codeVerifier: this.deps.box.open(started.sealedVerifier, 'google-pkce') });
      const found = await this.resolve(attempt, identity, actor);
      const complete = this.attemptStep(attemptId, { type: 'complete', stateHash, result: { ...returned, userId: found.userId, outcome: found.outcome, email: found.email }, at: this.now() }, actor);
      await handleSteps(this.deps.store, [complete, ...found.steps], { onConflict: 'internal' });
      if (found.outcome !== 'signed_in') await this.notice(found.noticeTo, 'A Google account was connected to your Sika account', `The Google account ${found.email} was connected to your Sika account: it can now sign in to it.`);
    } catch (err) {
      if (!isRefused(err) || err.code === 'IKW-FED-002') throw err;
      await this.run(attemptId, { type: 'refuse', stateHash, result: { ...returned, code: err.code, message: err.message }, at: this.now() }, this.metadata(attemptId, actor));
    }
    return `${started.returnUrl}#googleCode=${encodeURIComponent(code)}`;
  }

  /**
   * Who the Google account is here. Sign-in: the user it is linked to; else the user holding its
   * verified address (linked now); else IKW-FED-006. Connect: the user who started it.
   */
  private async resolve(attempt: GoogleSignInState, identity: VerifiedIdentity, actor: Actor): Promise<{ userId: string; outcome: GoogleSignInOutcome; email: string; noticeTo: string; steps: Steps }> {
    const { accounts } = this.deps;
    if (!identity.emailVerified || identity.email === null) throw new Refusal('IKW-FED-005', accountErrors['IKW-FED-005'].message);
    const email = normalizeEmail(identity.email);
    const link = { issuer: identity.issuer, subject: identity.subject, email };
    const linking = (userId: string, via: 'connect' | 'email') => {
      const asUser: Actor = { ...actor, actor: `user:${userId}` };
      return [this.identityStep({ type: 'link', issuer: identity.issuer, subject: identity.subject, userId, at: this.now() }, asUser), accounts.userStep(userId, { type: 'link_google', link, via, at: this.now() }, asUser)];
    };
    if (attempt.started!.purpose === 'connect') {
      const userId = attempt.started!.userId!;
      const user = (await accounts.stateOf(userId)).user!;
      return { userId, outcome: 'connected', email, noticeTo: user.email, steps: linking(userId, 'connect') };
    }
    const linked = (await loadState(this.deps.store, googleIdentityStream(identity.issuer, identity.subject), googleIdentityDecider)).state.userId;
    if (linked !== null && (await accounts.stateOf(linked)).user) return { userId: linked, outcome: 'signed_in', email, noticeTo: email, steps: [] };
    const holder = await accounts.userIdOf(email);
    const user = holder ? (await accounts.stateOf(holder)).user : null;
    if (!holder || !user) throw new Refusal('IKW-FED-006', accountErrors['IKW-FED-006'].message);
    return { userId: holder, outcome: 'linked', email, noticeTo: user.email, steps: linking(holder, 'email') };
  }

  /**
   * `POST google/exchange`: the one-time code from the redirect, once, within 2 minutes, with the
   * key the starting browser was given. A sign-in goes through SignIns (tokens, or `mfaRequired`
   * and a login challenge for a user with a second factor); a connection answers `connected`; a
   * refusal answers its code.
   */
  async exchange(code: string, exchangeKey: string, device: Device, actor: Actor): Promise<GoogleExchangeResult> {
    this.provider();
    const attemptId = TOKEN_SHAPE.exec(code)?.[2];
    if (!attemptId) throw new Refusal('IKW-FED-002', accountErrors['IKW-FED-002'].message, 'code');
    const redeem: GoogleSignInCommand = { type: 'redeem', exchangeHash: sha256Hex(code), exchangeKeyHash: sha256Hex(exchangeKey), at: this.now() };
    const { returned } = (await this.run(attemptId, redeem, this.metadata(attemptId, actor))).state;
    if (!returned) throw new Refusal('IKW-FED-002', accountErrors['IKW-FED-002'].message, 'code');
    if ('code' in returned) throw new Refusal(returned.code, returned.message);
    if (returned.outcome === 'connected') return { connected: true, email: returned.email };
    const asUser: Actor = { ...actor, actor: `user:${returned.userId}` };
    return this.deps.signIns.firstStep(await this.deps.accounts.stateOf(returned.userId), 'google', device, asUser);
  }

  /** `POST google/disconnect`: behind a verified `google/disconnect` challenge; the Google account may then be connected to anyone. */
  async disconnect(claims: AppTokenClaims, challengeId: string, actor: Actor): Promise<void> {
    this.provider();
    const { accounts, verifications } = this.deps;
    const asUser: Actor = { ...actor, actor: `user:${claims.userId}` };
    const state = await accounts.stateOf(claims.userId);
    const google = state.google;
    const release = google ? [this.identityStep({ type: 'unlink', issuer: google.issuer, subject: google.subject, userId: claims.userId, at: this.now() }, asUser)] : [];
    await accounts.handle(claims.userId, [verifications.consumption(challengeId, 'google/disconnect', null, claims.userId, asUser)], { type: 'unlink_google', at: this.now() }, asUser, release);
    await this.notice(state.user!.email, 'A Google account was disconnected from your Sika account', `The Google account ${google!.email} was disconnected from your Sika account: it no longer signs in to it.`);
  }
}
