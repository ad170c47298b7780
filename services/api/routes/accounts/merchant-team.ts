import type { Knex } from 'knex';
import type { Clock } from '../../../../packages/core/clock.js';
import type { Organizations } from '../../../../packages/families/accounts/organization/commands.js';
import { ROLES, type Role } from '../../../../packages/families/accounts/organization/events.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findInvitation, listInvitations, type InvitationRow } from '../../../../projections/accounts/organization-invitations.js';
import { findMembership, listMembers, type MemberRow } from '../../../../projections/accounts/organizations.js';
import { userOf } from './auth.js';
import { idParams, idParamsOf, listSchema, signedIn } from '../shared.js';

const memberSchema = {
  type: 'object',
  properties: {
    object: { const: 'team_member' },
    user_id: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    role: { enum: ROLES },
    added_at: { type: 'string', format: 'date-time' },
  },
};

const invitationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { const: 'team_invitation' },
    email: { type: 'string' },
    role: { enum: ROLES },
    status: { enum: ['pending', 'accepted', 'revoked', 'expired'] },
    invited_by: { type: 'string' },
    accepted_by: { type: ['string', 'null'] },
    expires_at: { type: 'string', format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

/** `expired` is a pending invitation past its date: derived when read, not an event. */
function renderInvitation(i: InvitationRow, now: Date) {
  return {
    id: i.id,
    object: 'team_invitation',
    email: i.email,
    role: i.role,
    status: i.status === 'pending' && i.expires_at.getTime() <= now.getTime() ? 'expired' : i.status,
    invited_by: i.invited_by,
    accepted_by: i.accepted_by,
    expires_at: i.expires_at.toISOString(),
    created_at: i.created_at.toISOString(),
  };
}

const teamSettingsSchema = { type: 'object', properties: { object: { const: 'team_settings' }, require_mfa: { type: 'boolean' } } };

const render = (m: MemberRow) => ({ object: 'team_member', user_id: m.user_id, email: m.email, name: m.name, role: m.role, added_at: m.added_at.toISOString() });

/**
 * /api/v1/merchant/team (snake_case, a signed-in user's access token): the members of the
 * organization the session acts in. Owners and admins change roles and remove members; only an
 * owner touches owners; the last owner stays. They also invite people by e-mail, list the
 * invitations and revoke pending ones (docs/accounts.md, "Team").
 */
export function merchantTeamFamily(knex: Knex, clock: Clock, organizations: Organizations): Family {
  const userParams = idParamsOf('userId');
  return {
    name: 'merchant-team',
    description: 'The merchant\'s team: members and their roles, invitations, and the team\'s security settings.',
    routes: [
      route({
        method: 'get',
        path: '/api/v1/merchant/team/members',
        summary: 'The members of the current organization with their roles, oldest first',
        auth: signedIn,
        response: listSchema(memberSchema),
        handler: async (ctx) => ({ object: 'list', data: (await listMembers(knex, userOf(ctx).organizationId)).map(render) }),
      }),
      route<{ role: Role }, unknown, { userId: string }>({
        method: 'patch',
        path: '/api/v1/merchant/team/members/:userId',
        summary: "Change a member's role (owner or admin; only an owner makes or changes an owner)",
        auth: signedIn,
        params: userParams,
        body: { type: 'object', required: ['role'], additionalProperties: false, properties: { role: { enum: ROLES } } },
        response: memberSchema,
        handler: async (ctx) => {
          const me = userOf(ctx);
          await organizations.changeRole(me.organizationId, me.merchantId, me.userId, ctx.params.userId, ctx.body.role, ctx.actor);
          const member = (await listMembers(knex, me.organizationId)).find((m) => m.user_id === ctx.params.userId)!;
          return render(member);
        },
      }),
      route<unknown, unknown, { userId: string }>({
        method: 'delete',
        path: '/api/v1/merchant/team/members/:userId',
        summary: 'Remove a member from the current organization; their sessions there end at once',
        auth: signedIn,
        params: userParams,
        response: { type: 'object', properties: { user_id: { type: 'string' }, removed: { const: true } } },
        handler: async (ctx) => {
          const me = userOf(ctx);
          await organizations.removeMember(me.organizationId, me.merchantId, me.userId, ctx.params.userId, ctx.actor);
          return { user_id: ctx.params.userId, removed: true };
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/merchant/team/settings',
        summary: "The current organization's settings: whether its owners must keep a second factor",
        auth: signedIn,
        response: teamSettingsSchema,
        handler: async (ctx) => {
          const me = userOf(ctx);
          return { object: 'team_settings', require_mfa: (await findMembership(knex, me.userId, me.organizationId))?.require_mfa ?? false };
        },
      }),
      route<{ require_mfa: boolean }>({
        method: 'patch',
        path: '/api/v1/merchant/team/settings',
        summary: "Change the current organization's settings (owners only): require_mfa keeps every owner's last second factor",
        auth: signedIn,
        body: { type: 'object', required: ['require_mfa'], additionalProperties: false, properties: { require_mfa: { type: 'boolean' } } },
        response: teamSettingsSchema,
        handler: async (ctx) => {
          const me = userOf(ctx);
          await organizations.updateSettings(me.organizationId, me.merchantId, me.userId, ctx.body.require_mfa, ctx.actor);
          return { object: 'team_settings', require_mfa: ctx.body.require_mfa };
        },
      }),
      route<{ email: string; role: Role }>({
        method: 'post',
        path: '/api/v1/merchant/team/invitations',
        summary: 'Invite someone by e-mail with a role (owner or admin; only an owner invites an owner); the link, valid 7 days, goes by e-mail',
        auth: signedIn,
        status: 201,
        body: { type: 'object', required: ['email', 'role'], additionalProperties: false, properties: { email: { type: 'string', format: 'email', maxLength: 254 }, role: { enum: ROLES } } },
        response: invitationSchema,
        handler: async (ctx) => {
          const me = userOf(ctx);
          const invitation = await organizations.invite(me.organizationId, me.merchantId, me.userId, ctx.body.email, ctx.body.role, ctx.actor);
          return renderInvitation((await findInvitation(knex, me.organizationId, invitation.invitationId))!, clock.now());
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/merchant/team/invitations',
        summary: "The current organization's invitations, newest first, with their status (pending, accepted, revoked, expired)",
        auth: signedIn,
        response: listSchema(invitationSchema),
        handler: async (ctx) => ({ object: 'list', data: (await listInvitations(knex, userOf(ctx).organizationId)).map((i) => renderInvitation(i, clock.now())) }),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/merchant/team/invitations/:id',
        fields: { invitationId: 'id' },
        summary: 'Revoke a pending invitation (owner or admin): its link stops working',
        auth: signedIn,
        params: idParams,
        response: invitationSchema,
        handler: async (ctx) => {
          const me = userOf(ctx);
          await organizations.revokeInvitation(me.organizationId, me.merchantId, me.userId, ctx.params.id, ctx.actor);
          return renderInvitation((await findInvitation(knex, me.organizationId, ctx.params.id))!, clock.now());
        },
      }),
    ],
  };
}
