import { unixSeconds } from '../core/clock.js';
import { PUBLIC_EVENT_FAMILIES } from '../domain/public-event-catalogue.js';
import { testId } from '../domain/public-events.js';

/**
 * Test events (docs/webhooks.md, "Sending a test event"): each public type's `data` is its family's
 * example (packages/domain/<family>/public-events.ts). The event's id is a test id too.
 */

/** The id of a test event: `evt_test_…` (a real event's is `evt_` and 24 characters). */
export const testEventId = () => testId('evt');

const FAMILY_OF_TYPE = new Map(PUBLIC_EVENT_FAMILIES.flatMap((family) => family.types.map((t) => [t.type, family] as const)));

/** An example `data` for a public event type (docs/events.md says which object each carries). */
function sampleObject(type: string, created: number, livemode: boolean): object {
  const family = FAMILY_OF_TYPE.get(type);
  if (!family) throw new Error(`No test example for the event type '${type}'`);
  return family.example(type, created, livemode);
}

/** A test event of `type` as its webhook carries it: a real event's fields, plus `test: true`. */
export function testEventPayload(id: string, type: string, at: Date, livemode: boolean): string {
  const created = unixSeconds(at);
  return JSON.stringify({ id, object: 'event', type, created, livemode, test: true, data: sampleObject(type, created, livemode) });
}
