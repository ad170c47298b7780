import type { Knex } from 'knex';
import QRCode from 'qrcode';
import { normalizePhone } from '../../../../packages/catalog/index.js';
import { ApiError } from '../../../../packages/core/errors.js';
import type { ContactChanges, CredentialChanges } from '../../../../packages/families/accounts/user/contact-changes.js';
import type { SignIns } from '../../../../packages/families/accounts/user/sign-in.js';
import type { SecondFactors } from '../../../../packages/families/accounts/user/second-factors.js';
import { MFA_PURPOSES, type MfaPurpose } from '../../../../packages/families/accounts/verification/events.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { listSecurityEvents } from '../../../../projections/accounts/user-security-events.js';
import { findUser } from '../../../../projections/accounts/users.js';
import type { Clock } from '../../../../packages/core/clock.js';
import { deviceOf, email, mfaChallengeSchema, password, tokenPair, userOf, type SessionCookies } from './auth.js';
import { listSchema, signedIn } from '../shared.js';

const uuid = { type: 'string', format: 'uuid' };
const challengeId = { ...uuid, description: "A verified challenge of this operation's purpose (`POST /api/v1/auth/mfa/challenge`), used within its 5 minutes" };
const phone = { type: 'string', minLength: 3, maxLength: 32 };
/** Six digits (an authenticator's or e-mailed code) or a recovery code `xxxxx-xxxxx`. */
/** `mfa/verify`: six digits, a recovery code, or, for a challenge whose factor is `password`, the password. */
const answer = { type: 'string', minLength: 6, maxLength: 256 };
const recoveryCodes = {
  type: 'object',
  properties: { recoveryCodes: { type: 'array', items: { type: 'string' }, description: 'Ten recovery codes (`xxxxx-xxxxx`), each usable once in place of an app code: shown this once, store them safely' } },
};
const done = (name: string) => ({ type: 'object', properties: { [name]: { const: true, description: `Always \`true\`: it is done` } } });

/** E.164 for a new phone number given in international format. */
function e164(input: string, param: string): string {
  const normalized = normalizePhone(input, 'SN');
  if (normalized === null) throw new ApiError('IKW-VAL-001', 'Not a valid phone number; give it in international format, e.g. +221771234567', param);
  return normalized;
}

/**
 * /api/v1/auth, what protects an account (docs/accounts.md, "Second factors" and "Changing e-mail,
 * phone and password"): challenges answered by the strongest factor, the authenticator app and its
 * recovery codes, and the changes each challenge guards.
 */
export function authSecurityFamily(knex: Knex, clock: Clock, secondFactors: SecondFactors, signIns: SignIns, changes: ContactChanges, cookies: SessionCookies): Family {
  /** Proving the current e-mail address or phone number: a code sent there, then checked. */
  const contactProof = (name: 'email' | 'phone', channel: 'email' | 'sms') => [
    route({
      method: 'post',
      path: `/api/v1/auth/verify-${name}/challenge`,
      summary: `Send a code to the signed-in user's current ${name === 'email' ? 'e-mail address' : 'phone number (by SMS)'} (10 minutes, 5 tries)`,
      auth: signedIn,
      status: 202,
      response: {
        type: 'object',
        properties: {
          challengeId: { type: 'string', format: 'uuid', description: 'The challenge: give it with the code to the matching verify route' },
          expiresAt: { type: 'string', format: 'date-time', description: 'When the code stops working (10 minutes after it was sent)' },
        },
      },
      throttle: (_body, principal) => principal?.user?.userId ?? 'anonymous',
      throttleEveryRequest: true,
      handler: (ctx) => changes.startContactProof(userOf(ctx), channel, ctx.actor),
    }),
    route<{ challengeId: string; code: string }>({
      method: 'post',
      path: `/api/v1/auth/verify-${name}`,
      summary: `Check that code: the current ${name === 'email' ? 'e-mail address' : 'phone number'} counts as verified (the onboarding checklist shows it)`,
      auth: signedIn,
      body: { type: 'object', required: ['challengeId', 'code'], additionalProperties: false, properties: {
            challengeId: { ...uuid, description: 'The `challengeId` the challenge route answered' },
            code: { type: 'string', pattern: '^[0-9]{6}$', description: 'The six-digit code that was sent' },
          },
        },
      response: {
        type: 'object',
        properties: { verified: { const: true, description: 'Always `true`: the code was right' }, address: { type: 'string', description: 'The address or number now verified' } },
      },
      throttle: (body) => body.challengeId,
      handler: (ctx) => changes.proveContact(userOf(ctx), channel, ctx.body.challengeId, ctx.body.code, ctx.actor),
    }),
  ];

  /** A change of credentials behind a challenge of the operation's own purpose. */
  const guardedChange = <B extends { challengeId: string }>(path: string, purpose: MfaPurpose, summary: string, properties: Record<string, unknown>, required: string[], toChanges: (body: B) => CredentialChanges) =>
    route<B>({
      method: 'post',
      path,
      summary,
      auth: signedIn,
      body: { type: 'object', required: ['challengeId', ...required], additionalProperties: false, properties: { challengeId, ...properties } },
      response: done('changed'),
      handler: async (ctx) => {
        await changes.change(userOf(ctx), purpose, ctx.body.challengeId, toChanges(ctx.body), ctx.actor);
        return { changed: true };
      },
    });

  return {
    name: 'auth-security',
    description: 'The signed-in user\'s security: proving an e-mail address or phone number, changing them, the password, second factors (authenticator apps, recovery codes), and the account\'s activity log.',
    routes: [
      ...contactProof('email', 'email'),
      ...contactProof('phone', 'sms'),
      route<unknown, { limit?: number }>({
        method: 'get',
        path: '/api/v1/auth/security-events',
        summary: "The signed-in user's account activity, newest first: sign-ins and sign-outs, password, address and phone changes, factors added and removed, each with its address and user agent",
        auth: signedIn,
        query: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many entries, newest first: 1 to 100, 20 when left out' } } },
        response: listSchema({
          type: 'object',
          properties: {
            id: { type: 'string', description: "The entry's id" },
            type: { type: 'string', description: 'What happened (a sign-in, a sign-out, a password, address or phone change, a factor added or removed)' },
            ip: { type: ['string', 'null'], description: 'The IP address it came from, or null' },
            userAgent: { type: ['string', 'null'], description: 'The User-Agent it came from, or null' },
            detail: { type: 'object', description: 'What more the entry records, by type' },
            createdAt: { type: 'string', format: 'date-time', description: 'When it happened (ISO 8601)' },
          },
        }),
        handler: async (ctx) => ({
          object: 'list',
          data: (await listSecurityEvents(knex, userOf(ctx).userId, ctx.query.limit ?? 20)).map((e) => ({ id: e.id, type: e.type, ip: e.ip, userAgent: e.user_agent, detail: e.detail, createdAt: e.created_at.toISOString() })),
        }),
      }),
      route({
        method: 'get',
        path: '/api/v1/auth/email-change',
        summary: 'The pending e-mail change of the signed-in user, or null',
        auth: signedIn,
        response: { type: 'object', properties: {
            pending: {
              type: ['object', 'null'],
              description: 'The change waiting for its link to be used, or null',
              properties: {
                requestId: { type: 'string', description: 'The request: the `requestId` that cancels it' },
                newEmail: { type: 'string', description: 'The address the link went to' },
                expiresAt: { type: 'string', format: 'date-time', description: 'When its link stops working' },
              },
            },
          },
        },
        handler: async (ctx) => {
          const user = (await findUser(knex, userOf(ctx).userId))!;
          const live = user.pending_email !== null && user.pending_email_expires_at!.getTime() > clock.now().getTime();
          return { pending: live ? { requestId: user.pending_email_request_id, newEmail: user.pending_email, expiresAt: user.pending_email_expires_at!.toISOString() } : null };
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/auth/google',
        summary: 'The Google account connected to the signed-in user, if any',
        auth: signedIn,
        response: { type: 'object', properties: {
            connected: { type: 'boolean', description: 'Whether a Google account is connected' },
            email: { type: ['string', 'null'], description: "The connected Google account's e-mail address, or null" },
            connectedAt: { type: ['string', 'null'], format: 'date-time', description: 'When it was connected, or null' },
          },
        },
        handler: async (ctx) => {
          const user = (await findUser(knex, userOf(ctx).userId))!;
          return { connected: user.google_email !== null, email: user.google_email, connectedAt: user.google_linked_at?.toISOString() ?? null };
        },
      }),
      route<{ purpose: MfaPurpose }>({
        method: 'post',
        path: '/api/v1/auth/mfa/challenge',
        summary: "Ask for a second-factor challenge for an operation (5 minutes, single use), answered by the user's strongest factor: a passkey (the answer holds the WebAuthn options), the authenticator app, else a code sent by e-mail; adding a first factor (mfa/totp/setup, passkeys/register) is answered by the password",
        auth: signedIn,
        body: { type: 'object', required: ['purpose'], additionalProperties: false, properties: { purpose: { ...mfaChallengeSchema.properties.purpose, enum: MFA_PURPOSES.filter((p) => p !== 'login'), description: 'The operation the challenge will allow, once answered' } } },
        response: mfaChallengeSchema,
        handler: (ctx) => secondFactors.challenge(userOf(ctx).userId, ctx.body.purpose, ctx.actor),
      }),
      route<{ challengeId: string; code: string }>({
        method: 'post',
        path: '/api/v1/auth/mfa/verify',
        summary: "Answer a challenge with the code (or a recovery code, or the password when the challenge's factor is `password`); a login challenge answers with the tokens. Five tries per challenge, and RATE_LIMIT_SECOND_FACTOR per user",
        auth: 'public',
        body: { type: 'object', required: ['challengeId', 'code'], additionalProperties: false, properties: {
            challengeId: { ...uuid, description: 'The challenge to answer (from `mfa/challenge` or a sign-in)' },
            code: { ...answer, description: "A six-digit code (the app's or an e-mailed one), a recovery code (`xxxxx-xxxxx`), or the password when the challenge's factor is `password`" },
          },
        },
        response: { type: 'object', properties: { challengeId: { type: 'string' }, verified: { const: true }, ...tokenPair.properties } },
        throttle: (body) => body.challengeId,
        handler: async (ctx) => cookies.answer(ctx, await signIns.answer(ctx.body.challengeId, ctx.body.code, deviceOf(ctx), ctx.actor)),
      }),
      route({
        method: 'get',
        path: '/api/v1/auth/mfa',
        summary: "What protects the signed-in user's account: the authenticator app, recovery codes left, verified e-mail and phone",
        auth: signedIn,
        response: {
          type: 'object',
          properties: {
            totpEnabled: { type: 'boolean', description: 'Whether an authenticator app is set up' },
            recoveryCodesRemaining: { type: 'integer', description: 'How many recovery codes are still unused' },
            emailVerified: { type: 'boolean', description: 'Whether the current e-mail address is verified' },
            phoneVerified: { type: 'boolean', description: 'Whether the current phone number is verified' },
            passkeys: { type: 'integer', description: 'How many passkeys are registered' },
            strongestFactor: {
              enum: ['passkey', 'totp', 'email'],
              description: "What answers the user's challenges",
              'x-enumDescriptions': { passkey: 'A passkey', totp: 'The authenticator app', email: 'A code by e-mail: no second factor yet' },
            },
          },
        },
        handler: async (ctx) => {
          const user = (await findUser(knex, userOf(ctx).userId))!;
          return {
            totpEnabled: user.totp_enabled,
            recoveryCodesRemaining: user.recovery_codes_remaining,
            emailVerified: user.email_verified_at !== null,
            phoneVerified: user.phone_verified_at !== null,
            passkeys: user.passkeys,
            strongestFactor: user.passkeys > 0 ? 'passkey' : user.totp_enabled ? 'totp' : 'email',
          };
        },
      }),
      route<{ challengeId: string }>({
        method: 'post',
        path: '/api/v1/auth/mfa/totp/setup',
        summary: 'Start setting up an authenticator app, behind a verified mfa/totp/setup challenge: its secret, the otpauth:// URI and a QR code (SVG) to scan; confirm with mfa/totp/verify',
        auth: signedIn,
        status: 201,
        body: { type: 'object', required: ['challengeId'], additionalProperties: false, properties: { challengeId } },
        response: {
          type: 'object',
          properties: {
            secretId: { type: 'string', description: 'The enrolment: give it with a code from the app to `mfa/totp/verify`' },
            secret: { type: 'string', description: 'The shared secret (base32), for typing into the app' },
            otpauthUrl: { type: 'string', description: 'The `otpauth://` URI holding the secret' },
            qrCodeSvg: { type: 'string', description: 'That URI as a QR code (SVG), to scan with the app' },
          },
        },
        handler: async (ctx) => {
          const setup = await secondFactors.startTotp(userOf(ctx), ctx.body.challengeId, ctx.actor);
          return { ...setup, qrCodeSvg: await QRCode.toString(setup.otpauthUrl, { type: 'svg', margin: 1 }) };
        },
      }),
      route<{ secretId: string; code: string }>({
        method: 'post',
        path: '/api/v1/auth/mfa/totp/verify',
        summary: 'Confirm the authenticator app with a code from it: it becomes the second factor; the answer holds ten recovery codes, shown this once',
        auth: signedIn,
        body: { type: 'object', required: ['secretId', 'code'], additionalProperties: false, properties: {
            secretId: { ...uuid, description: 'The `secretId` `mfa/totp/setup` answered' },
            code: { type: 'string', minLength: 6, maxLength: 6, description: 'The six-digit code the app shows now' },
          },
        },
        response: { type: 'object', properties: { enabled: { const: true, description: 'Always `true`: the app is now the second factor' }, ...recoveryCodes.properties } },
        throttle: (_body, principal) => principal?.user?.userId ?? 'anonymous',
        handler: (ctx) => secondFactors.activateTotp(userOf(ctx), ctx.body.secretId, ctx.body.code, ctx.actor),
      }),
      route<{ challengeId: string }>({
        method: 'post',
        path: '/api/v1/auth/mfa/totp/disable',
        summary: 'Remove the authenticator app (and its recovery codes), behind a verified mfa/totp/disable challenge',
        auth: signedIn,
        body: { type: 'object', required: ['challengeId'], additionalProperties: false, properties: { challengeId } },
        response: done('disabled'),
        handler: async (ctx) => {
          await secondFactors.disableTotp(userOf(ctx), ctx.body.challengeId, ctx.actor);
          return { disabled: true };
        },
      }),
      route<{ challengeId: string }>({
        method: 'post',
        path: '/api/v1/auth/mfa/recovery-codes',
        summary: 'Replace the recovery codes (the old ones stop working), behind a verified mfa/recovery-codes challenge; shown this once',
        auth: signedIn,
        body: { type: 'object', required: ['challengeId'], additionalProperties: false, properties: { challengeId } },
        response: recoveryCodes,
        handler: (ctx) => secondFactors.replaceRecoveryCodes(userOf(ctx), ctx.body.challengeId, ctx.actor),
      }),
      guardedChange<{ challengeId: string; newPassword: string }>('/api/v1/auth/change-password-mfa', 'change-password-mfa', 'Change the password behind a verified challenge instead of the current password; the other sessions end', { newPassword: { ...password, description: 'The new password: 8 to 256 characters' } }, ['newPassword'], (b) => ({ newPassword: b.newPassword })),
      guardedChange<{ challengeId: string; newEmail: string }>('/api/v1/auth/change-email', 'change-email', 'Change the e-mail address at once behind a verified challenge (unverified until a link sent there is used; email-change/request proves it first)', { newEmail: { ...email, description: 'The new sign-in e-mail address' } }, ['newEmail'], (b) => ({ newEmail: b.newEmail })),
      guardedChange<{ challengeId: string; newPhone: string }>('/api/v1/auth/change-phone', 'change-phone', 'Change the phone number at once behind a verified challenge (unverified; phone-change/request proves it first)', { newPhone: { ...phone, description: 'The new phone number, international (`+221771234567`)' } }, ['newPhone'], (b) => ({ newPhone: e164(b.newPhone, 'newPhone') })),
      guardedChange<{ challengeId: string; newEmail?: string | null; newPhone?: string | null; newPassword?: string | null }>(
        '/api/v1/auth/personal-info/sensitive',
        'personal-info/sensitive',
        'Change e-mail, phone and password in one step behind a verified challenge (at least one)',
        {
          newEmail: { ...email, type: ['string', 'null'], description: 'A new sign-in e-mail address, or null to keep it' },
          newPhone: { ...phone, type: ['string', 'null'], description: 'A new phone number (international), or null to keep it' },
          newPassword: { ...password, type: ['string', 'null'], description: 'A new password (8 to 256 characters), or null to keep it' },
        },
        [],
        (b) => {
          const result: CredentialChanges = {
            ...(b.newEmail != null ? { newEmail: b.newEmail } : {}),
            ...(b.newPhone != null ? { newPhone: e164(b.newPhone, 'newPhone') } : {}),
            ...(b.newPassword != null ? { newPassword: b.newPassword } : {}),
          };
          if (Object.keys(result).length === 0) throw new ApiError('IKW-VAL-001', 'Give newEmail, newPhone or newPassword', 'newEmail');
          return result;
        },
      ),
      route<{ challengeId: string; newEmail: string }>({
        method: 'post',
        path: '/api/v1/auth/email-change/request',
        summary: 'Ask to move to a new e-mail address behind a verified challenge: a link (1 hour, once) goes there, the old address is told',
        auth: signedIn,
        status: 202,
        body: { type: 'object', required: ['challengeId', 'newEmail'], additionalProperties: false, properties: { challengeId: uuid, newEmail: email } },
        response: { type: 'object', properties: { requestId: { type: 'string' }, newEmail: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } },
        handler: (ctx) => changes.requestEmailChange(userOf(ctx), ctx.body.challengeId, ctx.body.newEmail, ctx.actor),
      }),
      route<{ token: string }>({
        method: 'post',
        path: '/api/v1/auth/email-change/confirm',
        summary: 'Use the link sent to the new address: the account moves to it, verified',
        auth: 'public',
        body: { type: 'object', required: ['token'], additionalProperties: false, properties: { token: { type: 'string', minLength: 1, maxLength: 512 } } },
        response: { type: 'object', properties: { email: { type: 'string' } } },
        handler: (ctx) => changes.confirmEmailChange(ctx.body.token, ctx.actor),
      }),
      route<{ requestId: string }>({
        method: 'post',
        path: '/api/v1/auth/email-change/cancel',
        summary: 'Cancel a pending e-mail change: its link stops working',
        auth: signedIn,
        body: { type: 'object', required: ['requestId'], additionalProperties: false, properties: { requestId: uuid } },
        response: done('canceled'),
        handler: async (ctx) => {
          await changes.cancelEmailChange(userOf(ctx), ctx.body.requestId, ctx.actor);
          return { canceled: true };
        },
      }),
      route<{ challengeId: string; newPhone: string }>({
        method: 'post',
        path: '/api/v1/auth/phone-change/request',
        summary: 'Ask to move to a new phone number behind a verified challenge: a code goes there by SMS (10 minutes, 5 tries)',
        auth: signedIn,
        status: 202,
        body: { type: 'object', required: ['challengeId', 'newPhone'], additionalProperties: false, properties: { challengeId: uuid, newPhone: phone } },
        response: { type: 'object', properties: { requestId: { type: 'string' }, newPhone: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } },
        handler: (ctx) => changes.requestPhoneChange(userOf(ctx), ctx.body.challengeId, e164(ctx.body.newPhone, 'newPhone'), ctx.actor),
      }),
      route<{ requestId: string; code: string }>({
        method: 'post',
        path: '/api/v1/auth/phone-change/verify',
        summary: 'Verify the SMS code: the account moves to the new number, verified',
        auth: signedIn,
        body: { type: 'object', required: ['requestId', 'code'], additionalProperties: false, properties: { requestId: uuid, code: { type: 'string', pattern: '^[0-9]{6}$' } } },
        response: { type: 'object', properties: { phone: { type: 'string' } } },
        throttle: (body) => body.requestId,
        handler: (ctx) => changes.verifyPhoneChange(userOf(ctx), ctx.body.requestId, ctx.body.code, ctx.actor),
      }),
    ],
  };
}
