import type { Knex } from 'knex';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Passkey } from '../../../../packages/families/accounts/user/events.js';
import type { Passkeys } from '../../../../packages/families/accounts/user/passkeys.js';
import type { SignIns } from '../../../../packages/families/accounts/user/sign-in.js';
import { MFA_PURPOSES, type MfaPurpose } from '../../../../packages/families/accounts/verification/events.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { listPasskeys, type PasskeyRow } from '../../../../projections/accounts/user-passkeys.js';
import { deviceOf, mfaChallengeSchema, tokenPair, userOf, type SessionCookies } from './auth.js';
import { idParams, listSchema, signedIn } from '../shared.js';

/** A WebAuthn response as the browser serialises it (its parts are checked by @simplewebauthn/server). */
const credentialResponse = {
  type: 'object',
  required: ['id', 'rawId', 'type', 'response'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 1024 },
    rawId: { type: 'string', minLength: 1, maxLength: 1024 },
    type: { const: 'public-key' },
    response: {
      type: 'object',
      required: ['clientDataJSON'],
      properties: {
        clientDataJSON: { type: 'string', maxLength: 16384 },
        attestationObject: { type: 'string', maxLength: 65536 },
        authenticatorData: { type: 'string', maxLength: 16384 },
        signature: { type: 'string', maxLength: 1024 },
        userHandle: { type: ['string', 'null'], maxLength: 256 },
        publicKey: { type: 'string', maxLength: 4096 },
        publicKeyAlgorithm: { type: 'integer' },
        transports: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 32 } },
      },
    },
    authenticatorAttachment: { type: ['string', 'null'], maxLength: 32 },
    clientExtensionResults: { type: 'object' },
  },
};
const nickname = { type: 'string', minLength: 1, maxLength: 64 };
const passkeySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { const: 'passkey' },
    nickname: { type: 'string' },
    transports: { type: 'array', items: { type: 'string' } },
    backedUp: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};
const verifiedSchema = { type: 'object', properties: { challengeId: { type: 'string' }, verified: { const: true }, ...tokenPair.properties } };

const fromRow = (p: PasskeyRow) => ({ id: p.id, object: 'passkey', nickname: p.nickname, transports: p.transports, backedUp: p.backed_up, createdAt: p.created_at.toISOString(), lastUsedAt: p.last_used_at?.toISOString() ?? null });
const fromState = (p: Passkey) => ({ id: p.credentialId, object: 'passkey', nickname: p.nickname, transports: p.transports, backedUp: p.backedUp, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt });

/**
 * /api/v1/auth/passkeys (docs/accounts.md, "Passkeys"): register WebAuthn credentials, answer
 * second-factor challenges with them, sign in without a password; list, rename, remove.
 */
export function authPasskeysFamily(knex: Knex, passkeys: Passkeys, signIns: SignIns, cookies: SessionCookies): Family {
  /** Both ceremonies end the same way: the assertion finds its challenge (an operation's, or a sign-in's). */
  const completeRoute = (path: string, summary: string) =>
    route<{ assertionResponse: AuthenticationResponseJSON }>({
      method: 'post',
      path,
      summary,
      auth: 'public',
      // A passkey gone since its challenge: the public answers have always named it `id`.
      fields: { credentialId: 'id' },
      body: { type: 'object', required: ['assertionResponse'], additionalProperties: false, properties: { assertionResponse: credentialResponse } },
      response: verifiedSchema,
      // Failed assertions are counted per passkey, like passwords per address.
      throttle: (body) => body.assertionResponse.id,
      handler: async (ctx) => cookies.answer(ctx, await signIns.answerWithPasskey(ctx.body.assertionResponse, deviceOf(ctx), ctx.actor)),
    });
  return {
    name: 'auth-passkeys',
    description: 'Passkeys (WebAuthn) for dashboard users: register one, answer second-factor challenges with it, and sign in without a password.',
    routes: [
      route<{ challengeId: string }>({
        method: 'post',
        path: '/api/v1/auth/passkeys/registration/begin',
        summary: 'Begin registering a passkey, behind a verified passkeys/register challenge: the options for navigator.credentials.create (5 minutes)',
        auth: signedIn,
        body: { type: 'object', required: ['challengeId'], additionalProperties: false, properties: { challengeId: { type: 'string', format: 'uuid' } } },
        response: {
          type: 'object',
          description: "WebAuthn's PublicKeyCredentialCreationOptionsJSON, as navigator.credentials.create takes it (through @simplewebauthn/browser's startRegistration)",
          required: ['challenge', 'rp', 'user', 'pubKeyCredParams'],
          properties: {
            challenge: { type: 'string', description: 'base64url' },
            rp: { type: 'object', required: ['name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
            user: { type: 'object', required: ['id', 'name', 'displayName'], properties: { id: { type: 'string' }, name: { type: 'string' }, displayName: { type: 'string' } } },
            pubKeyCredParams: { type: 'array', items: { type: 'object', required: ['type', 'alg'], properties: { type: { const: 'public-key' }, alg: { type: 'integer' } } } },
            timeout: { type: 'integer' },
            excludeCredentials: { type: 'array', items: { type: 'object', description: "The user's passkeys, so an authenticator does not register twice" } },
            authenticatorSelection: { type: 'object' },
            attestation: { type: 'string' },
            extensions: { type: 'object' },
            hints: { type: 'array', items: { type: 'string' } },
          },
        },
        handler: (ctx) => passkeys.beginRegistration(userOf(ctx), ctx.body.challengeId, ctx.actor),
      }),
      route<{ attestationResponse: RegistrationResponseJSON; nickname?: string | null }>({
        method: 'post',
        path: '/api/v1/auth/passkeys/registration/complete',
        summary: "Complete the registration with the authenticator's attestation; the passkey becomes the strongest second factor",
        auth: signedIn,
        status: 201,
        body: { type: 'object', required: ['attestationResponse'], additionalProperties: false, properties: { attestationResponse: credentialResponse, nickname: { ...nickname, type: ['string', 'null'] } } },
        response: passkeySchema,
        handler: async (ctx) => fromState(await passkeys.completeRegistration(userOf(ctx), ctx.body.attestationResponse, ctx.body.nickname ?? null, ctx.actor)),
      }),
      route<{ purpose: MfaPurpose }>({
        method: 'post',
        path: '/api/v1/auth/passkeys/assertion/begin',
        summary: 'A second-factor challenge for an operation, answered by a passkey: its id and the options for navigator.credentials.get',
        auth: signedIn,
        body: { type: 'object', required: ['purpose'], additionalProperties: false, properties: { purpose: { enum: MFA_PURPOSES.filter((p) => p !== 'login') } } },
        response: mfaChallengeSchema,
        handler: (ctx) => passkeys.openAssertion(userOf(ctx).userId, ctx.body.purpose, ctx.actor),
      }),
      completeRoute('/api/v1/auth/passkeys/assertion/complete', "Answer a challenge with the passkey's signed assertion (a login challenge answers with the tokens)"),
      route({
        method: 'post',
        path: '/api/v1/auth/passkeys/login/begin',
        summary: 'Begin a passwordless sign-in: a login challenge any of the account’s passkeys answers (discoverable credentials, user verification required)',
        auth: 'public',
        response: mfaChallengeSchema,
        handler: (ctx) => passkeys.openAssertion(null, 'login', ctx.actor),
      }),
      completeRoute('/api/v1/auth/passkeys/login/complete', "Complete a passwordless sign-in with the passkey's assertion: the tokens"),
      route({
        method: 'get',
        path: '/api/v1/auth/passkeys',
        summary: "The signed-in user's passkeys, oldest first",
        auth: signedIn,
        response: listSchema(passkeySchema),
        handler: async (ctx) => ({ object: 'list', data: (await listPasskeys(knex, userOf(ctx).userId)).map(fromRow) }),
      }),
      route<{ nickname: string }, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/auth/passkeys/:id',
        fields: { credentialId: 'id' },
        summary: 'Rename a passkey',
        auth: signedIn,
        params: { ...idParams, properties: { id: { type: 'string', minLength: 1, maxLength: 1024 } } },
        body: { type: 'object', required: ['nickname'], additionalProperties: false, properties: { nickname } },
        response: passkeySchema,
        handler: async (ctx) => fromState(await passkeys.rename(userOf(ctx), ctx.params.id, ctx.body.nickname, ctx.actor)),
      }),
      route<{ challengeId: string }, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/auth/passkeys/:id',
        fields: { credentialId: 'id' },
        summary: 'Remove a passkey, behind a verified passkeys/delete challenge',
        auth: signedIn,
        params: { ...idParams, properties: { id: { type: 'string', minLength: 1, maxLength: 1024 } } },
        body: { type: 'object', required: ['challengeId'], additionalProperties: false, properties: { challengeId: { type: 'string', format: 'uuid' } } },
        response: { type: 'object', properties: { id: { type: 'string' }, removed: { const: true } } },
        handler: async (ctx) => {
          await passkeys.remove(userOf(ctx), ctx.params.id, ctx.body.challengeId, ctx.actor);
          return { id: ctx.params.id, removed: true };
        },
      }),
    ],
  };
}
