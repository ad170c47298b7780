import type { Clock } from '../core/clock.js';
import type { EventMetadata } from '../eventstore/port.js';
import type { Actor, Owner } from '../core/owner.js';

export type { Actor, Credential, Owner } from '../core/owner.js';

/**
 * Who asks for a change that a fresh second factor guards (a payout settings change, a payout to an
 * inline destination): a signed-in user, with the verified challenge they give, if any; or, with
 * `userId` null, a caller with no second factor behind it (an API key, an automation saved by one,
 * the service acting on its own).
 */
export interface Requester {
  userId: string | null;
  challengeId: string | null;
}

/** A caller with no second factor behind it and no challenge: an API key's request, the scheduler's job. */
export const UNATTENDED: Requester = { userId: null, challengeId: null };

/** Metadata of every event: the owner, the object it is about (correlation), and who caused it. */
export function auditMetadata(clock: Clock, owner: Owner, correlationId: string, actor: Actor): EventMetadata {
  return {
    merchant_id: owner.merchantId,
    environment: owner.environment,
    correlation_id: correlationId,
    actor: actor.actor,
    occurred_at: clock.now().toISOString(),
    ...actorMetadata(actor),
  };
}

/** The request-scoped part of event metadata: request id, cause, address and user agent. */
export function actorMetadata(actor: Actor): EventMetadata {
  return {
    ...(actor.requestId ? { request_id: actor.requestId } : {}),
    ...(actor.causationId ? { causation_id: actor.causationId } : {}),
    ...(actor.ip ? { ip: actor.ip } : {}),
    ...(actor.userAgent ? { user_agent: actor.userAgent } : {}),
  };
}
