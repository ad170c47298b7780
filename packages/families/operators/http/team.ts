import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import type { OperatorRole } from '#packages/core/owner.js';
import type { Operators } from '../operators.js';
import type { OperatorStatus } from '../events.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findOperator, listOperators } from '../read/index.js';
import { idParams, listSchema } from '#packages/http/route-kit.js';
import { email } from '#packages/families/accounts/http/index.js';
import { adminsOnly, operatorSchema, renderOperator, roleSchema } from './shared.js';

const TEAM = adminsOnly('operator.team');
const operatorIdParams = { ...idParams, properties: { id: { type: 'string', minLength: 1, maxLength: 255, description: 'The operator (`opr_…`)' } } };

/**
 * /api/v1/operator/team (docs/operator.md, "The team"): admins invite operators, change their
 * roles and deactivate them; the team always keeps an active admin. Each change is an event of the
 * team's stream with the admin as its actor.
 */
export function operatorTeamRoutes(knex: Knex, operators: Operators): RouteGroup {
  const answer = async (id: string) => {
    const row = await findOperator(knex, id);
    if (!row) throw new ApiError('IKW-RES-001', `No such operator: '${id}'`, 'id');
    return renderOperator(row);
  };
  return {
    name: 'operator-team',
    description: 'The operator team (admins only): every operator, invitations, roles, deactivation.',
    routes: [
      route<unknown, { status?: OperatorStatus; role?: OperatorRole }>({
        method: 'get',
        path: '/api/v1/operator/team',
        summary: 'Every operator of the platform, newest invitation first; `status` and `role` narrow the list',
        description: 'The team as the console shows it: invited, active and deactivated operators with their roles and whether they have an authenticator app.',
        auth: TEAM,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { enum: ['invited', 'active', 'deactivated'], description: 'Only operators of this status', 'x-enumDescriptions': operatorSchema.properties.status['x-enumDescriptions'] },
            role: { ...roleSchema, description: 'Only operators of this role' },
          },
        },
        response: listSchema(operatorSchema),
        handler: async (ctx) => ({ object: 'list', data: (await listOperators(knex, ctx.query)).map(renderOperator) }),
      }),
      route<{ email: string; name: string; role: OperatorRole }>({
        method: 'post',
        path: '/api/v1/operator/team/invitations',
        status: 201,
        summary: 'Invite an operator: e-mails them a link (3 days) to set a password and add an authenticator app',
        description:
          'Adds an `invited` operator with the role given and e-mails them a one-time link to the console, where they choose a password and add an authenticator app (`POST /api/v1/operator/auth/invitation/accept`); they become `active` at their first sign-in. The link is in the e-mail only: whoever reads the mailbox is the operator. Inviting an address whose operator is still `invited` sends them a new link instead (the old one stops working; the role given replaces theirs); an address held by an active operator is `IKW-OPR-007`. Recorded as `operator.invited` (or, for a new link, `operator.invitation_issued`) with the admin as actor.',
        refusals: ['IKW-OPR-007'],
        auth: TEAM,
        body: {
          type: 'object',
          required: ['email', 'name', 'role'],
          additionalProperties: false,
          properties: {
            email: { ...email, description: "The new operator's e-mail address: their sign-in address, where the link goes" },
            name: { type: 'string', minLength: 1, maxLength: 200, description: 'Their name, as the team list shows it' },
            role: roleSchema,
          },
        },
        response: operatorSchema,
        handler: async (ctx) => answer((await operators.invite(ctx.body, ctx.actor)).operatorId),
      }),
      route<{ role: OperatorRole }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/operator/team/:id/role',
        summary: "Change an operator's role; effective at their next request",
        description:
          "Gives the operator another role; their sessions go on, with the new role's rights from their next request. The last active admin cannot be given another role (`IKW-OPR-006`): make someone else admin first. A deactivated operator's role does not change (`IKW-OPR-009`). Recorded as `operator.role_changed` with the admin as actor.",
        refusals: ['IKW-OPR-006', 'IKW-OPR-009'],
        auth: TEAM,
        fields: { operatorId: 'id' },
        params: operatorIdParams,
        body: { type: 'object', required: ['role'], additionalProperties: false, properties: { role: { ...roleSchema, description: 'The new role' } } },
        response: operatorSchema,
        handler: async (ctx) => {
          await operators.changeRole(ctx.params.id, ctx.body.role, ctx.actor);
          return answer(ctx.params.id);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/operator/team/:id/deactivate',
        summary: 'Deactivate an operator: they can no longer sign in, and their sessions end at once',
        description:
          'Removes an operator from the team: their sessions end at once and their password no longer signs in; the record stays, for the audit trail. The last active admin cannot be deactivated (`IKW-OPR-006`). Deactivating a deactivated operator changes nothing. Recorded as `operator.deactivated` with the admin as actor.',
        refusals: ['IKW-OPR-006'],
        auth: TEAM,
        fields: { operatorId: 'id' },
        params: operatorIdParams,
        response: operatorSchema,
        handler: async (ctx) => {
          await operators.deactivate(ctx.params.id, ctx.actor);
          return answer(ctx.params.id);
        },
      }),
    ],
  };
}
