import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { newUuid } from '../../core/ids.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import { CommandService } from '../../eventstore/command-handler.js';
import { actorMetadata, type Actor } from '../audit.js';
import { createMerchant } from '../merchant/commands.js';
import type { AccountDirectory } from '../read-ports.js';
import type { Accounts, NewUser } from '../user/commands.js';
import { organizationDecider, type OrganizationCommand, type OrganizationState } from './decider.js';
import { MANAGING_ROLES, organizationStream, type OrganizationEvent, type OrganizationType, type Role } from './events.js';

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
  /** Ends a removed member's sessions in the organization. */
  sessions: Pick<Accounts, 'endSessionsIn'>;
}

/** Organizations (docs/auth.md): each holds merchants and members with roles. */
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
    if (input.parentId !== null) {
      const parent = (await this.deps.directory.memberships(userId)).find((m) => m.organizationId === input.parentId);
      if (!parent) throw new ApiError('IKW-RES-001', 'No such organization', 'parentId');
      if (!MANAGING_ROLES.includes(parent.role)) throw new ApiError('IKW-ACC-002', 'Only an owner or admin of the parent organization can add an organization under it', 'parentId');
    }
    const merchant = await createMerchant(this.deps.store, this.deps.clock, input.displayName, actor.actor);
    return this.open(merchant.id, input, { userId, role: 'owner' }, actor);
  }

  /** Changes a member's role (`by` is the member asking; docs/auth.md, "Team"). */
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
    const organizationId = newUuid();
    const at = this.deps.clock.now();
    await this.run(
      organizationId,
      { type: 'create', organization: { organizationId, ...input, createdAt: at.toISOString() }, merchantId, member, at },
      this.metadata(organizationId, merchantId, actor),
    );
    return organizationId;
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
export async function createMemberUser(
  accounts: Accounts,
  organizations: Organizations,
  merchant: { id: string; name: string },
  input: NewUser & { role: Role; country?: string },
  actor: Actor,
): Promise<string> {
  const userId = await accounts.createUser(input, actor);
  await organizations.addToMerchant(merchant.id, merchant.name, input.country ?? 'SN', { userId, role: input.role }, actor);
  return userId;
}
