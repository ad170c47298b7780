/**
 * The customer portal's sign-in as a customer goes through it: the code is read from the message
 * the service wrote (a sandbox merchant's message to a customer outside its team is held in the
 * outbox, where it stays readable).
 */
import type { Test } from 'tap';
import { assertOk } from './assertions.js';
import type { TestService } from './system.js';

/** The six-digit code of the last portal code message to `email`. */
export async function portalCodeSentTo(svc: Pick<TestService, 'system'>, email: string): Promise<string> {
  const [mail] = await svc.system.outbox.kept({ channel: 'email', recipient: email, purpose: 'customer_portal_code' }, 1);
  const code = /(\d{6})/.exec(mail?.text ?? '')?.[1];
  if (!code) throw new Error(`no portal code was sent to ${email}`);
  return code;
}

/** A portal token of the API (Bearer cps_…) for `email`, a customer of the merchant's sandbox. */
export async function portalSignIn(t: Test, svc: TestService, merchantId: string, email: string): Promise<string> {
  const asked = await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId, environment: 'sandbox', email } });
  assertOk(t, asked);
  const verified = await svc.request('POST', '/api/v1/customer-portal/sign-in/verify', { body: { challengeId: asked.body.challengeId, code: await portalCodeSentTo(svc, email) } });
  assertOk(t, verified);
  return verified.body.token as string;
}
