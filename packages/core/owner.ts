/** The vocabulary every layer shares: whose object, in which environment, and who acted. */

export type Environment = 'sandbox' | 'live';
export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'live'];

/** Whose object a command is about: another merchant's or environment's object is "no such object". */
export interface Owner {
  merchantId: string;
  environment: Environment;
}

/** Who did it, for the audit trail (docs/architecture.md, "Streams, events and ids"). */
export interface Actor {
  actor: string;
  requestId?: string;
  causationId?: string;
  /** The caller's address and user agent (HTTP requests): auditors see where a change came from. */
  ip?: string;
  userAgent?: string;
}

/**
 * The platform's own staff (docs/operator.md): `reviewer` reviews applications, `risk` sets limits
 * and holds, `finance` runs reconciliation and payouts, `admin` may do everything and runs the team.
 * An operator acting is the Actor `operator:<operatorId>`.
 */
export type OperatorRole = 'reviewer' | 'risk' | 'finance' | 'admin';
export const OPERATOR_ROLES: readonly OperatorRole[] = ['reviewer', 'risk', 'finance', 'admin'];

/**
 * The credential behind a change, where what it made goes on acting for it (an automation's
 * version): an API key by its id, or a signed-in user, whose authority is their role in the
 * merchant's organization.
 */
export type Credential = { type: 'api_key'; id: string } | { type: 'user'; id: string };

/**
 * Who asks for a change that a fresh second factor guards (a payout settings change, a payout to an
 * inline destination): a signed-in user, with the verified challenge they give, if any; or, with
 * `userId` null, a caller with no second factor behind it (an API key, an automation saved by one,
 * the service acting on its own).
 */
export interface Requester {
  userId: string | null;
  challengeId: string | null;
  /** Whether a refusal may show a bank account holder's name whole: a signed-in user with payouts rights (masked otherwise). */
  seesHolderNames?: boolean;
}

/** A caller with no second factor behind it and no challenge: an API key's request, the scheduler's job. */
export const UNATTENDED: Requester = { userId: null, challengeId: null };
