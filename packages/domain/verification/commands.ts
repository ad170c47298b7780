import { randomInt } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import type { KeyedHasher } from '../../core/hashing.js';
import { newUuid } from '../../core/ids.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import { CommandService } from '../../eventstore/command-handler.js';
import { actorMetadata, type Actor } from '../audit.js';
import type { Messenger } from '../messages.js';
import { verificationDecider, type VerificationCommand, type VerificationState } from './decider.js';
import { CODE_TTL_MS, MAX_ATTEMPTS, verificationStream, type VerificationEvent, type VerificationPurpose } from './events.js';

export interface VerificationDeps {
  store: EventStore;
  clock: Clock;
  codes: KeyedHasher;
  messenger: Messenger;
  /** Whether an account already holds this e-mail address. */
  accountExists(email: string): Promise<boolean>;
}

export interface StartedChallenge {
  challengeId: string;
  expiresAt: string;
}

/**
 * Pre-signup challenges (docs/auth.md, "Sign-up"): a six-digit code sent by e-mail or SMS proves
 * the sender receives there. An address that already has an account gets the same answer, and a
 * message saying so instead of a code: the answer tells nobody whether the address is taken.
 */
export class Verifications extends CommandService<VerificationCommand, VerificationState, VerificationEvent> {
  constructor(private readonly deps: VerificationDeps) {
    super(deps.store, verificationStream, verificationDecider, { onConflict: 'internal' });
  }

  metadata(challengeId: string, actor: Actor): EventMetadata {
    return { correlation_id: challengeId, actor: actor.actor, occurred_at: this.deps.clock.now().toISOString(), ...actorMetadata(actor) };
  }

  async start(purpose: VerificationPurpose, address: string, actor: Actor): Promise<StartedChallenge> {
    const challengeId = newUuid();
    const at = this.deps.clock.now();
    const expiresAt = new Date(at.getTime() + CODE_TTL_MS).toISOString();
    const channel = purpose === 'signup_email' ? 'email' : 'sms';
    const taken = purpose === 'signup_email' && (await this.deps.accountExists(address));
    // A taken address gets a code nobody is told: its challenge can never be verified.
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const codeHash = this.deps.codes.hash(`${challengeId}:${taken ? newUuid() : code}`);
    await this.run(challengeId, { type: 'start', challenge: { challengeId, purpose, channel, address, codeHash, expiresAt, at: at.toISOString() } }, this.metadata(challengeId, actor));
    await this.deps.messenger.send(
      taken
        ? { channel, to: address, purpose: 'signup_existing_account', subject: 'You already have a Sika account', text: 'Someone asked to sign up to Sika with this address, which already has an account. Sign in, or reset your password if you forgot it. If it was not you, ignore this message.' }
        : { channel, to: address, purpose: 'signup_code', subject: 'Your Sika code', text: `Your Sika verification code is ${code}. It expires in 10 minutes.` },
    );
    return { challengeId, expiresAt };
  }

  /** Checks a code: right → verified; wrong → one of five tries spent (IKW-ACC-005 says how many remain). */
  async verify(purpose: VerificationPurpose, challengeId: string, code: string, actor: Actor): Promise<{ challengeId: string; verified: true }> {
    const { state } = await this.load(challengeId);
    // A challenge of the other channel is not this route's: "no such challenge".
    if (state.challenge?.purpose !== purpose) throw new ApiError('IKW-RES-001', 'No such challenge', 'challengeId');
    const codeMatches = this.deps.codes.matches(`${challengeId}:${code}`, state.challenge.codeHash);
    const result = await this.run(challengeId, { type: 'verify', codeMatches, at: this.deps.clock.now() }, this.metadata(challengeId, actor));
    const failed = result.events.find((e) => e.type === 'verification.failed');
    if (failed?.type === 'verification.failed') {
      const left = MAX_ATTEMPTS - failed.data.attempts;
      throw new ApiError('IKW-ACC-005', left > 0 ? `The code is wrong; ${left} tries left` : 'The code is wrong; no tries left, ask for a new code', 'code');
    }
    return { challengeId, verified: true };
  }
}
