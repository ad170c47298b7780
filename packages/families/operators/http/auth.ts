import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { SESSION_TTL_MS } from '../events.js';
import type { Operators, OperatorSession } from '../operators.js';
import { OPERATOR_COOKIE_HEADER, OPERATOR_SESSION_COOKIE } from '#packages/http/auth.js';
import { Reply, type HandlerContext } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findOperator } from '../read/index.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { email, password } from '#packages/families/accounts/http/index.js';
import { credentialResponse } from '#packages/families/accounts/http/index.js';
import { anyOperator, operatorOf, operatorSchema, renderOperator } from './shared.js';
import { operatorErrors } from '../errors.js';

const signInStartedSchema = {
  type: 'object',
  required: ['challengeToken', 'next', 'expiresAt'],
  properties: {
    challengeToken: { type: 'string', description: 'The sign-in under way (`oc_…`): send it with the code to `POST /api/v1/operator/auth/sign-in/complete` within 10 minutes' },
    next: {
      enum: ['verify_totp', 'enroll_totp'],
      description: 'What the operator does next; either way, no session exists until a code from the app is given',
      'x-enumDescriptions': {
        verify_totp: 'Give a 6-digit code from the authenticator app already added',
        enroll_totp: 'Add the authenticator app from `totp` (scan `otpauthUrl` or type `secret`), then give a code from it: that adds it and starts the session',
      },
    },
    expiresAt: { type: 'string', format: 'date-time', description: 'When this sign-in can no longer be completed (10 minutes after the password)' },
    passkeyOptions: {
      type: 'object',
      description:
        "For `verify_totp`, when the operator has registered passkeys: WebAuthn's PublicKeyCredentialRequestOptions as JSON, for `navigator.credentials.get` (@simplewebauthn/browser's `startAuthentication`). Its answer, sent as `passkey` to `POST /api/v1/operator/auth/sign-in/complete`, stands for the app's code",
    },
    totp: {
      type: 'object',
      description: 'For `enroll_totp` only: the new authenticator app secret, shown this once',
      properties: {
        secret: { type: 'string', description: 'The secret in base32, to type into the app' },
        otpauthUrl: { type: 'string', description: 'The `otpauth://totp/…` URL, to show as a QR code' },
      },
    },
  },
};

const sessionSchema = {
  type: 'object',
  required: ['sessionId', 'expiresAt', 'operator'],
  properties: {
    sessionToken: {
      type: 'string',
      description:
        'The operator session token (a JWT, 12 hours): `Authorization: Bearer <sessionToken>` on the `/api/v1/operator/…` operations. Absent when `Sika-Operator-Cookie: 1` asked for it in the HttpOnly cookie `sika_operator_session` instead',
    },
    sessionId: { type: 'string', description: "The session's id" },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the session ends by itself: sign in again then' },
    operator: { ...operatorSchema, description: 'The operator signed in' },
  },
};

const COOKIE_PATH = '/api/v1/operator';

function cookie(ctx: Pick<HandlerContext, 'secure'>, value: string, maxAgeS: number, publicUrlSecure: boolean): string {
  const expires = maxAgeS === 0 ? '; Expires=Thu, 01 Jan 1970 00:00:00 GMT' : '';
  return `${OPERATOR_SESSION_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeS}${expires}; HttpOnly; SameSite=Strict${ctx.secure || publicUrlSecure ? '; Secure' : ''}`;
}

/** The challenge's operator, for counting guesses of its code (the sign-in rule) per operator. */
const challengeSubject = (token: string) => token.split('.')[1] ?? token;

/**
 * /api/v1/operator/auth (docs/operator.md, "Signing in"): an operator's password, then a code from
 * their authenticator app, never one without the other; a first sign-in (or an invitation's) adds
 * the app before any session. Sessions are operators' own: their own token, cookie and routes.
 */
export function operatorAuthRoutes(knex: Knex, operators: Operators, publicUrlSecure: boolean): RouteGroup {
  const session = async (ctx: HandlerContext<unknown, unknown, unknown>, made: OperatorSession) => {
    const row = await findOperator(knex, made.operatorId);
    if (!row) throw new ApiError('IKW-OPR-005', operatorErrors['IKW-OPR-005'].message);
    const answer = { sessionToken: made.sessionToken, sessionId: made.sessionId, expiresAt: made.expiresAt, operator: renderOperator(row) };
    if (ctx.header(OPERATOR_COOKIE_HEADER) !== '1') return answer;
    const { sessionToken, ...rest } = answer;
    return new Reply(rest, { headers: { 'Set-Cookie': cookie(ctx, sessionToken, SESSION_TTL_MS / 1000, publicUrlSecure), 'Cache-Control': 'no-store' } });
  };
  return {
    name: 'operator-auth',
    description: "Operators' sign-in: a password and an authenticator app (mandatory), invitations accepted, sessions of their own. Merchants' credentials are no operator's.",
    routes: [
      route<{ email: string; password: string }>({
        method: 'post',
        path: '/api/v1/operator/auth/sign-in',
        summary: "An operator's first step: e-mail and password; answers a sign-in to complete with a code from the authenticator app (adding the app first if they have none)",
        description:
          'Proves the password and opens a sign-in of 10 minutes: no session yet. An operator with an authenticator app answers with `next: verify_totp`; one without (the first sign-in) gets a new app secret in `totp` and `next: enroll_totp`. Either way the session starts only at `POST /api/v1/operator/auth/sign-in/complete` with a code from the app: there is no operator session without a second factor. A wrong address, a wrong password and a deactivated operator get the same `IKW-OPR-003`; repeated failures for one address are throttled (`IKW-LIM-001`).',
        refusals: ['IKW-OPR-003'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['email', 'password'],
          additionalProperties: false,
          properties: { email: { ...email, description: "The operator's e-mail address (any case)" }, password: { ...password, description: 'Their password' } },
        },
        response: signInStartedSchema,
        throttle: (body) => body.email.toLowerCase(),
        handler: async (ctx) => operators.signIn(ctx.body.email, ctx.body.password, ctx.actor),
      }),
      route<{ token: string; password: string }>({
        method: 'post',
        path: '/api/v1/operator/auth/invitation/accept',
        summary: "Accept an operator invitation: the link's token and a new password; answers a sign-in that adds the authenticator app",
        description:
          "The invitation link's page sends its `token` (`oi_…`, 3 days, once) with the password the operator chooses (8 characters or more). The answer is a sign-in with `next: enroll_totp`: the operator adds the app from `totp` and gives a code from it to `POST /api/v1/operator/auth/sign-in/complete`, which makes them an active member of the team and starts their session. A used, expired or unknown token is `IKW-OPR-008`.",
        refusals: ['IKW-OPR-008'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['token', 'password'],
          additionalProperties: false,
          properties: {
            token: { type: 'string', minLength: 1, maxLength: 200, description: 'The token of the invitation link (`oi_…`)' },
            password: { ...password, description: 'The password the operator chooses: 8 to 256 characters' },
          },
        },
        response: signInStartedSchema,
        throttle: (body) => challengeSubject(body.token),
        handler: async (ctx) => operators.acceptInvitation(ctx.body.token, ctx.body.password, ctx.actor),
      }),
      route<{ challengeToken: string; code?: string; passkey?: AuthenticationResponseJSON }>({
        method: 'post',
        path: '/api/v1/operator/auth/sign-in/complete',
        summary: 'Complete a sign-in with a code from the authenticator app (adding the app, on a first sign-in): the operator session',
        description:
          "The second step, and the only one that starts an operator session: a 6-digit code from the authenticator app, each code once, or (for an operator with passkeys, whose sign-in answered `passkeyOptions`) one of their passkeys' answer in `passkey`. For `next: enroll_totp`, the code from the newly added app also adds it to the operator's account. A wrong code is `IKW-OPR-004`, a passkey's answer that does not verify `IKW-OPR-010`; five failures, or 10 minutes, end the sign-in (`IKW-OPR-005`: sign in again); repeated failures are throttled (`IKW-LIM-001`). With `Sika-Operator-Cookie: 1` the token goes to the HttpOnly cookie `sika_operator_session` (Path `/api/v1/operator`, SameSite=Strict) instead of the body: the console's way.",
        refusals: ['IKW-OPR-004', 'IKW-OPR-005', 'IKW-OPR-010'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['challengeToken'],
          additionalProperties: false,
          properties: {
            challengeToken: { type: 'string', minLength: 1, maxLength: 200, description: 'The sign-in under way (`oc_…`), as the first step answered it' },
            code: { type: 'string', minLength: 1, maxLength: 20, description: 'A 6-digit code from the authenticator app; or `passkey` instead (exactly one of the two, `IKW-VAL-001` otherwise)' },
            passkey: credentialResponse("Instead of `code`: what `navigator.credentials.get(passkeyOptions)` resolved to (@simplewebauthn/browser's startAuthentication), as JSON"),
          },
        },
        response: sessionSchema,
        throttle: (body) => challengeSubject(body.challengeToken),
        handler: async (ctx) => {
          const { challengeToken, code, passkey } = ctx.body;
          // The app's code or a passkey's answer: exactly one of them.
          if ((code === undefined) === (passkey === undefined)) throw new ApiError('IKW-VAL-001', 'Give either `code` (the authenticator app’s) or `passkey` (a passkey’s answer)', 'code');
          return session(ctx, passkey ? await operators.completeSignInWithPasskey(challengeToken, passkey, ctx.actor) : await operators.completeSignIn(challengeToken, code!, ctx.actor));
        },
      }),
      route({
        method: 'post',
        path: '/api/v1/operator/auth/sign-out',
        summary: "Sign out: ends the operator's session (its token stops working) and clears the console's cookie",
        description: "Ends the session the token or cookie belongs to, at once, in every process of the service. The operator's other sessions go on until they end by themselves or the operator is deactivated.",
        auth: anyOperator('operator.session'),
        response: { type: 'object', properties: { signedOut: { const: true, description: 'Always `true`: the session has ended' } } },
        handler: async (ctx) => {
          const { operatorId, sessionId } = operatorOf(ctx);
          await operators.signOut(operatorId, sessionId, ctx.actor);
          return new Reply({ signedOut: true }, { headers: { 'Set-Cookie': cookie(ctx, '', 0, publicUrlSecure) } });
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/operator/me',
        summary: 'The signed-in operator: who they are, their role, and this session',
        description: "What the console loads first: the operator's profile and role (a page offers only what the role may do) and this session's id and end.",
        auth: anyOperator('operator.session'),
        response: {
          type: 'object',
          properties: {
            operator: { ...operatorSchema, description: 'The operator signed in' },
            sessionId: { type: 'string', description: "This session's id" },
          },
        },
        handler: async (ctx) => {
          const { operatorId, sessionId } = operatorOf(ctx);
          const row = await findOperator(knex, operatorId);
          if (!row) throw new ApiError('IKW-OPR-002');
          return { operator: renderOperator(row), sessionId };
        },
      }),
    ],
  };
}
