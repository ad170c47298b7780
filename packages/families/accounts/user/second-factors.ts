import { randomBytes } from 'node:crypto';
import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import type { KeyedHasher } from '#packages/core/hashing.js';
import { newUuid } from '#packages/core/ids.js';
import type { SecretBox } from '#packages/core/secrets.js';
import type { Messenger } from '#packages/messaging/messages.js';
import type { Verifications } from '../verification/commands.js';
import { answeredElsewhere, ENROLMENT_PURPOSES, MFA_CHALLENGE_TTL_MS, type MfaPurpose, type VerificationStarted } from '../verification/events.js';
import type { Accounts } from './commands.js';
import { hasSecondFactor, type UserState } from './decider.js';
import type { SecondFactorKind } from './events.js';
import type { AnsweredChallenge, FactorAttempts } from './factors.js';
import type { PasskeyChallenge, Passkeys } from './passkeys.js';
import type { AppTokenClaims } from './tokens.js';
import { newTotpSecret, totpStepOf } from './totp.js';
import type { Actor } from '#packages/core/owner.js';

/**
 * How a challenge is answered: a passkey, else the authenticator app, else a code by e-mail: the
 * strongest the user has. `password`: adding a first second factor (nothing stronger exists yet).
 */
export type Factor = 'passkey' | 'totp' | 'email' | 'password';

export interface MfaChallenge {
  challengeId: string;
  purpose: MfaPurpose;
  factor: Factor;
  expiresAt: string;
  /** `passkey`: what the browser passes to `navigator.credentials.get`; answered by `passkeys/assertion/complete`. */
  options?: PasskeyChallenge['options'];
}

/** What login answers when the password is right and a second factor is needed. */
export interface MfaRequired extends MfaChallenge {
  mfaRequired: true;
}

export interface TotpSetup {
  secretId: string;
  /** Base32, for typing into an app; also inside `otpauthUrl`. Shown at set-up only. */
  secret: string;
  otpauthUrl: string;
}

export interface SecondFactorDeps {
  clock: Clock;
  passkeys: Passkeys;
  accounts: Accounts;
  verifications: Verifications;
  box: SecretBox;
  /** HMACs of recovery codes (about 50 bits each: a plain hash would be too easy to try back). */
  recoveryCodes: KeyedHasher;
  messenger: Messenger;
  attempts: FactorAttempts;
}

const RECOVERY_CODE_COUNT = 10;
const RECOVERY_SHAPE = /^[a-z2-7]{5}-[a-z2-7]{5}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function newRecoveryCode(): string {
  const chars = [...randomBytes(10)].map((b) => BASE32[b % 32]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * Second factors (docs/accounts.md, "Second factors"): challenges bound to a user and a purpose,
 * answered by the user's authenticator app (TOTP, or one of its recovery codes) or else by a code
 * sent by e-mail; TOTP set-up and removal; sign-in that asks for the second factor.
 */
export class SecondFactors {
  constructor(private readonly deps: SecondFactorDeps) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  private async notify(state: UserState, subject: string, text: string): Promise<void> {
    await this.deps.messenger.send({ channel: 'email', to: state.user!.email, purpose: 'security_notice', template: { purpose: 'security_notice', values: { subject, text } } });
  }

  /**
   * A challenge for one of the user's operations, answered by their strongest factor; 5 minutes,
   * single use. Adding a factor when the user has none is answered by their password.
   * `signIn`: a `login` challenge's first step (SignIns.admit makes those).
   */
  async challenge(userId: string, purpose: MfaPurpose, actor: Actor, signIn?: VerificationStarted['signIn']): Promise<MfaChallenge> {
    const state = await this.deps.accounts.stateOf(userId);
    if (state.passkeys.size > 0) return this.deps.passkeys.openAssertion(userId, purpose, actor, signIn);
    const challengeId = newUuid();
    const withoutCode = (channel: 'totp' | 'password', address: string) => this.deps.verifications.open({ challengeId, purpose, userId, channel, address, codeHash: '', ...(signIn ? { signIn } : {}) }, MFA_CHALLENGE_TTL_MS, null, actor);
    if (state.totp) return { ...(await withoutCode('totp', 'authenticator')), purpose, factor: 'totp' };
    if (ENROLMENT_PURPOSES.includes(purpose)) return { ...(await withoutCode('password', 'password')), purpose, factor: 'password' };
    const email = state.user!.email;
    const { code, codeHash } = this.deps.verifications.newCode(challengeId);
    const started = await this.deps.verifications.open(
      { challengeId, purpose, userId, channel: 'email', address: email, codeHash },
      MFA_CHALLENGE_TTL_MS,
      { channel: 'email', to: email, purpose: 'mfa_code', template: { purpose: 'mfa_code', values: { code, purpose } } },
      actor,
    );
    return { ...started, purpose, factor: 'email' };
  }

  /**
   * Answers a challenge: an authenticator code (each time step once), a recovery code (each once),
   * the e-mailed code, or the password (adding a first factor). Every answer counts against the
   * user's factor attempts; a login challenge's session is SignIns' to start.
   */
  async verify(challengeId: string, code: string, actor: Actor): Promise<AnsweredChallenge> {
    const { verifications, accounts } = this.deps;
    const { challenge } = (await verifications.load(challengeId)).state;
    if (!challenge || challenge.userId === null || answeredElsewhere(challenge.purpose)) throw new Refusal('IKW-RES-001', 'No such challenge', 'challengeId');
    const userId = challenge.userId;
    const asUser: Actor = { ...actor, actor: `user:${userId}` };
    if (challenge.channel === 'passkey') throw new Refusal('IKW-RES-002', 'This challenge is answered by a passkey: POST /api/v1/auth/passkeys/assertion/complete', 'challengeId');
    const attempt = await this.deps.attempts.count(userId);
    let secondFactor: SecondFactorKind | null = null;
    if (challenge.channel === 'totp') {
      const state = await accounts.stateOf(userId);
      if (!state.totp) throw new Refusal('IKW-ACC-006', 'The authenticator app this challenge asked for was removed; ask for a new challenge', 'challengeId');
      const recovery = code.trim().toLowerCase();
      if (RECOVERY_SHAPE.test(recovery)) {
        const codeHash = this.deps.recoveryCodes.hash(recovery);
        const known = state.recoveryCodes.has(codeHash);
        await verifications.check(challengeId, known, [accounts.userStep(userId, { type: 'use_recovery_code', codeHash, at: this.now() }, asUser)], asUser);
        secondFactor = 'recovery_code';
      } else {
        const result = await this.checkTotp(state.totp.sealedSecret, code);
        await verifications.check(challengeId, result !== null, result === null ? [] : [accounts.userStep(userId, { type: 'use_totp_step', step: result, at: this.now() }, asUser)], asUser);
        secondFactor = 'totp';
      }
    } else if (challenge.channel === 'password') {
      const state = await accounts.stateOf(userId);
      // A factor added since the challenge was made must answer instead: ask again.
      if (hasSecondFactor(state)) throw new Refusal('IKW-ACC-006', 'Your account now has a second factor; ask for a new challenge', 'challengeId');
      await verifications.check(challengeId, await accounts.passwordMatches(state, code), [], asUser, 'The password is wrong');
    } else {
      await verifications.check(challengeId, verifications.codeMatches(challenge, code), [], asUser);
    }
    await attempt.succeeded();
    return { challengeId, userId, purpose: challenge.purpose as MfaPurpose, secondFactor, signIn: challenge.signIn ?? null };
  }

  /** The time step a code of this secret matches now (or the steps beside it), or null. */
  private checkTotp(sealedSecret: string, code: string): Promise<number | null> {
    return totpStepOf(this.deps.box.open(sealedSecret, 'totp'), code, this.now());
  }

  /**
   * Starts setting up an authenticator app behind a fresh `mfa/totp/setup` challenge: a new
   * secret, shown once, confirmed by a code from the app.
   */
  async startTotp(claims: AppTokenClaims, challengeId: string, actor: Actor): Promise<TotpSetup> {
    const { accounts, verifications } = this.deps;
    const state = await accounts.stateOf(claims.userId);
    const { secret, otpauthUrl } = await newTotpSecret(state.user!.email);
    const secretId = newUuid();
    const enrolment = { secretId, sealedSecret: this.deps.box.seal(secret, 'totp'), at: this.now().toISOString() };
    await accounts.handle(claims.userId, [verifications.consumption(challengeId, 'mfa/totp/setup', null, claims.userId, actor)], { type: 'start_totp', enrolment, at: this.now() }, actor);
    return { secretId, secret, otpauthUrl };
  }

  /** Confirms the set-up with a code from the app; answers the recovery codes, shown this once. */
  async activateTotp(claims: AppTokenClaims, secretId: string, code: string, actor: Actor): Promise<{ enabled: true; recoveryCodes: string[] }> {
    const state = await this.deps.accounts.stateOf(claims.userId);
    const enrolment = state.pendingTotp.get(secretId);
    if (!enrolment) throw new Refusal('IKW-RES-001', 'No such authenticator enrolment', 'secretId');
    const step = await this.checkTotp(enrolment.sealedSecret, code);
    if (step === null) throw new Refusal('IKW-ACC-005', 'The code is wrong; check the app and the phone’s clock', 'code');
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const result = await this.deps.accounts.command(
      claims.userId,
      { type: 'activate_totp', secretId, step, recoveryCodeHashes: recoveryCodes.map((c) => this.deps.recoveryCodes.hash(c)), sessionId: claims.sessionId, at: this.now() },
      actor,
    );
    if (result.events.length === 0) throw new Refusal('IKW-RES-002', 'This authenticator app is already set up; its recovery codes were shown then');
    await this.notify(state, 'An authenticator app was added to your Sika account', 'Sign-ins and sensitive changes now ask for a code from it. Sessions that did not use it were signed out.');
    return { enabled: true, recoveryCodes };
  }

  /** Removes the authenticator app, behind a fresh challenge answered by it. */
  async disableTotp(claims: AppTokenClaims, challengeId: string, actor: Actor): Promise<void> {
    const { accounts, verifications } = this.deps;
    await accounts.assertMayRemoveFactor(claims.userId, (await accounts.stateOf(claims.userId)).passkeys.size);
    await accounts.handle(claims.userId, [verifications.consumption(challengeId, 'mfa/totp/disable', null, claims.userId, actor)], { type: 'disable_totp', at: this.now() }, actor);
    await this.notify(await accounts.stateOf(claims.userId), 'The authenticator app was removed from your Sika account', 'Sign-ins no longer ask for its codes.');
  }

  /** New recovery codes (the old ones stop working), behind a fresh challenge. */
  async replaceRecoveryCodes(claims: AppTokenClaims, challengeId: string, actor: Actor): Promise<{ recoveryCodes: string[] }> {
    const { accounts, verifications } = this.deps;
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await accounts.handle(
      claims.userId,
      [verifications.consumption(challengeId, 'mfa/recovery-codes', null, claims.userId, actor)],
      { type: 'replace_recovery_codes', recoveryCodeHashes: recoveryCodes.map((c) => this.deps.recoveryCodes.hash(c)), at: this.now() },
      actor,
    );
    await this.notify(await accounts.stateOf(claims.userId), 'New recovery codes for your Sika account', 'The previous recovery codes no longer work.');
    return { recoveryCodes };
  }
}
