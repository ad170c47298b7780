import type { PublicEvents, PublicEventType } from '../../core/public-events.js';

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
