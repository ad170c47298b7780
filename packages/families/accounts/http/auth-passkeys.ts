import type { Knex } from 'knex';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Passkey } from '../user/events.js';
import type { Passkeys } from '../user/passkeys.js';
import type { SignIns } from '../user/sign-in.js';
import { MFA_PURPOSES, type MfaPurpose } from '../verification/events.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { listPasskeys, type PasskeyRow } from '../read/user-passkeys.js';
import { deviceOf, mfaChallengeSchema, tokenPair, userOf, type SessionCookies } from './auth.js';
import { idParams, listSchema, signedIn } from '#packages/http/route-kit.js';

/** A WebAuthn response as the browser serialises it (its parts are checked by @simplewebauthn/server). */
export const credentialResponse = (description: string) => ({
  type: 'object',
  required: ['id', 'rawId', 'type', 'response'],
  description,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 1024, description: "The credential's id (base64url)" },
    rawId: { type: 'string', minLength: 1, maxLength: 1024, description: 'The same id, as the browser gives it' },
    type: { const: 'public-key', description: 'Always `public-key`' },
    response: {
      type: 'object',
      required: ['clientDataJSON'],
      description: "The authenticator's response (base64url fields)",
      properties: {
        clientDataJSON: { type: 'string', maxLength: 16384, description: 'The client data: the challenge, the origin and the ceremony' },
        attestationObject: { type: 'string', maxLength: 65536, description: 'Registration: the attestation, holding the new public key' },
        authenticatorData: { type: 'string', maxLength: 16384, description: 'The authenticator data: RP id hash, flags (user present, user verified) and signature counter' },
        signature: { type: 'string', maxLength: 1024, description: 'Assertion: the signature over the authenticator data and client data' },
        userHandle: { type: ['string', 'null'], maxLength: 256, description: 'Assertion: the user id given at registration, which names the account in a passwordless sign-in' },
        publicKey: { type: 'string', maxLength: 4096, description: 'Registration: the public key, as the browser extracts it' },
        publicKeyAlgorithm: { type: 'integer', description: 'Registration: its COSE algorithm (-7 for ES256)' },
        transports: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 32 }, description: 'Registration: how the authenticator is reached (`internal`, `hybrid`, `usb`, …)' },
      },
    },
    authenticatorAttachment: { type: ['string', 'null'], maxLength: 32, description: '`platform` (built into the device) or `cross-platform` (a security key, a phone), as the browser says' },
    clientExtensionResults: { type: 'object', description: 'The results of WebAuthn extensions, as the browser gives them' },
  },
});
const nickname = { type: 'string', minLength: 1, maxLength: 64, description: 'A name to tell the passkey apart (`MacBook`, `YubiKey`)' };
const passkeySchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: "The credential's id (base64url): the `{id}` of rename and remove" },
    object: { const: 'passkey', description: 'The kind of object: always `passkey`' },
    nickname: { type: 'string', description: 'Its name' },
    transports: { type: 'array', items: { type: 'string' }, description: 'How its authenticator is reached (`internal`, `hybrid`, `usb`, …), as registered' },
    backedUp: { type: 'boolean', description: 'Whether it is synced to a cloud account (a multi-device passkey), so survives the loss of the device' },
    createdAt: { type: 'string', format: 'date-time', description: 'When it was registered' },
    lastUsedAt: { type: ['string', 'null'], format: 'date-time', description: 'When it last answered a challenge; null if never' },
  },
};
const verifiedSchema = {
  type: 'object',
  properties: {
    challengeId: { type: 'string', description: 'The challenge answered' },
    verified: { const: true, description: 'Always `true`: the challenge is verified' },
    ...tokenPair.properties,
  },
};
/** What an assertion may refuse: a failed one spends a try (ACC-005), a used or spent challenge (ACC-006), no such challenge (RES-001). */
const ASSERTION_REFUSALS = ['IKW-ACC-005', 'IKW-ACC-006', 'IKW-RES-001'] as const;

const fromRow = (p: PasskeyRow) => ({ id: p.id, object: 'passkey', nickname: p.nickname, transports: p.transports, backedUp: p.backed_up, createdAt: p.created_at.toISOString(), lastUsedAt: p.last_used_at?.toISOString() ?? null });
const fromState = (p: Passkey) => ({ id: p.credentialId, object: 'passkey', nickname: p.nickname, transports: p.transports, backedUp: p.backedUp, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt });

/**
 * /api/v1/auth/passkeys (docs/accounts.md, "Passkeys"): register WebAuthn credentials, answer
 * second-factor challenges with them, sign in without a password; list, rename, remove.
 */
export function authPasskeysRoutes(knex: Knex, passkeys: Passkeys, signIns: SignIns, cookies: SessionCookies): RouteGroup {
  /** Both ceremonies end the same way: the assertion finds its challenge (an operation's, or a sign-in's). */
  const completeRoute = (path: string, summary: string, description: string) =>
    route<{ assertionResponse: AuthenticationResponseJSON }>({
      method: 'post',
      path,
      summary,
      description,
      refusals: [...ASSERTION_REFUSALS],
      auth: 'public',
      // A passkey gone since its challenge: the public answers have always named it `id`.
      fields: { credentialId: 'id' },
      body: {
        type: 'object',
        required: ['assertionResponse'],
        additionalProperties: false,
        properties: { assertionResponse: credentialResponse("What `navigator.credentials.get(options)` resolved to (@simplewebauthn/browser's startAuthentication), as JSON") },
      },
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
        description:
          "The first step of adding a passkey as a second factor: it uses up a verified `passkeys/register` challenge (answered by the password when the user has no factor yet) and answers the options to give `navigator.credentials.create`, valid 5 minutes, with the user's other passkeys excluded. Send what the browser answers to passkeys/registration/complete.",
        refusals: ['IKW-ACC-006', 'IKW-ACC-007', 'IKW-RES-001'],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['challengeId'],
          additionalProperties: false,
          properties: { challengeId: { type: 'string', format: 'uuid', description: 'A verified challenge of purpose `passkeys/register` (POST /api/v1/auth/mfa/challenge), used up here' } },
        },
        response: {
          type: 'object',
          description: "WebAuthn's PublicKeyCredentialCreationOptionsJSON, as navigator.credentials.create takes it (through @simplewebauthn/browser's startRegistration)",
          required: ['challenge', 'rp', 'user', 'pubKeyCredParams'],
          properties: {
            challenge: { type: 'string', description: 'The WebAuthn challenge the authenticator signs (base64url)' },
            rp: {
              type: 'object',
              required: ['name'],
              description: 'The relying party: this service, from `PUBLIC_URL`',
              properties: { id: { type: 'string', description: "Its id: `PUBLIC_URL`'s host" }, name: { type: 'string', description: 'Its name, as the authenticator shows it' } },
            },
            user: {
              type: 'object',
              required: ['id', 'name', 'displayName'],
              description: 'The user the passkey is for',
              properties: {
                id: { type: 'string', description: "The user's id (base64url): the user handle of later assertions" },
                name: { type: 'string', description: "The user's e-mail address" },
                displayName: { type: 'string', description: "The user's name, as the authenticator shows it" },
              },
            },
            pubKeyCredParams: {
              type: 'array',
              description: 'The key algorithms accepted, in order of preference',
              items: {
                type: 'object',
                required: ['type', 'alg'],
                properties: { type: { const: 'public-key', description: 'Always `public-key`' }, alg: { type: 'integer', description: 'A COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256)' } },
              },
            },
            timeout: { type: 'integer', description: 'How long the browser waits for the authenticator, in milliseconds' },
            excludeCredentials: { type: 'array', items: { type: 'object', description: "The user's passkeys, so an authenticator does not register twice" }, description: "The user's passkeys already registered" },
            authenticatorSelection: { type: 'object', description: 'What kind of authenticator is asked for: a discoverable credential and user verification, both preferred' },
            attestation: { type: 'string', description: 'The attestation asked for: `none`' },
            extensions: { type: 'object', description: 'WebAuthn extensions asked for' },
            hints: { type: 'array', items: { type: 'string' }, description: 'Hints to the browser about the authenticator to offer' },
          },
        },
        handler: (ctx) => passkeys.beginRegistration(userOf(ctx), ctx.body.challengeId, ctx.actor),
      }),
      route<{ attestationResponse: RegistrationResponseJSON; nickname?: string | null }>({
        method: 'post',
        path: '/api/v1/auth/passkeys/registration/complete',
        summary: "Complete the registration with the authenticator's attestation; the passkey becomes the strongest second factor",
        description:
          "Verifies the authenticator's answer (challenge, origin, RP id) and keeps the public key: the passkey becomes the user's strongest factor, answering challenges and sign-ins, and every other session that never proved a second factor ends; the user is e-mailed. A wrong origin or an unknown challenge is `IKW-ACC-009`, an expired or completed registration `IKW-ACC-006`, a passkey already registered `409 IKW-RES-002`.",
        refusals: ['IKW-ACC-009', 'IKW-ACC-006', 'IKW-RES-002'],
        auth: signedIn,
        status: 201,
        body: {
          type: 'object',
          required: ['attestationResponse'],
          additionalProperties: false,
          properties: {
            attestationResponse: credentialResponse("What `navigator.credentials.create(options)` resolved to (@simplewebauthn/browser's startRegistration), as JSON"),
            nickname: { ...nickname, type: ['string', 'null'] },
          },
        },
        response: passkeySchema,
        handler: async (ctx) => fromState(await passkeys.completeRegistration(userOf(ctx), ctx.body.attestationResponse, ctx.body.nickname ?? null, ctx.actor)),
      }),
      route<{ purpose: MfaPurpose }>({
        method: 'post',
        path: '/api/v1/auth/passkeys/assertion/begin',
        summary: 'A second-factor challenge for an operation, answered by a passkey: its id and the options for navigator.credentials.get',
        description:
          "As POST /api/v1/auth/mfa/challenge, but answered by a passkey whatever the user's strongest factor: for a user who has one and prefers it to the app. Give `options` to `navigator.credentials.get` and the result to passkeys/assertion/complete, then the challenge id to the operation. A user with no passkey is `409 IKW-RES-002`.",
        refusals: ['IKW-RES-002'],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['purpose'],
          additionalProperties: false,
          properties: { purpose: { ...mfaChallengeSchema.properties.purpose, enum: MFA_PURPOSES.filter((p) => p !== 'login'), description: 'The operation the challenge will allow, once answered' } },
        },
        response: mfaChallengeSchema,
        handler: (ctx) => passkeys.openAssertion(userOf(ctx).userId, ctx.body.purpose, ctx.actor),
      }),
      completeRoute(
        '/api/v1/auth/passkeys/assertion/complete',
        "Answer a challenge with the passkey's signed assertion (a login challenge answers with the tokens)",
        "Verifies a passkey's answer to a challenge (of an operation, or the `login` challenge of a sign-in that needs the second factor): the signature against the stored key, the origin, and a signature counter that went up. An operation's challenge is then `verified`; a login challenge answers the token pair. A failed assertion spends one of the challenge's 5 tries (`IKW-ACC-005`, the message says why); a replayed one finds its challenge used (`IKW-ACC-006`).",
      ),
      route({
        method: 'post',
        path: '/api/v1/auth/passkeys/login/begin',
        summary: 'Begin a passwordless sign-in: a login challenge any of the account’s passkeys answers (discoverable credentials, user verification required)',
        description:
          'Starts a "Sign in with a passkey" with no e-mail address: the answer\'s `options` go to `navigator.credentials.get`, where the user picks a passkey and unlocks it (PIN or biometrics, required here, so the passkey is both factors); send the result to passkeys/login/complete. The challenge is for no user in particular: the passkey names the account.',
        refusals: [],
        auth: 'public',
        response: mfaChallengeSchema,
        handler: (ctx) => passkeys.openAssertion(null, 'login', ctx.actor),
      }),
      completeRoute(
        '/api/v1/auth/passkeys/login/complete',
        "Complete a passwordless sign-in with the passkey's assertion: the tokens",
        "Finishes a passwordless sign-in: the assertion's user handle names the account, the signature is checked against that user's passkey, and the authenticator must have verified its user (`IKW-ACC-005` otherwise). It answers the token pair and starts a session. Failed assertions are rate-limited per passkey.",
      ),
      route({
        method: 'get',
        path: '/api/v1/auth/passkeys',
        summary: "The signed-in user's passkeys, oldest first",
        description: 'Every passkey of the user, oldest first, for the security page: its name, whether it is synced, when it was registered and last used. Never the key itself.',
        refusals: [],
        auth: signedIn,
        response: listSchema(passkeySchema),
        handler: async (ctx) => ({ object: 'list', data: (await listPasskeys(knex, userOf(ctx).userId)).map(fromRow) }),
      }),
      route<{ nickname: string }, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/auth/passkeys/:id',
        fields: { credentialId: 'id' },
        summary: 'Rename a passkey',
        description: "Gives one of the user's passkeys a new name. Another user's passkey, or one removed, is `404 IKW-RES-001`.",
        refusals: [],
        auth: signedIn,
        params: { ...idParams, properties: { id: { type: 'string', minLength: 1, maxLength: 1024, description: "The passkey's id (base64url)" } } },
        body: { type: 'object', required: ['nickname'], additionalProperties: false, properties: { nickname } },
        response: passkeySchema,
        handler: async (ctx) => fromState(await passkeys.rename(userOf(ctx), ctx.params.id, ctx.body.nickname, ctx.actor)),
      }),
      route<{ challengeId: string }, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/auth/passkeys/:id',
        fields: { credentialId: 'id' },
        summary: 'Remove a passkey, behind a verified passkeys/delete challenge',
        description:
          "Removes one of the user's passkeys, using up a verified `passkeys/delete` challenge; the user is e-mailed, and the key no longer signs in. An owner of an organization that requires a second factor cannot remove the last one (`409 IKW-ACC-010`; nothing is used up).",
        refusals: ['IKW-ACC-006', 'IKW-ACC-007', 'IKW-ACC-010'],
        auth: signedIn,
        params: { ...idParams, properties: { id: { type: 'string', minLength: 1, maxLength: 1024, description: "The passkey's id (base64url)" } } },
        body: {
          type: 'object',
          required: ['challengeId'],
          additionalProperties: false,
          properties: { challengeId: { type: 'string', format: 'uuid', description: 'A verified challenge of purpose `passkeys/delete` (POST /api/v1/auth/mfa/challenge), used up here' } },
        },
        response: {
          type: 'object',
          properties: { id: { type: 'string', description: 'The id of the removed passkey' }, removed: { const: true, description: 'Always `true`: it is removed' } },
        },
        handler: async (ctx) => {
          await passkeys.remove(userOf(ctx), ctx.params.id, ctx.body.challengeId, ctx.actor);
          return { id: ctx.params.id, removed: true };
        },
      }),
    ],
  };
}
