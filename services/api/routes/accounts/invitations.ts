import type { SignUp } from '../../../../packages/families/accounts/user/signup.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { deviceOf, password, signInAnswer, type SessionCookies } from './auth.js';

/**
 * /api/v1/invitations (docs/accounts.md, "Team"): joining an organization with the token an
 * invitation e-mail carried. Invitations are made and revoked under /api/v1/merchant/team.
 */
export function invitationsFamily(signUp: SignUp, cookies: SessionCookies): Family {
  return {
    name: 'invitations',
    description: 'Accepting an invitation to join a merchant\'s team.',
    routes: [
      route<{ token: string; password?: string | null; name?: string | null }>({
        method: 'post',
        path: '/api/v1/invitations/accept',
        summary: 'Accept an invitation and sign in to its organization; someone without an account gives a password (≥ 8) and a name and gets one; a user with a second factor gets `mfaRequired` and a login challenge, as login answers',
        auth: 'public',
        body: {
          type: 'object',
          required: ['token'],
          additionalProperties: false,
          properties: { token: { type: 'string', minLength: 1, maxLength: 512 }, password: { ...password, type: ['string', 'null'] }, name: { type: ['string', 'null'], minLength: 1, maxLength: 200 } },
        },
        response: signInAnswer,
        handler: async (ctx) => cookies.answer(ctx, await signUp.acceptInvitation(ctx.body.token, { password: ctx.body.password ?? null, name: ctx.body.name ?? null }, deviceOf(ctx), ctx.actor)),
      }),
    ],
  };
}
