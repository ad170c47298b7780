import { PUBLIC_EVENT_FAMILIES } from '../public-event-catalogue.js';
import type { PublicEventType } from '../public-events.js';

/**
 * The public event types merchants can subscribe to, what emits each, and what `data` holds: each
 * family's (its public-events.ts), in the catalogue's order. docs/events.md is this list in prose; a
 * unit test keeps them in step.
 */
export const PUBLIC_EVENT_TYPES: readonly PublicEventType[] = PUBLIC_EVENT_FAMILIES.flatMap((f) => f.types);

const TYPES = new Set(PUBLIC_EVENT_TYPES.map((e) => e.type));

export function isPublicEventType(type: string): boolean {
  return TYPES.has(type);
}

/** `*` or a known type. */
export function isSubscribableType(type: string): boolean {
  return type === '*' || TYPES.has(type);
}

/** Whether a type filter takes `type`: `*` (all), the type itself, or its family with `.*` (`payout.*`: every `payout.` type). */
export function matchesTypeFilter(filter: string, type: string): boolean {
  return filter === '*' || filter === type || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1)));
}

/** The public types a filter names; empty when it names none, so a mistyped filter can be refused. */
export function typesMatching(filter: string): string[] {
  return [...TYPES].filter((t) => matchesTypeFilter(filter, t));
}
