import type { Knex } from 'knex';
import type { Clock } from '../../../../packages/core/clock.js';
import { notFound } from '../../../../packages/core/errors.js';
import { MAX_ROLL_GRACE_MS, type ApiKeyManagement, type KeyManager } from '../../../../packages/families/merchants/merchant/api-keys.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findApiKey, listApiKeys } from '../../../../projections/merchants/api-keys.js';
import type { PageQuery } from '../../../../projections/paging.js';
import { userOf } from '../accounts/auth.js';
import { idParams, pageListSchema, pageQuery, signedIn } from '../shared.js';
import type { Owner } from '../../../../packages/core/owner.js';

const STATUSES = ['active', 'expiring', 'expired', 'revoked'] as const;
type Status = (typeof STATUSES)[number];

const challengeId = {
  type: 'string',
  format: 'uuid',
  description:
    "A verified challenge of the operation's purpose (`api-keys/create`, `api-keys/roll`, `api-keys/revoke`; POST /api/v1/auth/mfa/challenge), answered within its 5 minutes: always to create or roll (its code goes by e-mail to a user without a second factor); to revoke, from a user with a second factor",
};

function apiKeySchema(scopes: readonly string[]) {
  const time = { type: 'integer' };
  const nullable = (s: object) => ({ anyOf: [s, { type: 'null' }] });
  return {
    type: 'object',
    properties: {
      id: { type: 'string' },
      object: { const: 'api_key' },
      name: nullable({ type: 'string' }),
      environment: { enum: ['sandbox', 'live'] },
      livemode: { type: 'boolean' },
      redacted_secret: { type: 'string' },
      scopes: { type: 'array', items: { enum: scopes } },
      status: { enum: STATUSES },
      created: time,
      last_used: nullable(time),
      expires_at: nullable(time),
      revoked_at: nullable(time),
      rolled_from: nullable({ type: 'string' }),
      rolled_to: nullable({ type: 'string' }),
      secret: { type: 'string', description: 'The whole key: only in the answer that creates it (create, roll), never again' },
    },
  };
}

/**
 * /api/v1/merchant/api-keys: the keys of the current merchant and environment (X-Environment), for
 * signed-in owners and admins (docs/merchants.md, "API keys"). Create and roll answer the secret once
 * and take `challenge_id` from every user; revoke, from a user with a second factor. `scopes`
 * lists what the routes of this service ask for (`knownScopes`).
 */
export function merchantApiKeysFamily(knex: Knex, clock: Clock, keys: ApiKeyManagement, knownScopes: readonly string[]): Family {
  const manager = (ctx: Parameters<typeof userOf>[0], challenge: string | undefined): KeyManager => {
    const user = userOf(ctx);
    return { userId: user.userId, role: user.role, challengeId: challenge ?? null };
  };
  const load = async (owner: Owner, id: string) => {
    const key = await findApiKey(knex, owner, id, clock.now());
    if (!key) throw notFound('API key', id);
    return key;
  };
  const schema = apiKeySchema(knownScopes);
  return {
    name: 'merchant-api-keys',
    description: 'API keys of the current environment: made with the scopes they need, rolled without downtime, revoked at once.',
    routes: [
      route<unknown, PageQuery & { status?: Status }>({
        method: 'get',
        path: '/api/v1/merchant/api-keys',
        summary: "The current environment's API keys, newest first, revoked and expired ones included (owners and admins)",
        auth: signedIn,
        query: pageQuery({ status: { enum: STATUSES } }),
        response: pageListSchema(schema),
        handler: (ctx) => {
          keys.assertManager(manager(ctx, undefined));
          return listApiKeys(knex, ctx.owner, ctx.query, clock.now());
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/api-keys/:id',
        summary: 'Retrieve an API key (never its secret)',
        auth: signedIn,
        params: idParams,
        response: schema,
        handler: async (ctx) => {
          keys.assertManager(manager(ctx, undefined));
          return load(ctx.owner, ctx.params.id);
        },
      }),
      route<{ name: string; scopes?: string[]; challenge_id?: string }>({
        method: 'post',
        path: '/api/v1/merchant/api-keys',
        summary: 'Create an API key in the current environment; the answer holds its secret, shown once. `scopes` narrows what it may do (default: every scope of your role)',
        auth: signedIn,
        status: 201,
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
            scopes: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { enum: knownScopes } },
            challenge_id: challengeId,
          },
        },
        fields: { challengeId: 'challenge_id' },
        response: schema,
        handler: async (ctx) => {
          const by = manager(ctx, ctx.body.challenge_id);
          const { id, secret } = await keys.create(ctx.owner, by, { name: ctx.body.name.trim(), scopes: ctx.body.scopes ?? ['*'] }, ctx.actor);
          return { ...(await load(ctx.owner, id)), secret };
        },
      }),
      route<{ grace_period_minutes?: number; challenge_id?: string }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/merchant/api-keys/:id/roll',
        summary: 'Replace an API key by a new secret with the same name and scopes (shown once); the old secret keeps working for grace_period_minutes (0 to 7 days, default 0: it stops now)',
        auth: signedIn,
        status: 201,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { grace_period_minutes: { type: 'integer', minimum: 0, maximum: MAX_ROLL_GRACE_MS / 60_000, default: 0 }, challenge_id: challengeId },
        },
        fields: { challengeId: 'challenge_id', keyId: 'id' },
        response: schema,
        handler: async (ctx) => {
          const by = manager(ctx, ctx.body.challenge_id);
          const { id, secret } = await keys.roll(ctx.owner, by, ctx.params.id, (ctx.body.grace_period_minutes ?? 0) * 60_000, ctx.actor);
          return { ...(await load(ctx.owner, id)), secret };
        },
      }),
      route<{ challenge_id?: string }, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/merchant/api-keys/:id',
        summary: 'Revoke an API key: it stops working at once (other API processes of the service: within a second)',
        auth: signedIn,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { challenge_id: challengeId } },
        fields: { challengeId: 'challenge_id', keyId: 'id' },
        response: schema,
        handler: async (ctx) => {
          await keys.revoke(ctx.owner, manager(ctx, ctx.body.challenge_id), ctx.params.id, ctx.actor);
          return load(ctx.owner, ctx.params.id);
        },
      }),
    ],
  };
}
