import { randomBytes } from 'node:crypto';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { newUuid } from '#packages/core/ids.js';
import type { Messenger } from '#packages/messaging/messages.js';
import type { Verifications } from '../verification/commands.js';
import { MFA_CHALLENGE_TTL_MS, type MfaPurpose, type VerificationStarted } from '../verification/events.js';
import type { Accounts } from './commands.js';
import type { UserState } from './decider.js';
import type { Passkey } from './events.js';
import type { AnsweredChallenge, FactorAttempts } from './factors.js';
import type { AppTokenClaims } from './tokens.js';
import type { Actor } from '#packages/core/owner.js';

/** The relying party: the site passkeys are bound to (PUBLIC_URL's host and origin). */
export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

export interface PasskeyDeps {
  clock: Clock;
  accounts: Accounts;
  verifications: Verifications;
  messenger: Messenger;
  rp: RelyingParty;
  attempts: FactorAttempts;
}

export interface PasskeyChallenge {
  challengeId: string;
  purpose: MfaPurpose;
  factor: 'passkey';
  expiresAt: string;
  /** What the browser passes to `navigator.credentials.get`. */
  options: PublicKeyCredentialRequestOptionsJSON;
}

const CEREMONY_TTL_MS = 5 * 60_000;

// Loaded by the first ceremony, not with the module: about a second of start-up (its certificate
// parsers) that a process no passkey reaches would pay for nothing.
let webauthnLoading: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (webauthnLoading ??= import('@simplewebauthn/server'));

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname, name: 'Sika', origin: url.origin };
}

/**
 * Passkeys (docs/accounts.md, "Passkeys"): WebAuthn credentials registered by a signed-in user, used
 * as the strongest second factor (assertions answer challenges of a purpose) and to sign in
 * without a password. Each assertion's WebAuthn challenge names its challenge id, so a response
 * finds its challenge by itself; a challenge is used once and the signature counter must go up.
 */
export class Passkeys {
  constructor(private readonly deps: PasskeyDeps) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  /** Begins registering a passkey, behind a fresh `passkeys/register` challenge (a stolen access token alone must not add one). */
  async beginRegistration(claims: AppTokenClaims, challengeId: string, actor: Actor): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { accounts, verifications } = this.deps;
    const state = await accounts.stateOf(claims.userId);
    const user = state.user!;
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: this.deps.rp.name,
      rpID: this.deps.rp.id,
      userName: user.email,
      userID: new TextEncoder().encode(user.userId),
      userDisplayName: user.name,
      attestationType: 'none',
      excludeCredentials: [...state.passkeys.values()].map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await accounts.handle(
      claims.userId,
      [verifications.consumption(challengeId, 'passkeys/register', null, claims.userId, actor)],
      { type: 'start_passkey_registration', challenge: options.challenge, expiresAt: new Date(this.now().getTime() + CEREMONY_TTL_MS), at: this.now() },
      actor,
    );
    return options;
  }

  async completeRegistration(claims: AppTokenClaims, response: RegistrationResponseJSON, nickname: string | null, actor: Actor): Promise<Passkey> {
    const state = await this.deps.accounts.stateOf(claims.userId);
    let challenge = '';
    const { verifyRegistrationResponse } = await webauthn();
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: (c) => {
        challenge = c;
        return state.passkeyRegistrations.has(c);
      },
      expectedOrigin: this.deps.rp.origin,
      expectedRPID: this.deps.rp.id,
      requireUserVerification: false,
    }).catch((err: unknown) => refused(err));
    if (!verified.verified) throw refused('the attestation did not verify');
    const { credential, credentialBackedUp } = verified.registrationInfo;
    const passkey: Passkey = {
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      nickname: nickname ?? `Passkey ${state.passkeys.size + 1}`,
      backedUp: credentialBackedUp,
      createdAt: this.now().toISOString(),
      lastUsedAt: null,
    };
    await this.deps.accounts.command(claims.userId, { type: 'add_passkey', passkey, challenge, sessionId: claims.sessionId, at: this.now() }, actor);
    await this.notify(state, 'A passkey was added to your Sika account', `The passkey "${passkey.nickname}" can now sign in and confirm sensitive changes. Sessions that did not use a second factor were signed out.`);
    return passkey;
  }

  /**
   * A challenge of `purpose` for a user, answered by one of their passkeys; for no user in
   * particular, a passwordless sign-in, where the authenticator must verify its user (PIN or
   * biometrics): the passkey is then both factors.
   */
  async openAssertion(userId: string | null, purpose: MfaPurpose, actor: Actor, signIn?: VerificationStarted['signIn']): Promise<PasskeyChallenge> {
    const state = userId ? await this.deps.accounts.stateOf(userId) : null;
    if (state && state.passkeys.size === 0) throw new Refusal('IKW-RES-002', 'You have no passkey; register one first', 'purpose');
    const challengeId = newUuid();
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({
      rpID: this.deps.rp.id,
      // The challenge names its challenge id, so the signed response finds it.
      challenge: `${challengeId}.${randomBytes(16).toString('hex')}`,
      allowCredentials: state ? [...state.passkeys.values()].map((p) => ({ id: p.credentialId, transports: p.transports })) : [],
      userVerification: userId === null ? 'required' : 'preferred',
    });
    const started = await this.deps.verifications.open(
      { challengeId, purpose, userId, channel: 'passkey', address: 'passkey', codeHash: '', webauthnChallenge: options.challenge, ...(signIn ? { signIn } : {}) },
      MFA_CHALLENGE_TTL_MS,
      null,
      actor,
    );
    return { ...started, purpose, factor: 'passkey', options };
  }

  /**
   * Checks a passkey's answer to a challenge (an MFA purpose, or `login`, whose session is
   * SignIns' to start). A wrong origin, a bad signature or a counter that did not go up spends a
   * try, and counts against the user's factor attempts.
   */
  async completeAssertion(response: AuthenticationResponseJSON, actor: Actor): Promise<AnsweredChallenge> {
    const { verifications, accounts } = this.deps;
    const webauthnChallenge = clientChallenge(response);
    const challengeId = Buffer.from(webauthnChallenge, 'base64url').toString('utf8').split('.')[0] ?? '';
    const { challenge } = /^[0-9a-f-]{36}$/.test(challengeId) ? (await verifications.load(challengeId)).state : { challenge: null };
    if (!challenge || challenge.channel !== 'passkey' || challenge.webauthnChallenge !== webauthnChallenge) throw new Refusal('IKW-RES-001', 'No such challenge', 'assertionResponse');
    // A passwordless sign-in learns its user from the passkey (the user handle set at registration).
    const userId = challenge.userId ?? Buffer.from(response.response.userHandle ?? '', 'base64url').toString('utf8');
    const state = /^[0-9a-f-]{36}$/.test(userId) ? await accounts.stateOf(userId) : null;
    const attempt = state?.user ? await this.deps.attempts.count(userId) : null;
    const passkey = state?.passkeys.get(response.id);
    const asUser: Actor = { ...actor, actor: state?.user ? `user:${userId}` : actor.actor };
    let counter = 0;
    let reason = 'The passkey is not one of this account';
    if (passkey) {
      const { verifyAuthenticationResponse } = await webauthn();
      try {
        const result = await verifyAuthenticationResponse({
          response,
          expectedChallenge: webauthnChallenge,
          expectedOrigin: this.deps.rp.origin,
          expectedRPID: this.deps.rp.id,
          credential: { id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter, transports: passkey.transports as never },
          // Without a password before it, the passkey must be both factors.
          requireUserVerification: challenge.userId === null,
        });
        counter = result.verified ? result.authenticationInfo.newCounter : -1;
        if (!result.verified) reason = 'The passkey’s signature did not verify';
      } catch (err) {
        counter = -1;
        reason = `The passkey’s answer was refused: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    const ok = passkey !== undefined && counter >= 0;
    await verifications.check(challengeId, ok, ok ? [accounts.userStep(userId, { type: 'use_passkey', credentialId: passkey.credentialId, counter, at: this.now() }, asUser)] : [], asUser, reason);
    await attempt?.succeeded();
    return { challengeId, userId, purpose: challenge.purpose as MfaPurpose, secondFactor: 'passkey', signIn: challenge.signIn ?? (challenge.userId === null ? { method: 'passkey', organizationId: null } : null) };
  }

  async rename(claims: AppTokenClaims, credentialId: string, nickname: string, actor: Actor): Promise<Passkey> {
    const { state } = await this.deps.accounts.command(claims.userId, { type: 'rename_passkey', credentialId, nickname, at: this.now() }, actor);
    return state.passkeys.get(credentialId)!;
  }

  /** Removes a passkey behind a fresh challenge of purpose `passkeys/delete`. */
  async remove(claims: AppTokenClaims, credentialId: string, challengeId: string, actor: Actor): Promise<void> {
    const { accounts, verifications } = this.deps;
    const before = await accounts.stateOf(claims.userId);
    if (before.passkeys.has(credentialId)) await accounts.assertMayRemoveFactor(claims.userId, before.passkeys.size - 1 + (before.totp ? 1 : 0));
    const result = await accounts.handle(claims.userId, [verifications.consumption(challengeId, 'passkeys/delete', null, claims.userId, actor)], { type: 'remove_passkey', credentialId, at: this.now() }, actor);
    await this.notify(result.state as UserState, 'A passkey was removed from your Sika account', 'It can no longer sign in.');
  }

  private async notify(state: UserState, subject: string, text: string): Promise<void> {
    await this.deps.messenger.send({ channel: 'email', to: state.user!.email, purpose: 'security_notice', template: { purpose: 'security_notice', values: { subject, text } } });
  }
}

function refused(err: unknown): never {
  throw new Refusal('IKW-ACC-009', `The passkey was not accepted: ${err instanceof Error ? err.message : String(err)}`, 'attestationResponse');
}

/** The challenge the browser says it signed (from clientDataJSON), or ''. */
function clientChallenge(response: AuthenticationResponseJSON): string {
  try {
    const data = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : '';
  } catch {
    return '';
  }
}
