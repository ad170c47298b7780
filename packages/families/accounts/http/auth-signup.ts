import { normalizePhone } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import type { Accounts } from '../user/commands.js';
import type { SignIns } from '../user/sign-in.js';
import type { SignUp } from '../user/signup.js';
import { normalizeEmail } from '../user-email/events.js';
import type { Verifications } from '../verification/commands.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { deviceOf, email, password, signInAnswer, tokenPair, type SessionCookies } from './auth.js';
import { countrySchema } from '#packages/http/route-kit.js';

const uuid = { type: 'string', format: 'uuid' };
const code = { type: 'string', pattern: '^[0-9]{6}$', description: 'The six-digit code that was sent' };
const phoneSchema = { type: 'string', minLength: 3, maxLength: 32 };
const linkToken = { type: 'string', minLength: 1, maxLength: 512 };
const challengeSchema = {
  type: 'object',
  properties: {
    challengeId: { type: 'string', format: 'uuid', description: 'The challenge: give it with the code to the matching `verify`, then to `register`' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the code stops working (10 minutes after it was sent)' },
  },
};
const verifiedSchema = {
  type: 'object',
  properties: {
    challengeId: { type: 'string', description: 'The challenge, now verified: usable once by `register`, within an hour' },
    verified: { const: true, description: 'Always `true`: the code was right' },
  },
};
/** What a link request answers whether or not the address has an account. */
const sentSchema = { type: 'object', properties: { sent: { const: true, description: 'Always `true`, whether or not the address has an account' } } };
const emailBody = { type: 'object', required: ['email'], additionalProperties: false, properties: { email: { ...email, description: 'The e-mail address (any case)' } } };

/** A phone number as E.164 (read in `country`'s format without a calling code), or IKW-VAL-001. */
function e164(phone: string, country: string, param: string): string {
  const normalized = normalizePhone(phone, country);
  if (normalized === null) throw new ApiError('IKW-VAL-001', 'Not a valid phone number; give it in international format, e.g. +221771234567', param);
  return normalized;
}

/**
 * /api/v1/auth, the way in (docs/accounts.md, "Sign-up" and "Recovery"): pre-signup codes by e-mail
 * and SMS, register, magic links, forgotten passwords. All public; none says whether an address
 * has an account.
 */
export function authSignUpRoutes(accounts: Accounts, verifications: Verifications, signUp: SignUp, signIns: SignIns, cookies: SessionCookies): RouteGroup {
  /** A link by e-mail to an address that has an account; `202 {sent: true}` either way. */
  const linkRequest = (path: string, kind: 'magic_link' | 'password_reset', summary: string, description: string) =>
    route<{ email: string }>({
      method: 'post',
      path,
      summary,
      description,
      auth: 'public',
      status: 202,
      body: emailBody,
      response: sentSchema,
      throttle: (body) => normalizeEmail(body.email),
      throttleEveryRequest: true,
      handler: async (ctx) => {
        await accounts.sendLink(kind, ctx.body.email, ctx.actor);
        return { sent: true };
      },
    });
  /** Checking a pre-signup code: the same for both channels; a wrong one spends one of five tries. */
  const codeCheck = (channel: 'email' | 'phone', purpose: 'signup_email' | 'signup_phone', what: string) =>
    route<{ challengeId: string; code: string }>({
      method: 'post',
      path: `/api/v1/auth/pre-signup/${channel}/verify`,
      summary: `Verify the ${what} code; a wrong one spends one of five tries`,
      description: `Checks the code the ${what} challenge sent. A wrong code is \`IKW-ACC-005\`, which says how many tries remain; after five, or once its 10 minutes are over, the challenge is spent (\`IKW-ACC-006\`): ask for a new one. A verified challenge is then given to \`POST /api/v1/auth/register\` within an hour. An unknown challenge, or one of another channel, is \`IKW-RES-001\`.`,
      refusals: ['IKW-RES-001', 'IKW-ACC-005', 'IKW-ACC-006'],
      auth: 'public',
      body: {
        type: 'object',
        required: ['challengeId', 'code'],
        additionalProperties: false,
        properties: { challengeId: { ...uuid, description: `The \`challengeId\` the ${what} challenge answered` }, code },
      },
      response: verifiedSchema,
      throttle: (body) => body.challengeId,
      handler: (ctx) => verifications.verify(purpose, ctx.body.challengeId, ctx.body.code, ctx.actor),
    });
  return {
    name: 'auth-signup',
    description: 'Creating an account: codes that prove the e-mail address and phone number before sign-up, the registration itself, and sign-in links by e-mail.',
    routes: [
      route<{ email: string }>({
        method: 'post',
        path: '/api/v1/auth/pre-signup/email/challenge',
        summary: 'Send a six-digit code (10 minutes, 5 tries) to an e-mail address before sign-up; the answer is the same whether or not the address has an account',
        description:
          'The first step of sign-up: proves the person receives at the address before an account is made for it. The answer is the same whether or not the address has an account: an address that has one gets an e-mail saying so instead of a code, and its challenge can never be verified, so the answer tells nobody whether it is taken. Requests for one address are throttled (`IKW-LIM-001`).',
        auth: 'public',
        body: emailBody,
        response: challengeSchema,
        throttle: (body) => normalizeEmail(body.email),
        throttleEveryRequest: true,
        handler: (ctx) => verifications.start('signup_email', normalizeEmail(ctx.body.email), ctx.actor),
      }),
      codeCheck('email', 'signup_email', 'e-mail'),
      route<{ phone: string; country?: string | null }>({
        method: 'post',
        path: '/api/v1/auth/pre-signup/phone/challenge',
        summary: 'Send a six-digit code by SMS (10 minutes, 5 tries) to a phone number before sign-up (E.164, or national with country)',
        description:
          "Proves the person receives at a phone number, for a sign-up that gives one (the phone is optional). The number is normalised to E.164: a national number is read in `country`'s format (`SN` when left out); one that cannot be read is `IKW-VAL-001`. Requests for one number are throttled (`IKW-LIM-001`).",
        auth: 'public',
        body: {
          type: 'object',
          required: ['phone'],
          additionalProperties: false,
          properties: {
            phone: { ...phoneSchema, description: "The phone number: international (`+221771234567`) or national in `country`'s format" },
            country: { ...countrySchema, type: ['string', 'null'], description: 'The country whose format reads a national `phone` (two letters); `SN` when left out' },
          },
        },
        response: challengeSchema,
        throttle: (body) => body.phone.replace(/[^0-9+]/g, ''),
        throttleEveryRequest: true,
        handler: (ctx) => verifications.start('signup_phone', e164(ctx.body.phone, ctx.body.country ?? 'SN', 'phone'), ctx.actor),
      }),
      codeCheck('phone', 'signup_phone', 'SMS'),
      route<{ email: string; password: string; name: string; merchantName: string; emailChallengeId?: string | null; phone?: string | null; phoneChallengeId?: string | null; country?: string | null }>({
        method: 'post',
        path: '/api/v1/auth/register',
        summary: 'Create an account with a verified e-mail (and phone): the user, an organization and its merchant (sandbox and live), and a session',
        description:
          'Signs a new merchant up: in one commit it makes the user, an organization named `merchantName` with the user as its owner, and its merchant (sandbox and live), then answers the tokens of a first session (`201`). It takes the `challengeId` of a verified `pre-signup/email` challenge for that same address, and of a `pre-signup/phone` challenge when a `phone` is given (`IKW-ACC-007` otherwise); each is used once, within an hour of its verification (`IKW-ACC-006` after). An address that has an account is `IKW-ACC-001`. Two sign-ups with one challenge or one address make one account. With `Sika-Refresh-Cookie: 1` the refresh token goes to an HttpOnly cookie.',
        refusals: ['IKW-ACC-001', 'IKW-ACC-006', 'IKW-ACC-007', 'IKW-RES-001'],
        auth: 'public',
        status: 201,
        body: {
          type: 'object',
          required: ['email', 'password', 'name', 'merchantName'],
          additionalProperties: false,
          properties: {
            email: { ...email, description: 'The sign-in e-mail address: the one the e-mail challenge verified' },
            password: { ...password, description: 'The password: 8 to 256 characters' },
            name: { type: 'string', minLength: 1, maxLength: 200, description: "The person's name" },
            merchantName: { type: 'string', minLength: 1, maxLength: 128, description: 'The business: the name of the organization and of its merchant' },
            emailChallengeId: { ...uuid, type: ['string', 'null'], description: 'A verified `pre-signup/email` challenge for `email`: required (`IKW-ACC-007` without it)' },
            phone: { ...phoneSchema, type: ['string', 'null'], description: "A phone number, optional: international, or national in `country`'s format" },
            phoneChallengeId: { ...uuid, type: ['string', 'null'], description: 'A verified `pre-signup/phone` challenge for `phone`: required when `phone` is given' },
            country: { ...countrySchema, type: ['string', 'null'], description: "The organization's country (two letters), also the format a national `phone` is read in; `SN` when left out" },
          },
        },
        response: tokenPair,
        handler: async (ctx) => {
          const b = ctx.body;
          const country = (b.country ?? 'SN').toUpperCase();
          const pair = await signUp.register(
            {
              email: b.email,
              password: b.password,
              name: b.name,
              merchantName: b.merchantName,
              emailChallengeId: b.emailChallengeId ?? null,
              phone: b.phone == null ? null : e164(b.phone, country, 'phone'),
              phoneChallengeId: b.phoneChallengeId ?? null,
              country,
            },
            deviceOf(ctx),
            ctx.actor,
          );
          return cookies.answer(ctx, pair);
        },
      }),
      linkRequest(
        '/api/v1/auth/magic-link',
        'magic_link',
        'E-mail a sign-in link (15 minutes, single use) if the address has an account; the answer is the same either way',
        'Sign-in without a password: an address with an account gets a link to the dashboard, valid 15 minutes and once, whose token goes to `POST /api/v1/auth/magic-link/verify`. The answer is `202 {sent: true}` whatever the address, so it tells nobody whether an account exists. Every request for one address counts against its throttle (`IKW-LIM-001`).',
      ),
      route<{ token: string }>({
        method: 'post',
        path: '/api/v1/auth/magic-link/verify',
        summary: 'Sign in with a magic link token; it works once. A user with a second factor gets `mfaRequired` and a login challenge, as login answers',
        description:
          'The second half of a magic link: the token from the e-mail (`ml_…`) signs in, as a password would, and also records the address as verified. It works once, within 15 minutes, and only while the account keeps the address it was sent to (`IKW-ACC-006` otherwise). A user with a second factor gets `mfaRequired` and a `login` challenge before any token.',
        refusals: ['IKW-ACC-006', 'IKW-ACC-002'],
        auth: 'public',
        body: { type: 'object', required: ['token'], additionalProperties: false, properties: { token: { ...linkToken, description: 'The token of the e-mailed link (`ml_…`)' } } },
        response: signInAnswer,
        handler: async (ctx) => cookies.answer(ctx, await signIns.withMagicLink(ctx.body.token, deviceOf(ctx), ctx.actor)),
      }),
      linkRequest(
        '/api/v1/auth/forgot-password',
        'password_reset',
        'E-mail a password-reset link (30 minutes, single use) if the address has an account; the answer is the same either way',
        'For a forgotten password: an address with an account gets a link, valid 30 minutes and once, whose token goes to `POST /api/v1/auth/reset-password`. The answer is `202 {sent: true}` whatever the address. Every request for one address counts against its throttle (`IKW-LIM-001`).',
      ),
      route<{ token: string; newPassword: string }>({
        method: 'post',
        path: '/api/v1/auth/reset-password',
        summary: 'Set a new password with a reset token (once); every session of the user ends',
        description:
          'Sets the password from the token of a `forgot-password` e-mail (`pr_…`): it works once, within 30 minutes, and only while the account keeps the address it was sent to (`IKW-ACC-006` otherwise). Every session of the user ends, and they are told by e-mail; it signs nobody in: sign in with the new password.',
        refusals: ['IKW-ACC-006'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['token', 'newPassword'],
          additionalProperties: false,
          properties: {
            token: { ...linkToken, description: 'The token of the e-mailed link (`pr_…`)' },
            newPassword: { ...password, description: 'The new password: 8 to 256 characters' },
          },
        },
        response: { type: 'object', properties: { reset: { const: true, description: 'Always `true`: the new password is set' } } },
        handler: async (ctx) => {
          await accounts.resetPassword(ctx.body.token, ctx.body.newPassword, ctx.actor);
          return { reset: true };
        },
      }),
    ],
  };
}
