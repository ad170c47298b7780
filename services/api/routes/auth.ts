import type { AppTokens } from '../../../packages/domain/user/commands.js';
import { route, type Family } from '../../../packages/http/routes.js';

const tokenPair = {
  type: 'object',
  properties: {
    accessToken: { type: 'string' },
    refreshToken: { type: 'string' },
    tokenType: { const: 'Bearer' },
    expiresIn: { type: 'integer' },
    user: { type: 'object', properties: { id: { type: 'string' }, email: { type: 'string' }, merchantId: { type: 'string' } } },
  },
};

/**
 * /api/v1/auth (camelCase bodies): sign-in and token refresh for dashboard users. The access token
 * is an AppToken: `Authorization: Bearer <accessToken>` with `X-Environment` choosing the environment.
 */
export function authFamily(appTokens: AppTokens): Family {
  return {
    name: 'auth',
    routes: [
      route<{ email: string; password: string }>({
        method: 'post',
        path: '/api/v1/auth/login',
        summary: 'Sign in with e-mail and password; returns an AppToken (15 min) and a rotating refresh token',
        auth: 'public',
        body: {
          type: 'object',
          required: ['email', 'password'],
          additionalProperties: false,
          properties: { email: { type: 'string', format: 'email', maxLength: 254 }, password: { type: 'string', minLength: 8, maxLength: 256 } },
        },
        response: tokenPair,
        throttle: (body) => body.email.toLowerCase(),
        handler: (ctx) => appTokens.login(ctx.body.email, ctx.body.password),
      }),
      route<{ refreshToken: string }>({
        method: 'post',
        path: '/api/v1/auth/refresh',
        summary: 'Exchange a refresh token for a new pair; each refresh token works once',
        auth: 'public',
        body: { type: 'object', required: ['refreshToken'], additionalProperties: false, properties: { refreshToken: { type: 'string', minLength: 1, maxLength: 512 } } },
        response: tokenPair,
        handler: (ctx) => appTokens.refresh(ctx.body.refreshToken),
      }),
    ],
  };
}
