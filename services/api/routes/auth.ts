import type { Knex } from 'knex';
import type { Clock } from '../../../packages/core/clock.js';
import { ApiError } from '../../../packages/core/errors.js';
import type { Accounts, Device } from '../../../packages/domain/user/commands.js';
import type { AppTokenClaims } from '../../../packages/domain/user/tokens.js';
import type { HandlerContext } from '../../../packages/http/context.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { listMemberships } from '../../../projections/organizations.js';
import { listLiveSessions } from '../../../projections/user-sessions.js';
import { findUser } from '../../../projections/users.js';
import { idParams, signedIn } from './shared.js';

const signedInUser = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    role: { type: 'string' },
  },
};
const accessToken = {
  type: 'object',
  properties: { accessToken: { type: 'string' }, tokenType: { const: 'Bearer' }, expiresIn: { type: 'integer' }, user: signedInUser },
};
const tokenPair = { type: 'object', properties: { ...accessToken.properties, refreshToken: { type: 'string' } } };
const email = { type: 'string', format: 'email', maxLength: 254 };
const password = { type: 'string', minLength: 8, maxLength: 256 };

/** The caller of an account route (signedIn guarantees an access token). */
export function userOf(ctx: HandlerContext<unknown, unknown, unknown>): AppTokenClaims {
  if (!ctx.principal.user) throw new ApiError('IKW-ACC-003');
  return ctx.principal.user;
}

function deviceOf(ctx: HandlerContext<unknown, unknown, unknown>): Device {
  return { userAgent: ctx.actor.userAgent?.slice(0, 512) ?? null, ip: ctx.actor.ip ?? null };
}

const iso = (d: Date) => d.toISOString();

/**
 * /api/v1/auth (camelCase bodies), the account half (docs/auth.md): sign-in, refresh, sign-out,
 * the current user, their sessions and switching merchants. Access tokens are AppTokens:
 * `Authorization: Bearer <accessToken>`, with `X-Environment` choosing the environment.
 */
export function authFamily(accounts: Accounts, knex: Knex, clock: Clock): Family {
  return {
    name: 'auth',
    routes: [
      route<{ email: string; password: string }>({
        method: 'post',
        path: '/api/v1/auth/login',
        summary: 'Sign in with e-mail and password; returns an access token (15 min) and a rotating refresh token',
        auth: 'public',
        body: { type: 'object', required: ['email', 'password'], additionalProperties: false, properties: { email, password } },
        response: tokenPair,
        throttle: (body) => body.email.toLowerCase(),
        handler: (ctx) => accounts.login(ctx.body.email, ctx.body.password, deviceOf(ctx), ctx.actor),
      }),
      route<{ refreshToken: string }>({
        method: 'post',
        path: '/api/v1/auth/refresh',
        summary: 'Exchange a refresh token for a new pair; each refresh token works once, and a reused one ends its session',
        auth: 'public',
        body: { type: 'object', required: ['refreshToken'], additionalProperties: false, properties: { refreshToken: { type: 'string', minLength: 1, maxLength: 512 } } },
        response: tokenPair,
        handler: (ctx) => accounts.refresh(ctx.body.refreshToken, ctx.actor),
      }),
      route({
        method: 'post',
        path: '/api/v1/auth/logout',
        summary: "Sign out: ends the caller's session (its refresh token and access tokens stop working)",
        auth: signedIn,
        response: { type: 'object', properties: { signedOut: { const: true } } },
        handler: async (ctx) => {
          await accounts.logout(userOf(ctx), ctx.actor);
          return { signedOut: true };
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/auth/me',
        summary: 'The signed-in user: profile, the organization, merchant and role of this session, and every organization they belong to',
        auth: signedIn,
        response: {
          type: 'object',
          properties: {
            ...signedInUser.properties,
            phone: { type: ['string', 'null'] },
            sessionId: { type: 'string' },
            createdAt: { type: 'string', format: 'date-time' },
            organizations: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, displayName: { type: 'string' }, role: { type: 'string' }, merchantIds: { type: 'array', items: { type: 'string' } } } } },
          },
        },
        handler: async (ctx) => {
          const claims = userOf(ctx);
          const user = await findUser(knex, claims.userId);
          if (!user) throw new ApiError('IKW-AUT-007');
          const organizations = await listMemberships(knex, claims.userId);
          const current = organizations.find((o) => o.id === claims.organizationId);
          return {
            id: user.id,
            email: user.email,
            name: user.name,
            phone: user.phone,
            organizationId: claims.organizationId,
            merchantId: claims.merchantId,
            role: current?.role ?? claims.role,
            sessionId: claims.sessionId,
            createdAt: iso(user.created_at),
            organizations: organizations.map((o) => ({ id: o.id, displayName: o.display_name, role: o.role, merchantIds: o.merchant_ids })),
          };
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/auth/sessions',
        summary: "The signed-in user's live sessions, newest first; `current` marks the caller's",
        auth: signedIn,
        response: {
          type: 'object',
          properties: {
            object: { const: 'list' },
            data: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { type: 'string' },
                  current: { type: 'boolean' },
                  organizationId: { type: 'string' },
                  merchantId: { type: 'string' },
                  userAgent: { type: ['string', 'null'] },
                  ip: { type: ['string', 'null'] },
                  createdAt: { type: 'string', format: 'date-time' },
                  lastActiveAt: { type: 'string', format: 'date-time' },
                  expiresAt: { type: 'string', format: 'date-time' },
                },
              },
            },
          },
        },
        handler: async (ctx) => {
          const claims = userOf(ctx);
          const rows = await listLiveSessions(knex, claims.userId, clock.now());
          return {
            object: 'list',
            data: rows.map((s) => ({
              id: s.id,
              current: s.id === claims.sessionId,
              organizationId: s.organization_id,
              merchantId: s.merchant_id,
              userAgent: s.user_agent,
              ip: s.ip,
              createdAt: iso(s.created_at),
              lastActiveAt: iso(s.last_active_at),
              expiresAt: iso(s.expires_at),
            })),
          };
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/auth/sessions/:id',
        summary: "Revoke one of the signed-in user's sessions (sign a device out)",
        auth: signedIn,
        params: idParams,
        response: { type: 'object', properties: { id: { type: 'string' }, revoked: { const: true } } },
        handler: async (ctx) => {
          await accounts.revokeSession(userOf(ctx), ctx.params.id, ctx.actor);
          return { id: ctx.params.id, revoked: true };
        },
      }),
      route({
        method: 'post',
        path: '/api/v1/auth/sessions/revoke-others',
        summary: "Revoke every session of the signed-in user except the caller's",
        auth: signedIn,
        response: { type: 'object', properties: { revoked: { type: 'integer' } } },
        handler: async (ctx) => ({ revoked: await accounts.revokeOtherSessions(userOf(ctx), ctx.actor) }),
      }),
      route<{ merchantId: string }>({
        method: 'post',
        path: '/api/v1/auth/switch-merchant',
        summary: "Act for another merchant of the user's organizations; returns an access token for it (the refresh token stays)",
        auth: signedIn,
        body: { type: 'object', required: ['merchantId'], additionalProperties: false, properties: { merchantId: { type: 'string', minLength: 1, maxLength: 64 } } },
        response: accessToken,
        handler: (ctx) => accounts.switchMerchant(userOf(ctx), ctx.body.merchantId, ctx.actor),
      }),
    ],
  };
}
