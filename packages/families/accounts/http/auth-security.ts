import type { Knex } from 'knex';
import { normalizePhone } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import type { ContactChanges, CredentialChanges } from '../user/contact-changes.js';
import type { SignIns } from '../user/sign-in.js';
import type { SecondFactors } from '../user/second-factors.js';
import { MFA_PURPOSES, type MfaPurpose } from '../verification/events.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { listSecurityEvents } from '../read/user-security-events.js';
import { findUser } from '../read/users.js';
import type { Clock } from '#packages/core/clock.js';
import { deviceOf, email, mfaChallengeSchema, password, tokenPair, userOf, type SessionCookies } from './auth.js';
import { listSchema, signedIn } from '#packages/http/route-kit.js';

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
/** What using up a challenge may refuse: used, expired or spent (ACC-006), another purpose or unverified (ACC-007), another user's (RES-001). */
const CHALLENGE_REFUSALS = ['IKW-ACC-006', 'IKW-ACC-007', 'IKW-RES-001'] as const;
const done = (name: string) => ({ type: 'object', properties: { [name]: { const: true, description: `Always \`true\`: it is done` } } });

// Loaded by the first authenticator app set up, not with the routes: start-up that processes
// serving none (the CLI's, most tests') would pay for nothing.
let qrcodeLoading: Promise<typeof import('qrcode')> | undefined;
const qrcode = () => (qrcodeLoading ??= import('qrcode'));

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
export function authSecurityRoutes(knex: Knex, clock: Clock, secondFactors: SecondFactors, signIns: SignIns, changes: ContactChanges, cookies: SessionCookies): RouteGroup {
  /** Proving the current e-mail address or phone number: a code sent there, then checked. */
  const contactProof = (name: 'email' | 'phone', channel: 'email' | 'sms') => [
    route({
      method: 'post',
      path: `/api/v1/auth/verify-${name}/challenge`,
      summary: `Send a code to the signed-in user's current ${name === 'email' ? 'e-mail address' : 'phone number (by SMS)'} (10 minutes, 5 tries)`,
      description:
        name === 'email'
          ? "Proves the user's current e-mail address, for the onboarding checklist or after a change made at once (change-email): a six-digit code goes there, valid 10 minutes for 5 tries; give it to POST /api/v1/auth/verify-email. Rate-limited per user."
          : "Proves the user's current phone number, for the onboarding checklist or after a change made at once (change-phone): a six-digit code goes there by SMS, valid 10 minutes for 5 tries; give it to POST /api/v1/auth/verify-phone. A user with no phone number is `409 IKW-RES-002`. Rate-limited per user.",
      refusals: name === 'email' ? [] : ['IKW-RES-002'],
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
      description: `Answers the code sent by POST /api/v1/auth/verify-${name}/challenge: the ${name === 'email' ? 'address' : 'number'} it went to counts as verified from now on. A wrong code is \`IKW-ACC-005\` and spends one of the 5 tries; an expired, used or spent challenge is \`IKW-ACC-006\`: ask for a new one.`,
      refusals: ['IKW-ACC-005', 'IKW-ACC-006', 'IKW-RES-001'],
      auth: signedIn,
      body: {
        type: 'object',
        required: ['challengeId', 'code'],
        additionalProperties: false,
        properties: {
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
  const guardedChange = <B extends { challengeId: string }>(path: string, purpose: MfaPurpose, summary: string, description: string, properties: Record<string, unknown>, required: string[], toChanges: (body: B) => CredentialChanges) =>
    route<B>({
      method: 'post',
      path,
      summary,
      description,
      refusals: [...CHALLENGE_REFUSALS, 'IKW-ACC-001'],
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
    description: "The signed-in user's security: proving an e-mail address or phone number, changing them, the password, second factors (authenticator apps, recovery codes), and the account's activity log.",
    routes: [
      ...contactProof('email', 'email'),
      ...contactProof('phone', 'sms'),
      route<unknown, { limit?: number }>({
        method: 'get',
        path: '/api/v1/auth/security-events',
        summary: "The signed-in user's account activity, newest first: sign-ins and sign-outs, password, address and phone changes, factors added and removed, each with its address and user agent",
        description:
          'The user\'s own security log, for a "Recent activity" page: what happened to the account and from where (IP address, browser). Something the user does not recognise is the moment to change the password and revoke sessions. The newest `limit` entries, in one page.',
        refusals: [],
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
        description: 'Whether a move to a new e-mail address (POST /api/v1/auth/email-change/request) waits for its link to be used, to show it with a way to cancel it. A request whose link expired is no longer pending.',
        refusals: [],
        auth: signedIn,
        response: {
          type: 'object',
          properties: {
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
        description: 'Which Google account signs the user in, if any, for the security page\'s "Sign in with Google" row: connect one with POST /api/v1/auth/google/connect, remove it with google/disconnect.',
        refusals: [],
        auth: signedIn,
        response: {
          type: 'object',
          properties: {
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
        summary:
          "Ask for a second-factor challenge for an operation (5 minutes, single use), answered by the user's strongest factor: a passkey (the answer holds the WebAuthn options), the authenticator app, else a code sent by e-mail; adding a first factor (mfa/totp/setup, passkeys/register) is answered by the password",
        description:
          "The proof a guarded operation asks for (a change of password or address, a factor removed, an API key made, a payout to a new destination): ask for a challenge of that operation's `purpose`, answer it, then give its id to the operation within 5 minutes, where it is used up. `factor` says how to answer: a passkey (`options` go to `navigator.credentials.get`, the result to passkeys/assertion/complete), the authenticator app or an e-mailed code (POST /api/v1/auth/mfa/verify), or the password, only to add a first factor.",
        refusals: [],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['purpose'],
          additionalProperties: false,
          properties: { purpose: { ...mfaChallengeSchema.properties.purpose, enum: MFA_PURPOSES.filter((p) => p !== 'login'), description: 'The operation the challenge will allow, once answered' } },
        },
        response: mfaChallengeSchema,
        handler: (ctx) => secondFactors.challenge(userOf(ctx).userId, ctx.body.purpose, ctx.actor),
      }),
      route<{ challengeId: string; code: string }>({
        method: 'post',
        path: '/api/v1/auth/mfa/verify',
        summary: "Answer a challenge with the code (or a recovery code, or the password when the challenge's factor is `password`); a login challenge answers with the tokens. Five tries per challenge, and RATE_LIMIT_SECOND_FACTOR per user",
        description:
          'Verifies a challenge with what its `factor` asks for. A challenge of an operation is then ready to be used by it (`verified`); a `login` challenge (from a sign-in of a user with a second factor) answers the token pair, and starts the session. A wrong answer is `IKW-ACC-005` and spends one of 5 tries; an app code of a time step already used is refused too. A challenge answered by a passkey is `409 IKW-RES-002`: use passkeys/assertion/complete.',
        refusals: ['IKW-ACC-005', 'IKW-ACC-006', 'IKW-RES-001', 'IKW-RES-002'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['challengeId', 'code'],
          additionalProperties: false,
          properties: {
            challengeId: { ...uuid, description: 'The challenge to answer (from `mfa/challenge` or a sign-in)' },
            code: { ...answer, description: "A six-digit code (the app's or an e-mailed one), a recovery code (`xxxxx-xxxxx`), or the password when the challenge's factor is `password`" },
          },
        },
        response: {
          type: 'object',
          properties: {
            challengeId: { type: 'string', description: 'The challenge answered' },
            verified: { const: true, description: 'Always `true`: the challenge is verified' },
            ...tokenPair.properties,
          },
        },
        throttle: (body) => body.challengeId,
        handler: async (ctx) => cookies.answer(ctx, await signIns.answer(ctx.body.challengeId, ctx.body.code, deviceOf(ctx), ctx.actor)),
      }),
      route({
        method: 'get',
        path: '/api/v1/auth/mfa',
        summary: "What protects the signed-in user's account: the authenticator app, recovery codes left, verified e-mail and phone",
        description:
          "The state of the user's factors, for the security page: whether an authenticator app is set up and how many recovery codes are left (replace them before they run out), how many passkeys, which addresses are verified, and which factor answers the user's challenges.",
        refusals: [],
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
        description:
          'Adds an authenticator app (TOTP, 6 digits, 30 seconds) as a second factor, in two steps: this one uses up a verified `mfa/totp/setup` challenge (answered by the password when the user has no factor yet) and answers the secret to show as a QR code; POST /api/v1/auth/mfa/totp/verify confirms it with a code from the app. A user who already has an app is `409 IKW-RES-002`: disable it first.',
        refusals: [...CHALLENGE_REFUSALS, 'IKW-RES-002'],
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
          const QRCode = await qrcode();
          return { ...setup, qrCodeSvg: await QRCode.toString(setup.otpauthUrl, { type: 'svg', margin: 1 }) };
        },
      }),
      route<{ secretId: string; code: string }>({
        method: 'post',
        path: '/api/v1/auth/mfa/totp/verify',
        summary: 'Confirm the authenticator app with a code from it: it becomes the second factor; the answer holds ten recovery codes, shown this once',
        description:
          "Proves the app was set up right: with a code it shows now, it becomes the user's second factor, sign-ins ask for it, and every other session that never proved a second factor ends. The answer holds ten recovery codes, shown this once: each replaces an app code once, for a lost phone. A wrong code is `IKW-ACC-005` (check the phone's clock); an enrolment already confirmed is `409 IKW-RES-002`.",
        refusals: ['IKW-ACC-005', 'IKW-RES-001', 'IKW-RES-002'],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['secretId', 'code'],
          additionalProperties: false,
          properties: {
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
        description:
          'Removes the app and its recovery codes, using up a verified `mfa/totp/disable` challenge; the user is e-mailed. A user with no app is `409 IKW-RES-002`. An owner of an organization that requires a second factor cannot remove the last one (`409 IKW-ACC-010`; nothing is used up).',
        refusals: [...CHALLENGE_REFUSALS, 'IKW-RES-002', 'IKW-ACC-010'],
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
        description:
          'Makes ten new recovery codes, shown this once, and stops the old ones, using up a verified `mfa/recovery-codes` challenge: when few are left, or a copy may have leaked. A user with no authenticator app is `409 IKW-RES-002`.',
        refusals: [...CHALLENGE_REFUSALS, 'IKW-RES-002'],
        auth: signedIn,
        body: { type: 'object', required: ['challengeId'], additionalProperties: false, properties: { challengeId } },
        response: recoveryCodes,
        handler: (ctx) => secondFactors.replaceRecoveryCodes(userOf(ctx), ctx.body.challengeId, ctx.actor),
      }),
      guardedChange<{ challengeId: string; newPassword: string }>(
        '/api/v1/auth/change-password-mfa',
        'change-password-mfa',
        'Change the password behind a verified challenge instead of the current password; the other sessions end',
        'Sets a new password without the current one, proved instead by a verified `change-password-mfa` challenge (used up here): for a user who forgot it while signed in. Every other session of the user ends, and the user is e-mailed.',
        { newPassword: { ...password, description: 'The new password: 8 to 256 characters' } },
        ['newPassword'],
        (b) => ({ newPassword: b.newPassword }),
      ),
      guardedChange<{ challengeId: string; newEmail: string }>(
        '/api/v1/auth/change-email',
        'change-email',
        'Change the e-mail address at once behind a verified challenge (unverified until a link sent there is used; email-change/request proves it first)',
        'Moves the account to a new sign-in address at once, using up a verified `change-email` challenge; the old address is told. The new one is not verified until proved (verify-email); to prove it before moving, use email-change/request. An address another account holds is `409 IKW-ACC-001`, and nothing changes.',
        { newEmail: { ...email, description: 'The new sign-in e-mail address' } },
        ['newEmail'],
        (b) => ({ newEmail: b.newEmail }),
      ),
      guardedChange<{ challengeId: string; newPhone: string }>(
        '/api/v1/auth/change-phone',
        'change-phone',
        'Change the phone number at once behind a verified challenge (unverified; phone-change/request proves it first)',
        'Sets a new phone number at once, using up a verified `change-phone` challenge; the user is told. It is not verified until proved (verify-phone); to prove it before moving, use phone-change/request. A number that is not a valid international one is `IKW-VAL-001`.',
        { newPhone: { ...phone, description: 'The new phone number, international (`+221771234567`)' } },
        ['newPhone'],
        (b) => ({ newPhone: e164(b.newPhone, 'newPhone') }),
      ),
      guardedChange<{ challengeId: string; newEmail?: string | null; newPhone?: string | null; newPassword?: string | null }>(
        '/api/v1/auth/personal-info/sensitive',
        'personal-info/sensitive',
        'Change e-mail, phone and password in one step behind a verified challenge (at least one)',
        "The personal-information form's sensitive part: any of a new e-mail address, phone number and password, in one commit behind one verified `personal-info/sensitive` challenge, each as its own operation would (a new address or number unverified until proved, a new password ending the other sessions). A taken address is `409 IKW-ACC-001` and nothing changes; giving none of the three is `IKW-VAL-001`.",
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
        description:
          'The safe way to change the sign-in address: it uses up a verified `email-change/request` challenge and sends a link to the new address (1 hour, once); the account moves only when the link is used (email-change/confirm), verified. The old address is told. Your own address is `IKW-VAL-001`, one another account holds `409 IKW-ACC-001`.',
        refusals: [...CHALLENGE_REFUSALS, 'IKW-ACC-001'],
        auth: signedIn,
        status: 202,
        body: {
          type: 'object',
          required: ['challengeId', 'newEmail'],
          additionalProperties: false,
          properties: { challengeId, newEmail: { ...email, description: 'The address to move to: the link goes there' } },
        },
        response: {
          type: 'object',
          properties: {
            requestId: { type: 'string', description: 'The request: give it to email-change/cancel to stop it' },
            newEmail: { type: 'string', description: 'The address the link went to' },
            expiresAt: { type: 'string', format: 'date-time', description: 'When the link stops working (1 hour)' },
          },
        },
        handler: (ctx) => changes.requestEmailChange(userOf(ctx), ctx.body.challengeId, ctx.body.newEmail, ctx.actor),
      }),
      route<{ token: string }>({
        method: 'post',
        path: '/api/v1/auth/email-change/confirm',
        summary: 'Use the link sent to the new address: the account moves to it, verified',
        description:
          'What the page of the link sent by email-change/request calls: the account moves to the new address, verified, and the old one is free. It needs no session, the link being the proof. A used, expired or canceled link is `IKW-ACC-006`; an address taken meanwhile is `409 IKW-ACC-001`.',
        refusals: ['IKW-ACC-006', 'IKW-ACC-001'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['token'],
          additionalProperties: false,
          properties: { token: { type: 'string', minLength: 1, maxLength: 512, description: 'The token of the link (`ec_…`)' } },
        },
        response: { type: 'object', properties: { email: { type: 'string', description: 'The sign-in address now' } } },
        handler: (ctx) => changes.confirmEmailChange(ctx.body.token, ctx.actor),
      }),
      route<{ requestId: string }>({
        method: 'post',
        path: '/api/v1/auth/email-change/cancel',
        summary: 'Cancel a pending e-mail change: its link stops working',
        description: 'Stops a move to a new address before its link is used: the link is refused from now on and the address stays as it is. A request that is not pending is `404 IKW-RES-001`.',
        refusals: ['IKW-RES-001'],
        auth: signedIn,
        body: { type: 'object', required: ['requestId'], additionalProperties: false, properties: { requestId: { ...uuid, description: 'The `requestId` email-change/request answered' } } },
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
        description:
          'The safe way to change the phone number: it uses up a verified `phone-change/request` challenge and texts a six-digit code to the new number; the account moves only when the code is given to phone-change/verify, verified. A number that is not a valid international one is `IKW-VAL-001`.',
        refusals: [...CHALLENGE_REFUSALS],
        auth: signedIn,
        status: 202,
        body: {
          type: 'object',
          required: ['challengeId', 'newPhone'],
          additionalProperties: false,
          properties: { challengeId, newPhone: { ...phone, description: 'The number to move to, international (`+221771234567`): the code goes there' } },
        },
        response: {
          type: 'object',
          properties: {
            requestId: { type: 'string', description: 'The request: give it with the code to phone-change/verify' },
            newPhone: { type: 'string', description: 'The number the code went to, in E.164' },
            expiresAt: { type: 'string', format: 'date-time', description: 'When the code stops working (10 minutes)' },
          },
        },
        handler: (ctx) => changes.requestPhoneChange(userOf(ctx), ctx.body.challengeId, e164(ctx.body.newPhone, 'newPhone'), ctx.actor),
      }),
      route<{ requestId: string; code: string }>({
        method: 'post',
        path: '/api/v1/auth/phone-change/verify',
        summary: 'Verify the SMS code: the account moves to the new number, verified',
        description: 'Answers the code texted by phone-change/request: the account moves to the new number, verified. A wrong code is `IKW-ACC-005` and spends one of 5 tries; an expired or spent request is `IKW-ACC-006`.',
        refusals: ['IKW-ACC-005', 'IKW-ACC-006', 'IKW-RES-001'],
        auth: signedIn,
        body: {
          type: 'object',
          required: ['requestId', 'code'],
          additionalProperties: false,
          properties: {
            requestId: { ...uuid, description: 'The `requestId` phone-change/request answered' },
            code: { type: 'string', pattern: '^[0-9]{6}$', description: 'The six-digit code that was texted' },
          },
        },
        response: { type: 'object', properties: { phone: { type: 'string', description: 'The phone number now, in E.164' } } },
        throttle: (body) => body.requestId,
        handler: (ctx) => changes.verifyPhoneChange(userOf(ctx), ctx.body.requestId, ctx.body.code, ctx.actor),
      }),
    ],
  };
}
