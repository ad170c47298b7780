import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { notFound } from '#packages/core/errors.js';
import { MAX_ROLL_GRACE_MS, type ApiKeyManagement, type KeyManager } from '../merchant/api-keys.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findApiKey, listApiKeys } from '../read/api-keys.js';
import type { PageQuery } from '#packages/read-models/paging.js';
import { userOf } from '#packages/families/accounts/http/index.js';
import { idParams, pageListSchema, pageQuery, signedIn } from '#packages/http/route-kit.js';
import type { Owner } from '#packages/core/owner.js';

const STATUSES = ['active', 'expiring', 'expired', 'revoked'] as const;
type Status = (typeof STATUSES)[number];
const STATUS_WORDS: Record<Status, string> = {
  active: 'It works and has no end',
  expiring: 'It was rolled and still works until `expires_at`',
  expired: 'It was rolled and its grace period is over: refused',
  revoked: 'It was revoked: refused',
};
const ENVIRONMENT_WORDS = { sandbox: 'Test money only: the sandbox rails', live: 'Real money' };
/** `*` and `<family>.*` are wildcards; a scope is otherwise `<area>.<read|write>`. */
const scopeWords = (scopes: readonly string[]) =>
  Object.fromEntries(
    scopes.map((scope) => [
      scope,
      scope === '*'
        ? 'Every operation'
        : scope === '*.read'
          ? 'Every read (GET) operation'
          : scope.endsWith('.read')
            ? `Read ${scope.slice(0, -5)}`
            : scope.endsWith('.write')
              ? `Read and change ${scope.slice(0, -6)}`
              : `The operations that ask for ${scope}`,
    ]),
  );

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
      id: { type: 'string', description: "The key's id (`key_…`): not a secret, it names the key in logs and in the dashboard" },
      object: { const: 'api_key', description: 'The kind of object: always `api_key`' },
      name: { ...nullable({ type: 'string' }), description: 'What the team calls it (where it is used), or null for the default keys' },
      environment: { enum: ['sandbox', 'live'], description: 'The environment the key acts in', 'x-enumDescriptions': ENVIRONMENT_WORDS },
      livemode: { type: 'boolean', description: '`true` for a live key' },
      redacted_secret: { type: 'string', description: 'The secret with all but its prefix and last four characters hidden (`sk_live_…a1b2`), to tell keys apart' },
      scopes: {
        type: 'array',
        items: { enum: scopes, 'x-enumDescriptions': scopeWords(scopes) },
        description: 'What the key may do: each operation of the reference names the scope it needs',
      },
      status: { enum: STATUSES, description: 'Whether the key works', 'x-enumDescriptions': STATUS_WORDS },
      created: { ...time, description: 'When the key was made, in Unix seconds' },
      last_used: { ...nullable(time), description: 'When a request last used it (to the minute), in Unix seconds; null if never' },
      expires_at: { ...nullable(time), description: 'When a rolled key stops working, in Unix seconds; null for a key with no end' },
      revoked_at: { ...nullable(time), description: 'When it was revoked, in Unix seconds; null unless revoked' },
      rolled_from: { ...nullable({ type: 'string' }), description: 'The key this one replaced by a roll, or null' },
      rolled_to: { ...nullable({ type: 'string' }), description: 'The key that replaced this one by a roll, or null' },
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
export function merchantApiKeysRoutes(knex: Knex, clock: Clock, keys: ApiKeyManagement, knownScopes: readonly string[]): RouteGroup {
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
        description:
          'Lists the keys of the environment the session acts in (`X-Environment`), for the Developers page: never their secrets, only `redacted_secret`. Only owners and admins see keys. `status` keeps the keys in one state, such as the ones still `expiring` after a roll.',
        refusals: ['IKW-ACC-002'],
        auth: signedIn,
        query: pageQuery({ status: { enum: STATUSES, description: 'Only the keys in this state', 'x-enumDescriptions': STATUS_WORDS } }),
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
        description: 'One key of the current environment, as the list shows it. Its secret was shown once, when it was made; a lost secret is replaced by rolling the key.',
        refusals: ['IKW-ACC-002'],
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
        description:
          "Makes a key for a server of yours. Store `secret` at once: no answer holds it again. Give each use its own key with the fewest scopes it needs (a reporting job: `*.read`), so that one can be revoked without the others. It needs `challenge_id`, a verified `api-keys/create` challenge (a code by e-mail for a user without a second factor), and every owner is e-mailed that a key was made. Scopes wider than your role's are refused.",
        refusals: ['IKW-ACC-002', 'IKW-ACC-011', 'IKW-ACC-005', 'IKW-ACC-006'],
        auth: signedIn,
        status: 201,
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', description: 'What the key is for, as your team will recognise it (`Shop server`)' },
            scopes: {
              type: 'array',
              minItems: 1,
              maxItems: 100,
              uniqueItems: true,
              items: { enum: knownScopes, 'x-enumDescriptions': scopeWords(knownScopes) },
              description: "What the key may do; every scope of your role (`*`) when left out. None may be wider than your role's",
            },
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
        description:
          'Rotates a key without downtime: deploy the new secret during `grace_period_minutes`, while the old one still works (`expiring`), then it is refused (`expired`). A key already rolled is refused: roll its successor. Needs a verified `api-keys/roll` challenge, and every owner is e-mailed.',
        refusals: ['IKW-ACC-002', 'IKW-ACC-011', 'IKW-ACC-005', 'IKW-ACC-006', 'IKW-RES-002'],
        auth: signedIn,
        status: 201,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            grace_period_minutes: {
              type: 'integer',
              minimum: 0,
              maximum: MAX_ROLL_GRACE_MS / 60_000,
              default: 0,
              description: 'How long the old secret keeps working, in minutes (up to 7 days); 0, the default, stops it now',
            },
            challenge_id: challengeId,
          },
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
        description:
          'Stops a key for good, for a secret that leaked or a server retired: requests with it are refused with `IKW-AUT-002` from now on. A user with a second factor gives a verified `api-keys/revoke` challenge. Every owner is e-mailed. Revoking a revoked key is refused.',
        refusals: ['IKW-ACC-002', 'IKW-ACC-011', 'IKW-ACC-005', 'IKW-ACC-006', 'IKW-RES-002'],
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
