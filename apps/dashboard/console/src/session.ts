import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { Sika, SikaError } from '../../../../clients/typescript/src/index.js';

/**
 * The operator's session (docs/operator.md, "Signing in"): the session token lives in the HttpOnly
 * cookie `sika_operator_session` (Path /api/v1/operator) the page never sees; every call sends
 * `Sika-Operator-Cookie: 1`, which a page of another site cannot, for the cookie to count. Operators'
 * sessions are not merchants': no merchant token is ever sent from here.
 */
const COOKIE_MODE = 'sika-operator-cookie';

export type OperatorRole = 'reviewer' | 'risk' | 'finance' | 'admin';

export interface SignedInOperator {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
}

/** A sign-in under way: the code of the authenticator app is still to give (adding the app first, for `enroll_totp`). */
export interface SignInStarted {
  challengeToken: string;
  next: 'verify_totp' | 'enroll_totp';
  totp?: { secret?: string; otpauthUrl?: string };
  /** For an operator with passkeys: what one of them may sign in place of the app's code. */
  passkeyOptions?: unknown;
}

/**
 * The public API as the console calls it, typed from docs/openapi.json: no bearer token (the
 * client's empty `Bearer` is no credential, so the cookie answers) and no retries of a decision.
 */
export const api = new Sika({
  apiKey: '',
  environment: 'sandbox',
  baseUrl: window.location.origin,
  maxRetries: 0,
  fetch: (request: Request) => {
    request.headers.set(COOKIE_MODE, '1');
    return fetch(request);
  },
});

const operatorOf = (o: { id?: string; email?: string; name?: string; role?: string } | undefined): SignedInOperator => ({
  id: o?.id ?? '',
  email: o?.email ?? '',
  name: o?.name ?? '',
  role: (o?.role ?? 'reviewer') as OperatorRole,
});

/** The operator of the cookie's session, or null when there is none (signed out, ended or expired). */
export async function resume(): Promise<SignedInOperator | null> {
  try {
    return operatorOf((await api.get('/api/v1/operator/me')).operator);
  } catch (err) {
    // No session is the same 404 as an unknown path (operators' routes hide from others); an ended one is IKW-OPR-002.
    if (err instanceof SikaError && (err.status === 401 || err.status === 404)) return null;
    throw err;
  }
}

/** The password: a sign-in to complete with a code of the app (never a session by itself). */
export async function signIn(email: string, password: string): Promise<SignInStarted> {
  return started(await api.post('/api/v1/operator/auth/sign-in', { body: { email, password } }));
}

/** An invitation's token and the chosen password: a sign-in that adds the authenticator app. */
export async function acceptInvitation(token: string, password: string): Promise<SignInStarted> {
  return started(await api.post('/api/v1/operator/auth/invitation/accept', { body: { token, password } }));
}

function started(answer: { challengeToken?: string; next?: string; totp?: { secret?: string; otpauthUrl?: string }; passkeyOptions?: unknown }): SignInStarted {
  return {
    challengeToken: answer.challengeToken ?? '',
    next: answer.next === 'enroll_totp' ? 'enroll_totp' : 'verify_totp',
    ...(answer.totp ? { totp: answer.totp } : {}),
    ...(answer.passkeyOptions ? { passkeyOptions: answer.passkeyOptions } : {}),
  };
}

/** The code of the authenticator app: the session starts, in the cookie. */
export async function completeSignIn(challengeToken: string, code: string): Promise<SignedInOperator> {
  return operatorOf((await api.post('/api/v1/operator/auth/sign-in/complete', { body: { challengeToken, code } })).operator);
}

/** A passkey in place of the app's code: the browser asks the operator to use it, then the session starts. */
export async function completeSignInWithPasskey(started: SignInStarted): Promise<SignedInOperator> {
  const passkey = (await startAuthentication({ optionsJSON: started.passkeyOptions as Parameters<typeof startAuthentication>[0]['optionsJSON'] })) as never;
  return operatorOf((await api.post('/api/v1/operator/auth/sign-in/complete', { body: { challengeToken: started.challengeToken, passkey } })).operator);
}

/** Registers a passkey of this device or a security key, behind a code of the app. */
export async function addPasskey(code: string, nickname: string | null): Promise<void> {
  const { options } = await api.post('/api/v1/operator/me/passkeys/registration', { body: { code } });
  const response = (await startRegistration({ optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'] })) as never;
  await api.post('/api/v1/operator/me/passkeys', { body: { response, nickname } });
}

export async function signOut(): Promise<void> {
  await api.post('/api/v1/operator/auth/sign-out').catch(() => undefined);
}

/** Whether a failure is the session having ended (expired, signed out elsewhere, deactivated): sign in again. */
export const sessionEnded = (err: unknown) => err instanceof SikaError && (err.code === 'IKW-OPR-002' || (err.status === 404 && err.code === 'IKW-RTE-001'));
