import { unixSeconds } from '../../core/clock.js';
import { testId } from '../../core/public-events.js';
import type { PublicEventCatalogue } from './event-types.js';

/**
 * Test events (docs/webhooks.md, "Sending a test event"): each public type's `data` is its family's
 * example (packages/families/<family>/[<aggregate>/]public-events.ts). The event's id is a test id too.
 */

/** The id of a test event: `evt_test_…` (a real event's is `evt_` and 24 characters). */
export const testEventId = () => testId('evt');

/** A test event of `type` as its webhook carries it: a real event's fields, plus `test: true`. */
export function testEventPayload(catalogue: PublicEventCatalogue, id: string, type: string, at: Date, livemode: boolean): string {
  const created = unixSeconds(at);
  return JSON.stringify({ id, object: 'event', type, created, livemode, test: true, data: catalogue.example(type, created, livemode) });
}
