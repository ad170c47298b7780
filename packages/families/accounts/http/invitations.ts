import type { SignUp } from '../user/signup.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { deviceOf, password, signInAnswer, type SessionCookies } from './auth.js';

/**
 * /api/v1/invitations (docs/accounts.md, "Team"): joining an organization with the token an
 * invitation e-mail carried. Invitations are made and revoked under /api/v1/merchant/team.
 */
export function invitationsRoutes(signUp: SignUp, cookies: SessionCookies): RouteGroup {
  return {
    name: 'invitations',
    description: "Accepting an invitation to join a merchant's team.",
    routes: [
      route<{ token: string; password?: string | null; name?: string | null }>({
        method: 'post',
        path: '/api/v1/invitations/accept',
        summary: 'Accept an invitation and sign in to its organization; someone without an account gives a password (≥ 8) and a name and gets one; a user with a second factor gets `mfaRequired` and a login challenge, as login answers',
        description:
          "The dashboard's invitation page calls it with the token of the invitation e-mail (`inv_…`, from the link's `token`). Someone without an account at the invited address gives a `password` (and a `name`) and gets an account, already verified, made in the same commit as the membership. Someone with an account gives the token alone (the link proved the mailbox) and joins with the invited role; if they have a second factor, the answer is `mfaRequired` with a `login` challenge, and the session starts, in the inviting organization, once it is answered. Either way the session acts in the inviting organization. A revoked, used or expired token is `IKW-ACC-006`; accepting twice at once makes one account and one membership.",
        refusals: ['IKW-ACC-006', 'IKW-ACC-012'],
        auth: 'public',
        body: {
          type: 'object',
          required: ['token'],
          additionalProperties: false,
          properties: {
            token: { type: 'string', minLength: 1, maxLength: 512, description: 'The invitation token from the e-mail link (`inv_…`): valid 7 days, once' },
            password: {
              ...password,
              type: ['string', 'null'],
              description: 'For someone without an account only, and then required (`IKW-VAL-001` without it): the password of the new account (8 to 256 characters). Ignored for an existing account',
            },
            name: {
              type: ['string', 'null'],
              minLength: 1,
              maxLength: 200,
              description: "For a new account: the person's name (the address's local part when left out). Ignored for an existing account",
            },
          },
        },
        response: signInAnswer,
        handler: async (ctx) => cookies.answer(ctx, await signUp.acceptInvitation(ctx.body.token, { password: ctx.body.password ?? null, name: ctx.body.name ?? null }, deviceOf(ctx), ctx.actor)),
      }),
    ],
  };
}
