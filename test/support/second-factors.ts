/**
 * Adding second factors as a dashboard does (docs/accounts.md, "Adding a factor"): a fresh challenge
 * of the enrolment's purpose, answered by the password (a user with no factor yet) or by a factor
 * the user has, then the enrolment itself.
 */
import { generate } from 'otplib';
import type { SoftwareAuthenticator } from './authenticator.js';
import type { TestService } from './system.js';

const post = (svc: TestService, path: string, body: unknown, key?: string) => svc.request('POST', path, { body, ...(key ? { key } : {}) });

/** The authenticator app's code now (the service's manual clock). */
export const totpCode = (secret: string, svc: TestService) => generate({ secret, epoch: Math.floor(svc.clock.now().getTime() / 1000) });

/** A verified challenge of `purpose` for a user with no second factor yet: answered by the password. */
export async function passwordChallenge(svc: TestService, token: string, purpose: string, password: string): Promise<string> {
  const challenge = await post(svc, '/api/v1/auth/mfa/challenge', { purpose }, token);
  if (challenge.status !== 200 || challenge.body.factor !== 'password') throw new Error(`challenge: ${challenge.status} ${challenge.text}`);
  const verified = await post(svc, '/api/v1/auth/mfa/verify', { challengeId: challenge.body.challengeId, code: password });
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${verified.text}`);
  return challenge.body.challengeId as string;
}

/** Sets up an authenticator app for a user with no second factor; the session of `token` goes on. */
export async function enableTotp(svc: TestService, token: string, password: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await post(svc, '/api/v1/auth/mfa/totp/setup', { challengeId: await passwordChallenge(svc, token, 'mfa/totp/setup', password) }, token);
  if (setup.status !== 201) throw new Error(`setup: ${setup.status} ${setup.text}`);
  const on = await post(svc, '/api/v1/auth/mfa/totp/verify', { secretId: setup.body.secretId, code: await totpCode(setup.body.secret, svc) }, token);
  if (on.status !== 200) throw new Error(`activate: ${on.status} ${on.text}`);
  return { secret: setup.body.secret, recoveryCodes: on.body.recoveryCodes };
}

/** Registers `device` as a passkey of a user with no second factor; the session of `token` goes on. */
export async function registerPasskey(svc: TestService, token: string, password: string, device: SoftwareAuthenticator, nickname = 'Laptop') {
  const options = await post(svc, '/api/v1/auth/passkeys/registration/begin', { challengeId: await passwordChallenge(svc, token, 'passkeys/register', password) }, token);
  if (options.status !== 200) throw new Error(`begin: ${options.status} ${options.text}`);
  const res = await post(svc, '/api/v1/auth/passkeys/registration/complete', { attestationResponse: device.register(options.body), nickname }, token);
  if (res.status !== 201) throw new Error(`complete: ${res.status} ${res.text}`);
  return res.body;
}
