import type { GoogleSignIn } from '../../../../packages/families/accounts/google-sign-in/service.js';
import { Reply } from '../../../../packages/http/context.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { deviceOf, signInAnswer, userOf } from './auth.js';
import { signedIn } from '../shared.js';

const uuid = { type: 'string', format: 'uuid' };
const returnUrl = { type: 'string', minLength: 1, maxLength: 2048, description: "Where the browser lands after Google, with `#googleCode=…` added: PUBLIC_URL's origin or one of GOOGLE_RETURN_ORIGINS" };
const authorization = {
  type: 'object',
  properties: {
    authorizationUrl: { type: 'string', format: 'uri' },
    expiresAt: { type: 'string', format: 'date-time' },
    exchangeKey: { type: 'string', description: 'Kept by this browser (sessionStorage) and sent with google/exchange: the attempt can be finished only where it began' },
  },
};
/** What Google (or a provider standing for it) sends back: the OAuth parameters and Google's own (`authuser`, `hd`, `prompt`); any other is IKW-VAL-002, as everywhere. */
const param = { type: 'string', maxLength: 4096 };

/**
 * /api/v1/auth/google (docs/accounts.md, "Sign-in with Google"): sign in with a Google account, and
 * connect or disconnect one behind a second-factor challenge. Unconfigured: IKW-FED-001 everywhere
 * but `availability`, which says so.
 */
export function authGoogleFamily(google: GoogleSignIn): Family {
  return {
    name: 'auth-google',
    description: 'Signing in to the dashboard with a Google account (OpenID Connect with PKCE), and connecting or disconnecting one.',
    routes: [
      route({
        method: 'get',
        path: '/api/v1/auth/google/availability',
        summary: 'Whether sign-in with Google is configured on this service: a sign-in page offers it only when it is',
        auth: 'public',
        response: { type: 'object', required: ['available'], properties: { available: { type: 'boolean' } } },
        handler: async () => ({ available: google.available }),
      }),
      route<{ returnUrl: string }>({
        method: 'post',
        path: '/api/v1/auth/google/login',
        summary: "Start signing in with Google: answers the authorization URL to send the browser to (state, nonce and PKCE verifier kept here, 10 minutes, once); the browser comes back to returnUrl with a one-time code to exchange",
        auth: 'public',
        body: { type: 'object', required: ['returnUrl'], additionalProperties: false, properties: { returnUrl } },
        response: authorization,
        handler: (ctx) => google.login(ctx.body.returnUrl, ctx.actor),
      }),
      route<unknown, Record<string, string>>({
        method: 'get',
        path: '/api/v1/auth/google/callback',
        summary: "Google's redirect back (code, state): verifies the answer, then 303 to the attempt's returnUrl with `#googleCode=…` (the outcome, fetched once with google/exchange); an unknown, used or expired state is IKW-FED-002",
        auth: 'public',
        query: {
          type: 'object',
          additionalProperties: false,
          properties: { code: param, state: param, iss: param, error: param, error_description: param, error_uri: param, scope: param, authuser: param, hd: param, prompt: param, session_state: param },
        },
        answers: { redirect: true },
        handler: async (ctx) => Reply.redirect(await google.callback(ctx.query, ctx.actor)),
      }),
      route<{ code: string; exchangeKey: string }>({
        method: 'post',
        path: '/api/v1/auth/google/exchange',
        summary: 'Exchange the one-time code of the redirect (2 minutes, once) with the exchangeKey google/login or google/connect gave this browser: a token pair, `mfaRequired` and a login challenge for a user with a second factor, `connected` after google/connect, or the refusal (IKW-FED-005, -006, -007)',
        auth: 'public',
        body: {
          type: 'object',
          required: ['code', 'exchangeKey'],
          additionalProperties: false,
          properties: { code: { type: 'string', minLength: 1, maxLength: 128 }, exchangeKey: { type: 'string', minLength: 1, maxLength: 128 } },
        },
        response: { type: 'object', properties: { ...signInAnswer.properties, connected: { const: true }, email: { type: 'string' } } },
        handler: (ctx) => google.exchange(ctx.body.code, ctx.body.exchangeKey, deviceOf(ctx), ctx.actor),
      }),
      route<{ returnUrl: string; challengeId: string }>({
        method: 'post',
        path: '/api/v1/auth/google/connect',
        summary: "Connect a Google account to the signed-in user, behind a verified google/connect challenge: answers the authorization URL, as google/login does; google/exchange then says `connected`",
        auth: signedIn,
        body: { type: 'object', required: ['returnUrl', 'challengeId'], additionalProperties: false, properties: { returnUrl, challengeId: uuid } },
        response: authorization,
        handler: (ctx) => google.connect(userOf(ctx), ctx.body.challengeId, ctx.body.returnUrl, ctx.actor),
      }),
      route<{ challengeId: string }>({
        method: 'post',
        path: '/api/v1/auth/google/disconnect',
        summary: "Disconnect the signed-in user's Google account, behind a verified google/disconnect challenge",
        auth: signedIn,
        body: { type: 'object', required: ['challengeId'], additionalProperties: false, properties: { challengeId: uuid } },
        response: { type: 'object', properties: { disconnected: { const: true } } },
        handler: async (ctx) => {
          await google.disconnect(userOf(ctx), ctx.body.challengeId, ctx.actor);
          return { disconnected: true };
        },
      }),
    ],
  };
}
