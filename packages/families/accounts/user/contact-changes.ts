import { randomBytes } from 'node:crypto';
import type { Clock } from '#packages/core/clock.js';
import type { DomainEvent } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { sha256Hex } from '#packages/core/hashing.js';
import { newUuid } from '#packages/core/ids.js';
import { step, type CommandStep } from '#packages/eventstore/command-handler.js';
import type { Messenger } from '#packages/messaging/messages.js';
import { userEmailDecider, type UserEmailCommand } from '../user-email/decider.js';
import { normalizeEmail, userEmailStream } from '../user-email/events.js';
import type { Verifications } from '../verification/commands.js';
import { CODE_TTL_MS, type MfaPurpose } from '../verification/events.js';
import { hashPassword, type Accounts } from './commands.js';
import type { UserCommand, UserState } from './decider.js';
import { USER_TOKEN_TTL_MS } from './events.js';
import type { AppTokenClaims } from './tokens.js';
import type { Actor } from '#packages/core/owner.js';
import { accountErrors } from '../errors.js';

export interface ContactChangeDeps {
  clock: Clock;
  accounts: Accounts;
  verifications: Verifications;
  messenger: Messenger;
  publicUrl: string;
}

export interface CredentialChanges {
  newEmail?: string;
  /** E.164 (routes normalise it). */
  newPhone?: string;
  newPassword?: string;
}

type Steps = CommandStep<unknown, unknown, DomainEvent>[];

/**
 * Changes of what identifies a user (docs/accounts.md, "Changing e-mail, phone and password"): each
 * behind a verified second-factor challenge of its purpose. Directly (`change-email`,
 * `change-phone`, `change-password-mfa`, `personal-info/sensitive`), or proving the new address
 * first (`email-change/*` by a link sent there, `phone-change/*` by an SMS code).
 */
export class ContactChanges {
  constructor(private readonly deps: ContactChangeDeps) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  private asUser(claims: AppTokenClaims, actor: Actor): Actor {
    return { ...actor, actor: `user:${claims.userId}` };
  }

  /** Moving to `email`: the new address claimed (IKW-ACC-001 if another account holds it), the old one freed, around the user's change. */
  private addressSteps(userId: string, from: string, to: string, actor: Actor): { before: Steps; after: Steps } {
    const at = this.now();
    const metadata = { correlation_id: userId, actor: actor.actor, occurred_at: at.toISOString() };
    const claim = step({ streamId: userEmailStream(to), decider: userEmailDecider, command: { type: 'claim', email: to, userId, at } satisfies UserEmailCommand, metadata });
    const release = step({ streamId: userEmailStream(from), decider: userEmailDecider, command: { type: 'release', email: from, userId, at } satisfies UserEmailCommand, metadata });
    return { before: [claim], after: [release] };
  }

  private async notice(to: string, subject: string, text: string): Promise<void> {
    await this.deps.messenger.send({ channel: 'email', to, purpose: 'security_notice', template: { purpose: 'security_notice', values: { subject, text } } });
  }

  /**
   * Changes any of e-mail, phone and password at once behind a challenge of `purpose`. A new
   * address or number is not yet verified (the onboarding checklist says so); a new password ends
   * the other sessions. The old address is told.
   */
  async change(claims: AppTokenClaims, purpose: MfaPurpose, challengeId: string, changes: CredentialChanges, actor: Actor): Promise<void> {
    const { accounts, verifications } = this.deps;
    const asUser = this.asUser(claims, actor);
    const state = await accounts.stateOf(claims.userId);
    const user = state.user!;
    const email = changes.newEmail === undefined ? undefined : normalizeEmail(changes.newEmail);
    const moving = email !== undefined && email !== user.email;
    const address = moving ? this.addressSteps(claims.userId, user.email, email, asUser) : { before: [], after: [] };
    const command: UserCommand = {
      type: 'change_credentials',
      ...(email !== undefined ? { email } : {}),
      ...(changes.newPhone !== undefined ? { phone: changes.newPhone } : {}),
      ...(changes.newPassword !== undefined ? { passwordHash: await hashPassword(changes.newPassword) } : {}),
      keep: claims.sessionId,
      at: this.now(),
    };
    await accounts.handle(claims.userId, [verifications.consumption(challengeId, purpose, null, claims.userId, asUser), ...address.before], command, asUser, address.after);
    const what = [email !== undefined && 'e-mail address', changes.newPhone !== undefined && 'phone number', changes.newPassword !== undefined && 'password'].filter(Boolean).join(', ');
    await this.notice(user.email, 'Your Sika account was changed', `The ${what} of your Sika account ${what.includes(',') ? 'were' : 'was'} changed${moving ? ` (new e-mail address: ${email})` : ''}.`);
  }

  /** Sends a confirmation link to the new address; the address changes when it is used (it then counts as verified). */
  async requestEmailChange(claims: AppTokenClaims, challengeId: string, newEmail: string, actor: Actor): Promise<{ requestId: string; newEmail: string; expiresAt: string }> {
    const { accounts, verifications } = this.deps;
    const asUser = this.asUser(claims, actor);
    const email = normalizeEmail(newEmail);
    const state = await accounts.stateOf(claims.userId);
    if (email === state.user!.email) throw new Refusal('IKW-VAL-001', 'This is already your e-mail address', 'newEmail');
    if ((await accounts.userIdOf(email)) !== null) throw new Refusal('IKW-ACC-001', accountErrors['IKW-ACC-001'].message, 'newEmail');
    const token = `ec_${randomBytes(32).toString('base64url')}.${claims.userId}`;
    const at = this.now();
    const issued = { tokenId: newUuid(), kind: 'email_change' as const, tokenHash: sha256Hex(token), sentTo: email, newEmail: email, expiresAt: new Date(at.getTime() + USER_TOKEN_TTL_MS.email_change).toISOString(), at: at.toISOString() };
    await accounts.handle(claims.userId, [verifications.consumption(challengeId, 'email-change/request', null, claims.userId, asUser)], { type: 'issue_token', token: issued, at }, asUser);
    await this.deps.messenger.send({
      channel: 'email',
      to: email,
      purpose: 'email_change',
      template: { purpose: 'email_change', values: { url: `${this.deps.publicUrl}/dashboard/email-change?token=${token}`, token } },
    });
    await this.notice(state.user!.email, 'A change of your Sika e-mail address was asked for', `A change of your e-mail address to ${email} was asked for; it happens when the link sent there is used.`);
    return { requestId: issued.tokenId, newEmail: email, expiresAt: issued.expiresAt };
  }

  /** Uses the link sent to the new address: the address changes and counts as verified. */
  async confirmEmailChange(token: string, actor: Actor): Promise<{ email: string }> {
    const { accounts } = this.deps;
    const userId = accounts.linkUser(token, 'email_change');
    const state = await accounts.stateOf(userId);
    const pending = state.tokens.get(sha256Hex(token));
    if (!state.user || pending?.kind !== 'email_change') throw new Refusal('IKW-ACC-006', 'This link has expired or was already used; ask for a new one', 'token');
    const asUser: Actor = { ...actor, actor: `user:${userId}` };
    const address = this.addressSteps(userId, state.user.email, pending.newEmail!, asUser);
    await accounts.handle(userId, address.before, { type: 'use_token', kind: 'email_change', tokenHash: pending.tokenHash, at: this.now() }, asUser, address.after);
    await accounts.verifyContact(userId, 'email', pending.newEmail!, asUser);
    await this.notice(state.user.email, 'Your Sika e-mail address was changed', `Your account now uses ${pending.newEmail}; this address no longer signs in.`);
    return { email: pending.newEmail! };
  }

  async cancelEmailChange(claims: AppTokenClaims, requestId: string, actor: Actor): Promise<void> {
    await this.deps.accounts.command(claims.userId, { type: 'cancel_token', kind: 'email_change', tokenId: requestId, at: this.now() }, this.asUser(claims, actor));
  }

  /** Sends a code by SMS to the new number; the number changes when the code is verified (it then counts as verified). */
  async requestPhoneChange(claims: AppTokenClaims, challengeId: string, newPhone: string, actor: Actor): Promise<{ requestId: string; newPhone: string; expiresAt: string }> {
    const { verifications } = this.deps;
    const asUser = this.asUser(claims, actor);
    await verifications.consume(challengeId, 'phone-change/request', claims.userId, asUser);
    const requestId = newUuid();
    const { code, codeHash } = verifications.newCode(requestId);
    const started = await verifications.open(
      { challengeId: requestId, purpose: 'phone_change', userId: claims.userId, channel: 'sms', address: newPhone, codeHash },
      CODE_TTL_MS,
      { channel: 'sms', to: newPhone, purpose: 'phone_change_code', template: { purpose: 'phone_change_code', values: { code } } },
      asUser,
    );
    return { requestId, newPhone, expiresAt: started.expiresAt };
  }

  /** Sends a code to the user's current e-mail address or phone number, to prove they receive there. */
  async startContactProof(claims: AppTokenClaims, channel: 'email' | 'sms', actor: Actor): Promise<{ challengeId: string; expiresAt: string }> {
    const { accounts, verifications } = this.deps;
    const user = (await accounts.stateOf(claims.userId)).user!;
    const address = channel === 'email' ? user.email : user.phone;
    if (address === null) throw new Refusal('IKW-RES-002', 'Your account has no phone number; add one with phone-change/request', 'channel');
    const challengeId = newUuid();
    const { code, codeHash } = verifications.newCode(challengeId);
    return verifications.open(
      { challengeId, purpose: channel === 'email' ? 'verify_email' : 'verify_phone', userId: claims.userId, channel, address, codeHash },
      CODE_TTL_MS,
      { channel, to: address, purpose: 'mfa_code', template: { purpose: 'contact_proof_code', values: { code, what: channel === 'email' ? 'address' : 'number' } } },
      this.asUser(claims, actor),
    );
  }

  /** Checks that code: the current address or number counts as verified. */
  async proveContact(claims: AppTokenClaims, channel: 'email' | 'sms', challengeId: string, code: string, actor: Actor): Promise<{ verified: true; address: string }> {
    const { accounts, verifications } = this.deps;
    const asUser = this.asUser(claims, actor);
    const purpose = channel === 'email' ? 'verify_email' : 'verify_phone';
    const { challenge } = (await verifications.load(challengeId)).state;
    if (challenge?.purpose !== purpose || challenge.userId !== claims.userId) throw new Refusal('IKW-RES-001', 'No such challenge', 'challengeId');
    await verifications.check(challengeId, verifications.codeMatches(challenge, code), [], asUser);
    // The address must still be the user's: one changed meanwhile is not proved by this code.
    const user = (await accounts.stateOf(claims.userId)).user!;
    const current = channel === 'email' ? user.email : user.phone;
    await verifications.consume(challengeId, purpose, claims.userId, asUser, current);
    await accounts.verifyContact(claims.userId, channel === 'email' ? 'email' : 'phone', challenge.address, asUser);
    return { verified: true, address: challenge.address };
  }

  async verifyPhoneChange(claims: AppTokenClaims, requestId: string, code: string, actor: Actor): Promise<{ phone: string }> {
    const { accounts, verifications } = this.deps;
    const asUser = this.asUser(claims, actor);
    const { challenge } = (await verifications.load(requestId)).state;
    if (challenge?.purpose !== 'phone_change' || challenge.userId !== claims.userId) throw new Refusal('IKW-RES-001', 'No such phone change request', 'requestId');
    await verifications.check(requestId, verifications.codeMatches(challenge, code), [], asUser);
    const state: UserState = await accounts.stateOf(claims.userId);
    await accounts.handle(
      claims.userId,
      [verifications.consumption(requestId, 'phone_change', challenge.address, claims.userId, asUser)],
      { type: 'change_credentials', phone: challenge.address, keep: claims.sessionId, at: this.now() },
      asUser,
    );
    await accounts.verifyContact(claims.userId, 'phone', challenge.address, asUser);
    await this.notice(state.user!.email, 'Your Sika phone number was changed', `Your account's phone number is now ${challenge.address}.`);
    return { phone: challenge.address };
  }
}
