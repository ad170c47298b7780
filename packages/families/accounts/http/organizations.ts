import type { Knex } from 'knex';
import { isIsoCountry } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import type { NewOrganization, Organizations } from '../organization/commands.js';
import { ORGANIZATION_TYPES } from '../organization/events.js';
import type { UserSessions } from '../user/sessions.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findMembership, listMemberships, type MembershipRow } from '../read/organizations.js';
import { accessTokenSchema, userOf } from './auth.js';
import { countrySchema, listSchema, signedIn } from '#packages/http/route-kit.js';

const uuid = { type: 'string', format: 'uuid' };

const TYPE_WORDS = {
  business: 'A company or a trader',
  individual: 'A person acting on their own account',
  nonprofit: 'An association, foundation or other non-profit',
  government: 'A public body',
};

const organizationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: "The organization's id: the `organizationId` that switches to it and the `parentId` of organizations under it" },
    object: { const: 'organization', description: 'The kind of object: always `organization`' },
    displayName: { type: 'string', description: 'Its name, as its members wrote it: shown in the dashboard and, quoted, in its invitations' },
    country: { type: 'string', description: 'Where it is established: a two-letter ISO 3166-1 code, upper case' },
    type: { enum: ORGANIZATION_TYPES, description: 'What kind of organization it is', 'x-enumDescriptions': TYPE_WORDS },
    parentId: { type: ['string', 'null'], description: 'The organization it was created under, or null for a top-level one' },
    role: { type: 'string', description: "The caller's role in it (`owner`, `admin`, `developer`, `finance` or `viewer`): what their sessions there may do" },
    merchantIds: { type: 'array', items: { type: 'string' }, description: 'The merchants it holds (`acct_…`), oldest first; a session there acts for one of them' },
    createdAt: { type: 'string', format: 'date-time', description: 'When it was created (ISO 8601)' },
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
export function organizationsRoutes(knex: Knex, sessions: UserSessions, organizations: Organizations): RouteGroup {
  return {
    name: 'organizations',
    description: 'The organizations a dashboard user belongs to (each with its own merchant), and moving a session between them.',
    routes: [
      route<{ displayName: string; country: string; type: NewOrganization['type']; parentId?: string | null }>({
        method: 'post',
        path: '/api/v1/organizations',
        summary: 'Create an organization with its own merchant (sandbox and live); the caller becomes its owner',
        description:
          'Opens a new organization, with a merchant of its own named after it (sandbox and live), for a user who runs another business or wants to keep one apart; the caller is its owner. The session stays where it was: move it with `POST /api/v1/organizations/switch`. With `parentId` the organization is made under another one the caller owns or administers (another role: `IKW-ACC-002`; one they do not belong to: `IKW-RES-001`). A user belongs to at most `ORGANIZATIONS_PER_USER` organizations (20 by default), made or joined: one more is `IKW-ACC-012`.',
        refusals: ['IKW-ACC-002', 'IKW-ACC-012', 'IKW-RES-001', 'IKW-VAL-004'],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['displayName', 'country', 'type'],
          additionalProperties: false,
          properties: {
            displayName: { type: 'string', minLength: 1, maxLength: 128, description: 'Its name, as the team and the people it invites will see it; also the name of its merchant' },
            country: { ...countrySchema, description: 'Where it is established: a two-letter ISO 3166-1 country code, in any case (`SN`, `ci`); an unknown one is `IKW-VAL-004`' },
            type: { enum: ORGANIZATION_TYPES, description: 'What kind of organization it is', 'x-enumDescriptions': TYPE_WORDS },
            parentId: { ...uuid, type: ['string', 'null'], description: 'An organization the caller owns or administers, to make this one under it; null or left out for a top-level one' },
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
        description: "What the dashboard shows as the current organization: the one the session's access token acts in, with the caller's role there and its merchants.",
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
        description: 'For an organization picker: each organization the signed-in user is a member of, with their role in it. Switch to one with `POST /api/v1/organizations/switch`.',
        auth: signedIn,
        response: listSchema(organizationSchema),
        handler: async (ctx) => ({ object: 'list', data: (await listMemberships(knex, userOf(ctx).userId)).map(render) }),
      }),
      route<{ organizationId: string; persist?: boolean | null }>({
        method: 'post',
        path: '/api/v1/organizations/switch',
        fields: { sessionId: 'id' },
        summary: 'Move this session to another of the caller’s organizations (its first merchant); `persist` makes it where sign-ins start',
        description:
          "Moves the caller's session, not only this token, to another organization they belong to, acting for its first merchant: the answer holds a new access token for it, and the refresh token stays the same (its next refresh is for the new organization). An organization the caller does not belong to is `IKW-RES-001`. With `persist: true`, the user's later sign-ins start there. A session that never proved the second factor the user now has is refused (`IKW-AUT-007`): sign in again.",
        refusals: ['IKW-RES-001'],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['organizationId'],
          additionalProperties: false,
          properties: {
            organizationId: { ...uuid, description: 'The organization to act in: one the caller belongs to' },
            persist: { type: ['boolean', 'null'], description: "`true` to make it where the user's sign-ins start from now on; otherwise only this session moves" },
          },
        },
        response: {
          type: 'object',
          properties: { ...accessTokenSchema.properties, organization: { ...organizationSchema, description: 'The organization the session now acts in' } },
        },
        handler: async (ctx) => {
          const claims = userOf(ctx);
          const token = await sessions.switchOrganization(claims, ctx.body.organizationId, ctx.body.persist === true, ctx.actor);
          return { ...token, organization: await membership(knex, claims.userId, ctx.body.organizationId) };
        },
      }),
    ],
  };
}
