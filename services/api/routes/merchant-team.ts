import type { Knex } from 'knex';
import type { Organizations } from '../../../packages/domain/organization/commands.js';
import { ROLES, type Role } from '../../../packages/domain/organization/events.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { listMembers, type MemberRow } from '../../../projections/organizations.js';
import { userOf } from './auth.js';
import { idParamsOf, signedIn } from './shared.js';

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

const render = (m: MemberRow) => ({ object: 'team_member', user_id: m.user_id, email: m.email, name: m.name, role: m.role, added_at: m.added_at.toISOString() });

/**
 * /api/v1/merchant/team (snake_case, a signed-in user's access token): the members of the
 * organization the session acts in. Owners and admins change roles and remove members; only an
 * owner touches owners; the last owner stays (docs/auth.md, "Team").
 */
export function merchantTeamFamily(knex: Knex, organizations: Organizations): Family {
  const userParams = idParamsOf('userId');
  return {
    name: 'merchant-team',
    routes: [
      route({
        method: 'get',
        path: '/api/v1/merchant/team/members',
        summary: 'The members of the current organization with their roles, oldest first',
        auth: signedIn,
        response: { type: 'object', properties: { object: { const: 'list' }, data: { type: 'array', items: memberSchema } } },
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
    ],
  };
}
