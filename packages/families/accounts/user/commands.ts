import { randomBytes } from 'node:crypto';
import { Algorithm, hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Clock } from '#packages/core/clock.js';
import { sha256Hex } from '#packages/core/hashing.js';
import { Refusal } from '#packages/core/refusal.js';
import { newUuid } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { DomainEvent } from '#packages/core/decider.js';
import { CommandService, handleSteps, loadState, step, type CommandStep } from '#packages/eventstore/command-handler.js';
import type { AccountDirectory } from '#packages/families/read-ports.js';
import { userEmailDecider, type UserEmailCommand } from '../user-email/decider.js';
import { normalizeEmail, userEmailStream } from '../user-email/events.js';
import { userDecider, type UserCommand, type UserState } from './decider.js';
import type { Messenger } from '#packages/messaging/messages.js';
import { USER_TOKEN_TTL_MS, userStream, type ContactChannel, type UserEvent, type OnboardingChanges, type ProfileChanges, type SessionContext, type UserTokenKind } from './events.js';
import type { AppTokenClaims, AppTokenSigner } from './tokens.js';
import type { Actor } from '#packages/core/owner.js';
import { actorMetadata } from '#packages/eventstore/metadata.js';
import { accountErrors } from '../errors.js';

/** argon2id with the library's defaults (19 MiB, 2 passes): OWASP's minimum for argon2id. */
export function hashPassword(password: string): Promise<string> {
  return argon2Hash(password, { algorithm: Algorithm.Argon2id });
}

export interface NewUser {
  email: string;
  name: string;
  phone: string | null;
  password: string;
}

/** The metadata of a user's command: the user is its correlation, and its actor when acting on their own. */
export function userMetadata(clock: Clock, userId: string, actor: Actor, context?: SessionContext): EventMetadata {
  return {
    ...(context ? { merchant_id: context.merchantId } : {}),
    correlation_id: userId,
    actor: actor.actor === 'public' ? `user:${userId}` : actor.actor,
    occurred_at: clock.now().toISOString(),
    ...actorMetadata(actor),
  };
}

export interface AccountDeps {
  store: EventStore;
  clock: Clock;
  tokens: AppTokenSigner;
  directory: AccountDirectory;
  messenger: Messenger;
  /** Where people's browsers reach the service: links in messages start with it. */
  publicUrl: string;
}

/** Links name their user the same way: `ml_…` (magic link), `pr_…` (password reset), `ec_…` (e-mail change). */
const LINK_PREFIX: Readonly<Record<UserTokenKind, string>> = { magic_link: 'ml', password_reset: 'pr', email_change: 'ec' };
const LINK_SHAPE = /^(ml|pr|ec)_[A-Za-z0-9_-]{43}\.([0-9a-f-]{36})$/;
const badLink = () => new Refusal('IKW-ACC-006', 'This link has expired or was already used; ask for a new one', 'token');

/**
 * Dashboard users' accounts (docs/accounts.md): creation, the password that proves them, profile
 * and onboarding, verified contacts, links by e-mail (magic link, password reset), and the user's
 * commands that second factors, passkeys, contact changes and Google run. The sessions a sign-in
 * starts are `UserSessions` (sessions.ts).
 */
export class Accounts extends CommandService<UserCommand, UserState, UserEvent> {
  /** Checked against when the address is unknown, so sign-in costs the same either way. */
  private readonly decoyHash: Promise<string>;

  /** Every user command decides again on a lost race: they are the user's own, never a 409 to them. */
  constructor(private readonly deps: Pick<AccountDeps, 'store' | 'clock' | 'directory' | 'messenger' | 'publicUrl'>) {
    super(deps.store, userStream, userDecider, { onConflict: 'internal' });
    this.decoyHash = hashPassword(randomBytes(16).toString('hex'));
  }

  private metadata(userId: string, actor: Actor, context?: SessionContext): EventMetadata {
    return userMetadata(this.deps.clock, userId, actor, context);
  }

  /** The user's state as the stream holds it. */
  async stateOf(userId: string): Promise<UserState> {
    return (await this.load(userId)).state;
  }

  /** The user holding an address, or null. */
  async userIdOf(email: string): Promise<string | null> {
    return (await loadState(this.deps.store, userEmailStream(email), userEmailDecider)).state.userId;
  }

  /**
   * A new user. The address is claimed in its own stream, in the same commit as the user where
   * the store allows; otherwise claim first, and a claim whose user was never written (a crash
   * between the two) is taken over by the next creation with that address.
   */
  async createUser(input: NewUser, actor: Actor): Promise<string> {
    const { userId, steps } = await this.userCreation(input, actor);
    await handleSteps(this.deps.store, steps, { onConflict: 'internal' });
    return userId;
  }

  /**
   * The steps that create a user: the address claim first, then the user (one commit where the
   * store allows). A lost race for the address is decided again: IKW-ACC-001, not a 409.
   */
  async userCreation(input: NewUser, actor: Actor): Promise<{ userId: string; steps: CommandStep<unknown, unknown, DomainEvent>[] }> {
    const email = normalizeEmail(input.email);
    const at = this.deps.clock.now();
    const claimed = await this.userIdOf(email);
    const orphanClaim = claimed !== null && (await this.stateOf(claimed)).user === null;
    const userId = orphanClaim ? claimed : newUuid();
    const create: UserCommand = {
      type: 'create',
      user: { userId, email, name: input.name, phone: input.phone, passwordHash: await hashPassword(input.password), createdAt: at.toISOString() },
    };
    const meta = this.metadata(userId, actor);
    return {
      userId,
      steps: [
        step({ streamId: userEmailStream(email), decider: userEmailDecider, command: { type: 'claim', email, userId, at } satisfies UserEmailCommand, metadata: meta }),
        step({ streamId: userStream(userId), decider: userDecider, command: create, metadata: meta }),
      ],
    };
  }

  /** The user an e-mail address and password prove. A wrong password and an unknown address get the same answer, at the same cost. */
  async authenticate(email: string, password: string): Promise<UserState> {
    const userId = await this.userIdOf(email);
    const state = userId ? await this.stateOf(userId) : null;
    const stored = state?.user?.passwordHash ?? (await this.decoyHash);
    const ok = await argon2Verify(stored, password);
    if (!ok || !state?.user) throw new Refusal('IKW-AUT-008');
    return state;
  }

  /** Whether `password` is the user's (a challenge answered by the password). */
  passwordMatches(state: UserState, password: string): Promise<boolean> {
    return argon2Verify(state.user!.passwordHash, password);
  }

  /** A user's command as a step of a change across streams (with a challenge used up, an address claimed). */
  userStep(userId: string, command: UserCommand, actor: Actor) {
    return step({ streamId: userStream(userId), decider: userDecider, command, metadata: this.metadata(userId, actor) });
  }

  /**
   * Runs one of the user's commands after `first` (a challenge used up, an address claimed), in
   * one commit where the store allows. Returns the user's result.
   */
  async handle(userId: string, first: CommandStep<unknown, unknown, DomainEvent>[], command: UserCommand, actor: Actor, after: CommandStep<unknown, unknown, DomainEvent>[] = []) {
    const results = await handleSteps(this.deps.store, [...first, this.userStep(userId, command, actor), ...after], { onConflict: 'internal' });
    return results[first.length]!;
  }

  /** Runs one of the user's commands (second factors, contact changes). */
  command(userId: string, command: UserCommand, actor: Actor) {
    return this.run(userId, command, this.metadata(userId, actor));
  }

  /**
   * Refuses to leave the user without a second factor while they own an organization that
   * requires one (`remaining`: how many factors the change leaves).
   */
  async assertMayRemoveFactor(userId: string, remaining: number): Promise<void> {
    if (remaining > 0) return;
    const owned = (await this.deps.directory.memberships(userId)).filter((m) => m.role === 'owner' && m.requireMfa);
    if (owned.length > 0) throw new Refusal('IKW-ACC-010', 'An organization you own requires a second factor: add another before removing this one');
  }

  async profile(userId: string): Promise<UserState> {
    return this.stateOf(userId);
  }

  /** A new password, proved by the current one; every other session of the user ends. */
  async changePassword(claims: AppTokenClaims, currentPassword: string, newPassword: string, actor: Actor): Promise<void> {
    const state = await this.stateOf(claims.userId);
    if (!(await argon2Verify(state.user!.passwordHash, currentPassword))) throw new Refusal('IKW-ACC-004', accountErrors['IKW-ACC-004'].message, 'currentPassword');
    const command: UserCommand = { type: 'change_password', passwordHash: await hashPassword(newPassword), keep: claims.sessionId, at: this.deps.clock.now() };
    await this.run(claims.userId, command, this.metadata(claims.userId, actor, claims));
  }

  async updateProfile(claims: AppTokenClaims, changes: ProfileChanges, actor: Actor): Promise<void> {
    await this.run(claims.userId, { type: 'update_profile', changes, at: this.deps.clock.now() }, this.metadata(claims.userId, actor, claims));
  }

  async updateOnboarding(claims: AppTokenClaims, changes: OnboardingChanges, actor: Actor): Promise<void> {
    await this.run(claims.userId, { type: 'update_onboarding', changes, at: this.deps.clock.now() }, this.metadata(claims.userId, actor, claims));
  }

  /** Records that the user receives at `address` (a code or link sent there came back); only their current address counts. */
  async verifyContact(userId: string, channel: ContactChannel, address: string, actor: Actor): Promise<void> {
    await this.run(userId, { type: 'verify_contact', channel, address, at: this.deps.clock.now() }, this.metadata(userId, actor));
  }

  /**
   * Sends a single-use link to the address if an account holds it; otherwise nothing. Either way
   * the caller answers the same, so nobody learns which addresses have accounts.
   */
  async sendLink(kind: UserTokenKind, email: string, actor: Actor): Promise<void> {
    const userId = await this.userIdOf(email);
    const state = userId ? await this.stateOf(userId) : null;
    if (!userId || !state?.user) return;
    const token = `${LINK_PREFIX[kind]}_${randomBytes(32).toString('base64url')}.${userId}`;
    const at = this.deps.clock.now();
    const ttl = USER_TOKEN_TTL_MS[kind];
    const issued = { tokenId: newUuid(), kind, tokenHash: sha256Hex(token), sentTo: state.user.email, expiresAt: new Date(at.getTime() + ttl).toISOString(), at: at.toISOString() };
    await this.run(userId, { type: 'issue_token', token: issued, at }, this.metadata(userId, actor));
    const minutes = ttl / 60_000;
    await this.deps.messenger.send(
      kind === 'magic_link'
        ? { channel: 'email', to: state.user.email, purpose: 'magic_link', template: { purpose: 'magic_link', values: { minutes, url: `${this.deps.publicUrl}/dashboard/magic-link?token=${token}`, token } } }
        : { channel: 'email', to: state.user.email, purpose: 'password_reset', template: { purpose: 'password_reset', values: { minutes, url: `${this.deps.publicUrl}/dashboard/reset-password?token=${token}`, token } } },
    );
  }

  /** Uses a magic link (once, within 15 minutes): the user it proves; SignIns decides what follows. */
  async redeemMagicLink(token: string, actor: Actor): Promise<UserState> {
    const userId = this.linkUser(token, 'magic_link');
    const { state } = await this.run(userId, { type: 'use_token', kind: 'magic_link', tokenHash: sha256Hex(token), at: this.deps.clock.now() }, this.metadata(userId, actor));
    // The link proved the mailbox: the address counts as verified.
    await this.verifyContact(userId, 'email', state.user!.email, actor);
    return this.stateOf(userId);
  }

  /** Sets a new password with a reset link (once, within 30 minutes); every session of the user ends. */
  async resetPassword(token: string, newPassword: string, actor: Actor): Promise<void> {
    const userId = this.linkUser(token, 'password_reset');
    const passwordHash = await hashPassword(newPassword);
    const { state } = await this.run(userId, { type: 'use_token', kind: 'password_reset', tokenHash: sha256Hex(token), passwordHash, at: this.deps.clock.now() }, this.metadata(userId, actor));
    await this.deps.messenger.send({ channel: 'email', to: state.user!.email, purpose: 'password_changed', template: { purpose: 'password_changed', values: {} } });
  }

  /** The user a link names (IKW-ACC-006 when it is not a link of this kind). */
  linkUser(token: string, kind: UserTokenKind): string {
    const match = LINK_SHAPE.exec(token);
    if (!match || match[1] !== LINK_PREFIX[kind]) throw badLink();
    return match[2]!;
  }
}
