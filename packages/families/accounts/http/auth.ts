import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import type { Accounts } from '../user/commands.js';
import type { Device, UserSessions } from '../user/sessions.js';
import type { SignIns } from '../user/sign-in.js';
import { MFA_PURPOSES } from '../verification/events.js';
import type { ProfileChanges } from '../user/events.js';
import type { AppTokenClaims } from '../user/tokens.js';
import { Reply, type AnswerHeaders, type HandlerContext, type RequestFacts } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { listMemberships } from '../read/organizations.js';
import { listLiveSessions } from '../read/user-sessions.js';
import { findUser } from '../read/users.js';
import { cookieOf, idParams, listSchema, signedIn } from '#packages/http/route-kit.js';

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
    role: { type: 'string', description: 'The user\'s role in that organization (`owner`, `admin`, `developer`, `finance` or `viewer`; docs/accounts.md, "Roles and scopes")' },
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

/** The session cookies as a service at `publicUrl` sets them: `Secure` (and `__Secure-`) on HTTPS requests, and on every request when PUBLIC_URL is https (a TLS proxy not named in TRUST_PROXY). */
export function sessionCookiesOf(publicUrl: string): SessionCookies {
  return new SessionCookies(publicUrl.startsWith('https:'));
}

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
    phone: { type: ['string', 'null'], description: "The user's phone number (E.164), or null" },
    secondaryEmail: { type: ['string', 'null'], description: 'A second address for notices, in lower case, or null. Not a sign-in address' },
    language: { type: ['string', 'null'], description: "The user's language for the dashboard and e-mails (a BCP 47 tag such as `fr` or `en-GB`), or null for the default" },
    onboardingDismissed: { type: 'boolean', description: "Whether the user closed the dashboard's onboarding guide" },
    onboardingCompleted: { type: 'boolean', description: "Whether the user finished the dashboard's onboarding guide" },
    onboardingStep: { type: ['string', 'null'], description: 'The onboarding step the dashboard last showed (its own name for it), or null' },
    sessionId: { type: 'string', description: "This session's id: the one `GET /api/v1/auth/sessions` marks `current`" },
    scopes: { type: 'array', items: { type: 'string' }, description: "What this session's token may do (its role's scopes when it was issued): a page offers only what the API will allow" },
    createdAt: { type: 'string', format: 'date-time', description: 'When the account was made (ISO 8601)' },
    organizations: {
      type: 'array',
      description: 'Every organization the user belongs to, oldest membership first',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: "The organization's id" },
          displayName: { type: 'string', description: 'Its name' },
          role: { type: 'string', description: "The user's role in it (`owner`, `admin`, `developer`, `finance` or `viewer`)" },
          merchantIds: { type: 'array', items: { type: 'string' }, description: 'The merchants it holds (`acct_…`)' },
        },
      },
    },
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
export function authRoutes(accounts: Accounts, sessions: UserSessions, signIns: SignIns, knex: Knex, clock: Clock, cookies: SessionCookies): RouteGroup {
  return {
    name: 'auth',
    description: "Dashboard users' sessions: sign in with a password (and a second factor), refresh and sign out, the signed-in user's profile and preferences. Integrations use API keys instead.",
    routes: [
      route<{ email: string; password: string }>({
        method: 'post',
        path: '/api/v1/auth/login',
        summary: 'Sign in with e-mail and password: an access token (15 min) and a rotating refresh token, or, for a user with a second factor, `mfaRequired` and a login challenge to answer',
        description:
          "The dashboard's sign-in. A user without a second factor gets a session at once: an access token for 15 minutes and a refresh token for 30 days, in the organization they last chose (`persist` on `organizations/switch`) or their first. A user with an authenticator app or a passkey gets no token yet: the answer is `mfaRequired` with a `login` challenge, answered at `POST /api/v1/auth/mfa/verify` or, for a passkey, `POST /api/v1/auth/passkeys/assertion/complete`. A wrong address and a wrong password get the same `IKW-AUT-008`; repeated failures for one address are throttled (`IKW-LIM-001`). With `Sika-Refresh-Cookie: 1` the refresh token goes to an HttpOnly cookie instead of the body. Integrations do not sign in: they use API keys.",
        refusals: ['IKW-AUT-008', 'IKW-ACC-002'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['email', 'password'],
          additionalProperties: false,
          properties: {
            email: { ...email, description: 'The sign-in e-mail address (any case)' },
            password: { ...password, description: 'The password' },
          },
        },
        response: signInAnswer,
        throttle: (body) => body.email.toLowerCase(),
        handler: async (ctx) => cookies.answer(ctx, await signIns.withPassword(ctx.body.email, ctx.body.password, deviceOf(ctx), ctx.actor)),
      }),
      route<{ refreshToken?: string }>({
        method: 'post',
        path: '/api/v1/auth/refresh',
        fields: sessionIds,
        summary: "Exchange a refresh token for a new pair; each refresh token works once, and a reused one ends its session. With `Sika-Refresh-Cookie: 1`, the token is the cookie's (docs/auth.md)",
        description:
          'Keeps a session going: give the refresh token (in the body, or as the cookie with `Sika-Refresh-Cookie: 1`) before the access token expires, and store the new pair. Each refresh token works once: a token used a second time is taken as stolen and ends its session (`IKW-AUT-007`), as does an expired or revoked one. A session that never proved the second factor its user has since added is ended here too: sign in again.',
        refusals: ['IKW-AUT-007'],
        auth: 'public',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            refreshToken: {
              type: 'string',
              minLength: 1,
              maxLength: 512,
              description: 'The refresh token of the last pair (`rt_…`). Leave it out when it is in the cookie (`Sika-Refresh-Cookie: 1`); without either, `IKW-VAL-001`',
            },
          },
        },
        response: tokenPair,
        handler: async (ctx) => {
          const token = ctx.body.refreshToken ?? cookies.refreshToken(ctx);
          if (token === undefined) throw new ApiError('IKW-VAL-001', 'Missing required parameter: refreshToken', 'refreshToken');
          return cookies.answer(ctx, await sessions.refresh(token, ctx.actor));
        },
      }),
      route({
        method: 'post',
        path: '/api/v1/auth/logout',
        fields: sessionIds,
        summary: "Sign out: ends the caller's session (its refresh token and access tokens stop working). With `Sika-Refresh-Cookie: 1` the answer clears the refresh cookie, even when it is a refusal",
        description:
          'Ends the session the access token belongs to: its refresh token and every access token of it stop working. Other sessions of the user (other devices) go on; to end them, see `sessions/revoke-others` and `sessions/revoke-all`.',
        auth: signedIn,
        response: { type: 'object', properties: { signedOut: { const: true, description: 'Always `true`: the session has ended' } } },
        // The cookie goes even when the sign-out is refused (a token already expired or revoked): else the next page would resume the session from it.
        headers: (request) => cookies.cleared(request),
        handler: async (ctx) => {
          await sessions.logout(userOf(ctx), ctx.actor);
          return { signedOut: true };
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/auth/me',
        summary: 'The signed-in user: profile, the organization, merchant and role of this session, and every organization they belong to',
        description:
          'What the dashboard loads first: who the user is, where this session acts (organization, merchant, role and its `scopes`, so a page offers only what the API allows), their onboarding flags and every organization they belong to.',
        auth: signedIn,
        response: profileSchema,
        handler: (ctx) => profile(knex, userOf(ctx)),
      }),
      route<ProfileChanges>({
        method: 'patch',
        path: '/api/v1/auth/personal-info',
        summary: "Change the signed-in user's name, secondary e-mail or language (null clears the last two); answers the profile",
        description:
          'Changes the fields given and leaves the others as they are; `null` clears `secondaryEmail` or `language`. The sign-in e-mail address and the phone number are changed elsewhere, behind a second factor (`auth/email-change/request`, `auth/change-phone`). Answers the whole profile, as `GET /api/v1/auth/me`.',
        auth: signedIn,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200, description: "The user's name" },
            secondaryEmail: { ...email, type: ['string', 'null'], description: 'A second address for notices (stored in lower case); null removes it' },
            language: {
              type: ['string', 'null'],
              pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$',
              maxLength: 35,
              description: 'A BCP 47 language tag (`fr`, `en-GB`); null returns to the default',
            },
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
        description:
          "Records where the user is in the dashboard's onboarding guide, so it resumes on another device. A flag left out or `null` keeps its value; `onboardingStep: null` clears the step. Answers the whole profile, as `GET /api/v1/auth/me`.",
        auth: signedIn,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            onboardingDismissed: { type: ['boolean', 'null'], description: 'Whether the user closed the guide; null or left out keeps it' },
            onboardingCompleted: { type: ['boolean', 'null'], description: 'Whether the user finished the guide; null or left out keeps it' },
            onboardingStep: { type: ['string', 'null'], minLength: 1, maxLength: 64, description: "The step to resume at (the dashboard's own name for it); null clears it" },
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
        description:
          "Replaces the password when the user knows the current one (a wrong one is `IKW-ACC-004`; repeated tries are throttled, `IKW-LIM-001`). The caller's session goes on; every other session of the user ends, in case the old password was known to someone else. A user who forgot it signs in with a magic link instead.",
        refusals: ['IKW-ACC-004'],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['currentPassword', 'newPassword'],
          additionalProperties: false,
          properties: {
            currentPassword: { type: 'string', minLength: 1, maxLength: 256, description: 'The password now' },
            newPassword: { ...password, description: 'The new password: 8 to 256 characters' },
          },
        },
        response: { type: 'object', properties: { changed: { const: true, description: 'Always `true`: the new password is the one now' } } },
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
        description:
          'For a Security page: every session of the user that has not ended or expired, in every organization, with the device (`userAgent`, `ip`) that started it and when it was last active. `current` marks the one making the request.',
        auth: signedIn,
        response: listSchema({
          type: 'object',
          properties: {
            id: { type: 'string', description: "The session's id: the `id` that revokes it" },
            current: { type: 'boolean', description: '`true` for the session making this request' },
            organizationId: { type: 'string', description: 'The organization it acts in' },
            merchantId: { type: 'string', description: 'The merchant it acts for' },
            userAgent: { type: ['string', 'null'], description: 'The User-Agent of the device that started it (up to 512 characters), or null' },
            ip: { type: ['string', 'null'], description: 'The IP address it was started from, or null' },
            createdAt: { type: 'string', format: 'date-time', description: 'When it started (ISO 8601)' },
            lastActiveAt: { type: 'string', format: 'date-time', description: 'When it was last used (ISO 8601)' },
            expiresAt: { type: 'string', format: 'date-time', description: 'When it ends unless refreshed again (ISO 8601): 30 days after its last refresh' },
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
        description: "Ends one session by its `id` (from `GET /api/v1/auth/sessions`): a device the user no longer trusts. Its refresh token and access tokens stop working. An ended session, or another user's, is `IKW-RES-001`.",
        auth: signedIn,
        params: idParams,
        response: {
          type: 'object',
          properties: { id: { type: 'string', description: 'The session that ended' }, revoked: { const: true, description: 'Always `true`: the session has ended' } },
        },
        handler: async (ctx) => {
          await sessions.revokeSession(userOf(ctx), ctx.params.id, ctx.actor);
          return { id: ctx.params.id, revoked: true };
        },
      }),
      route({
        method: 'post',
        path: '/api/v1/auth/sessions/revoke-others',
        fields: sessionIds,
        summary: "Revoke every session of the signed-in user except the caller's",
        description: 'Signs the user out of every other device and keeps the one making the request. Answers how many sessions ended (0 when there were none).',
        auth: signedIn,
        response: { type: 'object', properties: { revoked: { type: 'integer', description: 'How many sessions ended' } } },
        handler: async (ctx) => ({ revoked: await sessions.revokeOtherSessions(userOf(ctx), ctx.actor) }),
      }),
      route({
        method: 'post',
        path: '/api/v1/auth/sessions/revoke-all',
        summary: 'Sign out everywhere: every session of the signed-in user ends, this one too (a lost or stolen device)',
        description: "Ends every session of the user, the caller's too: after it, the access token that made the request is refused, and the user signs in again. Answers how many sessions ended.",
        auth: signedIn,
        response: { type: 'object', properties: { revoked: { type: 'integer', description: 'How many sessions ended' } } },
        handler: async (ctx) => ({ revoked: await sessions.revokeAllSessions(userOf(ctx), ctx.actor) }),
      }),
      route<{ merchantId: string }>({
        method: 'post',
        path: '/api/v1/auth/switch-merchant',
        fields: sessionIds,
        summary: "Act for another merchant of the user's organizations; returns an access token for it (the refresh token stays)",
        description:
          "Moves the caller's session to another merchant, of any organization the user belongs to, and answers an access token for it; the refresh token stays the same and its next refresh is for that merchant. A merchant of no organization of the user is `IKW-RES-001`. A session that never proved the second factor the user now has is refused (`IKW-AUT-007`): sign in again.",
        refusals: ['IKW-RES-001'],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['merchantId'],
          additionalProperties: false,
          properties: {
            merchantId: { type: 'string', minLength: 1, maxLength: 64, description: 'The merchant to act for (`acct_…`): one of an organization the user belongs to' },
          },
        },
        response: accessTokenSchema,
        handler: (ctx) => sessions.switchMerchant(userOf(ctx), ctx.body.merchantId, ctx.actor),
      }),
    ],
  };
}
