import { normalizePhone } from '../../../../packages/catalog/index.js';
import { ApiError } from '../../../../packages/core/errors.js';
import type { Accounts } from '../../../../packages/families/accounts/user/commands.js';
import type { SignIns } from '../../../../packages/families/accounts/user/sign-in.js';
import type { SignUp } from '../../../../packages/families/accounts/user/signup.js';
import { normalizeEmail } from '../../../../packages/families/accounts/user-email/events.js';
import type { Verifications } from '../../../../packages/families/accounts/verification/commands.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { deviceOf, email, password, signInAnswer, tokenPair, type SessionCookies } from './auth.js';
import { countrySchema } from '../shared.js';

const uuid = { type: 'string', format: 'uuid' };
const code = { type: 'string', pattern: '^[0-9]{6}$' };
const phoneSchema = { type: 'string', minLength: 3, maxLength: 32 };
const linkToken = { type: 'string', minLength: 1, maxLength: 512 };
const challengeSchema = { type: 'object', properties: { challengeId: { type: 'string', format: 'uuid' }, expiresAt: { type: 'string', format: 'date-time' } } };
const verifiedSchema = { type: 'object', properties: { challengeId: { type: 'string' }, verified: { const: true } } };
/** What a link request answers whether or not the address has an account. */
const sentSchema = { type: 'object', properties: { sent: { const: true } } };

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
export function authSignUpFamily(accounts: Accounts, verifications: Verifications, signUp: SignUp, signIns: SignIns, cookies: SessionCookies): Family {
  /** A link by e-mail to an address that has an account; `202 {sent: true}` either way. */
  const linkRequest = (path: string, kind: 'magic_link' | 'password_reset', summary: string) =>
    route<{ email: string }>({
      method: 'post',
      path,
      summary,
      auth: 'public',
      status: 202,
      body: { type: 'object', required: ['email'], additionalProperties: false, properties: { email } },
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
      auth: 'public',
      body: { type: 'object', required: ['challengeId', 'code'], additionalProperties: false, properties: { challengeId: uuid, code } },
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
        auth: 'public',
        body: { type: 'object', required: ['email'], additionalProperties: false, properties: { email } },
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
        auth: 'public',
        body: { type: 'object', required: ['phone'], additionalProperties: false, properties: { phone: phoneSchema, country: { ...countrySchema, type: ['string', 'null'] } } },
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
        auth: 'public',
        status: 201,
        body: {
          type: 'object',
          required: ['email', 'password', 'name', 'merchantName'],
          additionalProperties: false,
          properties: {
            email,
            password,
            name: { type: 'string', minLength: 1, maxLength: 200 },
            merchantName: { type: 'string', minLength: 1, maxLength: 128 },
            emailChallengeId: { ...uuid, type: ['string', 'null'] },
            phone: { ...phoneSchema, type: ['string', 'null'] },
            phoneChallengeId: { ...uuid, type: ['string', 'null'] },
            country: { ...countrySchema, type: ['string', 'null'] },
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
      linkRequest('/api/v1/auth/magic-link', 'magic_link', 'E-mail a sign-in link (15 minutes, single use) if the address has an account; the answer is the same either way'),
      route<{ token: string }>({
        method: 'post',
        path: '/api/v1/auth/magic-link/verify',
        summary: 'Sign in with a magic link token; it works once. A user with a second factor gets `mfaRequired` and a login challenge, as login answers',
        auth: 'public',
        body: { type: 'object', required: ['token'], additionalProperties: false, properties: { token: linkToken } },
        response: signInAnswer,
        handler: async (ctx) => cookies.answer(ctx, await signIns.withMagicLink(ctx.body.token, deviceOf(ctx), ctx.actor)),
      }),
      linkRequest('/api/v1/auth/forgot-password', 'password_reset', 'E-mail a password-reset link (30 minutes, single use) if the address has an account; the answer is the same either way'),
      route<{ token: string; newPassword: string }>({
        method: 'post',
        path: '/api/v1/auth/reset-password',
        summary: 'Set a new password with a reset token (once); every session of the user ends',
        auth: 'public',
        body: { type: 'object', required: ['token', 'newPassword'], additionalProperties: false, properties: { token: linkToken, newPassword: password } },
        response: { type: 'object', properties: { reset: { const: true } } },
        handler: async (ctx) => {
          await accounts.resetPassword(ctx.body.token, ctx.body.newPassword, ctx.actor);
          return { reset: true };
        },
      }),
    ],
  };
}
