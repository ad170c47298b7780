import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { Organizations } from '../organization/commands.js';
import { ROLES, type Role } from '../organization/events.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findInvitation, listInvitations, type InvitationRow } from '../read/organization-invitations.js';
import { findMembership, listMembers, type MemberRow } from '../read/organizations.js';
import { ROLE_WORDS, userOf } from './auth.js';
import { idParams, idParamsOf, listSchema, signedIn } from '#packages/http/route-kit.js';

const memberSchema = {
  type: 'object',
  properties: {
    object: { const: 'team_member', description: 'The kind of object: always `team_member`' },
    user_id: { type: 'string', description: "The member's user id: the `userId` of the routes that change or remove them" },
    email: { type: 'string', description: "The member's sign-in e-mail address" },
    name: { type: 'string', description: "The member's name, as they gave it" },
    role: { enum: ROLES, description: 'What the member may do in this organization', 'x-enumDescriptions': ROLE_WORDS },
    added_at: { type: 'string', format: 'date-time', description: 'When they joined the organization (ISO 8601)' },
  },
};

const INVITATION_STATUS_WORDS = {
  pending: 'Sent and not yet answered: its link works until `expires_at`',
  accepted: 'Its link was used: the person is a member (`accepted_by`)',
  revoked: 'Revoked by an owner or admin: its link no longer works',
  expired: 'Not accepted within its 7 days: its link no longer works',
};

const invitationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: "The invitation's id: the `id` that revokes it. Not its token, which is only in the e-mail" },
    object: { const: 'team_invitation', description: 'The kind of object: always `team_invitation`' },
    email: { type: 'string', description: 'The address invited, in lower case: the e-mail with the link went there' },
    role: { enum: ROLES, description: 'The role the person gets on accepting', 'x-enumDescriptions': ROLE_WORDS },
    status: { enum: ['pending', 'accepted', 'revoked', 'expired'], description: 'Where the invitation stands', 'x-enumDescriptions': INVITATION_STATUS_WORDS },
    invited_by: { type: 'string', description: 'The user id of the member who sent it' },
    accepted_by: { type: ['string', 'null'], description: 'The user id of who accepted it (a new account or an existing one), or null' },
    expires_at: { type: 'string', format: 'date-time', description: 'When its link stops working: 7 days after it was sent (ISO 8601)' },
    created_at: { type: 'string', format: 'date-time', description: 'When it was sent (ISO 8601)' },
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

const requireMfa = {
  type: 'boolean',
  description: "Whether the organization's owners must keep a second factor: with `true`, an owner cannot remove their last one (`IKW-ACC-010`)",
};
const teamSettingsSchema = {
  type: 'object',
  properties: { object: { const: 'team_settings', description: 'The kind of object: always `team_settings`' }, require_mfa: requireMfa },
};

const render = (m: MemberRow) => ({ object: 'team_member', user_id: m.user_id, email: m.email, name: m.name, role: m.role, added_at: m.added_at.toISOString() });

/**
 * /api/v1/merchant/team (snake_case, a signed-in user's access token): the members of the
 * organization the session acts in. Owners and admins change roles and remove members; only an
 * owner touches owners; the last owner stays. They also invite people by e-mail, list the
 * invitations and revoke pending ones (docs/accounts.md, "Team").
 */
export function merchantTeamRoutes(knex: Knex, clock: Clock, organizations: Organizations): RouteGroup {
  const userParams = idParamsOf('userId');
  return {
    name: 'merchant-team',
    description: "The merchant's team: members and their roles, invitations, and the team's security settings.",
    routes: [
      route({
        method: 'get',
        path: '/api/v1/merchant/team/members',
        summary: 'The members of the current organization with their roles, oldest first',
        description: "Lists everyone who belongs to the organization the session acts in, with their role, for the dashboard's Team page. Any member may read it. A member is a user, not an API key: integrations never see this list.",
        auth: signedIn,
        response: listSchema(memberSchema),
        handler: async (ctx) => ({ object: 'list', data: (await listMembers(knex, userOf(ctx).organizationId)).map(render) }),
      }),
      route<{ role: Role }, unknown, { userId: string }>({
        method: 'patch',
        path: '/api/v1/merchant/team/members/:userId',
        summary: "Change a member's role (owner or admin; only an owner makes or changes an owner)",
        description:
          "Gives a member another role (see the roles under *Roles and scopes* in docs/accounts.md); Owners and admins change roles; only an owner makes an owner or changes an owner's role. The organization always keeps one owner: demoting the last one is refused with `IKW-RES-002`. Giving the role a member already has changes nothing. `userId` is a member of this organization (a user of another one is a 404).",
        refusals: ['IKW-ACC-002', 'IKW-RES-002'],
        auth: signedIn,
        params: userParams,
        body: { type: 'object', required: ['role'], additionalProperties: false, properties: { role: { enum: ROLES, description: 'The new role. Only an owner gives or takes `owner`', 'x-enumDescriptions': ROLE_WORDS } } },
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
        description:
          'Takes a member out of the organization: every session they have in it ends at once, and a member of no other organization can no longer sign in. Owners and admins remove members; only an owner removes an owner, and the last owner stays (`IKW-RES-002`). It is not undone: invite them again to bring them back.',
        refusals: ['IKW-ACC-002', 'IKW-RES-002'],
        auth: signedIn,
        params: userParams,
        response: { type: 'object', properties: { user_id: { type: 'string', description: 'The user id of the member removed' }, removed: { const: true, description: 'Always `true`: they are no longer a member' } } },
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
        description: "Reads the organization's security settings, for any member: today `require_mfa`, whether its owners must keep a second factor.",
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
        description:
          "Turns on (or off) the rule that the organization's owners keep a second factor: with it, an owner who tries to remove their last second factor is refused (`IKW-ACC-010`). It does not check that every owner has one now; it stops them going without. Only an owner changes it; setting the value it already has changes nothing.",
        refusals: ['IKW-ACC-002'],
        auth: signedIn,
        body: { type: 'object', required: ['require_mfa'], additionalProperties: false, properties: { require_mfa: requireMfa } },
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
        description:
          "Sends an invitation to join the organization with a role: the e-mail carries a link to the dashboard's invitation page, valid 7 days, which accepts it with `POST /api/v1/invitations/accept`. The token is only in that e-mail; the answer holds the invitation, `pending`. Owners and admins invite; only an owner invites an owner. An address that is already a member or has a pending invitation is refused (`IKW-ACC-008`): revoke the pending one to send another. Invitations are limited per organization (`INVITATION_LIMIT`, 50 a day by default) and per inviting user (`INVITATION_INVITER_LIMIT`, 25 a day), every attempt counting: over either, `429 IKW-LIM-001` with `Retry-After`.",
        refusals: ['IKW-ACC-002', 'IKW-ACC-008'],
        auth: signedIn,
        status: 201,
        body: {
          type: 'object',
          required: ['email', 'role'],
          additionalProperties: false,
          properties: {
            email: { type: 'string', format: 'email', maxLength: 254, description: 'Where the invitation goes: the person signs in with this address (compared in lower case)' },
            role: { enum: ROLES, description: 'The role they get on accepting. Only an owner invites an owner', 'x-enumDescriptions': ROLE_WORDS },
          },
        },
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
        description: 'Lists every invitation the organization has sent, for the Team page: `pending` ones still work until `expires_at`; `expired` is a pending one past its date. Any member may read it.',
        auth: signedIn,
        response: listSchema(invitationSchema),
        handler: async (ctx) => ({ object: 'list', data: (await listInvitations(knex, userOf(ctx).organizationId)).map((i) => renderInvitation(i, clock.now())) }),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/merchant/team/invitations/:id',
        fields: { invitationId: 'id' },
        summary: 'Revoke a pending invitation (owner or admin): its link stops working',
        description:
          'Stops a pending invitation: its link is refused from now on (`IKW-ACC-006` to whoever follows it), and the address may be invited again. Owners and admins revoke. An invitation that was accepted or already revoked is no longer revocable and answers `IKW-RES-001`; an expired one can still be revoked.',
        refusals: ['IKW-ACC-002'],
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
