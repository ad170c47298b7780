import type { Decider } from '../../core/decider.js';
import { ApiError } from '../../core/errors.js';
import { unreachable } from '../aggregate.js';
import type { OrganizationCreated, OrganizationEvent, Role } from './events.js';

export interface OrganizationState {
  organization: OrganizationCreated | null;
  merchantIds: string[];
  members: Map<string, Role>;
}

export type OrganizationCommand =
  | { type: 'create'; organization: OrganizationCreated; merchantId: string; member: { userId: string; role: Role }; at: Date }
  | { type: 'add_member'; userId: string; role: Role; at: Date };

const noSuch = () => new ApiError('IKW-RES-001', 'No such organization', 'organizationId');

/** An organization: its merchants and its members with their roles. */
export const organizationDecider: Decider<OrganizationCommand, OrganizationState, OrganizationEvent> = {
  initialState: { organization: null, merchantIds: [], members: new Map() },

  evolve(state, event) {
    switch (event.type) {
      case 'organization.created':
        return { ...state, organization: event.data };
      case 'organization.merchant_added':
        return { ...state, merchantIds: [...state.merchantIds, event.data.merchantId] };
      case 'organization.member_added':
        return { ...state, members: new Map(state.members).set(event.data.userId, event.data.role) };
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
        if (current !== undefined) throw new ApiError('IKW-RES-002', `This user is already a member (${current})`);
        return [{ type: 'organization.member_added', data: { organizationId: state.organization.organizationId, userId: command.userId, role: command.role, at } }];
      }
      default:
        return unreachable(command);
    }
  },
};
