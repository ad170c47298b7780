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
