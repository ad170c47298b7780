import type { GoogleSignIn } from '../google-sign-in/service.js';
import { Reply } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { deviceOf, signInAnswer, userOf } from './auth.js';
import { signedIn } from '#packages/http/route-kit.js';

const challengeId = (purpose: string) => ({
  type: 'string',
  format: 'uuid',
  description: `A verified challenge of purpose \`${purpose}\` (POST /api/v1/auth/mfa/challenge), used up here: a second factor, or a code by e-mail for a user without one`,
});
const returnUrl = { type: 'string', minLength: 1, maxLength: 2048, description: "Where the browser lands after Google, with `#googleCode=…` added: PUBLIC_URL's origin or one of GOOGLE_RETURN_ORIGINS" };
const authorization = {
  type: 'object',
  properties: {
    authorizationUrl: { type: 'string', format: 'uri', description: "Google's sign-in page for this attempt (with its `state`, `nonce` and PKCE challenge): set the browser's location to it" },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the attempt expires (10 minutes): the browser must be back from Google by then' },
    exchangeKey: { type: 'string', description: 'Kept by this browser (sessionStorage) and sent with google/exchange: the attempt can be finished only where it began' },
  },
};
/** What Google (or a provider standing for it) sends back: the OAuth parameters and Google's own (`authuser`, `hd`, `prompt`); any other is IKW-VAL-002, as everywhere. */
const param = (description: string) => ({ type: 'string', maxLength: 4096, description });

/**
 * /api/v1/auth/google (docs/accounts.md, "Sign-in with Google"): sign in with a Google account, and
 * connect or disconnect one behind a second-factor challenge. Unconfigured: IKW-FED-001 everywhere
 * but `availability`, which says so.
 */
export function authGoogleRoutes(google: GoogleSignIn): RouteGroup {
  return {
    name: 'auth-google',
    description: 'Signing in to the dashboard with a Google account (OpenID Connect with PKCE), and connecting or disconnecting one.',
    routes: [
      route({
        method: 'get',
        path: '/api/v1/auth/google/availability',
        summary: 'Whether sign-in with Google is configured on this service: a sign-in page offers it only when it is',
        description:
          'Tells a sign-in page whether to show a "Continue with Google" button: every other operation of sign-in with Google answers `403 IKW-FED-001` on a service without a Google client (`GOOGLE_CLIENT_ID`, `GOOGLE_CLIENT_SECRET`).',
        refusals: [],
        auth: 'public',
        response: { type: 'object', required: ['available'], properties: { available: { type: 'boolean', description: 'Whether sign-in with Google is configured here' } } },
        handler: async () => ({ available: google.available }),
      }),
      route<{ returnUrl: string }>({
        method: 'post',
        path: '/api/v1/auth/google/login',
        summary: 'Start signing in with Google: answers the authorization URL to send the browser to (state, nonce and PKCE verifier kept here, 10 minutes, once); the browser comes back to returnUrl with a one-time code to exchange',
        description:
          "The first step of sign-in with Google (OpenID Connect, PKCE): the dashboard sends the browser to `authorizationUrl` and keeps `exchangeKey` (in `sessionStorage`) for POST /api/v1/auth/google/exchange, which only that browser can then call. Google sends the browser back through the callback to `returnUrl` with `#googleCode=…`. `returnUrl` must be on this service's origin or an allowed one (`IKW-FED-003`); Google unreachable is `IKW-FED-004`, nothing stored.",
        refusals: ['IKW-FED-001', 'IKW-FED-003', 'IKW-FED-004'],
        auth: 'public',
        body: { type: 'object', required: ['returnUrl'], additionalProperties: false, properties: { returnUrl } },
        response: authorization,
        handler: (ctx) => google.login(ctx.body.returnUrl, ctx.actor),
      }),
      route<unknown, Record<string, string>>({
        method: 'get',
        path: '/api/v1/auth/google/callback',
        summary: "Google's redirect back (code, state): verifies the answer, then 303 to the attempt's returnUrl with `#googleCode=…` (the outcome, fetched once with google/exchange); an unknown, used or expired state is IKW-FED-002",
        description:
          "The redirect URI to register with Google (`PUBLIC_URL` + this path); you never call it yourself. It checks `state`, exchanges `code` with the PKCE verifier, verifies the ID token (signature, issuer, audience, expiry, nonce) and finds or links the user, then redirects the browser to the attempt's `returnUrl` with a one-time code in the fragment, never a token in a URL. Whatever went wrong after a good `state` (a refusal at Google, a bad ID token) reaches the dashboard through exchange; a forged, unknown, used or late `state` is `400 IKW-FED-002` here, there being no trusted place to send the browser.",
        refusals: ['IKW-FED-001', 'IKW-FED-002'],
        auth: 'public',
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            code: param("Google's authorization code"),
            state: param('The state of the attempt, as login gave it to Google'),
            iss: param("Google's issuer identifier (RFC 9207)"),
            error: param("Google's error instead of a code (`access_denied` when the user declined)"),
            error_description: param("Google's words about the error"),
            error_uri: param("Google's page about the error"),
            scope: param('The scopes Google granted'),
            authuser: param("Google's own: which of the browser's Google accounts signed in"),
            hd: param("Google's own: the Workspace domain of the account"),
            prompt: param("Google's own: what Google asked the user"),
            session_state: param("Google's own: its session's state"),
          },
        },
        answers: { redirect: true },
        handler: async (ctx) => Reply.redirect(await google.callback(ctx.query, ctx.actor)),
      }),
      route<{ code: string; exchangeKey: string }>({
        method: 'post',
        path: '/api/v1/auth/google/exchange',
        summary:
          'Exchange the one-time code of the redirect (2 minutes, once) with the exchangeKey google/login or google/connect gave this browser: a token pair, `mfaRequired` and a login challenge for a user with a second factor, `connected` after google/connect, or the refusal (IKW-FED-005, -006, -007)',
        description:
          'Finishes sign-in with Google: post the `googleCode` of the fragment with the `exchangeKey` this browser kept. A login answers what POST /api/v1/auth/login answers: a token pair, or `mfaRequired` with a login challenge for a user with an authenticator app or a passkey (Google is the first factor only). A Google account already linked signs its user in; else one whose address Google verified links to the user holding it, who is e-mailed; else `IKW-FED-006` (sign up first). After connect it answers `connected`. The code works once, within 2 minutes; a key of another browser is `IKW-FED-002` and leaves the code unspent.',
        refusals: ['IKW-FED-001', 'IKW-FED-002', 'IKW-FED-004', 'IKW-FED-005', 'IKW-FED-006', 'IKW-FED-007', 'IKW-RES-002'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['code', 'exchangeKey'],
          additionalProperties: false,
          properties: {
            code: { type: 'string', minLength: 1, maxLength: 128, description: 'The one-time code of the redirect: `googleCode` in the fragment of `returnUrl`' },
            exchangeKey: { type: 'string', minLength: 1, maxLength: 128, description: 'The `exchangeKey` login or connect gave this browser' },
          },
        },
        response: {
          type: 'object',
          properties: {
            ...signInAnswer.properties,
            connected: { const: true, description: 'After connect: the Google account is now connected to the user' },
            email: { type: 'string', description: "After connect: the Google account's e-mail address" },
          },
        },
        handler: (ctx) => google.exchange(ctx.body.code, ctx.body.exchangeKey, deviceOf(ctx), ctx.actor),
      }),
      route<{ returnUrl: string; challengeId: string }>({
        method: 'post',
        path: '/api/v1/auth/google/connect',
        summary: 'Connect a Google account to the signed-in user, behind a verified google/connect challenge: answers the authorization URL, as google/login does; google/exchange then says `connected`',
        description:
          "Lets the signed-in user sign in with Google from now on: it uses up a verified `google/connect` challenge and starts the same flow as login, and exchange answers `connected`. A Google account is connected to one user at a time (`409 IKW-FED-007`), and a user has one at a time (`409 IKW-RES-002`: disconnect it first). A challenge of another purpose or not verified is `IKW-ACC-007`, one used already `IKW-ACC-006`, another user's `404 IKW-RES-001`.",
        refusals: ['IKW-FED-001', 'IKW-FED-003', 'IKW-FED-004', 'IKW-ACC-006', 'IKW-ACC-007', 'IKW-RES-001'],
        auth: signedIn,
        body: { type: 'object', required: ['returnUrl', 'challengeId'], additionalProperties: false, properties: { returnUrl, challengeId: challengeId('google/connect') } },
        response: authorization,
        handler: (ctx) => google.connect(userOf(ctx), ctx.body.challengeId, ctx.body.returnUrl, ctx.actor),
      }),
      route<{ challengeId: string }>({
        method: 'post',
        path: '/api/v1/auth/google/disconnect',
        summary: "Disconnect the signed-in user's Google account, behind a verified google/disconnect challenge",
        description:
          "Stops the user's Google account from signing in to Sika, and frees it to be connected to another user, using up a verified `google/disconnect` challenge in the same commit. A user with no Google account connected is `409 IKW-RES-002`.",
        refusals: ['IKW-FED-001', 'IKW-ACC-006', 'IKW-ACC-007', 'IKW-RES-001', 'IKW-RES-002'],
        auth: signedIn,
        body: { type: 'object', required: ['challengeId'], additionalProperties: false, properties: { challengeId: challengeId('google/disconnect') } },
        response: { type: 'object', properties: { disconnected: { const: true, description: 'Always `true`: the Google account is disconnected' } } },
        handler: async (ctx) => {
          await google.disconnect(userOf(ctx), ctx.body.challengeId, ctx.actor);
          return { disconnected: true };
        },
      }),
    ],
  };
}
