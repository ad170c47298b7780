import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { Refusal } from '#packages/core/refusal.js';
import type { Verifications } from '../verification/commands.js';
import type { Accounts } from './commands.js';
import type { Device, TokenPair, UserSessions } from './sessions.js';
import { satisfiesFactorRule, type UserState } from './decider.js';
import type { SessionProof, SignInMethod } from './events.js';
import type { Passkeys } from './passkeys.js';
import type { AnsweredChallenge } from './factors.js';
import type { MfaRequired, SecondFactors } from './second-factors.js';
import type { Actor } from '#packages/core/owner.js';

export interface SignInDeps {
  accounts: Accounts;
  sessions: UserSessions;
  secondFactors: SecondFactors;
  passkeys: Passkeys;
  verifications: Verifications;
}

/** What answering a challenge gives: `{verified}`, and for a `login` challenge the session's tokens too. */
export type ChallengeAnswer = { challengeId: string; verified: true } | (TokenPair & { challengeId: string; verified: true });

/**
 * Every way of starting a session (docs/accounts.md, "The factor rule"): a password, a magic link, an
 * invitation, Google, a passkey, sign-up. Each proves a first step and hands it to `admit`, the one
 * place a session starts: a user with a second factor who has not proved it gets a `login`
 * challenge instead of tokens, and answering it comes back through `admit`. Moving a session to
 * another organization or merchant, and refreshing it, apply the same rule (the user decider).
 */
export class SignIns {
  constructor(private readonly deps: SignInDeps) {}

  /**
   * The one door to a session: tokens when `proof` satisfies the factor rule for this user, else a
   * `login` challenge that remembers the first step and where the session is to start.
   */
  async admit(state: UserState, proof: SessionProof, device: Device, actor: Actor, organizationId: string | null = null): Promise<TokenPair | MfaRequired> {
    const userId = state.user!.userId;
    const asUser: Actor = { ...actor, actor: `user:${userId}` };
    if (satisfiesFactorRule(state, proof)) return this.deps.sessions.startSession(state, proof, device, asUser, organizationId);
    return { mfaRequired: true, ...(await this.deps.secondFactors.challenge(userId, 'login', asUser, { method: proof.method, organizationId })) };
  }

  /** A first step proved (the method says how): its user's way into a session. */
  firstStep(state: UserState, method: SignInMethod, device: Device, actor: Actor, organizationId: string | null = null): Promise<TokenPair | MfaRequired> {
    return this.admit(state, { method, secondFactor: null }, device, actor, organizationId);
  }

  async withPassword(email: string, password: string, device: Device, actor: Actor): Promise<TokenPair | MfaRequired> {
    return this.firstStep(await this.deps.accounts.authenticate(email, password), 'password', device, actor);
  }

  async withMagicLink(token: string, device: Device, actor: Actor): Promise<TokenPair | MfaRequired> {
    return this.firstStep(await this.deps.accounts.redeemMagicLink(token, actor), 'magic_link', device, actor);
  }

  /** `mfa/verify`: a code, recovery code or password answers a challenge; a `login` one goes on to `admit`. */
  async answer(challengeId: string, code: string, device: Device, actor: Actor): Promise<ChallengeAnswer> {
    return this.answered(await this.deps.secondFactors.verify(challengeId, code, actor), device, actor);
  }

  /** `passkeys/assertion/complete` and `passkeys/login/complete`: a passkey answers a challenge. */
  async answerWithPasskey(response: AuthenticationResponseJSON, device: Device, actor: Actor): Promise<ChallengeAnswer> {
    return this.answered(await this.deps.passkeys.completeAssertion(response, actor), device, actor);
  }

  private async answered(answer: AnsweredChallenge, device: Device, actor: Actor): Promise<ChallengeAnswer> {
    const { challengeId, userId } = answer;
    if (answer.purpose !== 'login') return { challengeId, verified: true };
    const asUser: Actor = { ...actor, actor: `user:${userId}` };
    await this.deps.verifications.consume(challengeId, 'login', userId, asUser);
    const proof: SessionProof = { method: answer.signIn?.method ?? 'password', secondFactor: answer.secondFactor };
    const admitted = await this.admit(await this.deps.accounts.stateOf(userId), proof, device, asUser, answer.signIn?.organizationId ?? null);
    // Only if the user's factors changed while the challenge was open (a login challenge is answered by one).
    if ('mfaRequired' in admitted) throw new Refusal('IKW-ACC-006', 'Your second factors changed since this sign-in began; sign in again', 'challengeId');
    return { challengeId, verified: true, ...admitted };
  }
}
