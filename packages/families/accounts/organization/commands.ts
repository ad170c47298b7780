import { randomBytes } from 'node:crypto';
import type { Clock } from '#packages/core/clock.js';
import { sha256Hex } from '#packages/core/hashing.js';
import { Refusal } from '#packages/core/refusal.js';
import { newUuid } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { CommandService, handleSteps, step } from '#packages/eventstore/command-handler.js';
import type { MerchantOpening } from './merchant-opening.js';
import type { Messenger } from '#packages/messaging/messages.js';
import type { AccountDirectory, Membership } from '#packages/families/read-ports.js';
import { normalizeEmail } from '../user-email/events.js';
import type { Accounts, NewUser } from '../user/commands.js';
import type { UserSessions } from '../user/sessions.js';
import { oneLine } from './owner-notices.js';
import { organizationDecider, type OrganizationCommand, type OrganizationState } from './decider.js';
import { INVITATION_TTL_MS, MANAGING_ROLES, organizationStream, type InvitationCreated, type OrganizationEvent, type OrganizationType, type Role } from './events.js';
import type { Actor } from '#packages/core/owner.js';
import { actorMetadata } from '#packages/eventstore/metadata.js';

export interface NewOrganization {
  displayName: string;
  country: string;
  type: OrganizationType;
  parentId: string | null;
}

export interface OrganizationDeps {
  store: EventStore;
  clock: Clock;
  directory: AccountDirectory;
  /** Opens the merchant of a new organization (the merchants family). */
  merchants: MerchantOpening;
  /** Ends a removed member's sessions in the organization. */
  sessions: Pick<UserSessions, 'endSessionsIn'>;
  /** Finds who holds an invited address. */
  accounts: Pick<Accounts, 'userIdOf'>;
  messenger: Messenger;
  /** Where people's browsers reach the service: invitation links start with it. */
  publicUrl: string;
  /**
   * Counts one invitation against its organization's and its inviter's daily limits (docs/accounts.md,
   * "Team"): throws 429 IKW-LIM-001 when either is spent.
   */
  countInvitation(organizationId: string, inviterId: string): Promise<void>;
  /** How many organizations one user may belong to (docs/accounts.md, "Organizations"). */
  organizationsPerUser: number;
}

/** An invitation token names its organization: `inv_<43 random characters>.<organization id>`. */
const INVITATION_SHAPE = /^inv_[A-Za-z0-9_-]{43}\.([0-9a-f-]{36})$/;

/** Organizations (docs/accounts.md): each holds merchants and members with roles. */
export class Organizations extends CommandService<OrganizationCommand, OrganizationState, OrganizationEvent> {
  constructor(private readonly deps: OrganizationDeps) {
    super(deps.store, organizationStream, organizationDecider, { onConflict: 'internal' });
  }

  private metadata(organizationId: string, merchantId: string, actor: Actor): EventMetadata {
    return { merchant_id: merchantId, correlation_id: organizationId, actor: actor.actor, occurred_at: this.deps.clock.now().toISOString(), ...actorMetadata(actor) };
  }

  /**
   * A new organization with its own merchant (both environments), the user its owner. A child
   * organization (`parentId`) may be made by an owner or admin of the parent.
   */
  async create(userId: string, input: NewOrganization, actor: Actor): Promise<string> {
    const memberships = await this.assertRoomFor(userId);
    if (input.parentId !== null) {
      const parent = memberships.find((m) => m.organizationId === input.parentId);
      if (!parent) throw new Refusal('IKW-RES-001', 'No such organization', 'parentId');
      if (!MANAGING_ROLES.includes(parent.role)) throw new Refusal('IKW-ACC-002', 'Only an owner or admin of the parent organization can add an organization under it', 'parentId');
    }
    const merchant = await this.deps.merchants.create(input.displayName, actor.actor);
    return this.open(merchant.id, input, { userId, role: 'owner' }, actor);
  }

  /**
   * Refuses (409 IKW-ACC-012) a user who already belongs to as many organizations as one may:
   * each organization can send invitations under its own name, so a sign-up may not make them
   * without end. Read from the read model: parallel requests of one user may pass it together.
   */
  async assertRoomFor(userId: string): Promise<Membership[]> {
    const memberships = await this.deps.directory.memberships(userId);
    const most = this.deps.organizationsPerUser;
    if (memberships.length >= most) throw new Refusal('IKW-ACC-012', `You already belong to ${most} organizations, the most one user may`);
    return memberships;
  }

  /**
   * Invites someone by e-mail with a role (an owner or admin; only an owner invites an owner); the
   * link goes by e-mail from the account sender, so the organization's name, which its members
   * chose, is shown quoted and labelled, on one line, never as the mail's own words.
   */
  async invite(organizationId: string, merchantId: string, by: string, email: string, role: Role, actor: Actor): Promise<InvitationCreated> {
    await this.deps.countInvitation(organizationId, by);
    const address = normalizeEmail(email);
    const token = `inv_${randomBytes(32).toString('base64url')}.${organizationId}`;
    const at = this.deps.clock.now();
    const invitation: InvitationCreated = {
      organizationId,
      invitationId: newUuid(),
      email: address,
      role,
      tokenHash: sha256Hex(token),
      invitedBy: by,
      expiresAt: new Date(at.getTime() + INVITATION_TTL_MS).toISOString(),
      at: at.toISOString(),
    };
    const existingUserId = await this.deps.accounts.userIdOf(address);
    const { state } = await this.run(organizationId, { type: 'invite', by, invitation, existingUserId, at }, this.metadata(organizationId, merchantId, actor));
    await this.deps.messenger.send({
      channel: 'email',
      to: address,
      purpose: 'invitation',
      template: { purpose: 'invitation', values: { organization: oneLine(state.organization!.displayName), role, url: `${this.deps.publicUrl}/dashboard/invitation?token=${token}`, token } },
    });
    return invitation;
  }

  async revokeInvitation(organizationId: string, merchantId: string, by: string, invitationId: string, actor: Actor): Promise<void> {
    await this.run(organizationId, { type: 'revoke_invitation', by, invitationId, at: this.deps.clock.now() }, this.metadata(organizationId, merchantId, actor));
  }

  /** The pending invitation an `inv_…` token stands for (IKW-ACC-006 when none: revoked, used, expired or made up). */
  async invitationOf(token: string): Promise<InvitationCreated> {
    const organizationId = INVITATION_SHAPE.exec(token)?.[1];
    const tokenHash = sha256Hex(token);
    const invitation = organizationId ? [...(await this.load(organizationId)).state.invitations.values()].find((i) => i.tokenHash === tokenHash) : undefined;
    if (!invitation || this.deps.clock.now().getTime() >= Date.parse(invitation.expiresAt)) throw new Refusal('IKW-ACC-006', 'This invitation has expired, was revoked or was already used', 'token');
    return invitation;
  }

  /** The command that accepts an invitation for `userId`, as a step of a larger change (with the user's creation). */
  acceptance(invitation: InvitationCreated, userId: string, actor: Actor) {
    const { organizationId } = invitation;
    return step({
      streamId: organizationStream(organizationId),
      decider: organizationDecider,
      command: { type: 'accept_invitation', tokenHash: invitation.tokenHash, userId, at: this.deps.clock.now() } satisfies OrganizationCommand,
      metadata: { correlation_id: organizationId, actor: actor.actor, occurred_at: this.deps.clock.now().toISOString(), ...actorMetadata(actor) },
    });
  }

  async updateSettings(organizationId: string, merchantId: string, by: string, requireMfa: boolean, actor: Actor): Promise<void> {
    await this.run(organizationId, { type: 'update_settings', by, requireMfa, at: this.deps.clock.now() }, this.metadata(organizationId, merchantId, actor));
  }

  /** Changes a member's role (`by` is the member asking; docs/accounts.md, "Team"). */
  async changeRole(organizationId: string, merchantId: string, by: string, userId: string, role: Role, actor: Actor): Promise<void> {
    await this.run(organizationId, { type: 'change_role', by, userId, role, at: this.deps.clock.now() }, this.metadata(organizationId, merchantId, actor));
  }

  /**
   * Removes a member and ends their sessions there. Should the process die between the two, the
   * sessions can no longer act there anyway: every request checks the membership.
   */
  async removeMember(organizationId: string, merchantId: string, by: string, userId: string, actor: Actor): Promise<void> {
    await this.run(organizationId, { type: 'remove_member', by, userId, at: this.deps.clock.now() }, this.metadata(organizationId, merchantId, actor));
    await this.deps.sessions.endSessionsIn(userId, organizationId, actor);
  }

  private async open(merchantId: string, input: NewOrganization, member: { userId: string; role: Role }, actor: Actor): Promise<string> {
    const { organizationId, step: creation } = this.creation(merchantId, input, member, actor);
    await handleSteps(this.deps.store, [creation], { onConflict: 'internal' });
    return organizationId;
  }

  /** The command that opens an organization holding `merchantId`, with its first member, as a step of a larger change (sign-up). */
  creation(merchantId: string, input: NewOrganization, member: { userId: string; role: Role }, actor: Actor) {
    const organizationId = newUuid();
    const at = this.deps.clock.now();
    return {
      organizationId,
      step: step({
        streamId: organizationStream(organizationId),
        decider: organizationDecider,
        command: { type: 'create', organization: { organizationId, ...input, createdAt: at.toISOString() }, merchantId, member, at } satisfies OrganizationCommand,
        metadata: this.metadata(organizationId, merchantId, actor),
      }),
    };
  }

  /**
   * Makes a user a member of the organization holding `merchantId` (the CLI's `users create`). A
   * merchant made before organizations existed gets one, named after it.
   */
  async addToMerchant(merchantId: string, merchantName: string, country: string, member: { userId: string; role: Role }, actor: Actor): Promise<string> {
    const organizationId = await this.deps.directory.organizationOfMerchant(merchantId);
    if (organizationId === undefined) return this.open(merchantId, { displayName: merchantName, country, type: 'business', parentId: null }, member, actor);
    await this.run(organizationId, { type: 'add_member', ...member, at: this.deps.clock.now() }, this.metadata(organizationId, merchantId, actor));
    return organizationId;
  }
}

/** A new user made a member of a merchant's organization with a role (the CLI's `users create`, tests). */
export async function createMemberUser(accounts: Accounts, organizations: Organizations, merchant: { id: string; name: string }, input: NewUser & { role: Role; country?: string }, actor: Actor): Promise<string> {
  const userId = await accounts.createUser(input, actor);
  await organizations.addToMerchant(merchant.id, merchant.name, input.country ?? 'SN', { userId, role: input.role }, actor);
  return userId;
}
