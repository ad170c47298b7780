/**
 * A real OpenID provider (the `oidc-provider` package) on loopback standing in for Google, and a
 * browser made of plain HTTP requests that goes through its authorization flow: the login
 * interaction and the consent, with the provider's cookies.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type JWKS } from 'oidc-provider';
import type { Test } from 'tap';

export interface TestGoogleAccount {
  email: string;
  email_verified: boolean;
}

export interface TestGoogle {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's accounts by `sub`; change them between sign-ins (a new address, unverified). */
  accounts: Map<string, TestGoogleAccount>;
  /**
   * Follows `authorizationUrl` as a browser would, signs in as `sub` at the login form and consents;
   * answers the redirect back to the client (the callback URL with `code`, `state`, `iss`).
   */
  authorize(authorizationUrl: string, sub: string): Promise<URL>;
}

export async function startTestGoogle(t: Test, redirectUri: string): Promise<TestGoogle> {
  const accounts = new Map<string, TestGoogleAccount>();
  const server = createServer();
  const port = await new Promise<number>((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'sika-test';
  const clientSecret = 'a test client secret that is long enough';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_post' }],
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // Google puts the e-mail claims in the ID token itself.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ['a test cookie key'] },
    // A signing key of the test's own (RS256, as Google's), instead of the provider's development keys.
    jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] } as JWKS,
  });
  const handle = provider.callback();
  // Koa answers its own errors (500), so the handler's promise never rejects.
  server.on('request', (req, res) => void handle(req, res));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function authorize(authorizationUrl: string, sub: string): Promise<URL> {
    const jar = new Map<string, string>();
    const go = async (url: URL, form?: Record<string, string>) => {
      const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
      if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await fetch(url, { method: form ? 'POST' : 'GET', headers, redirect: 'manual', ...(form ? { body: new URLSearchParams(form).toString() } : {}) });
      for (const cookie of res.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const eq = pair.indexOf('=');
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        if (value === '' || /expires=Thu, 01 Jan 1970/i.test(cookie)) jar.delete(name);
        else jar.set(name, value);
      }
      return res;
    };
    let res = await go(new URL(authorizationUrl));
    for (let hop = 0; hop < 12; hop++) {
      const location = res.headers.get('location');
      if (!location) throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`);
      const next = new URL(location, issuer);
      if (next.origin !== issuer) return next;
      if (!next.pathname.startsWith('/interaction/')) {
        res = await go(next);
        continue;
      }
      const page = await (await go(next)).text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
      if (!action || !prompt) throw new Error(`no interaction form: ${page}`);
      res = await go(new URL(action.replace(/&amp;/g, '&'), issuer), prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt });
    }
    throw new Error('too many redirects at the provider');
  }

  return { issuer, clientId, clientSecret, accounts, authorize };
}
