import type { Knex } from 'knex';
import type { Clock } from '../../../../packages/core/clock.js';
import { ApiError } from '../../../../packages/core/errors.js';
import type { Accounts, Device } from '../../../../packages/families/accounts/user/commands.js';
import type { SignIns } from '../../../../packages/families/accounts/user/sign-in.js';
import { MFA_PURPOSES } from '../../../../packages/families/accounts/verification/events.js';
import type { ProfileChanges } from '../../../../packages/families/accounts/user/events.js';
import type { AppTokenClaims } from '../../../../packages/families/accounts/user/tokens.js';
import { Reply, type AnswerHeaders, type HandlerContext, type RequestFacts } from '../../../../packages/http/context.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { listMemberships } from '../../../../projections/accounts/organizations.js';
import { listLiveSessions } from '../../../../projections/accounts/user-sessions.js';
import { findUser } from '../../../../projections/accounts/users.js';
import { cookieOf, idParams, listSchema, signedIn } from '../shared.js';

/** What each role of an organization may do (docs/accounts.md, "Roles and scopes"). */
export const ROLE_WORDS = {
  owner: 'Everything, including owners, the team settings and organizations under this one',
  admin: 'Everything but owners and the team settings: manages members, keys and organizations under this one',
  developer: 'Reads everything; manages webhook endpoints, creates and confirms payment intents, contacts support',
  finance: 'Reads everything; pays out, bills and refunds, contacts support',
  viewer: 'Reads everything and contacts support',
};

const signedInUser = {
  type: 'object',
  description: 'Who the session is and where it acts',
  properties: {
    id: { type: 'string', description: "The user's id" },
    email: { type: 'string', description: "The user's sign-in e-mail address" },
    name: { type: 'string', description: "The user's name" },
    organizationId: { type: 'string', description: 'The organization the session acts in' },
    merchantId: { type: 'string', description: 'The merchant of that organization the session acts for' },
    role: { type: 'string', description: "The user's role in that organization (`owner`, `admin`, `developer`, `finance` or `viewer`; docs/accounts.md, \"Roles and scopes\")" },
  },
};
export const accessTokenSchema = {
  type: 'object',
  properties: {
    accessToken: { type: 'string', description: 'The access token (a JWT): send it as `Authorization: Bearer <accessToken>` on every dashboard request, with `X-Environment` to choose the environment' },
    tokenType: { const: 'Bearer', description: 'How to send it: always `Bearer`' },
    expiresIn: { type: 'integer', description: 'Seconds until the access token expires (15 minutes); refresh before then' },
    user: signedInUser,
  },
};
export const tokenPair = {
  type: 'object',
  properties: {
    ...accessTokenSchema.properties,
    refreshToken: {
      type: 'string',
      description: 'The refresh token (`rt_…`, 30 days): exchange it once at `POST /api/v1/auth/refresh` for a new pair; a reused one ends its session. Absent when `Sika-Refresh-Cookie: 1` asked for it in an HttpOnly cookie',
    },
  },
};
/**
 * The session a refusal names ("no such session", ended meanwhile): `id`, as the public answers have
 * always named it, also on the routes where the session is the caller's own.
 */
const sessionIds = { sessionId: 'id' };

/** A second-factor challenge as `mfa/challenge` and a login that needs one answer it. */
const PURPOSE_WORDS: Record<(typeof MFA_PURPOSES)[number], string> = {
  login: 'The second step of a sign-in (made only by a sign-in)',
  'change-password-mfa': 'Changing the password',
  'change-email': 'Changing the sign-in e-mail address',
  'change-phone': 'Changing the phone number',
  'email-change/request': 'Asking to change the e-mail address',
  'phone-change/request': 'Asking to change the phone number',
  'personal-info/sensitive': 'Changing sensitive personal information',
  'mfa/totp/disable': 'Removing the authenticator app',
  'mfa/recovery-codes': 'Making new recovery codes',
  'google/connect': 'Connecting a Google account',
  'google/disconnect': 'Disconnecting the Google account',
  'passkeys/delete': 'Deleting a passkey',
  'mfa/totp/setup': 'Adding an authenticator app',
  'passkeys/register': 'Adding a passkey',
  'payout-settings/delay': 'Lowering the safety delay of payout destinations (docs/decisions.md, "Payouts")',
  'payouts/new-destination': 'A live payout to a destination never paid before',
  'api-keys/create': 'Creating an API key',
  'api-keys/roll': 'Rolling an API key',
  'api-keys/revoke': 'Revoking an API key',
};
const FACTOR_WORDS = {
  passkey: 'A passkey: pass `options` to `navigator.credentials.get()` and send its result to `POST /api/v1/auth/passkeys/assertion/complete`',
  totp: 'The authenticator app: a 6-digit code, or a recovery code, to `POST /api/v1/auth/mfa/verify`',
  email: 'A code e-mailed to the user now, to `POST /api/v1/auth/mfa/verify`',
  password: "The user's password as `code` to `POST /api/v1/auth/mfa/verify`: only to add a first second factor",
};
export const mfaChallengeSchema = {
  type: 'object',
  properties: {
    challengeId: { type: 'string', format: 'uuid', description: "The challenge's id: answer it, then give it to the operation of its purpose within its 5 minutes" },
    purpose: { enum: [...MFA_PURPOSES], description: 'The one operation the challenge, once answered, allows', 'x-enumDescriptions': PURPOSE_WORDS },
    factor: { enum: ['passkey', 'totp', 'email', 'password'], description: "How to answer it: the user's strongest factor", 'x-enumDescriptions': FACTOR_WORDS },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the challenge can no longer be answered (5 minutes after it was made)' },
    options: { type: 'object', description: 'For a `passkey` factor only: the WebAuthn request options for `navigator.credentials.get()`' },
  },
};
/** What every sign-in answers (docs/accounts.md, "The factor rule"): a token pair, or `mfaRequired` and a login challenge. */
export const signInAnswer = {
  type: 'object',
  description: 'Either the tokens of a new session, or, for a user with a second factor, `mfaRequired` with a `login` challenge to answer (which then answers the tokens)',
  properties: {
    ...tokenPair.properties,
    ...mfaChallengeSchema.properties,
    mfaRequired: { const: true, description: 'Present (always `true`) when the user must answer the `login` challenge before any token is given' },
  },
};
export const email = { type: 'string', format: 'email', maxLength: 254 };
export const password = { type: 'string', minLength: 8, maxLength: 256 };

/** The caller of an account route (signedIn guarantees an access token). */
export function userOf(ctx: HandlerContext<unknown, unknown, unknown>): AppTokenClaims {
  if (!ctx.principal.user) throw new ApiError('IKW-ACC-003');
  // The HTTP layer holds the claims as any session; the verifier that made them is the accounts family's (buildApi).
  return ctx.principal.user as AppTokenClaims;
}

export function deviceOf(ctx: HandlerContext<unknown, unknown, unknown>): Device {
  return { userAgent: ctx.actor.userAgent?.slice(0, 512) ?? null, ip: ctx.actor.ip ?? null };
}

const iso = (d: Date) => d.toISOString();

/** The refresh cookie's name over HTTPS: a browser keeps a `__Secure-` cookie only if it came over HTTPS with Secure, so no plain-HTTP answer can plant or replace it. */
const SECURE_REFRESH_COOKIE = '__Secure-sika_refresh';
/** Its name over plain HTTP (local development), and its name over HTTPS before `__Secure-`: still read, and cleared, for a transition. */
const PLAIN_REFRESH_COOKIE = 'sika_refresh';
/** How long the cookie is kept: the refresh token's own life (docs/accounts.md, "Access tokens and sessions"). */
const REFRESH_COOKIE_MAX_AGE_S = 30 * 86_400;

/**
 * The refresh token in an HttpOnly cookie, for the dashboard (docs/accounts.md, "The dashboard's
 * session"): a request with `Sika-Refresh-Cookie: 1` gets the refresh token of its answer as a
 * cookie (SameSite=Strict, Path=/api/v1/auth) rather than in the body, so no script of the page
 * ever holds it, and refreshes with the cookie and that header. A page of another site can neither
 * send the header (not without CORS, which is not offered) nor read the answer. Over HTTPS (the
 * connection's, a trusted proxy's X-Forwarded-Proto, or PUBLIC_URL's) the cookie is Secure and
 * named `__Secure-sika_refresh`.
 */
export class SessionCookies {
  constructor(private readonly publicUrlSecure: boolean) {}

  /** Whether the caller asked for the cookie. */
  wanted(request: RequestFacts): boolean {
    return request.header('sika-refresh-cookie') === '1';
  }

  /** `answer` as is, or, when the cookie was asked for, without its refresh token, which goes to the cookie. */
  answer<T>(ctx: HandlerContext<unknown, unknown, unknown>, answer: T): T | Reply {
    if (!this.wanted(ctx) || typeof answer !== 'object' || answer === null || !('refreshToken' in answer) || typeof answer.refreshToken !== 'string') return answer;
    const { refreshToken, ...rest } = answer as T & { refreshToken: string };
    const secure = this.secure(ctx);
    // Over HTTPS a cookie of the plain name is from before `__Secure-`: its token is spent now, so it goes.
    const legacy = secure && cookieOf(ctx, PLAIN_REFRESH_COOKIE) !== undefined ? [this.cookie(PLAIN_REFRESH_COOKIE, '', 0, true)] : [];
    const set = this.cookie(secure ? SECURE_REFRESH_COOKIE : PLAIN_REFRESH_COOKIE, refreshToken, REFRESH_COOKIE_MAX_AGE_S, secure);
    return new Reply(rest, { headers: { 'Set-Cookie': [set, ...legacy], 'Cache-Control': 'no-store' } });
  }

  /** The refresh token of the cookie, when the caller sent the header: the `__Secure-` one, else one of the plain name. */
  refreshToken(ctx: HandlerContext<unknown, unknown, unknown>): string | undefined {
    if (!this.wanted(ctx)) return undefined;
    return cookieOf(ctx, SECURE_REFRESH_COOKIE) || cookieOf(ctx, PLAIN_REFRESH_COOKIE) || undefined;
  }

  /** Set-Cookie headers that remove the cookie, under each name it may have here, when the caller asked for cookies. */
  cleared(request: RequestFacts): AnswerHeaders {
    if (!this.wanted(request)) return {};
    const secure = this.secure(request);
    return { 'Set-Cookie': [...(secure ? [this.cookie(SECURE_REFRESH_COOKIE, '', 0, true)] : []), this.cookie(PLAIN_REFRESH_COOKIE, '', 0, secure)] };
  }

  private secure(request: RequestFacts): boolean {
    return request.secure || this.publicUrlSecure;
  }

  private cookie(name: string, value: string, maxAgeS: number, secure: boolean): string {
    // A removal also says when: a past Expires, for clients that read that rather than Max-Age.
    const expires = maxAgeS === 0 ? '; Expires=Thu, 01 Jan 1970 00:00:00 GMT' : '';
    return `${name}=${value}; Path=/api/v1/auth; Max-Age=${maxAgeS}${expires}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  }
}

const profileSchema = {
  type: 'object',
  properties: {
    ...signedInUser.properties,
    phone: { type: ['string', 'null'] },
    secondaryEmail: { type: ['string', 'null'] },
    language: { type: ['string', 'null'] },
    onboardingDismissed: { type: 'boolean' },
    onboardingCompleted: { type: 'boolean' },
    onboardingStep: { type: ['string', 'null'] },
    sessionId: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' }, description: "What this session's token may do (its role's scopes when it was issued): a page offers only what the API will allow" },
    createdAt: { type: 'string', format: 'date-time' },
    organizations: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, displayName: { type: 'string' }, role: { type: 'string' }, merchantIds: { type: 'array', items: { type: 'string' } } } } },
  },
};

/** The signed-in user as `me` shows them: profile, onboarding flags, this session's place, every organization. */
async function profile(knex: Knex, claims: AppTokenClaims) {
  const user = await findUser(knex, claims.userId);
  if (!user) throw new ApiError('IKW-AUT-007');
  const organizations = await listMemberships(knex, claims.userId);
  const current = organizations.find((o) => o.id === claims.organizationId);
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    phone: user.phone,
    secondaryEmail: user.secondary_email,
    language: user.language,
    onboardingDismissed: user.onboarding_dismissed,
    onboardingCompleted: user.onboarding_completed,
    onboardingStep: user.onboarding_step,
    organizationId: claims.organizationId,
    merchantId: claims.merchantId,
    role: current?.role ?? claims.role,
    sessionId: claims.sessionId,
    scopes: claims.scopes,
    createdAt: iso(user.created_at),
    organizations: organizations.map((o) => ({ id: o.id, displayName: o.display_name, role: o.role, merchantIds: o.merchant_ids })),
  };
}

/**
 * /api/v1/auth (camelCase bodies), the account half (docs/accounts.md): sign-in, refresh, sign-out,
 * the current user, their sessions and switching merchants. Access tokens are AppTokens:
 * `Authorization: Bearer <accessToken>`, with `X-Environment` choosing the environment.
 */
export function authFamily(accounts: Accounts, signIns: SignIns, knex: Knex, clock: Clock, cookies: SessionCookies): Family {
  return {
    name: 'auth',
    description: 'Dashboard users\' sessions: sign in with a password (and a second factor), refresh and sign out, the signed-in user\'s profile and preferences. Integrations use API keys instead.',
    routes: [
      route<{ email: string; password: string }>({
        method: 'post',
        path: '/api/v1/auth/login',
        summary: 'Sign in with e-mail and password: an access token (15 min) and a rotating refresh token, or, for a user with a second factor, `mfaRequired` and a login challenge to answer',
        auth: 'public',
        body: { type: 'object', required: ['email', 'password'], additionalProperties: false, properties: { email, password } },
        response: signInAnswer,
        throttle: (body) => body.email.toLowerCase(),
        handler: async (ctx) => cookies.answer(ctx, await signIns.withPassword(ctx.body.email, ctx.body.password, deviceOf(ctx), ctx.actor)),
      }),
      route<{ refreshToken?: string }>({
        method: 'post',
        path: '/api/v1/auth/refresh',
        fields: sessionIds,
        summary: 'Exchange a refresh token for a new pair; each refresh token works once, and a reused one ends its session. With `Sika-Refresh-Cookie: 1`, the token is the cookie\'s (docs/auth.md)',
        auth: 'public',
        body: { type: 'object', additionalProperties: false, properties: { refreshToken: { type: 'string', minLength: 1, maxLength: 512 } } },
        response: tokenPair,
        handler: async (ctx) => {
          const token = ctx.body.refreshToken ?? cookies.refreshToken(ctx);
          if (token === undefined) throw new ApiError('IKW-VAL-001', 'Missing required parameter: refreshToken', 'refreshToken');
          return cookies.answer(ctx, await accounts.refresh(token, ctx.actor));
        },
      }),
      route({
        method: 'post',
        path: '/api/v1/auth/logout',
        fields: sessionIds,
        summary: "Sign out: ends the caller's session (its refresh token and access tokens stop working). With `Sika-Refresh-Cookie: 1` the answer clears the refresh cookie, even when it is a refusal",
        auth: signedIn,
        response: { type: 'object', properties: { signedOut: { const: true } } },
        // The cookie goes even when the sign-out is refused (a token already expired or revoked): else the next page would resume the session from it.
        headers: (request) => cookies.cleared(request),
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
        response: profileSchema,
        handler: (ctx) => profile(knex, userOf(ctx)),
      }),
      route<ProfileChanges>({
        method: 'patch',
        path: '/api/v1/auth/personal-info',
        summary: "Change the signed-in user's name, secondary e-mail or language (null clears the last two); answers the profile",
        auth: signedIn,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            secondaryEmail: { ...email, type: ['string', 'null'] },
            language: { type: ['string', 'null'], pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$', maxLength: 35 },
          },
        },
        response: profileSchema,
        handler: async (ctx) => {
          const claims = userOf(ctx);
          const { secondaryEmail, ...rest } = ctx.body;
          await accounts.updateProfile(claims, { ...rest, ...(secondaryEmail !== undefined ? { secondaryEmail: secondaryEmail === null ? null : secondaryEmail.toLowerCase() } : {}) }, ctx.actor);
          return profile(knex, claims);
        },
      }),
      route<{ onboardingDismissed?: boolean | null; onboardingCompleted?: boolean | null; onboardingStep?: string | null }>({
        method: 'patch',
        path: '/api/v1/auth/onboarding',
        summary: "The dashboard's onboarding flags of the signed-in user (dismissed, completed, current step); answers the profile",
        auth: signedIn,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            onboardingDismissed: { type: ['boolean', 'null'] },
            onboardingCompleted: { type: ['boolean', 'null'] },
            onboardingStep: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
          },
        },
        response: profileSchema,
        handler: async (ctx) => {
          const claims = userOf(ctx);
          const b = ctx.body;
          // null on a flag means "not given"; on the step it clears it.
          await accounts.updateOnboarding(
            claims,
            {
              ...(typeof b.onboardingDismissed === 'boolean' ? { dismissed: b.onboardingDismissed } : {}),
              ...(typeof b.onboardingCompleted === 'boolean' ? { completed: b.onboardingCompleted } : {}),
              ...(b.onboardingStep !== undefined ? { step: b.onboardingStep } : {}),
            },
            ctx.actor,
          );
          return profile(knex, claims);
        },
      }),
      route<{ currentPassword: string; newPassword: string }>({
        method: 'post',
        path: '/api/v1/auth/change-password',
        summary: 'Change the password, proved by the current one; every other session of the user ends',
        auth: signedIn,
        body: { type: 'object', required: ['currentPassword', 'newPassword'], additionalProperties: false, properties: { currentPassword: { type: 'string', minLength: 1, maxLength: 256 }, newPassword: password } },
        response: { type: 'object', properties: { changed: { const: true } } },
        throttle: (_body, principal) => principal?.user?.userId ?? 'anonymous',
        handler: async (ctx) => {
          await accounts.changePassword(userOf(ctx), ctx.body.currentPassword, ctx.body.newPassword, ctx.actor);
          return { changed: true };
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/auth/sessions',
        summary: "The signed-in user's live sessions, newest first; `current` marks the caller's",
        auth: signedIn,
        response: listSchema({
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
        }),
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
        fields: sessionIds,
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
        fields: sessionIds,
        summary: "Revoke every session of the signed-in user except the caller's",
        auth: signedIn,
        response: { type: 'object', properties: { revoked: { type: 'integer' } } },
        handler: async (ctx) => ({ revoked: await accounts.revokeOtherSessions(userOf(ctx), ctx.actor) }),
      }),
      route({
        method: 'post',
        path: '/api/v1/auth/sessions/revoke-all',
        summary: 'Sign out everywhere: every session of the signed-in user ends, this one too (a lost or stolen device)',
        auth: signedIn,
        response: { type: 'object', properties: { revoked: { type: 'integer' } } },
        handler: async (ctx) => ({ revoked: await accounts.revokeAllSessions(userOf(ctx), ctx.actor) }),
      }),
      route<{ merchantId: string }>({
        method: 'post',
        path: '/api/v1/auth/switch-merchant',
        fields: sessionIds,
        summary: "Act for another merchant of the user's organizations; returns an access token for it (the refresh token stays)",
        auth: signedIn,
        body: { type: 'object', required: ['merchantId'], additionalProperties: false, properties: { merchantId: { type: 'string', minLength: 1, maxLength: 64 } } },
        response: accessTokenSchema,
        handler: (ctx) => accounts.switchMerchant(userOf(ctx), ctx.body.merchantId, ctx.actor),
      }),
    ],
  };
}
