import type { EventEmitter } from 'node:events';
import type { RecordedEvent, SubscribeOptions, Subscription } from './port.js';

interface PollingOptions extends SubscribeOptions {
  read(after: string | null, limit: number): Promise<RecordedEvent[]>;
  head(): Promise<string | null>;
  /** Emits 'wake' when new events may be readable. */
  wakeups: EventEmitter;
  pollIntervalMs: number;
}

/**
 * A pull loop over the global log: read a batch after the checkpoint, hand it over, move on; when
 * nothing is readable, wait for a wake-up or the poll interval. One batch at a time, in order.
 */
export function pollingSubscription(options: PollingOptions): Subscription {
  const batchSize = options.batchSize ?? 100;
  let checkpoint = options.after;
  let stopped = false;
  let wake: (() => void) | null = null;
  let woken = false;
  const waiters: { target: string; resolve: () => void }[] = [];

  const onWake = () => {
    woken = true;
    wake?.();
  };
  options.wakeups.on('wake', onWake);

  const settleWaiters = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (checkpoint !== null && checkpoint >= w.target) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  };

  const idle = () =>
    new Promise<void>((resolve) => {
      if (woken || stopped) return resolve();
      const timer = setTimeout(done, options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const loop = (async () => {
    while (!stopped) {
      woken = false;
      let batch: RecordedEvent[];
      try {
        batch = await options.read(checkpoint, batchSize);
        if (batch.length > 0 && !stopped) {
          await options.handle(batch);
          checkpoint = batch[batch.length - 1]!.position;
          settleWaiters();
        }
      } catch (err) {
        options.onError?.(err);
        await idle();
        continue;
      }
      if (batch.length < batchSize) await idle();
    }
  })();

  return {
    async stop() {
      stopped = true;
      options.wakeups.off('wake', onWake);
      wake?.();
      await loop;
      for (const w of waiters.splice(0)) w.resolve();
    },
    async caughtUp() {
      const target = await options.head();
      // A subscription stopped meanwhile (while the head was read) reads no more: nothing to wait for.
      if (stopped || target === null || (checkpoint !== null && checkpoint >= target)) return;
      await new Promise<void>((resolve) => {
        waiters.push({ target, resolve });
        onWake();
      });
    },
  };
}

/**
 * The subscriptions a store has open, so that closing the store stops them: `track` hands out a
 * subscription that leaves the set when it is stopped.
 */
export class OpenSubscriptions {
  private readonly open = new Set<Subscription>();

  track(sub: Subscription): Subscription {
    this.open.add(sub);
    return {
      caughtUp: () => sub.caughtUp(),
      stop: async () => {
        this.open.delete(sub);
        await sub.stop();
      },
    };
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.open].map((s) => s.stop()));
  }
}
