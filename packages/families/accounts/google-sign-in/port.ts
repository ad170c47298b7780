/**
 * The OpenID Connect provider that stands for Google (docs/accounts.md, "Sign-in with Google"): the
 * port. The adapter (packages/families/accounts/google-sign-in/openid.ts, openid-client) discovers the issuer, builds the
 * authorization URL and exchanges the code; tests run it against a real provider on loopback.
 */
export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  /** S256 of the PKCE verifier, which stays on the server. */
  codeChallenge: string;
}

/** What a verified ID token says about the Google account. */
export interface VerifiedIdentity {
  issuer: string;
  /** Google's stable id of the account. */
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export interface OpenIdProvider {
  readonly issuer: string;
  /** Where to send the browser: the provider's authorization endpoint with the request. */
  authorizationUrl(request: AuthorizationRequest): Promise<string>;
  /**
   * Exchanges the callback's code (with the PKCE verifier) and verifies the ID token: signature,
   * issuer, audience, lifetime, `state` and `nonce`. Any failure, an `error` from the provider
   * included, is IKW-FED-004.
   */
  exchange(redirectUri: string, callback: Record<string, string>, checks: { state: string; nonce: string; codeVerifier: string }): Promise<VerifiedIdentity>;
}
