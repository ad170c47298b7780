import { randomBase62 } from './ids.js';

/** A public event type merchants can subscribe to: what emits it and what its `data` holds (docs/events.md). */
export interface PublicEventType {
  type: string;
  emittedBy: string;
  data: string;
}

/**
 * A family's public events: its types in the order docs/events.md gives them, and a realistic
 * example of each type's `data` for test events (docs/webhooks.md, "Sending a test event"), typed
 * as the family's own object so it keeps the real shape. Every id in an example holds `_test_`, so
 * no example can be mistaken for (or collide with) a real object.
 */
export interface PublicEvents {
  types: readonly PublicEventType[];
  example(type: string, created: number, livemode: boolean): object;
}

/** A test object's id: the real prefix, then `test_` (e.g. `pi_test_…`). */
export const testId = (prefix: string) => `${prefix}_test_${randomBase62(24)}`;

/** The currency and mobile number the examples use. */
export const CURRENCY = 'xof';
export const MSISDN = '+221770000000';

/** What a type says happened: `payout.paid` → `paid`. */
export function statusOf(type: string): string {
  return type.slice(type.indexOf('.') + 1);
}

/** The status the type leaves its object in, from the family's map of changes to statuses; the object's other fields follow it. */
export function statusFor<S extends string>(type: string, statuses: Record<string, S>): S {
  const status = statuses[statusOf(type)];
  if (status === undefined) throw new Error(`No test example for the event type '${type}'`);
  return status;
}

/**
 * The public event types merchants can subscribe to, what emits each, and what `data` holds: each
 * family's (its public-events.ts, which its manifest declares), in the catalogue's order.
 * packages/families/index.ts assembles it from the family list and hands it to what uses it.
 * docs/events.md is this list in prose; a unit test keeps them in step.
 */
export class PublicEventCatalogue {
  readonly types: readonly PublicEventType[];
  private readonly familyOfType: ReadonlyMap<string, PublicEvents>;

  constructor(families: readonly PublicEvents[]) {
    this.types = families.flatMap((family) => family.types);
    this.familyOfType = new Map(families.flatMap((family) => family.types.map((t) => [t.type, family] as const)));
    if (this.familyOfType.size !== this.types.length) throw new Error('Two families declare one public event type');
  }

  /** The type names, in the catalogue's order. */
  names(): string[] {
    return this.types.map((e) => e.type);
  }

  has(type: string): boolean {
    return this.familyOfType.has(type);
  }

  /** `*` or a known type. */
  isSubscribable(type: string): boolean {
    return type === '*' || this.has(type);
  }

  /** The public types a filter names; empty when it names none, so a mistyped filter can be refused. */
  matching(filter: string): string[] {
    return this.names().filter((t) => matchesTypeFilter(filter, t));
  }

  /** An example `data` for a public event type, its family's (docs/events.md says which object each carries). */
  example(type: string, created: number, livemode: boolean): object {
    const family = this.familyOfType.get(type);
    if (!family) throw new Error(`No test example for the event type '${type}'`);
    return family.example(type, created, livemode);
  }
}

/** Whether a type filter takes `type`: `*` (all), the type itself, or its family with `.*` (`payout.*`: every `payout.` type). */
export function matchesTypeFilter(filter: string, type: string): boolean {
  return filter === '*' || filter === type || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1)));
}
