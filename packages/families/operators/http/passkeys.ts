import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { OperatorPasskeys } from '../passkeys.js';
import type { Operators } from '../operators.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { credentialResponse } from '#packages/families/accounts/http/index.js';
import { idParams, listSchema } from '#packages/http/route-kit.js';
import { anyOperator, operatorOf } from './shared.js';

const SESSION = anyOperator('operator.session');

const operatorPasskeySchema = {
  type: 'object',
  required: ['id', 'nickname', 'created', 'lastUsed'],
  properties: {
    id: { type: 'string', description: "The credential's id (base64url): the `{id}` to remove it" },
    nickname: { type: 'string', description: 'Its name' },
    created: { type: 'string', format: 'date-time', description: 'When it was registered' },
    lastUsed: { type: ['string', 'null'], format: 'date-time', description: 'When it last signed in; null if never' },
  },
};

/**
 * /api/v1/operator/me/passkeys (docs/operator.md, "Passkeys"): the signed-in operator's passkeys,
 * which answer a sign-in in place of the authenticator app's code. Adding one takes a code of the app
 * first, so a session alone cannot add a way in.
 */
export function operatorPasskeysRoutes(operators: Operators, passkeys: OperatorPasskeys): RouteGroup {
  return {
    name: 'operator-passkeys',
    description: "An operator's passkeys: registered after a code of their authenticator app, then a second factor of their sign-ins in place of the code.",
    routes: [
      route({
        method: 'get',
        path: '/api/v1/operator/me/passkeys',
        summary: "The signed-in operator's passkeys, oldest first",
        description: 'Each passkey with its name, when it was registered and when it last signed in. Never the key itself.',
        auth: SESSION,
        response: listSchema(operatorPasskeySchema),
        handler: async (ctx) => ({ object: 'list', data: await passkeys.list(operatorOf(ctx).operatorId) }),
      }),
      route<{ code: string }>({
        method: 'post',
        path: '/api/v1/operator/me/passkeys/registration',
        summary: 'Begin registering a passkey, behind a code of the authenticator app: the options for navigator.credentials.create (5 minutes)',
        description:
          "Proves the operator is at hand with a code of their authenticator app (a stolen session alone adds no passkey), then answers the options to give `navigator.credentials.create` (@simplewebauthn/browser's `startRegistration`), valid 5 minutes, the operator's other passkeys excluded. Send the browser's answer to `POST /api/v1/operator/me/passkeys`. A wrong code is `IKW-OPR-004`.",
        refusals: ['IKW-OPR-004'],
        auth: SESSION,
        body: {
          type: 'object',
          required: ['code'],
          additionalProperties: false,
          properties: { code: { type: 'string', minLength: 1, maxLength: 20, description: 'A 6-digit code of the authenticator app' } },
        },
        response: {
          type: 'object',
          required: ['options'],
          properties: { options: { type: 'object', description: "WebAuthn's PublicKeyCredentialCreationOptions as JSON: the challenge, this service as relying party (`PUBLIC_URL`'s host), the operator, the key algorithms accepted" } },
        },
        throttle: (_body, principal) => principal?.operator?.operatorId ?? 'operator',
        handler: async (ctx) => {
          const { operatorId } = operatorOf(ctx);
          const member = await operators.memberOf(operatorId);
          return { options: await passkeys.beginRegistration(operatorId, member?.email ?? operatorId, ctx.body.code, ctx.actor) };
        },
      }),
      route<{ response: RegistrationResponseJSON; nickname?: string | null }>({
        method: 'post',
        path: '/api/v1/operator/me/passkeys',
        summary: "Complete a passkey's registration with the browser's answer: the passkey can then sign in",
        description:
          "Verifies the authenticator's answer to a registration begun in the last 5 minutes (its challenge, this service's origin and relying party id) and keeps the public key. From the next sign-in the passkey may answer in place of the app's code. An answer that does not verify, a registration expired or not begun, or a passkey already registered is `IKW-OPR-010`.",
        refusals: ['IKW-OPR-010'],
        auth: SESSION,
        status: 201,
        body: {
          type: 'object',
          required: ['response'],
          additionalProperties: false,
          properties: {
            response: credentialResponse("What `navigator.credentials.create(options)` resolved to (@simplewebauthn/browser's startRegistration), as JSON"),
            nickname: { type: ['string', 'null'], minLength: 1, maxLength: 64, description: 'A name to tell the passkey apart (`Laptop`, `YubiKey`); `Passkey N` when left out' },
          },
        },
        response: operatorPasskeySchema,
        handler: async (ctx) => passkeys.completeRegistration(operatorOf(ctx).operatorId, ctx.body.response, ctx.body.nickname ?? null, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/operator/me/passkeys/:id',
        fields: { credentialId: 'id' },
        summary: 'Remove one of your passkeys: it no longer signs in',
        description: "The passkey no longer answers sign-ins; the authenticator app still does. Another operator's passkey, or one removed, is `404 IKW-RES-001`.",
        auth: SESSION,
        params: { ...idParams, properties: { id: { type: 'string', minLength: 1, maxLength: 1024, description: "The passkey's id (base64url)" } } },
        response: { type: 'object', properties: { id: { type: 'string', description: 'The id of the removed passkey' }, removed: { const: true, description: 'Always `true`: it is removed' } } },
        handler: async (ctx) => {
          await passkeys.remove(operatorOf(ctx).operatorId, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, removed: true };
        },
      }),
    ],
  };
}
