import type { Clock } from '#packages/core/clock.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import type { EventMetadata } from './port.js';

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
