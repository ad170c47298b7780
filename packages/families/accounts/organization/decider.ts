import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { unreachable } from '#packages/core/aggregate.js';
import { MANAGING_ROLES, type InvitationCreated, type OrganizationCreated, type OrganizationEvent, type Role } from './events.js';

export interface OrganizationState {
  organization: OrganizationCreated | null;
  merchantIds: string[];
  members: Map<string, Role>;
  /** Invitations neither accepted nor revoked, by id (expired ones too: they are refused when used). */
  invitations: Map<string, InvitationCreated>;
  requireMfa: boolean;
}

export type OrganizationCommand =
  | { type: 'create'; organization: OrganizationCreated; merchantId: string; member: { userId: string; role: Role }; at: Date }
  | { type: 'add_member'; userId: string; role: Role; at: Date }
  /** `by`: the member making the change, whose role must allow it. */
  | { type: 'change_role'; by: string; userId: string; role: Role; at: Date }
  | { type: 'remove_member'; by: string; userId: string; at: Date }
  /** `existingUserId`: the account holding the address, if any (a member cannot be invited). */
  | { type: 'invite'; by: string; invitation: InvitationCreated; existingUserId: string | null; at: Date }
  | { type: 'revoke_invitation'; by: string; invitationId: string; at: Date }
  | { type: 'accept_invitation'; tokenHash: string; userId: string; at: Date }
  /** Owners only: whether the organization's owners must keep a second factor. */
  | { type: 'update_settings'; by: string; requireMfa: boolean; at: Date };

const noSuch = () => new Refusal('IKW-RES-001', 'No such organization', 'organizationId');

/**
 * Who may change a member: an owner or admin; only an owner touches an owner or makes one; the
 * last owner stays (an organization always has someone who can do everything).
 */
function assertMayChange(state: OrganizationState, by: string, userId: string, newRole: Role | null): Role {
  if (!state.organization) throw noSuch();
  const actor = state.members.get(by);
  const current = state.members.get(userId);
  if (current === undefined) throw new Refusal('IKW-RES-001', 'No such member', 'userId');
  if (actor === undefined || !MANAGING_ROLES.includes(actor)) throw new Refusal('IKW-ACC-002', 'Only an owner or admin manages members');
  if ((current === 'owner' || newRole === 'owner') && actor !== 'owner') throw new Refusal('IKW-ACC-002', 'Only an owner changes or makes an owner');
  const owners = [...state.members.values()].filter((r) => r === 'owner').length;
  if (current === 'owner' && newRole !== 'owner' && owners === 1) throw new Refusal('IKW-RES-002', 'An organization keeps at least one owner');
  return current;
}

function assertManager(state: OrganizationState, by: string, role: Role | null): OrganizationCreated {
  if (!state.organization) throw noSuch();
  const actor = state.members.get(by);
  if (actor === undefined || !MANAGING_ROLES.includes(actor)) throw new Refusal('IKW-ACC-002', 'Only an owner or admin manages members');
  if (role === 'owner' && actor !== 'owner') throw new Refusal('IKW-ACC-002', 'Only an owner makes an owner', 'role');
  return state.organization;
}

const live = (i: InvitationCreated, at: Date) => at.getTime() < Date.parse(i.expiresAt);

function decideInvite(state: OrganizationState, c: Extract<OrganizationCommand, { type: 'invite' }>): OrganizationEvent[] {
  assertManager(state, c.by, c.invitation.role);
  if (c.existingUserId !== null && state.members.has(c.existingUserId)) throw new Refusal('IKW-ACC-008', 'This person is already a member', 'email');
  if ([...state.invitations.values()].some((i) => i.email === c.invitation.email && live(i, c.at))) throw new Refusal('IKW-ACC-008', 'This address already has a pending invitation; revoke it to send a new one', 'email');
  return [{ type: 'organization.invitation_created', data: c.invitation }];
}

function decideAccept(state: OrganizationState, c: Extract<OrganizationCommand, { type: 'accept_invitation' }>): OrganizationEvent[] {
  const invitation = [...state.invitations.values()].find((i) => i.tokenHash === c.tokenHash);
  if (!state.organization || !invitation || !live(invitation, c.at)) throw new Refusal('IKW-ACC-006', 'This invitation has expired, was revoked or was already used', 'token');
  const { organizationId, invitationId, role } = invitation;
  const at = c.at.toISOString();
  const accepted: OrganizationEvent = { type: 'organization.invitation_accepted', data: { organizationId, invitationId, userId: c.userId, at } };
  // Someone who became a member meanwhile keeps their role.
  if (state.members.has(c.userId)) return [accepted];
  return [accepted, { type: 'organization.member_added', data: { organizationId, userId: c.userId, role, at } }];
}

/** An organization: its merchants and its members with their roles. */
export const organizationDecider: Decider<OrganizationCommand, OrganizationState, OrganizationEvent> = {
  initialState: { organization: null, merchantIds: [], members: new Map(), invitations: new Map(), requireMfa: false },

  evolve(state, event) {
    switch (event.type) {
      case 'organization.created':
        return { ...state, organization: event.data };
      case 'organization.merchant_added':
        return { ...state, merchantIds: [...state.merchantIds, event.data.merchantId] };
      case 'organization.member_added':
      case 'organization.member_role_changed':
        return { ...state, members: new Map(state.members).set(event.data.userId, event.data.role) };
      case 'organization.member_removed': {
        const members = new Map(state.members);
        members.delete(event.data.userId);
        return { ...state, members };
      }
      case 'organization.invitation_created':
        return { ...state, invitations: new Map(state.invitations).set(event.data.invitationId, event.data) };
      case 'organization.settings_updated':
        return { ...state, requireMfa: event.data.requireMfa };
      case 'organization.invitation_revoked':
      case 'organization.invitation_accepted': {
        const invitations = new Map(state.invitations);
        invitations.delete(event.data.invitationId);
        return { ...state, invitations };
      }
    }
  },

  decide(command, state) {
    const at = command.at.toISOString();
    switch (command.type) {
      case 'create': {
        // A retried creation (same id) changes nothing.
        if (state.organization) return [];
        const { organizationId } = command.organization;
        return [
          { type: 'organization.created', data: command.organization },
          { type: 'organization.merchant_added', data: { organizationId, merchantId: command.merchantId, at } },
          { type: 'organization.member_added', data: { organizationId, ...command.member, at } },
        ];
      }
      case 'add_member': {
        if (!state.organization) throw noSuch();
        const current = state.members.get(command.userId);
        if (current === command.role) return [];
        if (current !== undefined) throw new Refusal('IKW-RES-002', `This user is already a member (${current})`);
        return [{ type: 'organization.member_added', data: { organizationId: state.organization.organizationId, userId: command.userId, role: command.role, at } }];
      }
      case 'change_role': {
        const current = assertMayChange(state, command.by, command.userId, command.role);
        if (current === command.role) return [];
        return [{ type: 'organization.member_role_changed', data: { organizationId: state.organization!.organizationId, userId: command.userId, role: command.role, at } }];
      }
      case 'remove_member':
        assertMayChange(state, command.by, command.userId, null);
        return [{ type: 'organization.member_removed', data: { organizationId: state.organization!.organizationId, userId: command.userId, at } }];
      case 'invite':
        return decideInvite(state, command);
      case 'revoke_invitation': {
        const { organizationId } = assertManager(state, command.by, null);
        if (!state.invitations.has(command.invitationId)) throw new Refusal('IKW-RES-001', 'No such invitation', 'invitationId');
        return [{ type: 'organization.invitation_revoked', data: { organizationId, invitationId: command.invitationId, by: command.by, at } }];
      }
      case 'accept_invitation':
        return decideAccept(state, command);
      case 'update_settings': {
        if (!state.organization) throw noSuch();
        if (state.members.get(command.by) !== 'owner') throw new Refusal('IKW-ACC-002', 'Only an owner changes the organization’s settings');
        if (state.requireMfa === command.requireMfa) return [];
        return [{ type: 'organization.settings_updated', data: { organizationId: state.organization.organizationId, requireMfa: command.requireMfa, by: command.by, at } }];
      }
      default:
        return unreachable(command);
    }
  },
};
