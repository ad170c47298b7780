/**
 * Operators for tests (docs/operator.md): an operator of a role, invited as the CLI does, who
 * accepts the invitation, adds an authenticator app and signs in through the API, as a person would.
 */
import { generate } from 'otplib';
import type { OperatorRole } from '#packages/core/owner.js';
import type { TestService } from './system.js';

export const OPERATOR_PASSWORD = 'operator passphrase 1';

/** A signed-in operator: who, their app's secret (for later codes), and how to send their session. */
export interface TestOperator {
  operatorId: string;
  email: string;
  /** The session token (`Authorization: Bearer …`): pass it as `key` to `svc.request`. */
  token: string;
  /** The same session as headers: `{ authorization: 'Bearer …' }`. */
  headers: Record<string, string>;
  /** The authenticator app's secret, for codes of later sign-ins (`totpCode`). */
  totpSecret: string;
}

let made = 0;

/** A code of the app with `secret` at the service's (manual) clock. */
export function totpCode(svc: Pick<TestService, 'clock'>, secret: string): Promise<string> {
  return generate({ secret, epoch: Math.floor(svc.clock.now().getTime() / 1000) });
}

/** The token of an invitation link (`…/console/invitation?token=oi_…`). */
export const invitationToken = (url: string) => new URL(url).searchParams.get('token')!;

/** Accepts an invitation with OPERATOR_PASSWORD and completes the first sign-in by adding the app; throws on any refusal. */
export async function acceptInvitation(svc: TestService, token: string): Promise<Omit<TestOperator, 'email'>> {
  const accepted = await svc.request('POST', '/api/v1/operator/auth/invitation/accept', { body: { token, password: OPERATOR_PASSWORD } });
  if (accepted.status !== 200) throw new Error(`accepting an invitation: ${accepted.status} ${accepted.text}`);
  const totpSecret = accepted.body.totp.secret as string;
  const session = await svc.request('POST', '/api/v1/operator/auth/sign-in/complete', { body: { challengeToken: accepted.body.challengeToken, code: await totpCode(svc, totpSecret) } });
  if (session.status !== 200) throw new Error(`completing a first sign-in: ${session.status} ${session.text}`);
  const sessionToken = session.body.sessionToken as string;
  return { operatorId: session.body.operator.id, token: sessionToken, headers: { authorization: `Bearer ${sessionToken}` }, totpSecret };
}

/**
 * A new, active operator of `role`, signed in: invited by the service's own hand (as `bin/sika
 * operator users create` does), the invitation accepted, the authenticator app added.
 */
export async function operatorSession(svc: TestService, role: OperatorRole, email = `${role}-${++made}@ops.example`): Promise<TestOperator> {
  const invited = await svc.system.operators.invite({ email, name: `${role} ${made}`, role }, { actor: 'test' });
  return { email, ...(await acceptInvitation(svc, invitationToken(invited.invitationUrl))) };
}
