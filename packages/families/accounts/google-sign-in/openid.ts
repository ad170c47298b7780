import type { Configuration, IDToken } from 'openid-client';
import { Refusal } from '#packages/core/refusal.js';
import type { Logger } from '#packages/core/logger.js';
import type { AuthorizationRequest, OpenIdProvider, VerifiedIdentity } from './port.js';
import { accountErrors } from '../errors.js';

export interface OpenIdClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const isLoopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

// Loaded by the first sign-in with Google, not with the module: start-up that processes without
// it (the CLI's, most tests') would pay for nothing.
let openidClientLoading: Promise<typeof import('openid-client')> | undefined;
const openidClient = () => (openidClientLoading ??= import('openid-client'));

/**
 * Sign-in with Google through openid-client (v6: WebCrypto and fetch, Node 20+): discovery once
 * (again after a failure), authorization code with PKCE (S256), state and nonce. Plain http is
 * accepted only for an issuer on loopback (the test provider).
 */
export class OpenIdClientProvider implements OpenIdProvider {
  private configuration: Promise<Configuration> | null = null;

  constructor(
    private readonly settings: OpenIdClientSettings,
    private readonly log: Logger,
  ) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  private config(): Promise<Configuration> {
    if (!this.configuration) {
      const server = new URL(this.settings.issuer);
      const insecure = server.protocol === 'http:' && isLoopback(server);
      this.configuration = openidClient().then((oidc) => oidc.discovery(server, this.settings.clientId, this.settings.clientSecret, undefined, insecure ? { execute: [oidc.allowInsecureRequests] } : {}));
      this.configuration.catch(() => {
        this.configuration = null;
      });
    }
    return this.configuration;
  }

  private unverified(err: unknown, what: string): Refusal {
    this.log.warn({ err: err instanceof Error ? { name: err.name, message: err.message, code: (err as { code?: unknown }).code } : String(err) }, `sign-in with Google: ${what}`);
    return new Refusal('IKW-FED-004', accountErrors['IKW-FED-004'].message);
  }

  async authorizationUrl(request: AuthorizationRequest): Promise<string> {
    let config: Configuration;
    try {
      config = await this.config();
    } catch (err) {
      throw this.unverified(err, 'discovery failed');
    }
    const oidc = await openidClient();
    return oidc
      .buildAuthorizationUrl(config, {
        redirect_uri: request.redirectUri,
        response_type: 'code',
        scope: 'openid email profile',
        state: request.state,
        nonce: request.nonce,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      })
      .toString();
  }

  async exchange(redirectUri: string, callback: Record<string, string>, checks: { state: string; nonce: string; codeVerifier: string }): Promise<VerifiedIdentity> {
    let claims: IDToken | undefined;
    try {
      const config = await this.config();
      const current = new URL(redirectUri);
      for (const [name, value] of Object.entries(callback)) if (typeof value === 'string') current.searchParams.set(name, value);
      const oidc = await openidClient();
      const tokens = await oidc.authorizationCodeGrant(config, current, { expectedState: checks.state, expectedNonce: checks.nonce, pkceCodeVerifier: checks.codeVerifier, idTokenExpected: true });
      claims = tokens.claims();
    } catch (err) {
      throw this.unverified(err, 'the callback could not be verified');
    }
    if (!claims || typeof claims.sub !== 'string') throw this.unverified(new Error('no ID token'), 'no ID token');
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      emailVerified: claims.email_verified === true,
    };
  }
}
