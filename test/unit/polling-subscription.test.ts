/** The polling subscription's caughtUp never outlives the subscription (packages/eventstore/subscription.ts). */
import { EventEmitter } from 'node:events';
import t from '#tap';
import { pollingSubscription } from '#packages/eventstore/subscription.js';

t.test('caughtUp on a subscription stopped while it read the head answers at once', async (t) => {
  let releaseHead: (position: string) => void = () => undefined;
  const sub = pollingSubscription({
    after: null,
    handle: async () => undefined,
    read: async () => [],
    head: () => new Promise<string | null>((resolve) => (releaseHead = resolve)),
    wakeups: new EventEmitter(),
    pollIntervalMs: 10,
  });
  let answered = false;
  void sub.caughtUp().then(() => (answered = true));
  await sub.stop();
  releaseHead('0000000000000001/0000000000000001');
  // Settles within the same turn of the event loop; before the fix the waiter joined a stopped
  // subscription's list and was never resolved.
  await new Promise((resolve) => setImmediate(resolve));
  t.ok(answered);
});
