import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { Sika, SikaError, type Environment, type ErrorCode } from '../../../../clients/typescript/src/index.js';

/**
 * The signed-in user's session (docs/accounts.md, "The dashboard's session"): the access token lives
 * in this module's memory only; the refresh token is an HttpOnly cookie the page never sees, sent
 * by the browser to /api/v1/auth/refresh with the `Sika-Refresh-Cookie` header. A reload gets a new
 * access token from it.
 */
const COOKIE_MODE = { 'Sika-Refresh-Cookie': '1' };

let accessToken = '';
/**
 * Whether this browser signed in and has not signed out since: not a secret, only whether asking
 * the cookie for a session is worth a request (a first visit has none to ask for).
 */
const SIGNED_IN_HINT = 'sika.signedIn';
let environment: Environment = 'sandbox';

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  organizationId: string;
  merchantId: string;
  role: string;
}

/** A second factor to prove before the session starts. */
export interface FactorAsked {
  challengeId: string;
  factor: 'totp' | 'email' | 'password' | 'passkey';
  /** With a passkey: the WebAuthn options the browser's assertion answers. */
  options?: unknown;
}

/** The public API with this session's access token and environment, typed from docs/openapi.json. */
export const sika = new Sika({ apiKey: () => accessToken, environment: () => environment, baseUrl: window.location.origin, maxRetries: 1, fetch: fetchRefreshing });

/**
 * The browser's fetch for `sika`: an answer that the access token expired (IKW-AUT-007) gets one
 * refresh from the cookie (none when another call's refresh already renewed it) and the request
 * once more, so no call (a query or a button's, wrapped in withSession or not) fails because the
 * 15-minute token ran out.
 */
async function fetchRefreshing(request: Request): Promise<Response> {
  const again = request.clone();
  const answer = await fetch(request);
  if (answer.status !== 401 || new URL(request.url).pathname === '/api/v1/auth/refresh') return answer;
  const code = (
    (await answer
      .clone()
      .json()
      .catch(() => null)) as { code?: string } | null
  )?.code;
  if (code !== 'IKW-AUT-007') return answer;
  // A query sent before another's refresh finished comes back expired after it: the new token
  // answers it, and a second refresh would be one too many.
  const renewed = again.headers.get('authorization') !== `Bearer ${accessToken}` && accessToken !== '';
  if (!renewed && (await resume()) === null) return answer;
  again.headers.set('authorization', `Bearer ${accessToken}`);
  return fetch(again);
}

export function setEnvironment(e: Environment): void {
  environment = e;
}

function started(answer: { accessToken?: string; user?: unknown }): SignedInUser {
  accessToken = answer.accessToken ?? '';
  localStorage.setItem(SIGNED_IN_HINT, '1');
  return answer.user as SignedInUser;
}

export async function signIn(email: string, password: string): Promise<SignedInUser | FactorAsked> {
  const answer = await sika.post('/api/v1/auth/login', { body: { email, password }, headers: COOKIE_MODE });
  return answer.mfaRequired ? factorAsked(answer) : started(answer);
}

/** Joins an organization with the token of an invitation's e-mail (a newcomer gives a password and a name); then as `signIn`. */
export async function acceptInvitation(token: string, password: string | null, name: string | null): Promise<SignedInUser | FactorAsked> {
  const answer = await sika.post('/api/v1/invitations/accept', { body: { token, password, name }, headers: COOKIE_MODE });
  return answer.mfaRequired ? factorAsked(answer) : started(answer);
}

/** A new account with its merchant and organization (docs/accounts.md, "Sign-up"), signed in; `emailChallengeId` is the verified code's. */
export async function register(body: { email: string; password: string; name: string; merchantName: string; emailChallengeId: string; country: string }): Promise<SignedInUser> {
  return started(await sika.post('/api/v1/auth/register', { body, headers: COOKIE_MODE }));
}

/** Signs in with an e-mailed link's token; the second factor may be asked first, as `signIn`. */
export async function signInWithLink(token: string): Promise<SignedInUser | FactorAsked> {
  const answer = await sika.post('/api/v1/auth/magic-link/verify', { body: { token }, headers: COOKIE_MODE });
  return answer.mfaRequired ? factorAsked(answer) : started(answer);
}

/** A sign-in's answer that a second factor is needed: the challenge, its factor, and a passkey's options. */
function factorAsked(answer: { challengeId?: string; factor?: FactorAsked['factor']; options?: unknown }): FactorAsked {
  return { challengeId: answer.challengeId!, factor: answer.factor!, ...(answer.options ? { options: answer.options } : {}) };
}

export async function proveFactor(challengeId: string, code: string): Promise<SignedInUser> {
  return started(await sika.post('/api/v1/auth/mfa/verify', { body: { challengeId, code }, headers: COOKIE_MODE }));
}

/** The browser's assertion for a challenge's WebAuthn options: the user touches or unlocks their passkey. */
export async function passkeyAssertion(options: unknown) {
  return (await startAuthentication({ optionsJSON: options as Parameters<typeof startAuthentication>[0]['optionsJSON'] })) as never;
}

/** The browser's new credential for registration options: the user creates a passkey on this device or a security key. */
export async function passkeyRegistration(options: unknown) {
  return (await startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] })) as never;
}

/** Answers a sign-in's passkey challenge (its options) with the passkey: the session starts. */
export async function proveWithPasskey(options: unknown): Promise<SignedInUser> {
  return started(await sika.post('/api/v1/auth/passkeys/assertion/complete', { body: { assertionResponse: await passkeyAssertion(options) }, headers: COOKIE_MODE }));
}

/** Signs in with a passkey alone (it verifies its user, so it is both factors; docs/accounts.md). */
export async function signInWithPasskey(): Promise<SignedInUser> {
  const challenge = await sika.post('/api/v1/auth/passkeys/login/begin', { headers: COOKIE_MODE });
  return started(await sika.post('/api/v1/auth/passkeys/login/complete', { body: { assertionResponse: await passkeyAssertion(challenge.options) }, headers: COOKIE_MODE }));
}

/** Where the key of a trip to Google waits for the way back (docs/accounts.md, "Bound to the browser that began"). */
const GOOGLE_EXCHANGE_KEY = 'sika.googleExchangeKey';
/** The dashboard's page Google's callback sends the browser back to. */
const googleReturnUrl = () => `${window.location.origin}/dashboard/google`;

/** Goes to Google to sign in (the page is left); back at /dashboard/google, `googleOutcome` finishes. */
export async function signInWithGoogle(): Promise<void> {
  toGoogle(await sika.post('/api/v1/auth/google/login', { body: { returnUrl: googleReturnUrl() } }));
}

/** Goes to Google to connect an account to the signed-in user, with a verified `google/connect` challenge. */
export async function connectGoogle(challengeId: string): Promise<void> {
  toGoogle(await sika.post('/api/v1/auth/google/connect', { body: { returnUrl: googleReturnUrl(), challengeId } }));
}

function toGoogle(start: { authorizationUrl?: string; exchangeKey?: string }): void {
  sessionStorage.setItem(GOOGLE_EXCHANGE_KEY, start.exchangeKey!);
  window.location.assign(start.authorizationUrl!);
}

export type GoogleOutcome = SignedInUser | FactorAsked | { connected: true; email: string } | null;
let googleOutcomeOnce: Promise<GoogleOutcome> | null = null;

/**
 * The outcome of the trip to Google this page came back from: the one-time code of the address's
 * fragment exchanged with the key this browser kept (signed in, the second factor asked, or an
 * account connected); null when the page was not reached from Google in this browser. Once per
 * page load: the code works once, and the fragment and key are cleared at once.
 */
export function googleOutcome(): Promise<GoogleOutcome> {
  googleOutcomeOnce ??= (async () => {
    const code = new URLSearchParams(window.location.hash.slice(1)).get('googleCode');
    const exchangeKey = sessionStorage.getItem(GOOGLE_EXCHANGE_KEY);
    window.history.replaceState(null, '', window.location.pathname);
    sessionStorage.removeItem(GOOGLE_EXCHANGE_KEY);
    if (!code || !exchangeKey) return null;
    const answer = await sika.post('/api/v1/auth/google/exchange', { body: { code, exchangeKey }, headers: COOKIE_MODE });
    if (answer.connected) return { connected: true, email: answer.email! };
    return answer.mfaRequired ? factorAsked(answer) : started(answer);
  })();
  return googleOutcomeOnce;
}

let refreshing: Promise<SignedInUser | null> | null = null;

/**
 * The session of the cookie, if there is a live one (after a reload, or when the access token
 * expired). Callers at the same moment (a page's queries whose token ran out together) share one
 * refresh: a refresh token works once, and using it twice would end the session.
 */
export function resume(): Promise<SignedInUser | null> {
  refreshing ??= refreshFromCookie().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

async function refreshFromCookie(): Promise<SignedInUser | null> {
  if (localStorage.getItem(SIGNED_IN_HINT) === null) return null;
  try {
    return started(await sika.post('/api/v1/auth/refresh', { body: {}, headers: COOKIE_MODE }));
  } catch (err) {
    if (err instanceof SikaError && (err.status === 400 || err.status === 401)) {
      localStorage.removeItem(SIGNED_IN_HINT);
      return null;
    }
    throw err;
  }
}

/**
 * Moves the session to an organization of the user (its first merchant), with a new access token;
 * the refresh cookie follows the session. `persist` makes it where later sign-ins start.
 */
export async function switchOrganization(organizationId: string, persist: boolean): Promise<SignedInUser> {
  accessToken = (await sika.post('/api/v1/organizations/switch', { body: { organizationId, persist } })).accessToken ?? '';
  const me = await sika.get('/api/v1/auth/me');
  return { id: me.id!, email: me.email!, name: me.name!, organizationId: me.organizationId!, merchantId: me.merchantId!, role: me.role! };
}

export async function signOut(): Promise<void> {
  await sika.post('/api/v1/auth/logout', { headers: COOKIE_MODE }).catch(() => undefined);
  accessToken = '';
  localStorage.removeItem(SIGNED_IN_HINT);
}

/** Runs `call`; an expired access token is refreshed from the cookie once and the call made again. */
export async function withSession<T>(call: () => Promise<T>, signedOut: () => void): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof SikaError) || err.code !== 'IKW-AUT-007') throw err;
    if ((await resume()) === null) {
      signedOut();
      throw err;
    }
    return call();
  }
}

/**
 * PUTs `body` to `path` of the API with this session's token and environment, telling `onProgress`
 * the bytes sent so far (fetch cannot report an upload's progress; XMLHttpRequest can). An error
 * answer is thrown as the client's SikaError, so withSession refreshes an expired token as usual.
 */
export function uploadWithProgress(path: string, body: Blob, onProgress: (sent: number, total: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', path);
    request.setRequestHeader('Authorization', `Bearer ${accessToken}`);
    request.setRequestHeader('X-Environment', environment);
    request.setRequestHeader('Content-Type', body.type || 'application/octet-stream');
    request.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : body.size);
    request.onerror = () => reject(new SikaError(0, undefined, `No answer from ${path}`, undefined, undefined, true));
    request.onload = () => {
      if (request.status < 300) return resolve();
      let answer: { code?: ErrorCode; message?: string; param?: string; request_id?: string; retryable?: boolean } = {};
      try {
        answer = JSON.parse(request.responseText) as typeof answer;
      } catch {
        // Not the API's error body: the status says enough.
      }
      reject(new SikaError(request.status, answer.code, answer.message ?? `HTTP ${request.status}`, answer.param, answer.request_id, answer.retryable ?? false));
    };
    request.send(body);
  });
}
