import { Refusal } from '#packages/core/refusal.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { handleSteps } from '#packages/eventstore/command-handler.js';
import type { Organizations } from '../organization/commands.js';
import type { MerchantOpening } from '../organization/merchant-opening.js';
import { normalizeEmail } from '../user-email/events.js';
import type { Verifications } from '../verification/commands.js';
import type { VerificationPurpose } from '../verification/events.js';
import type { Accounts } from './commands.js';
import type { Device, TokenPair } from './sessions.js';
import type { MfaRequired } from './second-factors.js';
import type { SignIns } from './sign-in.js';
import type { Actor } from '#packages/core/owner.js';

export interface Registration {
  email: string;
  password: string;
  name: string;
  merchantName: string;
  emailChallengeId: string | null;
  /** E.164 (the route normalises it), or null. */
  phone: string | null;
  phoneChallengeId: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
}

export interface SignUpDeps {
  store: EventStore;
  accounts: Accounts;
  organizations: Organizations;
  /** Opens the sign-up's merchant in the sign-up's commit (the merchants family). */
  merchants: MerchantOpening;
  verifications: Verifications;
  signIns: SignIns;
}

/**
 * Sign-up (docs/accounts.md, "Sign-up"): with the e-mail address (and the phone, when given) proved
 * by pre-signup codes, creates the user, an organization and its merchant with both environments,
 * uses the challenges up, and signs in. All of it is one commit on PostgreSQL; nothing is
 * half-made when two sign-ups race for one address or one challenge.
 */
export class SignUp {
  constructor(private readonly deps: SignUpDeps) {}

  async register(input: Registration, device: Device, actor: Actor): Promise<TokenPair | MfaRequired> {
    if (input.emailChallengeId === null) throw new Refusal('IKW-ACC-007', 'Verify the e-mail address first: POST /api/v1/auth/pre-signup/email/challenge', 'emailChallengeId');
    if (input.phone !== null && input.phoneChallengeId === null) throw new Refusal('IKW-ACC-007', 'Verify the phone number first: POST /api/v1/auth/pre-signup/phone/challenge', 'phoneChallengeId');
    const { accounts, organizations, merchants, verifications } = this.deps;
    const email = normalizeEmail(input.email);
    const { userId, steps: userSteps } = await accounts.userCreation({ email, name: input.name, phone: input.phone, password: input.password }, actor);
    const asUser: Actor = { ...actor, actor: `user:${userId}` };
    const consume = (challengeId: string, purpose: VerificationPurpose, address: string) => verifications.consumption(challengeId, purpose, address, userId, asUser);
    const merchant = merchants.creation(input.merchantName, asUser.actor, email);
    const organization = organizations.creation(merchant.merchantId, { displayName: input.merchantName, country: input.country, type: 'business', parentId: null }, { userId, role: 'owner' }, asUser);
    await handleSteps(
      this.deps.store,
      [consume(input.emailChallengeId, 'signup_email', email), ...(input.phone !== null ? [consume(input.phoneChallengeId!, 'signup_phone', input.phone)] : []), ...userSteps, merchant.step, organization.step],
      { onConflict: 'internal' },
    );
    await accounts.verifyContact(userId, 'email', email, asUser);
    if (input.phone !== null) await accounts.verifyContact(userId, 'phone', input.phone, asUser);
    return this.deps.signIns.firstStep(await accounts.profile(userId), 'signup', device, asUser);
  }

  /**
   * Joins an organization by invitation and signs in there. The link proved the mailbox: someone
   * without an account gives a password and a name and gets one (one commit with the acceptance);
   * an existing user joins with the token alone, and one with a second factor is asked for it
   * before the session starts (in the inviting organization).
   */
  async acceptInvitation(token: string, newUser: { password: string | null; name: string | null }, device: Device, actor: Actor): Promise<TokenPair | MfaRequired> {
    const { accounts, organizations } = this.deps;
    const invitation = await organizations.invitationOf(token);
    let userId = await accounts.userIdOf(invitation.email);
    if (userId === null) {
      if (newUser.password === null) throw new Refusal('IKW-VAL-001', 'password is required to create your account', 'password');
      const creation = await accounts.userCreation({ email: invitation.email, name: newUser.name ?? invitation.email.split('@')[0]!, phone: null, password: newUser.password }, actor);
      userId = creation.userId;
      await handleSteps(this.deps.store, [...creation.steps, organizations.acceptance(invitation, userId, { ...actor, actor: `user:${userId}` })], { onConflict: 'internal' });
    } else {
      await organizations.assertRoomFor(userId);
      await handleSteps(this.deps.store, [organizations.acceptance(invitation, userId, { ...actor, actor: `user:${userId}` })], { onConflict: 'internal' });
    }
    const asUser: Actor = { ...actor, actor: `user:${userId}` };
    await accounts.verifyContact(userId, 'email', invitation.email, asUser);
    return this.deps.signIns.firstStep(await accounts.profile(userId), 'invitation', device, asUser, invitation.organizationId);
  }
}
