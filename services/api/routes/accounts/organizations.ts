import type { Knex } from 'knex';
import { isIsoCountry } from '../../../../packages/catalog/index.js';
import { ApiError } from '../../../../packages/core/errors.js';
import type { NewOrganization, Organizations } from '../../../../packages/families/accounts/organization/commands.js';
import { ORGANIZATION_TYPES } from '../../../../packages/families/accounts/organization/events.js';
import type { Accounts } from '../../../../packages/families/accounts/user/commands.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findMembership, listMemberships, type MembershipRow } from '../../../../projections/accounts/organizations.js';
import { accessTokenSchema, userOf } from './auth.js';
import { countrySchema, listSchema, signedIn } from '../shared.js';

const uuid = { type: 'string', format: 'uuid' };

const organizationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { const: 'organization' },
    displayName: { type: 'string' },
    country: { type: 'string' },
    type: { enum: ORGANIZATION_TYPES },
    parentId: { type: ['string', 'null'] },
    role: { type: 'string' },
    merchantIds: { type: 'array', items: { type: 'string' } },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

function render(o: MembershipRow) {
  return {
    id: o.id,
    object: 'organization',
    displayName: o.display_name,
    country: o.country,
    type: o.type,
    parentId: o.parent_id,
    role: o.role,
    merchantIds: o.merchant_ids,
    createdAt: o.created_at.toISOString(),
  };
}

/** Reads the membership a command just wrote (inline projections) or was checked to exist. */
async function membership(knex: Knex, userId: string, organizationId: string) {
  const row = await findMembership(knex, userId, organizationId);
  if (!row) throw new ApiError('IKW-RES-001', 'No such organization', 'organizationId');
  return render(row);
}

/**
 * /api/v1/organizations (docs/accounts.md): the organizations a signed-in user belongs to. Each holds
 * merchants; the user's role in it decides the scopes of their access tokens there.
 */
export function organizationsFamily(knex: Knex, accounts: Accounts, organizations: Organizations): Family {
  return {
    name: 'organizations',
    description: 'The organizations a dashboard user belongs to (each with its own merchant), and moving a session between them.',
    routes: [
      route<{ displayName: string; country: string; type: NewOrganization['type']; parentId?: string | null }>({
        method: 'post',
        path: '/api/v1/organizations',
        summary: 'Create an organization with its own merchant (sandbox and live); the caller becomes its owner',
        auth: signedIn,
        body: {
          type: 'object',
          required: ['displayName', 'country', 'type'],
          additionalProperties: false,
          properties: {
            displayName: { type: 'string', minLength: 1, maxLength: 128 },
            country: countrySchema,
            type: { enum: ORGANIZATION_TYPES },
            parentId: { ...uuid, type: ['string', 'null'] },
          },
        },
        response: organizationSchema,
        handler: async (ctx) => {
          const { userId } = userOf(ctx);
          const country = ctx.body.country.toUpperCase();
          if (!isIsoCountry(country)) throw new ApiError('IKW-VAL-004', undefined, 'country');
          const id = await organizations.create(userId, { displayName: ctx.body.displayName, country, type: ctx.body.type, parentId: ctx.body.parentId ?? null }, ctx.actor);
          return membership(knex, userId, id);
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/organizations/current',
        summary: 'The organization this session acts in, with the caller’s role and its merchants',
        auth: signedIn,
        response: organizationSchema,
        handler: (ctx) => {
          const claims = userOf(ctx);
          return membership(knex, claims.userId, claims.organizationId);
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/organizations/mine',
        summary: 'Every organization the caller belongs to, oldest membership first',
        auth: signedIn,
        response: listSchema(organizationSchema),
        handler: async (ctx) => ({ object: 'list', data: (await listMemberships(knex, userOf(ctx).userId)).map(render) }),
      }),
      route<{ organizationId: string; persist?: boolean | null }>({
        method: 'post',
        path: '/api/v1/organizations/switch',
        fields: { sessionId: 'id' },
        summary: 'Move this session to another of the caller’s organizations (its first merchant); `persist` makes it where sign-ins start',
        auth: signedIn,
        body: { type: 'object', required: ['organizationId'], additionalProperties: false, properties: { organizationId: uuid, persist: { type: ['boolean', 'null'] } } },
        response: {
          type: 'object',
          properties: { ...accessTokenSchema.properties, organization: organizationSchema },
        },
        handler: async (ctx) => {
          const claims = userOf(ctx);
          const token = await accounts.switchOrganization(claims, ctx.body.organizationId, ctx.body.persist === true, ctx.actor);
          return { ...token, organization: await membership(knex, claims.userId, ctx.body.organizationId) };
        },
      }),
    ],
  };
}
