import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { OPERATOR_ROLES, type Environment, type OperatorRole, type Owner } from '#packages/core/owner.js';
import { findMerchant } from '#packages/families/merchants/read/index.js';
import type { HandlerContext, OperatorClaims } from '#packages/http/context.js';
import type { RouteAuth } from '#packages/http/routes.js';
import type { OperatorRow } from '../read/index.js';

/** Any signed-in operator, whatever their role. */
export const anyOperator = (scope: string): RouteAuth => ({ scope, operator: OPERATOR_ROLES });
/** Admins only (the team). */
export const adminsOnly = (scope: string): RouteAuth => ({ scope, operator: ['admin'] });

/** The path parameter of a route about one merchant. */
export const merchantParams = { type: 'object', required: ['merchantId'], properties: { merchantId: { type: 'string', minLength: 1, maxLength: 255, description: 'The merchant (`acct_…`)' } } };

/** The merchant and environment (live unless named) an operator's route is about; an unknown merchant is IKW-RES-001. */
export async function merchantOwnerOf(knex: Knex, merchantId: string, environment: Environment | undefined): Promise<Owner> {
  if (!(await findMerchant(knex, merchantId))) throw new ApiError('IKW-RES-001', `No such merchant: '${merchantId}'`, 'merchantId');
  return { merchantId, environment: environment ?? 'live' };
}

/** The operator calling an operator route (the edge admitted only operator sessions). */
export function operatorOf(ctx: Pick<HandlerContext, 'principal'>): OperatorClaims {
  if (!ctx.principal.operator) throw new ApiError('IKW-RTE-001');
  return ctx.principal.operator;
}

export const ROLE_WORDS: Record<OperatorRole, string> = {
  reviewer: "Reviews merchants' applications: reads merchants, approves, rejects, asks for information",
  risk: 'Sets limits and holds on merchants, suspends and reinstates; reads merchants',
  finance: 'Runs reconciliation and watches rails and balances; reads merchants',
  admin: 'Everything, and the operator team: invites, changes roles, deactivates',
};
export const roleSchema = { enum: [...OPERATOR_ROLES], description: 'The operator\'s role (docs/operator.md, "Roles")', 'x-enumDescriptions': ROLE_WORDS };

export const operatorSchema = {
  type: 'object',
  required: ['object', 'id', 'email', 'name', 'role', 'status', 'authenticator', 'invited', 'activated', 'deactivated'],
  properties: {
    object: { const: 'operator', description: 'The kind of object: always `operator`' },
    id: { type: 'string', description: "The operator's id (`opr_…`): events they cause name `operator:<id>` as their actor" },
    email: { type: 'string', description: 'Their sign-in e-mail address, in lower case' },
    name: { type: 'string', description: 'Their name' },
    role: roleSchema,
    status: {
      enum: ['invited', 'active', 'deactivated'],
      description: 'Where they stand in the team',
      'x-enumDescriptions': {
        invited: 'Invited: has not yet set a password and added an authenticator app (the link works 3 days)',
        active: 'Signs in with a password and an authenticator app',
        deactivated: 'Can no longer sign in; their sessions ended when deactivated',
      },
    },
    authenticator: { type: 'boolean', description: 'Whether they have added an authenticator app (every active operator has)' },
    invited: { type: 'string', format: 'date-time', description: 'When they were invited (ISO 8601)' },
    activated: { type: ['string', 'null'], format: 'date-time', description: 'When their first sign-in completed, or null' },
    deactivated: { type: ['string', 'null'], format: 'date-time', description: 'When they were deactivated, or null' },
  },
};

export function renderOperator(row: OperatorRow) {
  return {
    object: 'operator',
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    authenticator: row.authenticator,
    invited: row.invited_at.toISOString(),
    activated: row.activated_at?.toISOString() ?? null,
    deactivated: row.deactivated_at?.toISOString() ?? null,
  };
}
