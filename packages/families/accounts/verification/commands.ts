import { randomInt } from 'node:crypto';
import type { Clock } from '#packages/core/clock.js';
import type { DomainEvent } from '#packages/core/decider.js';
import type { KeyedHasher } from '#packages/core/hashing.js';
import { newUuid } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { CommandService, handleSteps, step, type CommandStep } from '#packages/eventstore/command-handler.js';
import type { Messenger, OutgoingMessage } from '#packages/messaging/messages.js';
import { verificationDecider, type VerificationCommand, type VerificationState } from './decider.js';
import { CODE_TTL_MS, MAX_ATTEMPTS, verificationStream, type VerificationEvent, type VerificationPurpose, type VerificationStarted } from './events.js';
import type { Actor } from '#packages/core/owner.js';
import { actorMetadata } from '#packages/eventstore/metadata.js';
import { Refusal } from '#packages/core/refusal.js';

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
 * Challenges answered with a six-digit code (docs/accounts.md): pre-signup codes by e-mail or SMS,
 * and the second-factor challenges of signed-in users (packages/families/accounts/user/second-factors.ts),
 * which share the lifecycle: five tries, an expiry, verified once, used once by their operation.
 */
export class Verifications extends CommandService<VerificationCommand, VerificationState, VerificationEvent> {
  constructor(private readonly deps: VerificationDeps) {
    super(deps.store, verificationStream, verificationDecider, { onConflict: 'internal' });
  }

  metadata(challengeId: string, actor: Actor): EventMetadata {
    return { correlation_id: challengeId, actor: actor.actor, occurred_at: this.deps.clock.now().toISOString(), ...actorMetadata(actor) };
  }

  /** A fresh six-digit code for a challenge, and its stored form. */
  newCode(challengeId: string): { code: string; codeHash: string } {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    return { code, codeHash: this.deps.codes.hash(`${challengeId}:${code}`) };
  }

  codeMatches(challenge: VerificationStarted, code: string): boolean {
    return challenge.codeHash !== '' && this.deps.codes.matches(`${challenge.challengeId}:${code}`, challenge.codeHash);
  }

  /** Records a challenge, then sends its message (none for an authenticator app's). */
  async open(challenge: Omit<VerificationStarted, 'at' | 'expiresAt'>, ttlMs: number, message: OutgoingMessage | null, actor: Actor): Promise<StartedChallenge> {
    const at = this.deps.clock.now();
    const expiresAt = new Date(at.getTime() + ttlMs).toISOString();
    await this.run(challenge.challengeId, { type: 'start', challenge: { ...challenge, expiresAt, at: at.toISOString() } }, this.metadata(challenge.challengeId, actor));
    if (message) await this.deps.messenger.send(message);
    return { challengeId: challenge.challengeId, expiresAt };
  }

  /**
   * A pre-signup code. An address that already has an account gets the same answer and a message
   * saying so instead of a code: the answer tells nobody whether the address is taken.
   */
  async start(purpose: 'signup_email' | 'signup_phone', address: string, actor: Actor): Promise<StartedChallenge> {
    const challengeId = newUuid();
    const channel = purpose === 'signup_email' ? 'email' : 'sms';
    const taken = purpose === 'signup_email' && (await this.deps.accountExists(address));
    const { code, codeHash } = this.newCode(challengeId);
    return this.open(
      // A taken address's challenge holds the hash of a code nobody is told: it can never be verified.
      { challengeId, purpose, userId: null, channel, address, codeHash: taken ? this.newCode(challengeId).codeHash : codeHash },
      CODE_TTL_MS,
      taken
        ? { channel, to: address, purpose: 'signup_existing_account', template: { purpose: 'signup_existing_account', values: {} } }
        : { channel, to: address, purpose: 'signup_code', template: { purpose: 'signup_code', values: { code } } },
      actor,
    );
  }

  /** Checks a pre-signup code (the route's channel only: another is "no such challenge"). */
  async verify(purpose: 'signup_email' | 'signup_phone', challengeId: string, code: string, actor: Actor): Promise<{ challengeId: string; verified: true }> {
    const { challenge } = (await this.load(challengeId)).state;
    if (challenge?.purpose !== purpose) throw new Refusal('IKW-RES-001', 'No such challenge', 'challengeId');
    await this.check(challengeId, this.codeMatches(challenge, code), [], actor);
    return { challengeId, verified: true };
  }

  /**
   * Records an answer: right → verified (with `alongside`, e.g. the authenticator's time step, in
   * the same commit); wrong → one of five tries spent, and IKW-ACC-005 says how many remain.
   */
  async check(challengeId: string, codeMatches: boolean, alongside: CommandStep<unknown, unknown, DomainEvent>[], actor: Actor, failure = 'The code is wrong'): Promise<void> {
    const verify = step({
      streamId: verificationStream(challengeId),
      decider: verificationDecider,
      command: { type: 'verify', codeMatches, at: this.deps.clock.now() } satisfies VerificationCommand,
      metadata: this.metadata(challengeId, actor),
    });
    const [result] = await handleSteps(this.deps.store, codeMatches ? [verify, ...alongside] : [verify], { onConflict: 'internal' });
    const failed = (result!.events as VerificationEvent[]).find((e) => e.type === 'verification.failed');
    if (failed?.type === 'verification.failed') {
      const left = MAX_ATTEMPTS - failed.data.attempts;
      throw new Refusal('IKW-ACC-005', left > 0 ? `${failure}; ${left} tries left` : `${failure}; no tries left, ask for a new challenge`, 'code');
    }
  }

  /** Uses a verified challenge for `purpose` (and `address`, when it must be that one) on its own. */
  async consume(challengeId: string, purpose: VerificationPurpose, userId: string, actor: Actor, address: string | null = null): Promise<void> {
    await this.run(challengeId, { type: 'consume', purpose, address, userId, at: this.deps.clock.now() }, this.metadata(challengeId, actor));
  }

  /** The command that uses a verified challenge for `purpose` (and `address`, for sign-up), as a step of the operation's change. */
  consumption(challengeId: string, purpose: VerificationPurpose, address: string | null, userId: string, actor: Actor) {
    return step({
      streamId: verificationStream(challengeId),
      decider: verificationDecider,
      command: { type: 'consume', purpose, address, userId, at: this.deps.clock.now() } satisfies VerificationCommand,
      metadata: this.metadata(challengeId, actor),
    });
  }
}
